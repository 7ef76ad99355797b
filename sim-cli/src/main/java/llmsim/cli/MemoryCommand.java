package llmsim.cli;

import static llmsim.cli.Output.num;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.ToDoubleFunction;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryExplainer;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.util.Units;
import llmsim.core.workload.StepResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code llmsim memory}: where the bytes go, side by side per system, and whether it fits. */
@Command(name = "memory", description = {
    "Bytes of weights, gradients, optimizer state, activations, KV cache and workspace against each system's usable capacity.",
    "Example: llmsim memory --model llama-65b --hardware m2-ultra,13900ks-h100 --task inference"})
final class MemoryCommand extends ScenarioOptions.Command implements Callable<Integer> {
  MemoryCommand() {
    super(false); // no job is sized or priced here
  }

  @Mixin Output output;
  @Mixin ScenarioFileOption scenarioFile;

  @Override
  public Integer call() {
    scenario.refuseAllGpus("memory gives one GPU's bytes, the same on every GPU of the plan, and simulates nothing");
    ScenarioOptions.Resolved r = scenario.resolve(scenarioFile.read(), true);
    ModelSpec model = r.modelSpec(); // an unknown id in --scenario's file is reported at its line there
    r.checkAgainst(model);
    List<SystemSpec> systems = r.hardware().stream().map(h -> r.sized(r.system(h))).toList();
    SweepGrid.refuseRepeats("--hardware", r.hardware(), systems.stream().map(SystemSpec::id).toList());
    systems.forEach(r::checkAgainst);
    r.refuseUnusedOverrides(systems, List.of(model));
    List<Row> rows = new ArrayList<>();
    for (SystemSpec s : systems) {
      Task t;
      List<String> warnings;
      if (r.planAuto()) {
        // the bytes of the plan the search runs (simulate and compare name the same one), not of the flags' default
        StepResult won = r.simulate(s, model);
        t = won.task();
        warnings = won.warnings();
      } else {
        t = r.taskOn(s, model).task();
        warnings = r.overrideNotes(s, model);
        if (t.kind().training()) {
          // the plan's settings that shard or order nothing here, as simulate says them
          warnings = java.util.stream.Stream.concat(warnings.stream(),
              llmsim.core.workload.Simulator.noEffectNotes(t, r.software(), s.totalDevices()).stream()).toList();
        }
      }
      MemoryPlan chosen = MemoryPlanner.plan(s, model, t, r.software());
      MemoryPlan bare = MemoryPlanner.place(s, model, t.withOffload(Offload.NONE), r.software(), Offload.NONE);
      String offloadNote = llmsim.core.workload.Simulator.weightOffloadNote(t, chosen);
      if (offloadNote != null && !r.planAuto()) { // plan auto's warnings are its simulation's, which says it
        warnings = java.util.stream.Stream.concat(warnings.stream(), java.util.stream.Stream.of(offloadNote)).toList();
      }
      rows.add(new Row(s, chosen, MemoryExplainer.explain(s, model, chosen, bare, t), t, warnings));
    }
    print(model, r, rows);
    return 0;
  }

  record Row(SystemSpec system, MemoryPlan plan, String explanation, Task task, List<String> warnings) {}

  /** How many layers a pipeline stage holds: L / pp, or "a-b" where the stages differ by one (the split's rule). */
  static String stageLayers(int layers, int pp) {
    int low = layers / pp;
    return layers % pp == 0 ? String.valueOf(low) : low + "-" + (low + 1);
  }

