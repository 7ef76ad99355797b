package llmsim.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.workload.Simulator;
import llmsim.core.workload.StepResult;
import llmsim.hw.scenario.ScenarioFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code llmsim simulate [SCENARIO.yaml] [flags]}: one scenario, event by event. */
@Command(name = "simulate", description = {
    "Simulate one training step or one inference run, event by event, and say what bounds it.",
    "Keys of SCENARIO.yaml are the flags with underscores (batch, seq_len, ...); flags override the file.",
    "Example: llmsim simulate --model llama-7b --hardware m2-ultra --task inference --generate-tokens 128"})
class SimulateCommand extends ScenarioOptions.Command implements Callable<Integer> {
  @Mixin Output output;
  @Mixin ReportOutput report;

  @Parameters(arity = "0..1", paramLabel = "SCENARIO", description = "A scenario .yaml file (optional; flags alone also work).")
  Path scenarioFile;

  /** Prices for the job, or null when the scenario has none. */
  Costing costing;

  @Override
  public Integer call() {
    return execute(scenarioFile, true);
  }

  /**
   * Read the scenario (file, then flags), check --out before any work, simulate, print and write the
   * reports. {@code singleAsObject}: one system prints as a JSON object rather than a list.
   */
  int execute(Path file, boolean singleAsObject) {
    ScenarioOptions.Resolved r = scenario.resolve(file == null ? null : ScenarioFile.read(file), true);
    costing = Costing.of(r); // prices are checked before any work
    if (report.out != null) {
      check(r, true); // a run too large to hold is refused before --out's folder is created
      ReportOutput.prepare(report.out, r.hardware().size(), "--hardware");
    }
    List<StepResult> results = run(r, report.out != null);
    print(results, singleAsObject && results.size() == 1);
    writeReports(results);
    return 0;
  }

  void writeReports(List<StepResult> results) {
    if (report.out != null) {
      PrintWriter err = spec.commandLine().getErr();
      List<java.nio.file.Path> files = ReportOutput.write(report.out, results, ResultFormat.table(results, costing),
          costing, err);
      err.println("wrote " + files.size() + " files to " + report.out + " (open report.html; trace.json in ui.perfetto.dev)");
    }
  }

  static List<StepResult> run(ScenarioOptions.Resolved r) {
    return run(r, false);
  }

  /** Simulate on every system; {@code reports}: the --out reports will be written from the results. */
  static List<StepResult> run(ScenarioOptions.Resolved r, boolean reports) {
    ModelSpec model = r.modelSpec();
    List<SystemSpec> systems = check(r, reports);
    return systems.stream().map(s -> r.simulate(s, model)).toList();
  }

  /** Every check {@link #run} makes before simulating (model, systems, op count); returns the systems. */
  static List<SystemSpec> check(ScenarioOptions.Resolved r, boolean reports) {
    ModelSpec model = r.modelSpec();
    r.checkAgainst(model);
    List<SystemSpec> systems = r.hardware().stream().map(h -> r.sized(r.system(h))).toList();
    // two names of one system (an alias, or a file of a catalog id) gave two columns of one name, and --out failed
    // writing its charts twice
    SweepGrid.refuseRepeats("--hardware", r.hardware(), systems.stream().map(SystemSpec::id).toList());
    systems.forEach(r::checkAgainst);
    r.refuseUnusedOverrides(systems, List.of(model));
    r.checkSimulable(model, systems, reports);
    return systems;
  }

  void print(List<StepResult> results, boolean single) {
    PrintWriter out = spec.commandLine().getOut();
    switch (output.format) {
      case json -> out.print(Json.write(single ? ResultFormat.json(results.get(0), costing)
          : results.stream().map(r -> ResultFormat.json(r, costing)).toList()));
      case csv -> {
        out.print(ResultFormat.table(results, costing).csv());
        // the table alone left out what a result must say (an override in effect, an emulated or changed precision):
        // on standard error, so the CSV stays a table
        results.forEach(r -> r.warnings().forEach(w -> spec.commandLine().getErr().println(r.system().id()
            + ": warning: " + w)));
      }
      case table -> {
        StepResult first = results.get(0);
        out.printf("%s, %s, batch %d, %s, software %s%n%n", first.model().name(), first.task().kind().key(),
            first.task().batch(), first.task().kind().training()
                ? "seq_len " + first.task().seqLen() + (ResultFormat.microBatchesDiffer(results)
                    ? ", micro-batches per system below, " // plan auto chose them per system
                    : " x " + first.task().microBatches() + " micro-batch(es), ")
                    + (results.stream().map(r -> r.task().precision()).distinct().count() == 1
                        ? first.task().precision().key() : "precision per system below")
                : first.task().promptTokens() + " prompt + " + first.task().generateTokens() + " generated tokens, weights " + first.task().weights().key(),
            first.software().id());
        out.print(ResultFormat.table(results, costing).render());
        out.println();
        results.forEach(r -> {
          out.println(r.system().id() + ": " + r.explanation());
          if (costing != null) {
            out.println(r.system().id() + ": " + ResultFormat.costNote(costing.job(r), r));
          }
          r.warnings().forEach(w -> out.println(r.system().id() + ": warning: " + w));
        });
      }
    }
  }
}
