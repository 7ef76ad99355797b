package llmsim.cli;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioValues;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.PipelineSchedule;
import llmsim.core.task.Task;
import llmsim.core.workload.StepResult;

/**
 * The scenario a result ran, as keys of the one table ({@link ScenarioKey}) with their values as a scenario file
 * writes them: written back as a file, or given as the flags of {@link #command}, it runs the same step to the same
 * bytes. The values are the step's own ({@link ScenarioValues#describe}, as reports and sweep rows show them), so plan
 * auto's and advise's choices come out as the plan they chose. A key is left out where it does not apply to the step,
 * where it stands at the table's default ({@link ScenarioKey#defaultText}) or at the default other keys give it, and
 * where other keys already say it (nodes, global_batch, plan); the job's keys (its size and prices) are not the step's.
 * Hardware and model are their ids: a result of a user's .yaml file names the file's id, not its path.
 */
final class ScenarioEcho {
  private ScenarioEcho() {}

  /** The keys and values, in the table's order. */
  static Map<ScenarioKey, Object> of(StepResult r) {
    Task t = r.task();
    EnumMap<ScenarioKey, Object> used = ScenarioValues.describe(t, r.software());
    used.put(ScenarioKey.HARDWARE, r.system().id());
    used.put(ScenarioKey.MODEL, r.model().id());
    used.put(ScenarioKey.GPUS, r.system().totalDevices());
    // describe gives the KV cache's size; the key is the n_ctx given, if one was
    used.put(ScenarioKey.CONTEXT, t.context() > 0 ? t.context() : null);
    used.put(ScenarioKey.SOFTWARE_DATE, softwareDate(r.software()));
    if (used.get(ScenarioKey.SCHEDULE) != null && t.plan().schedule() == (t.plan().virtualStages() > 1
        ? PipelineSchedule.INTERLEAVED : PipelineSchedule.ONE_F_ONE_B)) {
      used.remove(ScenarioKey.SCHEDULE); // what virtual_stages gives it
    }
    Map<ScenarioKey, Object> m = new LinkedHashMap<>();
    used.forEach((k, v) -> {
      boolean said = k == ScenarioKey.NODES || k == ScenarioKey.GLOBAL_BATCH || k == ScenarioKey.PLAN;
      if (v != null && !said && !k.jobKey() && !k.defaultText().map(String.valueOf(v)::equals).orElse(false)) {
        m.put(k, v);
      }
    });
    return m;
  }

  /** As {@link #of}, keyed by the file's keys: the JSON's {@code scenario}. */
  static Map<String, Object> json(StepResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    of(r).forEach((k, v) -> m.put(k.key(), v));
    return m;
  }

  /** The command line of {@link #of}'s keys: {@code llmsim simulate --hardware ... --model ...}. */
  private static String command(StepResult r) {
    List<String> words = new ArrayList<>(List.of("llmsim", "simulate"));
    of(r).forEach((k, v) -> {
      words.add(k.flag());
      words.add(String.valueOf(v));
    });
    return String.join(" ", words);
  }

  /**
   * The command line that runs the step again: {@link #of}'s keys as their flags, and the --set changes of
   * {@code catalog} (the one the step ran on) that touch its system or model: without them the command runs the
   * catalog's figures, not the step's. A change to another
   * system's part is left out, since simulate refuses a --set on a part its run does not use.
   */
  static String command(StepResult r, llmsim.hw.catalog.Catalog catalog) {
    StringBuilder b = new StringBuilder(command(r));
    java.util.Set<String> parts = ScenarioOptions.Resolved.partIds(catalog, List.of(r.system()), List.of(r.model()));
    for (llmsim.hw.catalog.FieldOverride o : catalog.overrides()) {
      if (parts.contains(o.target())) {
        String assignment = o.flag().substring("--set ".length());
        b.append(" --set ").append(assignment.matches("[A-Za-z0-9_.,:=+/@%-]+") ? assignment
            : "'" + assignment.replace("'", "'\\''") + "'");
      }
    }
    return b.toString();
  }

  /** The build a dated profile ran at, where it is not the profile's own; a date recorded on another profile. */
  private static String softwareDate(SoftwareProfile sw) {
    SoftwareProfile own = SoftwareProfiles.find(sw.id()).orElse(sw);
    if (sw.llamaCpp() != null) {
      return sw.llamaCpp().date().equals(own.llamaCpp().date()) ? null : sw.llamaCpp().date().toString();
    }
    if (sw.mlx() != null && !sw.mlx().equals(own.mlx())) {
      return sw.mlx().date().toString();
    }
    return sw.recordedDate();
  }
}