  private void print(ModelSpec model, ScenarioOptions.Resolved r, List<Row> rows) {
    PrintWriter out = spec.commandLine().getOut();
    if (output.format == Format.json) {
      List<Map<String, Object>> json = new ArrayList<>();
      for (Row row : rows) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("hardware", row.system().id());
        m.put("model", model.id());
        m.put("task", r.task().kind().key());
        m.put("fits", row.plan().fits());
        m.put("offload", row.plan().offload().key());
        m.put("gpus", row.system().totalDevices());
        m.put("plan", ResultFormat.planJson(row.system(), row.task())); // as simulate's, less what the engine ran
        m.put("memory", memoryJson(row.plan()));
        if (row.plan().hostBytes() > 0 && !row.system().unifiedMemory()) {
          // a node's GPUs share its host memory: what they keep there together
          Map<String, Object> host = new LinkedHashMap<>();
          host.put("gpus_per_node", row.system().deviceCount());
          host.put("host_bytes", row.plan().hostBytes() * row.system().deviceCount());
          host.put("host_capacity_bytes", row.system().host().memoryCapacityBytes());
          m.put("host_per_node", host);
        }
        m.put("explanation", row.explanation());
        m.put("warnings", row.warnings());
        m.put("kernel", llmsim.core.kernel.Kernels.get().name());
        json.add(m);
      }
      out.print(Json.write(json));
      return;
    }
    boolean several = rows.stream().anyMatch(row -> row.system().totalDevices() > 1);
    List<String> header = new ArrayList<>(List.of(several ? "GiB per GPU" : "GiB"));
    rows.forEach(row -> header.add(row.system().id()));
    TextTable t = new TextTable(header);
    if (several) {
      text(t, "plan", rows, row -> row.task().plan().describe() + " on " + row.system().totalDevices() + " GPUs");
    }
    line(t, "weights", rows, MemoryPlan::weightsBytes);
    line(t, "gradients", rows, MemoryPlan::gradientsBytes);
    line(t, "optimizer state", rows, MemoryPlan::optimizerBytes);
    line(t, "activations", rows, MemoryPlan::activationsBytes);
    line(t, "KV cache", rows, MemoryPlan::kvCacheBytes);
    line(t, "framework workspace", rows, MemoryPlan::workspaceBytes);
    line(t, "total on device", rows, MemoryPlan::totalBytes);
    line(t, "usable capacity", rows, MemoryPlan::capacityBytes);
    line(t, "needed without offload", rows, MemoryPlan::neededBytes);
    line(t, "in host memory (offload)", rows, MemoryPlan::hostBytes);
    line(t, "host memory capacity", rows, MemoryPlan::hostCapacityBytes);
    if (several && rows.stream().anyMatch(row -> row.plan().hostBytes() > 0 && !row.system().unifiedMemory())) {
      // a node's GPUs share its host memory: what they keep there together, against all of it
      text(t, "in host memory per node", rows, row -> num(row.plan().hostBytes() * row.system().deviceCount()
          / Units.GIB, 1) + " (" + row.system().deviceCount() + " GPUs)");
      text(t, "host memory per node", rows, row -> num(row.system().host().memoryCapacityBytes() / Units.GIB, 1));
    }
    text(t, "layers on the GPU", rows, row -> row.task().plan().pp() > 1
        // a pipeline stage holds its share of the layers (their weights and state above are that share)
        ? stageLayers(row.plan().layers(), row.task().plan().pp()) + " per stage (" + row.plan().layers() + " over "
            + row.task().plan().pp() + " stages)"
        : row.plan().gpuLayers() + " of " + row.plan().layers()
        + (row.plan().hostLayers() == 0 ? "" : row.plan().cpuRunsHostLayers() ? " (the rest on the CPU)" : " (the rest streamed)"));
    text(t, "offload", rows, row -> row.plan().offload().key());
    text(t, "fits", rows, row -> row.plan().fits() ? "yes" : "NO");
    // 0 read as a size: none fits (JSON keeps the 0)
    text(t, "largest batch", rows, row -> row.plan().maxBatch() > 0 ? String.valueOf(row.plan().maxBatch()) : "none");
    text(t, "largest context (tokens)", rows, row -> row.plan().maxContext() > 0
        ? String.valueOf(row.plan().maxContext()) : "none at batch " + row.task().batch());
    if (output.format == Format.csv) {
      out.print(t.csv());
      // what the table leaves out and a result must say (an override in effect), on standard error as simulate's
      rows.forEach(row -> row.warnings().forEach(w -> spec.commandLine().getErr().println(row.system().id()
          + ": warning: " + w)));
      return;
    }
    out.printf("%s, %s, %s, batch %d, software %s%n%n", model.name(), r.task().kind().key(),
        r.task().kind().training() ? "seq_len " + r.task().seqLen() + ", precision " + String.join("/",
            rows.stream().map(row -> row.task().precision().key()).distinct().toList())
            : "weights " + r.task().weights().key() + ", context " + r.task().contextTokens() + " tokens",
        r.task().batch(), r.software().id());
    out.print(t.render());
    out.println();
    rows.forEach(row -> {
      out.println("- " + row.explanation());
      row.warnings().forEach(w -> out.println("- " + row.system().id() + ": warning: " + w));
    });
  }

  static Map<String, Object> memoryJson(MemoryPlan p) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("weights_bytes", p.weightsBytes());
    m.put("gradients_bytes", p.gradientsBytes());
    m.put("optimizer_bytes", p.optimizerBytes());
    m.put("activations_bytes", p.activationsBytes());
    m.put("kv_cache_bytes", p.kvCacheBytes());
    m.put("workspace_bytes", p.workspaceBytes());
    m.put("total_bytes", p.totalBytes());
    m.put("capacity_bytes", p.capacityBytes());
    m.put("host_bytes", p.hostBytes());
    m.put("host_capacity_bytes", p.hostCapacityBytes());
    m.put("shortfall_bytes", p.shortfallBytes());
    m.put("host_shortfall_bytes", p.hostShortfallBytes());
    m.put("needed_without_offload_bytes", p.neededBytes());
    m.put("gpu_layers", p.gpuLayers());
    m.put("host_layers", p.hostLayers());
    m.put("host_layers_run_on", p.hostLayers() == 0 ? null : p.cpuRunsHostLayers() ? "cpu" : "gpu (streamed)");
    m.put("max_batch", p.maxBatch());
    m.put("max_context", p.maxContext());
    return m;
  }

  private static void line(TextTable t, String label, List<Row> rows, ToDoubleFunction<MemoryPlan> f) {
    List<String> cells = new ArrayList<>(List.of(label));
    rows.forEach(row -> cells.add(gib(f.applyAsDouble(row.plan()))));
    t.row(cells);
  }

  /**
   * Bytes as GiB to one decimal, or, where that would read 0.0 for something held (a LoRA adapter's 16 MiB of
   * gradients), to two significant digits: "0.016", not "0.0" beside rows that are nothing.
   */
  static String gib(double bytes) {
    double v = bytes / Units.GIB;
    return v > 0 && v < 0.05 ? num(v, 1 - (int) Math.floor(Math.log10(v))) : num(v, 1);
  }

  private static void text(TextTable t, String label, List<Row> rows, java.util.function.Function<Row, String> f) {
    List<String> cells = new ArrayList<>(List.of(label));
    rows.forEach(row -> cells.add(f.apply(row)));
    t.row(cells);
  }
}
