package llmsim.cli;

import static llmsim.cli.Output.num;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.task.Offload;
import llmsim.core.workload.Simulator;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;
import llmsim.report.ChartFiles;
import llmsim.report.ReportFolder;
import llmsim.report.SweepChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code llmsim sweep-chart}: a metric against model size for several systems, marking where offload starts. */
@Command(name = "sweep-chart", description = {
    "Chart tokens/s or step time against model size on several systems (sweep.png, sweep.svg).",
    "It shows where an 80 GB card starts offloading and a 192 GB M2 Ultra does not, and prints the points.",
    "Example: llmsim sweep-chart --hardware m2-ultra,13900ks-h100 --models llama-7b,llama-13b,llama-33b,llama-65b --task inference --out charts/"})
final class SweepChartCommand extends ScenarioOptions.Command implements Callable<Integer> {
  SweepChartCommand() {
    super(false); // no job is sized or priced here
  }

  @Mixin Output output;

  @Option(names = "--models", required = true, split = ",", paramLabel = "M[,M...]", description = "Models to sweep, smallest to largest.")
  List<String> models;

  @Option(names = "--metric", defaultValue = "tokens_per_s", paramLabel = "KEY",
      description = "tokens_per_s or step_time_s (default: ${DEFAULT-VALUE}).")
  String metric;

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for sweep.png and sweep.svg.")
  Path out;

  @Override
  public Integer call() {
    if (!metric.equals("tokens_per_s") && !metric.equals("step_time_s")) {
      throw new BadFlagException("--metric", metric, "tokens_per_s, step_time_s");
    }
    if (scenario.given(ScenarioKey.MODEL) != null) {
      // replaced by the first of --models below: the model given would not be drawn, without a word
      throw new BadFlagException("--model: sweep-chart draws the models of --models; add it there");
    }
    // else reported as --model's, a flag not given; '--models ,' splits into no values at all
    if (models.isEmpty() || models.stream().anyMatch(String::isBlank)) {
      throw new BadFlagException("--models: a value is empty; give model ids, .yaml files or config.json files,"
          + " comma-separated");
    }
    scenario.set(ScenarioKey.MODEL, models.get(0));
    ScenarioOptions.Resolved r = scenario.resolve(null, true);
    ReportOutput.checkSystemsDrawn(r.hardware().size(), "sweep-chart");
    Catalog c = r.catalog();
    List<ModelSpec> ms = models.stream().map(m -> c.model(m, "--models")).toList();
    List<SystemSpec> systems = r.hardware().stream().map(h -> r.sized(c.system(h, "--hardware"))).toList();
    SweepGrid.refuseRepeats("--models", models, ms.stream().map(ModelSpec::id).toList());
    SweepGrid.refuseRepeats("--hardware", r.hardware(), systems.stream().map(SystemSpec::id).toList());
    systems.forEach(r::checkAgainst);
    r.refuseUnusedOverrides(systems, ms);
    for (SystemSpec s : systems) {
      for (ModelSpec m : ms) {
        r.checkAgainst(m);
        r.checkSimulable(m, List.of(s), false); // one at a time: only each run's metric is kept
      }
    }
    ReportOutput.prepare(out, r.hardware().size(), "--hardware"); // after the input is checked: bad input makes no folder
    List<SweepChart.Point> points = new ArrayList<>();
    List<Object> json = new ArrayList<>();
    // what simulate says of each run (a default precision the device lacks, ...), once per system and warning
    java.util.Set<String> warnings = new java.util.LinkedHashSet<>();
    TextTable t = new TextTable(List.of("system", "model", "parameters (B)", metric, "offload", "fits"));
    for (SystemSpec s : systems) {
      for (ModelSpec m : ms) {
        r.checkAgainst(m);
        StepResult res = r.simulate(s, m);
        res.warnings().stream().filter(w -> !w.startsWith("override in effect"))
            .forEach(w -> warnings.add(s.id() + ": warning: " + w));
        double v = metric.equals("tokens_per_s") ? res.tokensPerSecond() : res.stepTimeSeconds();
        points.add(new SweepChart.Point(s.id(), m.id(), m.parameterCount(), v, res.memory().offload() != Offload.NONE,
            res.memory().fits()));
        t.row(List.of(s.id(), m.id(), num(m.parameterCount() / 1e9, 2), num(v, 4), res.memory().offload().key(),
            res.memory().fits() ? "yes" : "NO"));
        json.add(Json.object("system", s.id(), "model", m.id(), "parameters", m.parameterCount(), metric, ResultFormat.finite(v),
            "offload", res.memory().offload().key(), "fits", res.memory().fits()));
      }
    }
    String label = metric.equals("tokens_per_s") ? (r.task().kind().training() ? "training tokens/s" : "generated tokens/s")
        : "step time (s)";
    try (ReportFolder folder = ReportOutput.open(out, "sweep-chart")) {
      ChartFiles.write(SweepChart.create(label + " vs model size: " + r.task().kind().key(), label,
          systems.stream().map(SystemSpec::id).toList(), points, ReportOutput.style()), folder, "sweep",
          ReportOutput.style().width(), ReportOutput.style().height());
      ReportOutput.commit(folder, spec.commandLine().getErr());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    spec.commandLine().getOut().print(Output.print(output.format, t, json));
    warnings.forEach(spec.commandLine().getErr()::println);
    scenario.warnOverrides(spec.commandLine().getErr());
    return 0;
  }
}
