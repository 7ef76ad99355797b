package llmsim.cli;

import static llmsim.cli.Output.num;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import llmsim.core.cost.JobCost;
import llmsim.core.cost.Money;
import llmsim.core.engine.Bound;
import llmsim.core.kernel.Kernels;
import llmsim.core.util.Units;
import llmsim.core.workload.StepResult;

/** Step results as JSON objects (stable snake_case keys) and as a side-by-side table. */
final class ResultFormat {
  private ResultFormat() {}

  static Map<String, Object> json(StepResult r) {
    return json(r, null);
  }

  /**
   * The stored weight format, or null where it does not apply: full training holds the weights it trains at the
   * compute precision, and read '"weights": "f16"' (the key's inference default) beside bf16 or fp32 weights.
   */
  static String weights(llmsim.core.task.Task t) {
    return t.kind().training() && !t.kind().frozenBase() ? null : t.weights().key();
  }

  /** {@code r} as JSON; {@code costing} (null for none) prices its job. */
  static Map<String, Object> json(StepResult r, Costing costing) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("hardware", r.system().id());
    m.put("model", r.model().id());
    m.put("task", r.task().kind().key());
    m.put("software", r.software().id());
    m.put("precision", r.task().precision().key());
    m.put("weights", weights(r.task()));
    m.put("batch", r.task().batch());
    // the tokens a step or run works on, as the table's first line says them: without them a script could not
    // give the scenario back
    boolean training = r.task().kind().training();
    m.put("seq_len", training ? r.task().seqLen() : null);
    m.put("prompt_tokens", training ? null : r.task().promptTokens());
    m.put("generate_tokens", training ? null : r.task().generateTokens());
    m.put("plan", planJson(r));
    // every key that runs this step again, plan auto's choice written out: a file of them is the step
    m.put("scenario", ScenarioEcho.json(r));
    m.put("step_time_s", finite(r.stepTimeSeconds()));
    m.put("tokens_per_s", finite(r.tokensPerSecond()));
    m.put("prefill_tokens_per_s", finite(r.prefillTokensPerSecond()));
    m.put("decode_tokens_per_s", finite(r.decodeTokensPerSecond()));
    m.put("ttft_s", finite(r.ttftSeconds()));
    m.put("tpot_s", finite(r.tpotSeconds()));
    m.put("mfu", finite(r.mfu()));
    m.put("hfu", finite(r.hfu()));
    m.put("mbu", finite(r.mbu()));
    m.put("model_flops", r.modelFlops());
    m.put("hardware_flops", r.hardwareFlops());
    m.put("link_bytes", r.linkBytes());
    m.put("fits", r.memory().fits());
    m.put("offload", r.memory().offload().key());
    m.put("memory", MemoryCommand.memoryJson(r.memory()));
    Map<String, Object> byBound = new LinkedHashMap<>();
    for (Bound b : Bound.values()) {
      byBound.put(b.key(), r.timeByBound().get(b));
    }
    m.put("time_by_bound_s", byBound);
    m.put("bound", r.bound().key());
    m.put("explanation", r.explanation());
    m.put("warnings", r.warnings());
    if (r.jobTokens() > 0) {
      Map<String, Object> job = new LinkedHashMap<>();
      job.put("tokens", r.jobTokens());
      job.put("steps", r.task().jobSteps(r.jobTokens()));
      job.put("wall_time_s", r.jobSeconds());
      job.put("gpu_hours", r.jobGpuHours());
      if (costing != null) {
        job.putAll(costJson(costing.job(r), r));
      }
      m.put("job", job);
    }
    m.put("ops", r.trace().size());
    m.put("events", r.trace().events());
    m.put("kernel", Kernels.get().name());
    return m;
  }

  /** Energy and money of a job, and where its price came from (or why it has none). */
  static Map<String, Object> costJson(JobCost c, StepResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("energy_kwh", c.energyKwh());
    m.put("energy_basis", energyBasis(r));
    m.put("cost", finite(c.cost()));
    m.put("currency", c.currency());
    m.put("cost_per_million_tokens", finite(c.costPerMillionTokens()));
    m.put("cost_per_million_tokens_counts", r.task().kind().training() ? "processed" : "generated");
    m.put("price_per_gpu_hour", finite(c.hourly().perGpuHour()));
    m.put("price_source", c.hourly().known() ? c.hourly().source() : null);
    m.put("price_missing", c.hourly().known() ? null : c.hourly().missing());
    return m;
  }

  /** Where a job's price came from (or why it has none) and what its energy assumes, as the terminal and report say. */
  static String costNote(JobCost c, StepResult r) {
    return (c.hourly().known() ? "price: " + c.hourly().source() : "no price: " + c.hourly().missing())
        + "; energy is an " + energyBasis(r);
  }

  /** "TDP 400 W x 8 GPUs": what the energy estimate assumes. */
  static String energyBasis(StepResult r) {
    return "estimate at TDP: " + num(r.system().device().powerWatts(), 0) + " W x " + r.system().totalDevices()
        + " GPU" + (r.system().totalDevices() > 1 ? "s" : "") + " for the wall time (host and cooling not counted)";
  }

  /** The parallel plan and the GPUs it runs on (tp x pp x dp of them). */
  static Map<String, Object> planJson(StepResult r) {
    var p = r.task().plan();
    Map<String, Object> m = planJson(r.system(), r.task());
    // which GPUs the engine ran: one per stage standing for its peers, or every one (and how many of those ran in
    // step with another, whose figures and drawings are that GPU's)
    m.put("all_gpus", p.allGpus());
    m.put("gpus_simulated", r.trace().gpus());
    m.put("gpus_in_step_with_another", inStepWithAnother(r));
    return m;
  }

  /** The plan's keys that need no simulation: what {@code memory --format json} gives too. */
  static Map<String, Object> planJson(llmsim.core.hw.SystemSpec system, llmsim.core.task.Task task) {
    var p = task.plan();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("gpus", system.totalDevices());
    m.put("tp", p.tp());
    m.put("pp", p.pp());
    m.put("dp", p.dp());
    m.put("zero", p.zero());
    m.put("shard", p.zero() == 3 ? (p.hybridShard() ? "hybrid" : "full") : null);
    m.put("virtual_stages", p.virtualStages());
    m.put("sequence_parallel", p.tp() > 1 && p.sequenceParallel());
    // the schedule and the gradient reduction's timing change a training step: a GPipe plan read as 1F1B otherwise
    boolean training = task.kind().training();
    m.put("schedule", training ? p.schedule().key() : null);
    m.put("overlap_grad_reduce", training ? p.overlapGradReduce() : null);
    // the batch schedule plan auto (and advise) choose with the layout: a pipeline plan's micro-batches are its
    // bubble, and tp, pp, dp and zero alone do not give the plan back
    m.put("micro_batches", training ? task.microBatches() : null);
    m.put("global_batch", training ? task.sequencesPerStep() : null);
    m.put("recompute", training ? task.recompute().key() : null);
    return m;
  }

  /** "tp 2, pp 1, dp 4 on 8 GPUs": what the table's plan row says; with every GPU simulated, that and how. */
  static String planText(StepResult r) {
    String text = r.task().plan().describe() + " on " + r.system().totalDevices() + " GPU" + (r.system().totalDevices() > 1 ? "s" : "");
    if (!r.task().plan().allGpus()) {
      return text;
    }
    int inStep = inStepWithAnother(r);
    return text + ", every GPU simulated" + (inStep == 0 ? "" : " (" + inStep + " in step with another)");
  }

  /** How many of the run's simulated GPUs ran in step with another ({@link llmsim.core.engine.Trace#inStepWith}). */
  static int inStepWithAnother(StepResult r) {
    int n = 0;
    for (int g = 0; g < r.trace().gpus(); g++) {
      n += r.trace().inStepWith(g) != g ? 1 : 0;
    }
    return n;
  }

  static Double finite(double v) {
    return Double.isFinite(v) ? v : null;
  }

  static TextTable table(List<StepResult> results) {
    return table(results, null);
  }

  /**
   * Whether the systems of a training comparison run different micro-batches ({@code --plan auto} gives a pipeline
   * plan 4 a stage and a plan without one 1): the first line cannot say one number for all of them then.
   */
  static boolean microBatchesDiffer(List<StepResult> results) {
    return !results.isEmpty() && results.get(0).task().kind().training()
        && results.stream().mapToInt(r -> r.task().microBatches()).distinct().count() > 1;
  }

  /** The side-by-side table; {@code costing} (null for none) adds the job's energy and cost rows. */
  static TextTable table(List<StepResult> results, Costing costing) {
    List<String> header = new ArrayList<>(List.of("metric"));
    results.forEach(r -> header.add(r.system().id()));
    TextTable t = new TextTable(header);
    boolean inference = !results.isEmpty() && !results.get(0).task().kind().training();
    boolean multiGpu = results.stream().anyMatch(r -> r.system().totalDevices() > 1);
    if (multiGpu) {
      row(t, results, "plan", ResultFormat::planText);
    }
    if (microBatchesDiffer(results)) {
      row(t, results, "micro-batches", r -> r.task().microBatches() + " (global batch "
          + r.task().sequencesPerStep() + " sequences)");
    }
    row(t, results, inference ? "total time (prefill + decode)" : "step time", r -> Units.seconds(r.stepTimeSeconds()));
    row(t, results, inference ? "generated tokens/s" : "tokens/s", r -> num(r.tokensPerSecond(), 1));
    if (inference) {
      row(t, results, "TTFT", r -> Units.seconds(r.ttftSeconds()));
      row(t, results, "TPOT", r -> Double.isNaN(r.tpotSeconds()) ? "-" : Units.seconds(r.tpotSeconds()));
      row(t, results, "prefill tokens/s", r -> num(r.prefillTokensPerSecond(), 1));
      row(t, results, "decode tokens/s", r -> Double.isNaN(r.decodeTokensPerSecond()) ? "-" : num(r.decodeTokensPerSecond(), 1));
      row(t, results, "MBU (decode)", r -> Double.isNaN(r.mbu()) ? "-" : Units.percent(r.mbu()));
    }
    row(t, results, "MFU", r -> Units.percent(r.mfu()));
    if (results.stream().map(r -> r.task().precision()).distinct().count() > 1) {
      row(t, results, "precision", r -> r.task().precision().key());
    }
    for (Bound b : Bound.values()) {
      row(t, results, "time bound by " + b.key().replace('_', ' '), r -> Units.seconds(r.timeByBound().get(b))
          + " (" + Units.percent(r.timeByBound().get(b) / r.stepTimeSeconds()) + ")");
    }
    if (results.stream().anyMatch(r -> r.jobTokens() > 0)) {
      row(t, results, "job wall time", r -> Units.duration(r.jobSeconds()));
      row(t, results, "job GPU-hours", r -> Output.atLeast3Digits(r.jobGpuHours(), r.jobGpuHours() < 10 ? 2 : 0));
      if (costing != null) {
        row(t, results, "job energy (at TDP)", r -> Output.atLeast3Digits(costing.job(r).energyKwh(), 1) + " kWh");
        row(t, results, "job cost", r -> costText(costing.job(r), JobCost::cost));
        row(t, results, "cost per 1M tokens (" + (inference ? "generated" : "processed") + ")",
            r -> costText(costing.job(r), JobCost::costPerMillionTokens));
        row(t, results, "price per GPU-hour", r -> costText(costing.job(r), c -> c.hourly().perGpuHour()));
      }
    }
    row(t, results, "bound", r -> r.bound().key());
    row(t, results, "bytes over host link", r -> Units.gb(r.linkBytes()));
    row(t, results, multiGpu ? "memory per GPU" : "memory on device", r -> Units.gib(r.memory().totalBytes()) + " / " + Units.gib(r.memory().capacityBytes()));
    if (results.stream().anyMatch(r -> r.memory().hostBytes() > 0)) {
      row(t, results, "memory in host (offload)", r -> r.memory().hostBytes() > 0
          ? Units.gib(r.memory().hostBytes()) + " / " + Units.gib(r.memory().hostCapacityBytes()) : "-");
      row(t, results, "needed without offload", r -> Units.gib(r.memory().neededBytes()));
    }
    row(t, results, "fits", r -> r.memory().fits() ? "yes" : "NO");
    row(t, results, "offload", r -> r.memory().offload().key() + (r.memory().partialOffload()
        ? " (" + r.memory().gpuLayers() + " of " + r.memory().layers() + " layers on the GPU, the rest "
            + (r.memory().cpuRunsHostLayers() ? "on the CPU)" : "streamed)") : ""));
    return t;
  }

  private static String costText(JobCost c, java.util.function.ToDoubleFunction<JobCost> f) {
    return c.hourly().known() ? Money.format(f.applyAsDouble(c), c.currency()) : "no price";
  }

  private static void row(TextTable t, List<StepResult> rs, String label, Function<StepResult, String> f) {
    List<String> cells = new ArrayList<>(List.of(label));
    rs.forEach(r -> cells.add(f.apply(r)));
    t.row(cells);
  }
}
