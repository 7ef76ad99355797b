package llmsim.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import llmsim.core.workload.StepResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code llmsim explain METRIC}: how one number of a simulated result comes about, step by step. */
@Command(name = "explain", description = {
    "Derive one metric step by step, each input with its catalog field and source.",
    "Each formula is shown with its values, and the simulated value beside the closed form where the two differ.",
    "Example: llmsim explain decode_tokens_per_s --model llama-7b --hardware m2-ultra --task inference"})
final class ExplainCommand extends ScenarioOptions.Command implements Callable<Integer> {
  ExplainCommand() {
    super(false); // no job is sized or priced here
  }

  @Mixin Output output;
  @Mixin ScenarioFileOption scenarioFile;

  @Parameters(index = "0", paramLabel = "METRIC", description = "One of: decode_tokens_per_s, prefill_tokens_per_s,"
      + " ttft_s, tpot_s, step_time_s, mfu, memory (bytes per GPU).")
  String metric;

  @Option(names = "--per-layer", description = "Also list one transformer layer's ops (layer 0): each op's FLOPs,"
      + " bytes, arithmetic intensity, what bounds it and its simulated time, for its first pass and, where there is"
      + " one, its second (the first decode step, or the backward with any recomputation).")
  boolean perLayer;

  @Override
  public Integer call() {
    if (!Derivation.METRICS.contains(metric)) {
      throw new BadFlagException("METRIC", metric, String.join(", ", Derivation.METRICS));
    }
    if (metric.equals("memory")) {
      scenario.refuseAllGpus("explain memory derives one GPU's bytes, the same on every GPU of the plan, as memory"
          + " does (the time metrics take it)");
    }
    ScenarioOptions.Resolved r = scenario.resolve(scenarioFile.read(), true);
    if (r.hardware().size() != 1) {
      throw new BadFlagException("--hardware: explain takes one system, got " + r.hardware().size());
    }
    List<StepResult> results = SimulateCommand.run(r);
    Derivation d = Derivation.of(metric, results.get(0), r.catalog().overrides());
    print(d, results.get(0));
    return 0;
  }

  /**
   * The ids of layer 0's first two passes on the first simulated GPU (with every GPU simulated, not each peer's copy):
   * the first two runs of consecutive ops of that GPU the builder tagged layer 0.
   */
  static List<Integer> layerZero(llmsim.core.engine.Trace tr) {
    List<Integer> ids = new java.util.ArrayList<>();
    int runs = 0;
    int previous = -1;
    for (int i = 0; i < tr.size() && runs <= 2; i++) {
      if (tr.gpuOf(tr.stream(i)) != 0) {
        continue;
      }
      int layer = tr.layer(i);
      if (layer == 0) {
        if (previous != 0) {
          runs++;
        }
        if (runs <= 2) {
          ids.add(i);
        }
      }
      previous = layer;
    }
    return ids;
  }

  /** One row per op of layer 0's first passes, as the table and JSON show them. */
  static List<java.util.Map<String, Object>> perLayerRows(llmsim.core.engine.Trace tr) {
    List<java.util.Map<String, Object>> rows = new java.util.ArrayList<>();
    for (int i : layerZero(tr)) {
      java.util.Map<String, Object> row = new java.util.LinkedHashMap<>();
      double flops = tr.flops(i);
      double bytes = tr.memBytes(i) + tr.linkBytes(i);
      row.put("op", tr.name(i));
      row.put("flops", flops);
      row.put("bytes", bytes);
      row.put("intensity_flop_per_byte", bytes > 0 ? flops / bytes : null);
      row.put("bound", tr.opBound(i).key());
      row.put("time_s", tr.duration(i));
      rows.add(row);
    }
    return rows;
  }

  private void print(Derivation d, StepResult r) {
    PrintWriter out = spec.commandLine().getOut();
    TextTable t = new TextTable(List.of("quantity", "value", "how"));
    d.steps.forEach(s -> t.row(List.of(s.quantity(), s.value(), s.how())));
    List<java.util.Map<String, Object>> layer = perLayer ? perLayerRows(r.trace()) : List.of();
    if (output.format != Format.table) {
      java.util.Map<String, Object> json = d.json();
      if (perLayer) {
        json = new java.util.LinkedHashMap<>(json);
        json.put("per_layer", layer);
      }
      out.print(Output.print(output.format, t, json));
      if (output.format == Format.csv) { // JSON carries them; the CSV table alone dropped them
        r.warnings().forEach(w -> spec.commandLine().getErr().println("warning: " + w));
      }
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
    if (perLayer) {
      out.println();
      out.println("Layer 0, op by op (simulated; shared resources can stretch an op beyond its own roofline time):");
      TextTable ops = new TextTable(List.of("op", "GFLOP", "MB", "FLOP/byte", "bound", "time"));
      for (java.util.Map<String, Object> row : layer) {
        Object intensity = row.get("intensity_flop_per_byte");
        ops.row(List.of((String) row.get("op"), String.format(java.util.Locale.US, "%.3f", (Double) row.get("flops") / 1e9),
            String.format(java.util.Locale.US, "%.2f", (Double) row.get("bytes") / 1e6),
            intensity == null ? "-" : String.format(java.util.Locale.US, "%.1f", (Double) intensity),
            (String) row.get("bound"), llmsim.core.util.Units.seconds((Double) row.get("time_s"))));
      }
      out.print(ops.render());
    }
  }
}
