package llmsim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioValues;
import llmsim.core.workload.DecodeTrajectory;
import llmsim.core.workload.StepResult;
import llmsim.report.BoundsChart;
import llmsim.report.ChartFiles;
import llmsim.report.ChartStyle;
import llmsim.report.ChromeTrace;
import llmsim.report.HtmlReport;
import llmsim.report.MemoryChart;
import llmsim.report.TimelineChart;
import llmsim.report.ReportFolder;
import llmsim.report.roofline.RooflineChart;
import llmsim.report.roofline.RooflineData;
import org.jfree.chart.JFreeChart;
import picocli.CommandLine.Option;

/** {@code --out DIR}: charts (PNG + SVG), trace.json and report.html for simulate and compare. */
final class ReportOutput {
  @Option(names = "--out", paramLabel = "DIR", description = "Also write timeline, memory, bounds and roofline charts (PNG and SVG), "
      + "trace.json (Perfetto / chrome://tracing) and a self-contained report.html into DIR (at most "
      + ReportOutput.MAX_SYSTEMS + " systems). Files an earlier llmsim report wrote there and this one does not are removed "
      + "(they are listed in DIR/" + ReportFolder.MANIFEST + "); other files are left alone.")
  Path out;

  static {
    // as ChartStyle does: every command formats in US English (picocli creates this mixin for each run)
    Locale.setDefault(Locale.US);
  }

  /**
   * The chart style, on first use only: its AWT fonts and colours take ~30 ms to initialise, which a
   * run without --out need not pay (picocli creates this mixin for every command line).
   */
  static ChartStyle style() {
    return ChartStyle.DEFAULT;
  }

  /**
   * The most systems one report draws: every system adds a timeline and a roofline chart (PNG, SVG and the PNG
   * again inside report.html), and a chart's legend stops being readable long before; 1,000 systems took minutes
   * and gigabytes. A sweep is the tool for many systems.
   */
  static final int MAX_SYSTEMS = 16;

  /** {@link #prepare(Path)}, after refusing more systems than a report draws (exit code 2, nothing written). */
  static Path prepare(Path dir, int systems, String flag) {
    checkSystems(systems, flag);
    return prepare(dir);
  }

  /** Refuses more systems than a report draws (exit code 2). */
  static void checkSystems(int systems, String flag) {
    if (systems > MAX_SYSTEMS) {
      throw new BadFlagException("--out draws at most " + MAX_SYSTEMS + " systems, but " + flag + " names " + systems
          + "; drop --out, split the systems over several runs, or use llmsim sweep");
    }
  }

  /**
   * Refuses more systems than a command whose charts are its output (--out required: roofline, sweep-chart) draws;
   * {@link #checkSystems}'s first advice, 'drop --out', cannot apply there.
   */
  static void checkSystemsDrawn(int systems, String command) {
    if (systems > MAX_SYSTEMS) {
      throw new BadFlagException("--hardware: " + command + " draws at most " + MAX_SYSTEMS + " systems, but --hardware"
          + " names " + systems + "; split them over several runs");
    }
  }

  /**
   * Checks, before any simulation runs, that the folder exists and is writable or can be made (exit code 2
   * otherwise), and makes nothing: {@link #open} makes it once there is a report to write, so a run refused after
   * its input is read (plan auto finding no plan that fits) leaves no empty folder behind.
   */
  static Path prepare(Path dir) {
    if (Files.exists(dir) && !Files.isDirectory(dir)) {
      throw new BadFlagException("--out: " + dir + " is a file; give a folder (it is created if missing)");
    }
    Path existing = dir.toAbsolutePath();
    while (existing != null && !Files.exists(existing)) {
      existing = existing.getParent();
    }
    if (existing == null || !Files.isDirectory(existing)) {
      throw new BadFlagException("--out: cannot create folder " + dir + " (" + (existing == null ? "no part of it"
          + " exists" : existing + " is a file") + ")");
    }
    if (!Files.isWritable(existing)) {
      throw new BadFlagException(existing.equals(dir.toAbsolutePath()) ? "--out: folder " + dir + " is not writable"
          : "--out: cannot create folder " + dir + " (" + existing + " is not writable)");
    }
    return dir;
  }

