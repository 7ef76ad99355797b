package llmsim.cli;

import static llmsim.cli.Output.num;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import llmsim.core.util.Units;
import llmsim.hw.validation.ValidationCase;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Problem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code llmsim validate [PATH...]}: predicted vs published measurements, with the error. */
@Command(name = "validate", description = {
    "Run the validation cases: predicted vs published measurements, with the error per case and category.",
    "Each case prints predicted vs measured with the signed error, then the median absolute error, MAPE and worst "
        + "cases per category and overall. "
        + "Default PATH: validation/cases of this checkout.",
    "Example: llmsim validate validation/cases/A07.yaml --format json   (one case; without PATH, every case)"})
final class ValidateCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin Output output;

  @Parameters(arity = "0..*", paramLabel = "PATH", description = "Case files or folders of *.yaml cases.")
  List<Path> paths;

  @picocli.CommandLine.Option(names = "--out", paramLabel = "DIR",
      description = "Also draw predicted vs measured (log-log, y = x, +-20%% bands) as validation.png and validation.svg.")
  Path out;

  @Override
  public Integer call() {
    ValidationCase.Loaded loaded = ValidationCase.load(paths == null || paths.isEmpty() ? defaultCases() : paths);
    if (loaded.cases().isEmpty() && !loaded.problems().isEmpty()) {
      // no case could be read: an empty table and '0 cases run' above the problems read as a run of nothing
      throw new InputException(loaded.problems());
    }
    if (out != null) {
      ReportOutput.prepare(out); // refuses a file or an unwritable folder before any case runs
    }
    List<Problem> problems = new ArrayList<>(loaded.problems());
    List<ValidationRunner.Outcome> outcomes = ValidationRunner.run(loaded.cases(), problems);
    List<ValidationStats> stats = ValidationStats.summarise(outcomes);
    print(outcomes, stats);
    if (out != null && !problems.isEmpty()) {
      // bad input writes nothing: charts of the cases that ran would read as the whole set's
      long files = problems.stream().map(Problem::file).distinct().count();
      spec.commandLine().getErr().println("llmsim: " + out + " not written: " + files + " case file"
          + (files == 1 ? " has a problem" : "s have problems") + " (below); fix or leave " + (files == 1 ? "it" : "them")
          + " out");
    } else if (out != null) {
      List<llmsim.report.ValidationChart.Point> pts = outcomes.stream().filter(ValidationRunner.Outcome::ran)
          .map(o -> new llmsim.report.ValidationChart.Point(o.c().id(), o.c().category(), o.c().measured(), o.predicted()))
          .toList();
      try (llmsim.report.ReportFolder folder = ReportOutput.open(out, "validate")) {
        llmsim.report.ChartFiles.write(llmsim.report.ValidationChart.create("llmsim: predicted vs published measurements",
            pts, ReportOutput.style()), folder, "validation", ReportOutput.style().width(), ReportOutput.style().height());
        ReportOutput.commit(folder, spec.commandLine().getErr());
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
    if (!problems.isEmpty()) {
      // the good cases are printed above; each bad one is a file:line message and the exit code is 2
      throw new InputException(problems);
    }
    return 0;
  }

  /** validation/cases and, where present, vTrain's generated cases (validation/vtrain/cases) of this checkout. */
  static List<Path> defaultCases() {
    String home = System.getProperty("llmsim.home");
    Path root = home == null ? Path.of("validation") : Path.of(home, "validation");
    Path p = root.resolve("cases");
    if (!Files.isDirectory(p)) {
      throw new BadFlagException("PATH: no validation cases at " + p + "; give the folder of case files");
    }
    Path vtrain = root.resolve("vtrain").resolve("cases");
    return Files.isDirectory(vtrain) ? List.of(p, vtrain) : List.of(p);
  }

  private void print(List<ValidationRunner.Outcome> outcomes, List<ValidationStats> stats) {
    PrintWriter out = spec.commandLine().getOut();
    TextTable t = new TextTable(List.of("case", "category", "metric", "predicted", "measured", "unit", "error", "confidence"));
    List<Map<String, Object>> json = new ArrayList<>();
    for (ValidationRunner.Outcome o : outcomes) {
      var c = o.c();
      String metric = c.ratio().isPresent() ? c.metric() + " ratio" : c.metric();
      // a skipped case says so in its error column: in the metric column, 'skipped' read as a metric in the CSV
      t.row(List.of(c.id(), c.category(), metric.isEmpty() ? "-" : metric, o.ran() ? num(o.predicted(), sig(o.predicted()))
          : "-", num(c.measured(), sig(c.measured())), c.unit(), o.ran() ? signed(o.signedError()) : "skipped",
          c.confidence()));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", c.id());
      m.put("category", c.category());
      m.put("hardware", c.hardware());
      m.put("model", c.model());
      m.put("software", c.software());
      m.put("metric", c.metric().isEmpty() ? null : c.metric());
      m.put("unit", c.unit());
      m.put("measured", c.measured());
      m.put("predicted", ResultFormat.finite(o.predicted()));
      m.put("signed_error", o.ran() ? o.signedError() : null);
      m.put("skip_reason", o.skipped());
      m.put("confidence", c.confidence());
      m.put("source", c.source());
      c.ratio().ifPresent(q -> m.put("ratio", ratioJson(q, o)));
      json.add(m);
    }
    switch (output.format) {
      case json -> {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("cases", json);
        root.put("summary", stats.stream().map(ValidationStats::json).toList());
        root.put("kernel", llmsim.core.kernel.Kernels.get().name());
        out.print(Json.write(root));
      }
      case csv -> {
        out.print(t.csv());
        // the reasons the table lists below it: on standard error, as compare --vary's CSV warnings are
        outcomes.stream().filter(o -> !o.ran()).forEach(o -> spec.commandLine().getErr().println("validate: "
            + o.c().id() + " skipped: " + o.skipped()));
      }
      case table -> {
        out.print(t.render());
        out.println();
        TextTable s = new TextTable(List.of("group", "cases run", "median |error|", "MAPE", "worst"));
        for (ValidationStats st : stats) {
          s.row(List.of(st.group(), String.valueOf(st.cases()), pct(st.medianAbsError()), pct(st.mape()),
              String.join(", ", st.worst().stream().map(o -> o.c().id() + " " + signed(o.signedError())).toList())));
        }
        out.print(s.render());
        long skipped = outcomes.stream().filter(o -> !o.ran()).count();
        if (skipped > 0) { // '0 case(s) skipped:' announced a list that never came
          out.println();
          out.println(skipped + (skipped == 1 ? " case skipped:" : " cases skipped:"));
          outcomes.stream().filter(o -> !o.ran()).forEach(o -> out.println("  " + o.c().id() + ": " + o.skipped()));
        }
      }
    }
  }

  /** A ratio case's baseline, per-GPU normalisation, summary and each run's ratio (in the case's unit). */
  private static Map<String, Object> ratioJson(ValidationCase.Ratio q, ValidationRunner.Outcome o) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("baseline_hardware", q.baselineHardware());
    r.put("scenario_gpus", q.scenarioGpus());
    r.put("baseline_gpus", q.baselineGpus());
    r.put("summary", q.summary());
    List<Map<String, Object>> runs = new ArrayList<>();
    for (int i = 0; i < q.models().size(); i++) {
      Map<String, Object> run = new LinkedHashMap<>();
      run.put("model", q.models().get(i));
      run.put("predicted", i < o.parts().size() ? o.parts().get(i) : null);
      runs.add(run);
    }
    r.put("runs", runs);
    return r;
  }

  private static String pct(double fraction) {
    return Double.isNaN(fraction) ? "-" : Units.percent(fraction);
  }

  private static int sig(double v) {
    return v >= 100 ? 1 : v >= 10 ? 2 : 3;
  }

  /** "+1.2%", "-5.0%"; an error that rounds to nothing is "0.0%", not "-0.0%" (E21 at -0.0009%) or "+0.0%". */
  static String signed(double e) {
    String s = String.format(java.util.Locale.US, "%+.1f%%", e * 100);
    return s.substring(1).equals("0.0%") ? "0.0%" : s;
  }
}
