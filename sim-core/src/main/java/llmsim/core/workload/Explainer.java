package llmsim.core.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import llmsim.core.engine.Bound;
import llmsim.core.hw.Device;
import llmsim.core.hw.Precision;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.WeightFormat;
import llmsim.core.util.Units;

/** A sentence or two per result: what bounds it, and what would move it. */
public final class Explainer {
  private Explainer() {}

  /** A natively faster precision the device has, if any: never one that would not speed it up. */
  static String fasterPrecision(Device d, Precision current) {
    double now = d.hasPeak(current) ? d.peakFlops(current) : 0;
    Precision best = null;
    for (Precision p : Precision.values()) { // in a fixed order, so ties name the same precision every run
      if (p != Precision.INT8 && d.hasPeak(p) && d.peakFlops(p) > now * 1.01
          && (best == null || d.peakFlops(p) > d.peakFlops(best))) {
        best = p;
      }
    }
    return best == null ? "" : String.format(Locale.US, " or %s (%s dense on this device)", best.key(),
        Units.tflops(d.peakFlops(best)));
  }

  static String explain(StepResult r, MemoryPlan withoutOffload) {
    SystemSpec s = r.system();
    double share = r.timeByBound().get(r.bound()) / r.stepTimeSeconds();
    String pct = String.format(Locale.US, "%.0f%%", share * 100);
    String interleaving = interleavingLever(r.model(), r.task().plan());
    StringBuilder sb = new StringBuilder();
    switch (r.bound()) {
      case HOST_LINK -> {
        double effective = s.hostLink().measuredBytesPerSecondPerDirection();
        sb.append(String.format(Locale.US, "Bound by the %s link (%s of the step): %s cross it every %s at an effective %s.",
            s.hostLink().name(), pct, Units.gb(r.linkBytes()), r.task().kind().training() ? "step" : "run",
            Units.bandwidth(effective)));
        if (r.memory().offload() != Offload.NONE) {
          sb.append(String.format(Locale.US, " A device with %s or more of memory would keep everything resident and remove this.",
              Units.gib(withoutOffload.totalBytes())));
        }
      }
      case DEVICE_MEMORY -> {
        double bw = s.device().memoryBandwidthBytesPerSecond();
        if (!r.task().kind().training() && !Double.isNaN(r.decodeBytesPerToken())) {
          // a smaller format is named only where the weights are wider than it: already 4-bit, it is no remedy
          WeightFormat smaller = r.software().llamaCpp() != null ? WeightFormat.Q4_0 : WeightFormat.INT4;
          boolean narrower = r.task().weights().bitsPerWeight() > smaller.bitsPerWeight();
          sb.append(String.format(Locale.US, "Bound by %s bandwidth (%s of the run): each decode step reads %s of weights and KV cache"
                  + " (%.0f%% of the %s peak is used, MBU). More bandwidth%s would move it.",
              s.unifiedMemory() ? "unified-memory" : "device-memory", pct, Units.gb(r.decodeBytesPerToken()), r.mbu() * 100,
              Units.bandwidth(bw), narrower ? ", or a smaller weight format such as " + smaller.key() + "," : ""));
        } else {
          sb.append(String.format(Locale.US, "Bound by %s bandwidth (%s of the step): memory-bound ops (element-wise, attention at"
                  + " small batch, the optimizer) outweigh the GEMMs. A larger batch or fused kernels would move it.",
              s.unifiedMemory() ? "unified-memory" : "device-memory", pct));
        }
      }
      case COMPUTE -> sb.append(String.format(Locale.US, "Bound by compute (%s of the %s): MFU %.0f%% of the %s dense %s peak."
              + " More FLOP/s%s would move it; more memory bandwidth would not.",
          pct, r.task().kind().training() ? "step" : "run", r.mfu() * 100, Units.tflops(PrecisionSupport.resolve(s.device(), r.task().precision(), r.software()).peakFlops()),
          r.task().precision().key(), fasterPrecision(s.device(), r.task().precision())));
      case INTRA_NODE_LINK, NETWORK -> {
        boolean net = r.bound() == Bound.NETWORK;
        String link = net ? s.network().map(n -> n.nic().name()).orElse("the network")
            : s.deviceLink().map(l -> l.name()).orElse("the intra-node link");
        var plan = r.task().plan();
        sb.append(String.format(Locale.US, "Bound by %s (%s of the %s): %s (%s) wait on it. %s would move it.",
            link, pct, r.task().kind().training() ? "step" : "run", collectivesOn(s, plan, net, r.task().kind().training()),
            plan.describe(),
            net ? "More network bandwidth per GPU" + (plan.tp() > s.deviceCount() ? ", tensor parallelism kept inside a node" : "")
                + (plan.zero() >= 3 && !plan.hybridShard() ? ", hybrid shard (--shard hybrid) or a lower ZeRO stage where"
                + " memory allows" : "")
                + batchRemedy(r.task().kind().training())
                // a smaller tp only where there is one (tp 1 under ZeRO-3 waits on the shards' gathers instead)
                : "More fabric bandwidth" + (plan.tp() > 1 ? ", a smaller tp" : "")
                    + (plan.zero() >= 3 ? ", a lower ZeRO stage where memory allows" : "")
                    + batchRemedy(r.task().kind().training())));
      }
      case PIPELINE_BUBBLE -> sb.append(String.format(Locale.US, "Bound by the pipeline bubble (%s of the step): the"
              + " GPUs of the %d stages wait on their neighbours that long on average (%s; the rest is the sends and"
              + " receives between stages and the host's synchronisation on each). More micro-batches%s or fewer"
              + " stages would shrink it; more FLOP/s or bandwidth would gain less than their shares suggest.",
          pct, r.task().plan().pp(), r.scheduleBubble(), interleaving == null ? "" : ", " + interleaving));
      case OVERHEAD -> {
        double perKernel = r.software().llamaCpp() == null ? r.software().launchSeconds()
            : r.software().llamaCpp().launchSeconds(
                llmsim.core.software.LlamaCppBuild.Backend.of(r.system().device().vendor()));
        sb.append(String.format(Locale.US, "Bound by launch and dispatch overhead (%s of the %s): %s pays about %.0f us to"
                + " launch each of its ~%d kernels per layer, and at this size the GPU finishes the work faster than the"
                + " host can issue it. %s or a larger batch would move it; more bandwidth or FLOP/s would not.",
            pct, r.task().kind().training() ? "step" : "run", r.software().id(), perKernel * 1e6,
            r.software().kernelsPerLayer(), capitalised(launchRemedy(s.device().vendor(), r.task().kind().training()))));
      }
      case HOST -> {
        MemoryPlan m = r.memory();
        if (!r.task().kind().training() && m.cpuRunsHostLayers() && m.hostLayers() > 0) {
          sb.append(String.format(Locale.US, "Bound by the host (%s of the run): %d of %d layers do not fit on the GPU and"
                  + " run on the CPU, reading their weights and KV cache from host memory at %s (gpu_layers %d, as"
                  + " llama.cpp's -ngl %d). A device with %s or more, or a smaller weight format, would keep every"
                  + " layer on the GPU.",
              pct, m.hostLayers(), m.layers(), Units.bandwidth(s.host().memoryBandwidthBytesPerSecond()),
              m.gpuLayers(), m.gpuLayers(), Units.gib(withoutOffload.totalBytes())));
        } else if (r.software().hostDispatch() && m.offload() == llmsim.core.task.Offload.NONE) {
          sb.append(String.format(Locale.US, "Bound by the host issuing kernels (%s of the %s): %s's host thread takes"
                  + " about %.2f ms to issue each layer pass (%s), and at this"
                  + " size the GPU finishes a pass sooner%s. CUDA graphs, larger micro-batches or fewer, wider layers"
                  + " would move it; more bandwidth or FLOP/s would not.",
              pct, r.task().kind().training() ? "step" : "run", r.software().id(),
              r.software().hostSecondsPerLayerPass() * 1e3,
              r.task().recompute().recomputesLayers() ? "a forward, a recomputed forward, a backward"
                  : r.task().kind().training() ? "a forward, a backward" : "a forward",
              (r.task().plan().pp() > 1 ? "; the host also waits at every pipeline send and receive" : "")
                  + (r.software().mlpHostSyncShare() > 0 ? (r.task().plan().pp() > 1 ? ", and" : "; it also waits")
                      + " for the GPU before each forward pass's MLP (torch.tensor(0.0, device=...) in each layer)"
                      : "")));
        } else {
          sb.append(String.format(Locale.US, "Bound by the host (%s of the step): the optimizer step runs on the CPU over"
                  + " %s of host memory bandwidth%s. %s",
              pct, Units.bandwidth(s.host().memoryBandwidthBytesPerSecond()),
              s.deviceCount() > 1 ? String.format(Locale.US, ", each of the node's %d GPUs' processes on 1/%d of it and"
                  + " of the cores", s.deviceCount(), s.deviceCount()) : "",
              withoutOffload.fits() ? "It fits without offload (" + Units.gib(withoutOffload.totalBytes()) + " of "
                  + Units.gib(withoutOffload.capacityBytes()) + "): offload none would keep the optimizer on the GPU."
                  : "A device with " + Units.gib(withoutOffload.totalBytes())
                      + " or more would keep the optimizer on the GPU."));
        }
      }
    }
    var plan = r.task().plan();
    if (plan.pp() > 1 && r.task().kind().training() && r.bound() != Bound.PIPELINE_BUBBLE) {
      sb.append(String.format(Locale.US, " Each of the %d pipeline stages' GPUs waits on its neighbours %.0f%% of the"
              + " step (%s); more micro-batches%s would shrink it.", plan.pp(), r.pipelineBubbleShare() * 100,
          r.scheduleBubble(), interleaving == null ? "" : " or " + interleaving));
    }
    double overhead = r.timeByBound().getOrDefault(Bound.OVERHEAD, 0.0) / r.stepTimeSeconds();
    if (r.bound() != Bound.OVERHEAD && overhead >= 0.15) {
      sb.append(String.format(Locale.US, " Launch and dispatch overhead takes %.0f%% of it: %s would gain less than"
          + " that share suggests; %s would remove it.", overhead * 100,
          switch (r.bound()) {
            case COMPUTE -> "more FLOP/s";
            case DEVICE_MEMORY -> "more bandwidth";
            case HOST_LINK -> "a faster link";
            default -> "a faster host";
          }, launchRemedy(s.device().vendor(), r.task().kind().training())));
    }
    if (s.unifiedMemory()) {
      sb.append(" Nothing crosses a link: CPU and GPU share one unified memory.");
    } else if (r.bound() != Bound.HOST_LINK && r.linkBytes() > 0) {
      sb.append(String.format(Locale.US, " %s cross %s.", Units.gb(r.linkBytes()), s.hostLink().name()));
    }
    MemoryPlan p = r.memory();
    if (!p.fits()) {
      sb.append(" It does not fit").append(p.offload() == Offload.NONE ? "" : " even with offload=" + p.offload().key())
          .append(": ");
      if (!p.fitsDevice()) {
        sb.append("device memory is short by ").append(Units.gib(p.shortfallBytes()));
      }
      if (!p.fitsHost()) {
        sb.append(p.fitsDevice() ? "" : ", ").append("host memory needs ").append(Units.gib(p.hostBytes()))
            .append(" and has ").append(Units.gib(p.hostCapacityBytes()));
        if (s.deviceCount() > 1) {
          sb.append(" per GPU (the node's ").append(s.deviceCount()).append(" GPUs together need ")
              .append(Units.gib(p.hostBytes() * s.deviceCount())).append(" of its ")
              .append(Units.gib(s.host().memoryCapacityBytes())).append(')');
        }
      }
      sb.append("; the time assumes the memory were there.");
      sb.append(llmsim.core.memory.MemoryExplainer.splitTheRest(s, r.task()));
      if (p.maxBatch() > 0 && p.maxBatch() < r.task().batch()) {
        sb.append(String.format(Locale.US, " The largest batch that fits with offload=%s is %d.", p.offload().key(),
            p.maxBatch()));
      }
    }
    return sb.toString();
  }