  /** The report folder {@link #prepare} checked, made now (with any missing parents) that there is a report to write. */
  static ReportFolder open(Path dir, String kind) {
    try {
      Files.createDirectories(dir);
    } catch (IOException | SecurityException e) {
      throw new BadFlagException("--out: cannot create folder " + dir + " (" + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
    }
    return ReportFolder.open(dir, kind);
  }

  /**
   * Writes every file as one unit (see {@link ReportFolder}); returns the paths written, in a stable order, after
   * saying on {@code err} which files of an earlier report were removed.
   */
  static List<Path> write(Path dir, List<StepResult> results, TextTable table, Costing costing, PrintWriter err) {
    long drawn = 0;
    for (StepResult r : results) {
      drawn += ChromeTrace.drawnOps(r.trace());
    }
    try {
      llmsim.core.workload.OpBudget.checkReported(drawn, Runtime.getRuntime().maxMemory());
    } catch (IllegalStateException e) {
      throw new BadFlagException("--out: " + e.getMessage());
    }
    try (ReportFolder folder = open(dir, "report")) {
      List<Path> written = new ArrayList<>();
      StepResult first = results.get(0);
      String what = first.model().name() + ", " + first.task().kind().key();
      List<HtmlReport.Image> images = new ArrayList<>();
      for (StepResult r : results) {
        String name = results.size() == 1 ? "timeline" : "timeline-" + safe(r.system().id());
        JFreeChart c = TimelineChart.create("Simulated " + (r.task().kind().training() ? "step" : "run") + ": " + what
            + " on " + r.system().id(), r.trace(), style());
        int lanes = TimelineChart.shownStreams(r.trace()).length;
        written.addAll(ChartFiles.write(c, folder, name, style().width(), 150 + 90 * lanes));
        images.add(new HtmlReport.Image("Timeline: " + r.system().id(), ChartFiles.png(c, style().width(), 150 + 90 * lanes)));
      }
      JFreeChart memory = MemoryChart.create("Memory: " + what, results.stream()
          .map(r -> new MemoryChart.Entry(r.system().id(), r.memory())).toList(), style());
      written.addAll(ChartFiles.write(memory, folder, "memory", style().width(), style().height()));
      images.add(new HtmlReport.Image("Memory on the device against usable capacity", ChartFiles.png(memory, style().width(), style().height())));
      JFreeChart bounds = BoundsChart.create("Time by bound: " + what, results.stream()
          .map(r -> new BoundsChart.Entry(r.system().id(), r.timeByBound())).toList(), style());
      written.addAll(ChartFiles.write(bounds, folder, "bounds", style().width(), 200 + 110 * results.size()));
      images.add(new HtmlReport.Image("Time by bound", ChartFiles.png(bounds, style().width(), 200 + 110 * results.size())));
      List<RooflineData> roofs = new ArrayList<>();
      for (StepResult r : results) {
        RooflineData d = roofline(r);
        roofs.add(d);
        JFreeChart c = RooflineChart.create("Roofline: " + r.system().id() + " with " + what, List.of(d), style());
        written.addAll(ChartFiles.write(c, folder, "roofline-" + safe(r.system().id()), style().width(), style().height()));
        images.add(new HtmlReport.Image("Roofline: " + r.system().id(), ChartFiles.png(c, style().width(), style().height())));
      }
      written.add(folder.writeString("trace.json", ChromeTrace.write(results.stream()
          .map(r -> new ChromeTrace.Process(r.system().id() + ": " + what, r.trace(), r.memory())).toList())));
      // each system's explanation, its job's price source (or why it has none), then its warnings as the terminal
      // prints them (a changed default precision, replicas summed, a plan setting that does nothing, a --set
      // override): the page had the numbers without them, a cost without its price or 'no price' without why
      List<String[]> why = results.stream().flatMap(r -> java.util.stream.Stream.concat(
          java.util.stream.Stream.<String[]>of(new String[] {r.system().id(), r.explanation()}, costing == null ? null
              : new String[] {r.system().id(), ResultFormat.costNote(costing.job(r), r)}).filter(java.util.Objects::nonNull),
          r.warnings().stream().map(w -> new String[] {r.system().id() + ": warning", w}))).toList();
      List<List<String>> rows = new ArrayList<>(scenarioRows(results));
      rows.addAll(planRows(results));
      rows.addAll(otherRows(results));
      results.forEach(r -> rows.add(List.of("hardware " + r.system().id(), r.system().name())));
      HtmlReport.Table scenario = new HtmlReport.Table("Scenario", List.of("key", "value"), rows);
      HtmlReport.Table tab = new HtmlReport.Table("Results", table.header(), table.rows());
      written.add(folder.writeString("report.html", HtmlReport.render("llmsim: " + what, List.of(scenario, tab), why, images)));
      commit(folder, err);
      return written;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Moves the staged files into place and says which files of an earlier run of the same kind were removed. */
  static void commit(ReportFolder folder, PrintWriter err) throws IOException {
    List<Path> removed = folder.commit();
    if (!removed.isEmpty()) {
      err.println("--out: removed " + removed.size() + " file(s) an earlier run wrote into " + folder.dir()
          + " and this one replaces: " + String.join(", ", removed.stream().map(p -> p.getFileName().toString()).toList()));
    }
  }

  /** The largest batch the decode trajectory on a roofline reaches (batch 1, 2, 4, ... 1,024). */
  static final int TRAJECTORY_MAX_BATCH = 1024;

  /** A run's roofline: its ops, its precision's ceiling and, for inference, the decode step at growing batch. */
  static RooflineData roofline(StepResult r) {
    DecodeTrajectory decode = r.task().kind().training() ? null
        : DecodeTrajectory.of(r.system(), r.model(), r.task(), r.software(), TRAJECTORY_MAX_BATCH);
    return RooflineData.of(r, prefillEnd(r), decode);
  }

  static int prefillEnd(StepResult r) {
    if (r.task().kind().training()) {
      return -1;
    }
    // the prefill phase ends where the TTFT is reached: the last op that ends at ttft
    int last = -1;
    for (int i = 0; i < r.trace().size(); i++) {
      if (r.trace().end()[i] <= r.ttftSeconds()) {
        last = i;
      }
    }
    return last;
  }

  static List<List<String>> scenarioRows(List<StepResult> results) {
    StepResult r = results.get(0);
    var t = r.task();
    List<List<String>> rows = new ArrayList<>();
    rows.add(List.of("model", r.model().id() + " (" + r.model().name() + ")"));
    rows.add(List.of("task", t.kind().key()));
    // a default precision a device lacks runs as another there (bf16 as fp16 on an M2 Ultra): the first system's
    // read as every system's
    // full training has no stored format of its own: its weights are at the precision ('bf16 / f16' read otherwise)
    String label = ResultFormat.weights(t) == null ? "precision" : "precision / weights";
    java.util.function.Function<StepResult, String> value = x -> x.task().precision().key()
        + (ResultFormat.weights(x.task()) == null ? "" : " / " + ResultFormat.weights(x.task()));
    if (results.stream().map(x -> x.task().precision()).distinct().count() == 1) {
      rows.add(List.of(label, value.apply(r)));
    } else {
      results.forEach(x -> rows.add(List.of(label + " " + x.system().id(), value.apply(x))));
    }
    rows.add(List.of(t.kind().training() ? "batch (micro-batch)" : "batch", String.valueOf(t.batch())));
    if (t.kind().training()) {
      rows.add(List.of("sequence length", t.seqLen() + " tokens"));
      rows.add(List.of("recompute", t.recompute().key()));
    } else {
      rows.add(List.of("prompt + generated tokens", t.promptTokens() + " + " + t.generateTokens()));
    }
    rows.add(List.of("offload (requested)", t.offload().key()));
    rows.add(List.of("software", r.software().id()));
    return rows;
  }

  /** The plan keys shown by their scenario names where a run used them; the others where set away from their default. */
  private static final List<ScenarioKey> PLAN_KEYS = List.of(ScenarioKey.TP, ScenarioKey.PP, ScenarioKey.DP,
      ScenarioKey.ZERO, ScenarioKey.SHARD, ScenarioKey.SEQUENCE_PARALLEL, ScenarioKey.VIRTUAL_STAGES,
      ScenarioKey.MICRO_BATCHES, ScenarioKey.GLOBAL_BATCH, ScenarioKey.SCHEDULE, ScenarioKey.OVERLAP_GRAD_REDUCE,
      ScenarioKey.ALL_GPUS);

  /**
   * The parallel plan each run used, key by key (tp, pp, dp, zero, micro_batches, global_batch, schedule, all_gpus
   * where set ...), as the text's plan line gives it: one row where every system ran the same value, one row per
   * system where they differ (plan auto picks per system).
   */
  static List<List<String>> planRows(List<StepResult> results) {
    List<java.util.EnumMap<ScenarioKey, Object>> used = results.stream()
        .map(r -> ScenarioValues.describe(r.task(), r.software())).toList();
    List<List<String>> rows = new ArrayList<>();
    for (ScenarioKey k : PLAN_KEYS) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < results.size(); i++) {
        values.add(planValue(k, used.get(i).get(k), results.get(i)));
      }
      if (values.stream().allMatch(java.util.Objects::isNull)) {
        continue;
      }
      addRows(rows, k, values, results);
    }
    return rows;
  }

  /** Key {@code k}'s row: one where every system ran the same value, one per system where they differ ("-": none). */
  private static void addRows(List<List<String>> rows, ScenarioKey k, List<String> values, List<StepResult> results) {
    if (values.stream().distinct().count() == 1) {
      rows.add(List.of(k.key(), values.get(0)));
      return;
    }
    for (int i = 0; i < results.size(); i++) {
      rows.add(List.of(k.key() + " " + results.get(i).system().id(), values.get(i) == null ? "-" : values.get(i)));
    }
  }

  /** The keys {@link #scenarioRows} and {@link #planRows} show, or the hardware rows and the results' plan row do. */
  private static final java.util.Set<ScenarioKey> SHOWN = java.util.EnumSet.of(ScenarioKey.HARDWARE, ScenarioKey.MODEL,
      ScenarioKey.TASK, ScenarioKey.PRECISION, ScenarioKey.WEIGHTS, ScenarioKey.BATCH, ScenarioKey.SEQ_LEN,
      ScenarioKey.PROMPT_TOKENS, ScenarioKey.GENERATE_TOKENS, ScenarioKey.RECOMPUTE, ScenarioKey.OFFLOAD,
      ScenarioKey.SOFTWARE, ScenarioKey.GPUS, ScenarioKey.NODES, ScenarioKey.PLAN);

  /**
   * The rest of the scenario's keys each run set (its JSON's {@code scenario}: {@link ScenarioEcho}), one row where
   * every system ran the same value, one per system where they differ. The page left them out, so a run with a q8_0
   * KV cache, 30 layers on the GPU, a llama.cpp build's date or LoRA rank 16 on every projection read as the defaults.
   */
  static List<List<String>> otherRows(List<StepResult> results) {
    List<java.util.Map<ScenarioKey, Object>> echoes = results.stream().map(ScenarioEcho::of).toList();
    List<List<String>> rows = new ArrayList<>();
    for (ScenarioKey k : ScenarioKey.values()) {
      if (SHOWN.contains(k) || PLAN_KEYS.contains(k) || echoes.stream().noneMatch(e -> e.containsKey(k))) {
        continue;
      }
      addRows(rows, k, echoes.stream().map(e -> e.containsKey(k) ? otherValue(k, e.get(k)) : null).toList(), results);
    }
    return rows;
  }

  /** A key's value with its unit where it counts tokens or layers. */
  private static String otherValue(ScenarioKey k, Object v) {
    return switch (k) {
      case CONTEXT, PREFIX_TOKENS -> v + " tokens";
      case GPU_LAYERS -> v + " layers";
      default -> String.valueOf(v);
    };
  }

  /** One plan key's value as the report shows it; null where the run did not use it or left it at its default. */
  private static String planValue(ScenarioKey k, Object v, StepResult r) {
    if (v == null) {
      return null;
    }
    var p = r.task().plan();
    return switch (k) {
      case SEQUENCE_PARALLEL -> p.tp() > 1 && p.sequenceParallel() ? "true" : null;
      case VIRTUAL_STAGES -> p.pp() > 1 && p.virtualStages() > 1 ? v.toString() : null;
      case OVERLAP_GRAD_REDUCE -> p.overlapGradReduce() ? null : "false";
      case ALL_GPUS -> p.allGpus() ? "true (" + r.system().totalDevices() + " GPU" + (r.system().totalDevices() == 1
          ? "" : "s") + " simulated)" : null;
      case GLOBAL_BATCH -> v + (((Number) v).longValue() == 1 ? " sequence (" : " sequences (") + r.task().batch() + " x " + r.task().microBatches() + " micro-batch"
          + (r.task().microBatches() == 1 ? "" : "es") + " x " + r.task().replicas() + " replica"
          + (r.task().replicas() == 1 ? ")" : "s)");
      default -> v.toString();
    };
  }

  static String safe(String id) {
    return id.replaceAll("[^A-Za-z0-9._-]", "_");
  }
}
