package llmsim.core.memory;

import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.task.Offload;
import llmsim.core.util.Units;

/** Says in words whether a task fits, what offload it needs, and how far it could grow. */
public final class MemoryExplainer {
  private MemoryExplainer() {}

  public static String explain(SystemSpec s, ModelSpec m, MemoryPlan chosen, MemoryPlan withoutOffload) {
    return explain(s, m, chosen, withoutOffload, Offload.AUTO);
  }

  /**
   * As above for {@code t} on {@code s}: where it does not fit several GPUs, also how the plan could split the rest,
   * as a simulation's explanation says ({@link #splitTheRest}).
   */
  public static String explain(SystemSpec s, ModelSpec m, MemoryPlan chosen, MemoryPlan withoutOffload,
      llmsim.core.task.Task t) {
    String out = explain(s, m, chosen, withoutOffload, t.offload(), t);
    return chosen.fits() ? out : out + splitTheRest(s, t);
  }

  /**
   * Where a plan on several GPUs does not fit: that each GPU holds its own share, and what would split the rest
   * (a sentence with a leading space); empty on one GPU.
   */
  public static String splitTheRest(SystemSpec s, llmsim.core.task.Task t) {
    if (s.totalDevices() <= 1) {
      return "";
    }
    if (!t.kind().training()) {
      // pipeline-parallel inference is refused, and ZeRO is training's: tensor parallelism is what splits a replica
      return String.format(java.util.Locale.US, " Each of the %d GPUs holds its own share (%s): %s, or --plan auto,"
          + " would split the rest.", s.totalDevices(), t.plan().describe(), t.plan().tp() > 1
              ? "more tensor parallelism" : "tensor parallelism (--tp), which splits one replica over several GPUs");
    }
    return String.format(java.util.Locale.US, " Each of the %d GPUs holds its own share (%s): more tensor or pipeline"
        + " parallelism%s, or --plan auto, would split the rest.", s.totalDevices(), t.plan().describe(),
        // a higher stage exists only below ZeRO-3, and shards only over several replicas
        t.plan().zero() < 3 && t.plan().dp() > 1 ? ", a higher ZeRO stage" : "");
  }

  /**
   * As above, {@code asked} being the task's offload: where it is none, the plan was not left to find an offload,
   * so none is said to help only where none was tried.
   */
  public static String explain(SystemSpec s, ModelSpec m, MemoryPlan chosen, MemoryPlan withoutOffload,
      Offload asked) {
    return explain(s, m, chosen, withoutOffload, asked, null);
  }

  /**
   * What was and was not tried where nothing was offloaded: offload=auto tries nothing on several GPUs ({@link
   * MemoryPlanner#candidates}), so there "offload=auto would try it" and "No offload helps here" were not so (eight
   * H100s short by 2.7 GiB fit with offload=optimizer); {@code t} null: one GPU's sentences.
   */
  private static String notOffloaded(SystemSpec s, Offload asked, llmsim.core.task.Task t) {
    if (t != null && s.totalDevices() > 1) {
      return t.kind().training() ? " Offload is not tried on several GPUs unless asked: offload=optimizer runs"
          + " ZeRO-Offload (with zero 1, 2 or 3)" : " Offload is not simulated for inference on several GPUs";
    }
    return asked == Offload.NONE ? " As asked (offload=none), nothing is moved to host memory (offload=auto would try"
        + " it)" : " No offload helps here";
  }

  private static String explain(SystemSpec s, ModelSpec m, MemoryPlan chosen, MemoryPlan withoutOffload,
      Offload asked, llmsim.core.task.Task t) {
    StringBuilder sb = new StringBuilder();
    String where = s.unifiedMemory()
        ? String.format(java.util.Locale.US, "the GPU may use %s (%.0f%% of %s unified memory)",
            Units.gib(chosen.capacityBytes()), s.gpuMemoryShare() * 100, Units.gib(s.device().memoryCapacityBytes()))
        : "the device has " + Units.gib(chosen.capacityBytes());
    if (withoutOffload.fits()) {
      sb.append(String.format("%s fits %s: it needs %s and %s.", m.name(), s.id(), Units.gib(withoutOffload.totalBytes()), where));
    } else {
      sb.append(String.format("%s does not fit %s without offload: it needs %s and %s (short by %s).", m.name(),
          s.id(), Units.gib(withoutOffload.totalBytes()), where, Units.gib(withoutOffload.shortfallBytes())));
      if (chosen.offload() != Offload.NONE && chosen.fits()) {
        sb.append(' ').append(offloadSentence(s, chosen));
      } else if (!chosen.fits()) {
        sb.append(chosen.offload() == Offload.NONE ? notOffloaded(s, asked, t) + (chosen.maxBatch() > 0
                ? "; the largest batch that fits is " + chosen.maxBatch() : "") + "; results assume the memory were there."
            : " Even with offload=" + chosen.offload().key() + " it needs " + Units.gib(chosen.totalBytes())
            + " on the device and " + Units.gib(chosen.hostBytes()) + " in host memory ("
            + Units.gib(chosen.hostCapacityBytes()) + " there" + perNode(s, chosen)
            + "); results assume the memory were there.");
      }
    }
    if (chosen.fits()) {
      sb.append(String.format(" Largest batch that fits: %d; largest context at this batch: %d tokens%s.",
          chosen.maxBatch(), chosen.maxContext(), chosen.maxContext() >= m.maxContext() ? " (the model's maximum)" : ""));
    }
    return sb.toString();
  }

  /**
   * Where a node's GPUs share its host memory: what all of them keep there together, against the node's host memory
   * (each GPU's share of which is {@link MemoryPlan#hostCapacityBytes}); empty for one GPU per host.
   */
  static String perNode(SystemSpec s, MemoryPlan p) {
    if (s.deviceCount() <= 1 || s.unifiedMemory()) {
      return "";
    }
    return " per GPU (the node's " + s.deviceCount() + " GPUs together: " + Units.gib(p.hostBytes() * s.deviceCount())
        + " of its " + Units.gib(s.host().memoryCapacityBytes()) + ")";
  }

  private static String offloadSentence(SystemSpec s, MemoryPlan p) {
    String link = s.hostLink().name();
    return switch (p.offload()) {
      case OPTIMIZER -> "With offload=optimizer (ZeRO-Offload) it fits: " + Units.gib(p.hostBytes())
          + " of optimizer state and fp32 gradients live in host memory" + perNode(s, p)
          + ", gradients and updated weights cross " + link + " every step.";
      case WEIGHTS -> p.partialOffload()
          ? "With offload=weights it fits: " + p.gpuLayers() + " of " + p.layers() + " layers stay on the GPU and the other "
              + p.hostLayers() + " (" + Units.gib(p.hostBytes()) + ") stay in host memory, "
              + (p.cpuRunsHostLayers() ? "where the CPU computes them (llama.cpp -ngl " + p.gpuLayers() + ")."
                  : "streamed over " + link + " each pass through a " + MemoryPlanner.PREFETCH_LAYERS + "-layer buffer.")
          : "With offload=weights it fits: " + Units.gib(p.hostBytes()) + " stay in host memory and every layer's weights"
              + " stream over " + link + " each step, " + MemoryPlanner.PREFETCH_LAYERS + " layers resident at a time.";
      default -> "";
    };
  }
}
