package llmsim.core.workload;

import java.util.List;
import java.util.Map;
import llmsim.core.engine.Bound;
import llmsim.core.engine.ReplicatedSink;
import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.Kernels;
import llmsim.core.kernel.RooflineKernel;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;

/** Plans memory, builds the op DAG, runs the engine and derives the metrics. */
public final class Simulator {
  private Simulator() {}

  public static StepResult simulate(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw) {
    return simulate(s, m, t, sw, Kernels.get());
  }

  public static StepResult simulate(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw, RooflineKernel kernel) {
    MemoryPlan plan = MemoryPlanner.plan(s, m, t, sw);
    MemoryPlan bare = t.offload() == Offload.NONE ? plan : MemoryPlanner.place(s, m, t, sw, Offload.NONE);
    Simulation sim = new Simulation(kernel);
    int peers = t.plan().allGpus() ? t.plan().peersPerStage() : 1;
    WorkloadBuilder w = new WorkloadBuilder(s, m, t, sw, plan, peers > 1 ? new ReplicatedSink(sim, peers) : sim);
    w.build();
    Trace trace = sim.run();
    double step = trace.makespan();
    double hardwareFlops = w.hardwareFlopsPerGpu();
    double modelFlops = w.modelFlopsPerGpu();
    double peak = w.ctx.peakFlops;
    double linkBytes = 0; // the host link's: collectives cross the fabric and the network, counted apart
    for (int i = 0; i < trace.size(); i++) {
      if (trace.lane(i).hostLink()) {
        linkBytes += trace.linkBytes(i);
      }
    }
    // one GPU's: with every GPU simulated each peer's copies are in the trace, and a pipeline's stages are one GPU
    // each (their mean; it summed the stages, twice a GPU's bytes at pp 2)
    linkBytes /= (double) peers * t.plan().pp();
    double ttft = Double.NaN;
    double tpot = Double.NaN;
    double prefillRate = Double.NaN;
    double decodeRate = Double.NaN;
    double mbu = Double.NaN;
    double bytesPerToken = Double.NaN;
    double tokensPerSecond;
    if (t.kind().training()) {
      tokensPerSecond = t.tokensPerStep() / step;
    } else {
      ttft = w.ttft(trace);
      prefillRate = (double) t.batch() * t.promptTokens() * t.replicas() / ttft;
      tokensPerSecond = t.generateTokens() == 0 ? 0 : (double) t.tokensPerStep() / step;
      int steps = w.tokenEnds.length;
      if (steps > 0) {
        tpot = w.tpot(trace);
        decodeRate = (double) t.batch() * t.replicas() / tpot;
        double bytes = 0;
        for (int i = w.prefillEnd + 1; i < trace.size(); i++) {
          bytes += trace.memBytes(i) + (trace.lane(i).hostLink() ? trace.linkBytes(i) : 0);
        }
        bytesPerToken = bytes / steps / peers;
        mbu = bytesPerToken / tpot / s.device().memoryBandwidthBytesPerSecond();
      }
    }
    Map<Bound, Double> byBound = trace.timeByBound();
    Bound bound = byBound.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
    double mfu = modelFlops / (step * peak);
    StepResult partial = new StepResult(s, m, t, sw, plan, trace, step, tokensPerSecond, prefillRate, decodeRate,
        ttft, tpot, modelFlops, hardwareFlops, mfu, mbu, linkBytes, bytesPerToken, byBound, bound, "", List.of(), 0);
    String why = Explainer.explain(partial, bare);
    return new StepResult(s, m, t, sw, plan, trace, step, tokensPerSecond, prefillRate, decodeRate, ttft, tpot,
        modelFlops, hardwareFlops, mfu, mbu, linkBytes, bytesPerToken, byBound, bound, why,
        java.util.stream.Stream.concat(java.util.stream.Stream.of(w.ctx.precision.warning(), w.ctx.softwareWarning,
            w.ctx.fp8RecipeWarning), java.util.stream.Stream.concat(w.ctx.planWarnings.stream(),
            java.util.stream.Stream.of(communicates(t) ? w.ctx.collectives.warning() : null,
            tensorParallelSpanNote(t, s), replicasNote(t, tokensPerSecond),
            w.offloadWarning(), weightOffloadNote(t, plan))))
            .filter(java.util.Objects::nonNull).toList(), 0);
  }