  /**
   * The collectives that cross the binding link under {@code plan}, by the engine's own placement
   * ({@link Collectives}; ranks numbered tensor-parallel fastest, then data-parallel, then pipeline): tensor-parallel
   * all-reduces use the fabric, and the network only when a tensor-parallel group spans nodes; the data-parallel ones
   * (by the ZeRO stage: ZeRO-1/2 reduce-scatter gradients and all-gather weights, ZeRO-3 also gathers weights before
   * each layer) use the fabric where a node holds several replicas and the network where the replicas span nodes;
   * pipeline sends go to a rank tp x dp away, over the network once that fills a node.
   */
  public static String collectivesOn(SystemSpec s, ParallelPlan plan, boolean network, boolean training) {
    List<String> parts = new ArrayList<>();
    if (plan.tp() > 1 && (!network || plan.tp() > s.deviceCount())) {
      parts.add("the tensor-parallel all-reduces on the critical path");
    }
    int replicasPerNode = plan.replicasPerNode(s.deviceCount());
    if (training && plan.dp() > 1 && (network ? plan.dp() > replicasPerNode : replicasPerNode > 1)) {
      parts.add(switch (plan.zero()) {
        case 0 -> "the data-parallel gradient all-reduces not hidden behind the backward pass";
        case 1, 2 -> "the data-parallel gradient reduce-scatters and weight all-gathers (ZeRO-" + plan.zero() + ")";
        default -> plan.hybridShard() && network ? "the across-node all-reduces of the gradient shards (hybrid shard)"
            : "the ZeRO-3 weight all-gathers before each layer and gradient reduce-scatters";
      });
    }
    boolean sendsOverNetwork = (long) plan.tp() * plan.dp() >= s.deviceCount() && s.nodes() > 1;
    if (plan.pp() > 1 && network == sendsOverNetwork) {
      parts.add("the pipeline's activation sends between stages");
    }
    if (parts.isEmpty()) {
      return "its collectives";
    }
    if (parts.size() == 1) {
      return parts.get(0);
    }
    return String.join(", ", parts.subList(0, parts.size() - 1)) + " and " + parts.get(parts.size() - 1);
  }

