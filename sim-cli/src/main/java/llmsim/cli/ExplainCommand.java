package llmsim.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import llmsim.core.workload.StepResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code llmsim explain METRIC}: how one number of a simulated result comes about, step by step. */
@Command(name = "explain", description = {
    "The derivation of one metric, step by step: each input with the catalog field and source it comes from, each"
        + " formula with its values, and the simulated value beside the closed form where the two differ.",
    "Example: llmsim explain decode_tokens_per_s --model llama-7b --hardware m2-ultra --task inference"})
final class ExplainCommand implements ScenarioOptions.Command, Callable<Integer> {
  @Spec CommandSpec spec;
  ScenarioOptions scenario = new ScenarioOptions();

  @Override
  public ScenarioOptions scenario() {
    return scenario;
  }

  @Mixin Output output;

  @Parameters(index = "0", paramLabel = "METRIC", description = "One of: decode_tokens_per_s, prefill_tokens_per_s,"
      + " ttft_s, tpot_s, step_time_s, mfu, memory (bytes per GPU).")
  String metric;

  @Override
  public Integer call() {
    if (!Derivation.METRICS.contains(metric)) {
      throw new BadFlagException("METRIC", metric, String.join(", ", Derivation.METRICS));
    }
    ScenarioOptions.Resolved r = scenario.resolve(null, true);
    if (r.hardware().size() != 1) {
      throw new BadFlagException("--hardware: explain takes one system, got " + r.hardware().size());
    }
    List<StepResult> results = SimulateCommand.run(r);
    Derivation d = Derivation.of(metric, results.get(0), r.catalog().overrides());
    print(d, results.get(0));
    return 0;
  }

  private void print(Derivation d, StepResult r) {
    PrintWriter out = spec.commandLine().getOut();
    TextTable t = new TextTable(List.of("quantity", "value", "how"));
    d.steps.forEach(s -> t.row(List.of(s.quantity(), s.value(), s.how())));
    if (output.format != Format.table) {
      out.print(Output.print(output.format, t, d.json()));
      return;
    }
    out.printf("%s: %s on %s, %s, software %s%n%n", d.metric, r.model().id(), r.system().id(), r.task().kind().key(),
        r.software().id());
    out.print(t.render());
    if (!d.difference.isEmpty()) {
      out.println();
      out.println(d.difference + ".");
    }
    r.warnings().forEach(w -> out.println("warning: " + w));
  }
}