  /**
   * The settings of {@code t} that change nothing under {@code sw} on {@code gpus} GPUs, each said in a sentence: the
   * plan's ({@link llmsim.core.task.ParallelPlan#noEffectNotes}), the GPipe schedule over one micro-batch, and
   * selective recomputation under a profile whose FlashAttention never keeps the attention scores it would drop (the
   * step and the bytes are those without it).
   */
  public static List<String> noEffectNotes(Task t, SoftwareProfile sw, int gpus) {
    List<String> out = new java.util.ArrayList<>(t.plan().noEffectNotes(gpus));
    if (t.kind().training() && t.plan().pp() > 1 && t.plan().schedule() == llmsim.core.task.PipelineSchedule.GPIPE
        && t.microBatches() == 1) {
      // one micro-batch runs its forward, then its backward, in either schedule, and each holds one in flight
      out.add("schedule gpipe has no effect with 1 micro-batch: it runs every micro-batch's forward before the first"
          + " backward and holds all their activations, where 1F1B alternates them and holds at most pp, and one"
          + " micro-batch is one forward and one backward either way (micro_batches or global_batch gives it more)");
    }
    SoftwareProfile run = sw.forTask(t.kind().training());
    if (t.kind().training() && t.recompute() == llmsim.core.task.Recompute.SELECTIVE && run.flashAttention()) {
      out.add("recompute selective has no effect under " + run.id() + ": it recomputes the attention core so as not"
          + " to keep its s^2 scores, and " + run.id() + "'s flash attention never keeps them (recompute full"
          + " recomputes whole layers)");
    }
    return List.copyOf(out);
  }

  /**
   * Inference with offload weights where every layer fits the GPU: gpu_layers auto keeps as many as fit, so none is
   * offloaded, and the result read 'offload weights' beside 32 of 32 layers on the GPU without a word (training's
   * offload weights streams every layer). Null where a layer is offloaded, or the layers on the GPU were given.
   */
  public static String weightOffloadNote(Task t, MemoryPlan p) {
    if (t.kind().training() || t.offload() != Offload.WEIGHTS || t.gpuLayers() != Task.GPU_LAYERS_AUTO
        || p.hostLayers() > 0) {
      return null;
    }
    return "offload weights has no effect here: all " + p.layers() + " layers fit on the GPU, and gpu_layers auto"
        + " keeps as many as fit; --gpu-layers N keeps N there and offloads the rest";
  }

  /**
   * Whether the plan's GPUs exchange anything: tensor- and pipeline-parallel traffic, and training's gradient
   * reductions; inference replicas serve their own requests and never do, so a note on how collectives are costed
   * does not apply to them.
   */
  static boolean communicates(Task t) {
    return t.plan().tp() > 1 || t.plan().pp() > 1 || t.kind().training() && t.replicas() > 1;
  }

  /**
   * A tensor-parallel group wider than a node: its per-layer all-reduces run hierarchically, the shard of each over
   * the network between nodes ({@link Collectives}), which a plan line 'tp 16 on 16 GPUs' does not tell (Megatron
   * keeps tp within a node for that reason). Null where the group fits a node.
   */
  static String tensorParallelSpanNote(Task t, SystemSpec s) {
    int tp = t.plan().tp();
    if (tp <= s.deviceCount() || s.network().isEmpty()) {
      return null;
    }
    int nodes = tp / s.deviceCount();
    return "tp " + tp + " spans " + nodes + " nodes of " + s.deviceCount() + " GPUs: its per-layer "
        + (t.plan().sequenceParallel() ? "reduce-scatters and all-gathers" : "all-reduces") + " cross the network ("
        + s.network().get().nic().id() + ") between them, hierarchically (inside a node over its fabric, between nodes"
        + " over the NICs); a tp of at most " + s.deviceCount() + " keeps them inside a node";
  }

  /**
   * Inference on more GPUs than one model replica uses serves a batch on each replica: the rates are their sum, which
   * a header saying "batch 1" does not tell.
   */
  static String replicasNote(Task t, double tokensPerSecond) {
    int r = t.replicas();
    if (t.kind().training() || r <= 1) {
      return null;
    }
    return String.format(java.util.Locale.ROOT, "%d data-parallel replicas each serve batch %d: the tokens/s are"
        + " their sum%s; --tp splits one replica over the GPUs instead", r, t.batch(), t.generateTokens() == 0 ? ""
        : String.format(java.util.Locale.ROOT, " (%.1f generated tokens/s a replica)", tokensPerSecond / r));
  }
}