  /**
   * What removes launch and dispatch overhead on a vendor's devices, for serving or for training: CUDA graphs and the
   * fused runtimes exist on NVIDIA (TensorRT-LLM is NVIDIA's only; llama.cpp's CUDA graphs), HIP graphs on AMD
   * (PyTorch captures graphs on ROCm), and on Apple GPUs neither: there a runtime that launches fewer, fused kernels
   * (MLX, llama.cpp on Metal). TensorRT-LLM and llama.cpp serve; a training step's remedies are the graphs and
   * compiled, fused kernels (torch.compile) of the framework it trains in.
   */
  /**
   * The batch levers that shrink a collective's share of a step: micro-batches and gradient accumulation for training;
   * inference has neither (micro_batches is refused there), only its batch.
   */
  /**
   * The interleaving lever of a pipeline, where there is one: more chunks per GPU, or the interleaved schedule where
   * the plan runs one, if some larger count of chunks splits the layers into pp x chunks equal parts (as
   * virtual_stages must); none where none does (pp 8 over 40 layers at 5 chunks has a layer a chunk, and pp 3 over
   * 40 layers has no split at all), which --virtual-stages would refuse.
   */
  static String interleavingLever(llmsim.core.model.ModelSpec m, ParallelPlan plan) {
    for (int chunks = plan.virtualStages() + 1; (long) plan.pp() * chunks <= m.layers(); chunks++) {
      if (m.layers() % (plan.pp() * chunks) == 0) {
        return plan.virtualStages() > 1 ? "more chunks" : "the interleaved schedule (--virtual-stages)";
      }
    }
    return null;
  }

  private static String batchRemedy(boolean training) {
    return training ? ", larger micro-batches or more gradient accumulation" : " or a larger batch";
  }

  static String launchRemedy(String vendor, boolean training) {
    String v = vendor == null ? "" : vendor.toLowerCase(Locale.ROOT);
    if (v.contains("apple")) {
      return training ? "a framework that launches fewer, fused kernels (MLX)"
          : "a runtime that launches fewer, fused kernels (MLX, or llama.cpp on Metal)";
    }
    if (v.contains("nvidia")) {
      return training ? "CUDA graphs or compiled, fused kernels (torch.compile)"
          : "CUDA graphs, a fused runtime (TensorRT-LLM, or llama.cpp with CUDA graphs)";
    }
    return training ? "graph capture (HIP graphs on AMD) or compiled, fused kernels (torch.compile)"
        : "graph capture (HIP graphs on AMD) or a fused runtime";
  }

  private static String capitalised(String s) {
    return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
  }
}
