package llmsim.core.workload;

import llmsim.core.engine.OpKind;
import llmsim.core.hw.SystemSpec;
import llmsim.core.engine.OpSink;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.Footprint;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.EagerOps;
import llmsim.core.software.OptimizerImpl;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Offload;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;

/**
 * Turns (system, model, task, software, memory plan) into a DAG of ops on a {@link StepContext}:
 * a training step (micro-batches, backward, recomputation, optimizer, offload traffic) or an
 * inference run (prefill, then one decode step per generated token).
 */
final class WorkloadBuilder {
  /** AdamW on the GPU: read bf16 grad, fp32 master, m, v (14 B); write master, m, v, bf16 weight (14 B). */
  static final double ADAM_GPU_BYTES_PER_PARAM = 28;
  /** AdamW on the CPU (ZeRO-Offload): fp32 gradients on the host, so 16 B read and 14 B written. */
  static final double ADAM_CPU_BYTES_PER_PARAM = 30;
  static final double ADAM_FLOPS_PER_PARAM = 12;
  /**
   * Cross-entropy over the vocabulary in fp32, bytes per logit (Megatron's vocab-parallel cross-entropy on
   * {@code output.float()}): the upcast reads 2 B and writes 4 B, the max reads 4, the in-place subtract,
   * exp and divide read and write 4 each (24), the sum reads 4: 38 B forward. Backward: the gradient is the
   * saved softmax scaled in place (8 B) and cast back to half precision (6 B): 14 B.
   */
  static final double CROSS_ENTROPY_FWD_BYTES_PER_LOGIT = 38;
  static final double CROSS_ENTROPY_BWD_BYTES_PER_LOGIT = 14;
  /** The dense embedding gradient: written once as zeros ({@link #embeddingBackward}). */
  static final double EMBEDDING_GRAD_ZERO_PASSES = 1;
  /** Per token: its output gradient read, its gradient row read and written. */
  static final double EMBEDDING_GRAD_ROW_PASSES = 3;
  /** Tied weight, embedding and head on one GPU: the two gradients read, their sum written. */
  static final double TIED_GRAD_SUM_PASSES = 3;

  final StepContext ctx;
  final LayerEmitter layers;
  final ModelSpec m;
  final Task t;
  final MemoryPlan plan;
  final boolean streamWeights;
  final boolean cpuOptimizer;
  final double layerWeightBytes;
  /** Whether gradients are reduced over data-parallel replicas, and the ZeRO stage that shards them. */
  final boolean dp;
  final int zero;
  final boolean overlapGrads;
  /**
   * ZeRO-2/3 keep only their shard of the gradients, so each micro-batch's are reduced to the shards as its backward
   * produces them, not once at the step's end as DDP (under no_sync) and ZeRO-1 do: DeepSpeed's engine, "ZeRO stage
   * &gt;= 2 communicates during non gradient accumulation boundaries as well" ({@code allreduce_gradients},
   * deepspeed/runtime/engine.py), and FSDP reduce-scatters in every backward unless {@code no_sync()} keeps whole
   * gradients, which the memory planner's sharded gradients do not hold.
   */
  final boolean reduceEveryMicroBatch;
  /** The last data-parallel collective of each layer's gradients; the optimizer waits for all of them. */
  int lastGradReduction = -1;
  /** Layers resident on the GPU; the rest are streamed over the link or, with {@link #cpuLayers}, run on the CPU. */
  final int gpuLayers;
  final boolean cpuLayers;
  /** Contexts and emitters for further pipeline stages (each stage's GPU has its own resources). */
  private final java.util.function.Function<Integer, StepContext> newContext;
  private final java.util.function.Function<StepContext, LayerEmitter> newEmitter;
  /** The pipeline, when the plan has stages. */
  private PipelineStep pipeline;
  /** Paged optimizer state crossing the host link each way per step (0 when none is paged out). */
  private final double pagedBytesPerStep;
  /** Whether the optimizer runs layer by layer inside the last backward (in the backward, or paged). */
  private final boolean stepPerLayer;

  /** Matmul FLOPs of one GPU (the mean over pipeline stages). */
  double hardwareFlopsPerGpu() {
    return pipeline == null ? layers.totalFlops : pipeline.totalFlops / t.plan().pp();
  }

  /** Model FLOPs of one GPU: recomputation excluded. */
  double modelFlopsPerGpu() {
    return pipeline == null ? layers.totalFlops - layers.recomputeFlops
        : (pipeline.totalFlops - pipeline.recomputeFlops) / t.plan().pp();
  }

  /** Op ids that end each phase, for metrics: prefill end, and the end of every decode step. */
  int prefillEnd = -1;
  int[] tokenEnds = new int[0];

  WorkloadBuilder(SystemSpec s, ModelSpec m, Task t, SoftwareProfile profile, MemoryPlan plan, OpSink sink) {
    // the profile as this task runs it (MLX trains through classic attention: SoftwareProfile.forTask)
    SoftwareProfile sw = profile.forTask(t.kind().training());
    this.m = m;
    this.t = t;
    this.plan = plan;
    boolean lora = t.kind() == TaskKind.FINETUNE_LORA || t.kind() == TaskKind.FINETUNE_QLORA;
    // an eager profile's adapters launch their own kernels on top of the layer's (docs/CALIBRATION.md)
    EagerOps eager = sw.eagerOps();
    boolean fusedQkv = eager != null && eager.fusedQkv();
    int adapters = lora ? Footprint.loraModules(m, t.loraTargets(), fusedQkv) : 0;
    // a fused-qkv LoRA module launches a few kernels more than a plain adapter (EagerOps.fusedQkvLoraExtraBytes)
    boolean qkvModule = lora && fusedQkv && t.loraTargets().stream().anyMatch(x -> x == llmsim.core.task.LoraTarget.Q
        || x == llmsim.core.task.LoraTarget.K || x == llmsim.core.task.LoraTarget.V);
    int opsPerLayer = LayerEmitter.opsPerLayer(m, sw.flashAttention(), adapters, eager);
    int backwardOps = LayerEmitter.backwardOpsPerLayer(m, adapters, eager);
    int kernels = sw.kernelsPerLayer() + (eager == null ? 0 : adapters * eager.loraForwardKernels()
        + (qkvModule ? EagerOps.FUSED_QKV_LORA_EXTRA_FORWARD_KERNELS : 0));
    int backwardKernels = sw.backwardKernelsPerLayer() + (eager == null ? 0 : adapters * eager.loraBackwardKernels()
        + (qkvModule ? EagerOps.FUSED_QKV_LORA_EXTRA_BACKWARD_KERNELS : 0));
    this.ctx = new StepContext(s, t, sw, sink, opsPerLayer, backwardOps, kernels, backwardKernels,
        t.plan().pp() > 1 && t.kind().training() ? "stage 0 " : "");
    this.streamWeights = plan.offload() == Offload.WEIGHTS && !ctx.unified;
    this.cpuOptimizer = t.kind().training() && (plan.offload() == Offload.OPTIMIZER || plan.offload() == Offload.WEIGHTS);
    double actBytes = t.precision().bytes();
    boolean trainsBase = t.kind().training() && !t.kind().frozenBase();
    double wBytes = trainsBase ? t.precision().bytes() : t.weights().bytesPerWeight();
    boolean nf4 = t.weights() == WeightFormat.NF4 && !trainsBase;
    boolean quantised = !trainsBase && t.weights().dequantised() && !nf4;
    double weightBytesPerParam = wBytes;
    this.newEmitter = c -> new LayerEmitter(c, m, actBytes, weightBytesPerParam, quantised, nf4, sw.flashAttention(),
        sw.scoreBytesPerElement(actBytes), sw.backwardScoreBytesPerElement(actBytes), lora ? t.loraRank() : 0,
        t.loraTargets(), t.kind().training() ? actBytes : t.kvCache().bytesPerElement(), eager, trainsBase);
    this.newContext = stage -> new StepContext(s, t, sw, sink, opsPerLayer, backwardOps, kernels, backwardKernels,
        "stage " + stage + " ");
    this.layers = newEmitter.apply(ctx);
    this.gpuLayers = streamWeights && !t.kind().training() ? plan.gpuLayers() : streamWeights ? 0 : m.layers();
    this.cpuLayers = plan.cpuRunsHostLayers() && !ctx.unified;
    double storedPerParam = trainsBase ? t.precision().bytes() : t.weights().bytesPerWeight();
    this.layerWeightBytes = (m.parametersPerLayer()) * storedPerParam / t.plan().tp();
    this.dp = ctx.collectives.plan.dp() > 1;
    this.zero = t.plan().zero();
    this.overlapGrads = t.plan().overlapGradReduce();
    this.reduceEveryMicroBatch = dp && zero >= 2 && t.kind().training();
    this.pagedBytesPerStep = pagedBytesPerStep();
    this.stepPerLayer = t.kind().training() && t.optimizer().inBackward() && !cpuOptimizer;
  }

  /** The training step or the inference run, as the task asks. */
  void build() {
    if (t.kind().training()) {
      buildTrainingStep();
    } else {
      buildInference();
    }
  }

  /** Time to first token in a simulated inference run: when the prefill's last op ends. */
  double ttft(llmsim.core.engine.Trace trace) {
    return trace.end()[prefillEnd];
  }

  /** Mean time per decode step in a simulated inference run; NaN without decode steps. */
  double tpot(llmsim.core.engine.Trace trace) {
    int steps = tokenEnds.length;
    return steps > 0 ? (trace.end()[tokenEnds[steps - 1]] - ttft(trace)) / steps : Double.NaN;
  }

  // ---------------------------------------------------------------- training

  void buildTrainingStep() {
    if (t.plan().pp() > 1) {
      pipeline = new PipelineStep(this, ctx, layers, newContext, newEmitter);
      pipeline.build();
      return;
    }
    long b = t.batch();
    long s = t.seqLen();
    long keys = s + (t.kind() == TaskKind.PTUNING_V2 ? t.prefixTokens() : 0);
    boolean frozen = t.kind().frozenBase();
    OpSink sink = ctx.sink;
    int n = m.layers();
    int last = -1;
    int[] gradOut = new int[n];
    int[] accumulated = new int[n];
    java.util.Arrays.fill(accumulated, -1);
    sink.phase(0);
    int microBatches = sink.repeat(t.microBatches());
    for (int mb = 0; mb < microBatches; mb++) {
      String p = t.microBatches() > 1 && sink.keepsNames() ? "mb" + mb + "." : "";
      // a host issuing ahead waits here for the previous micro-batch (Megatron's get_batch reads the broadcast batch
      // sizes back to the host: sizes_cuda.cpu())
      ctx.hostWaitsFor(cat(p, "get_batch.host_sync"), last);
      int input = copyIn(cat(p, "input_batch"), b * s * 8.0, last);
      int prev = sink.addOp(cat(p, "embedding"), OpKind.OUTPUT, ctx.compute, ctx.elementwise, 0,
          b * s * m.hidden() * 2.0 * t.precision().bytes(), 0, layers.hostPass(cat(p, "embedding."), deps(input, last)));
      int[] fwdEnd = new int[n];
      int embedded = prev;
      int forwardLayers = sink.repeat(n);
      for (int l = 0; l < forwardLayers; l++) {
        int w = streamWeights ? copyIn(layerName(p, l, ".weights"), streamedLayerBytes(), l >= 2 ? fwdEnd[l - 2] : -1)
            : -1;
        // ZeRO-3 gathers a layer while the one before it computes: at most two layers gathered at once (FSDP's
        // limit_all_gathers waits for the layer two back to free its weights; DeepSpeed prefetches ahead); under
        // parameter offload the rank's shard comes over its host link first
        w = zero >= 3 ? gatherWeights(layerName(p, l, ".zero3_all_gather"), w, l >= 2 ? fwdEnd[l - 2] : embedded) : w;
        String layer = layerName(p, l, ".");
        int saved = checkpointToHost(ctx, layer, prev);
        prev = layers.forward(l, layer, b, s, keys, false, deps(prev, w, saved));
        fwdEnd[l] = prev;
      }
      sink.endRepeat();
      prev = headAndLoss(ctx, layers, p, b * s, prev);
      prev = headAndLossBackward(ctx, layers, cat(p, "bwd."), b * s, prev, frozen);
      int headEnd = prev;
      int[] bwdEnd = new int[n];
      int backwardLayers = sink.repeat(n);
      for (int l = n - 1; l >= n - backwardLayers; l--) {
        int back = n - 1 - l;
        int w = streamWeights ? copyIn(layerName(p, l, ".weights.bwd"), streamedLayerBytes(),
            back >= 2 ? bwdEnd[l + 2] : fwdEnd[forwardLayers - 1]) : -1;
        // backward: FSDP's BACKWARD_PRE prefetch gathers the next layer before this one's gradients (two at once)
        w = zero >= 3 ? gatherWeights(layerName(p, l, ".zero3_all_gather.bwd"), w, back >= 2 ? bwdEnd[l + 2] : headEnd)
            : w;
        String layer = layerName(p, l, ".");
        if (t.recompute().recomputesLayers()) {
          int restored = checkpointFromHost(ctx, layer, prev);
          String recomputed = sink.keepsNames() ? layer + "recompute." : layer;
          prev = layers.forward(l, recomputed, b, s, keys, true, deps(prev, w, restored));
          w = -1;
        }
        prev = layers.backward(l, layer, b, s, keys, frozen, t.recompute() == Recompute.SELECTIVE, deps(prev, w));
        if (stepPerLayer && mb == microBatches - 1) {
          prev = layerOptimizerStep(layerName(p, l, ".optimizer"), prev);
        }
        bwdEnd[l] = prev;
        boolean lastMicroBatch = microBatches == t.microBatches() && mb == microBatches - 1;
        if (dp && overlapGrads && (reduceEveryMicroBatch || lastMicroBatch)) {
          reduceGradients(layerName(p, l, ".grads"), prev); // overlaps the backward of the layers below
          gradOut[l] = lastGradReduction; // with replicas, the shard goes to the host once it is reduced
        }
        if (cpuOptimizer) {
          // gradient accumulation under offload: the micro-batch's copy to or from the host buffer; without
          // replicas the gradients go to the host once the step's last backward of the layer has ended
          int acc = accumulateOnHost(ctx, layer, mb == 0, prev);
          if (mb == microBatches - 1) {
            accumulated[l] = acc;
            gradOut[l] = dp ? gradOut[l] : prev;
          }
        }
      }
      sink.endRepeat();
      if (!frozen) {
        prev = embeddingBackward(ctx, cat(p, "bwd."), b * s, m.tiedEmbeddings(), prev); // one GPU holds both ends
      }
      if (reduceEveryMicroBatch && !overlapGrads) {
        // ZeRO-2/3 without overlap: this micro-batch's gradients reduced once its backward has ended
        int reps = sink.repeat(n);
        for (int l = 0; l < reps; l++) {
          reduceGradients(layerName(p, l, ".grads"), prev);
          gradOut[l] = lastGradReduction;
        }
        sink.endRepeat();
      }
      last = prev;
    }
    sink.endRepeat();
    if (dp && !reduceEveryMicroBatch && (!overlapGrads || microBatches < t.microBatches())) {
      // reduced after the backward pass; or the closed form, which walks one micro-batch for all of them: the
      // reductions of the last one come once, here
      int reps = sink.repeat(n);
      for (int l = 0; l < reps; l++) {
        reduceGradients(layerName("", l, ".grads"), last);
        gradOut[l] = lastGradReduction;
      }
      sink.endRepeat();
    }
    if (cpuOptimizer) {
      // one GPU: each layer's gradients go to the host as its last backward ends; with replicas, its shard goes
      // once the layer is reduced
      cpuOptimizerStep(ctx, gradOut, accumulated, "");
    } else if (pagedBytesPerStep > 0 && !t.optimizer().inBackward()) {
      // a paged optimizer after the backward: layer by layer, each layer's state paged in (and others' out) first
      int prev = last;
      int reps = ctx.sink.repeat(m.layers());
      for (int l = m.layers() - 1; l >= m.layers() - reps; l--) {
        prev = layerOptimizerStep(layerName("", l, ".optimizer"), prev);
      }
      ctx.sink.endRepeat();
    } else if (!t.optimizer().inBackward()) {
      optimizerForStage(ctx, deps(last, lastGradReduction));
    }
  }

  /**
   * Bytes of paged optimizer state that cross the host link each way per step: all of it when any of it is paged
   * out (the optimizer sweeps the state in the same order every step, and the driver evicts the least recently used
   * pages, so a cyclic sweep larger than the memory left misses on every page), else none.
   */
  private double pagedBytesPerStep() {
    if (!t.kind().training() || !t.optimizer().paged() || plan.hostBytes() <= 0 || ctx.unified) {
      return 0;
    }
    return Footprint.of(m, t, true, 0, ctx.system.deviceCount()).pagedOptimizerBytes(t);
  }

  /**
   * One layer's share of the optimizer step, on the compute stream after {@code after}: with a paged optimizer its
   * state is prefetched first (bitsandbytes' {@code prefetch_state}, cudaMemPrefetchAsync on the stream) while the
   * driver writes evicted pages back on the other direction of the link.
   */
  private int layerOptimizerStep(String name, int after) {
    double perLayer = trainableParameters() / m.layers();
    double paged = pagedBytesPerStep / m.layers();
    int[] wait = deps(after);
    if (paged > 0) {
      int in = copyIn(cat(name, ".page_in"), paged, after);
      copyOut(cat(name, ".page_out"), paged, after);
      wait = deps(after, in);
    }
    double[] cost = optimizerCost(ctx, perLayer, optimizerTensors() / m.layers());
    int group = cost[1] > 0 ? ctx.launchGroup("optimizer", ctx.software.launchSeconds() * cost[1]) : ctx.elementwise;
    return ctx.sink.addOp(ctx.sink.keepsNames() ? name : "", OpKind.OPTIMIZER, ctx.compute, group,
        ADAM_FLOPS_PER_PARAM * perLayer, cost[0] * perLayer, 0, wait);
  }

  /**
   * Bytes per parameter and kernels of an optimizer step over {@code parameters} parameters in {@code tensors}
   * tensors: the profile's AdamW implementation for 32-bit AdamW with master weights (and for fp32 adapters), the
   * task's state widths otherwise; bitsandbytes' 8-bit update is one kernel per tensor
   * ({@code optimizer_update_8bit_blockwise} from {@code update_step}).
   */
  double[] optimizerCost(StepContext c, double parameters, double tensors) {
    OptimizerImpl impl = c.software.optimizerImpl();
    boolean frozen = t.kind().frozenBase();
    // adapters and prefixes keep fp32 weights and gradients and no master copy
    double gradientBytes = frozen ? 4 : t.precision().bytes();
    llmsim.core.task.TrainingOptimizer o = frozen
        ? new llmsim.core.task.TrainingOptimizer(t.optimizer().kind(), false, false) : t.optimizer();
    if (o.kind() != llmsim.core.task.TrainingOptimizer.Kind.ADAMW) {
      return new double[] {o.updateBytesPerParameter(gradientBytes, gradientBytes, t.precision()), tensors};
    }
    if (!o.masterWeights() && !frozen) {
      return new double[] {impl.bytesPerParameter(gradientBytes, gradientBytes), impl.kernels(tensors, parameters)};
    }
    return new double[] {impl.bytesPerParameter(gradientBytes), impl.kernels(tensors, parameters)};
  }

  /**
   * Reduce one layer's gradients over the data-parallel replicas: an all-reduce (DDP), or a reduce-scatter
   * under ZeRO (each replica keeps the shard it updates; under hybrid shard within the node, then the shard
   * all-reduced across nodes). Gradients are in the compute precision; trainable
   * adapters and prefixes keep fp32 gradients.
   */
  private void reduceGradients(String name, int after) {
    lastGradReduction = reduceGradients(ctx, name, after, lastGradReduction);
  }

  /** One layer's gradient reduction on {@code c}'s GPU, after {@code after} and the previous one; returns its op. */
  int reduceGradients(StepContext c, String name, int after, int previous) {
    double bytesPerParam = t.kind().frozenBase() ? 4 : t.precision().bytes();
    double bytes = trainableBytesPerLayer(bytesPerParam);
    return zero >= 1 ? c.collectives.reduceToShards(name, bytes, deps(after, previous))
        : c.collectives.dataParallel(name, Collectives.Kind.ALL_REDUCE, bytes, deps(after, previous));
  }

  /**
   * The optimizer step on {@code c}'s GPU over its share of the parameters (its pipeline stage's, its ZeRO
   * shard), and ZeRO-1/2's gather of the updated weights after it.
   */
  void optimizerForStage(StepContext c, int[] after) {
    double shards = zero >= 1 ? c.collectives.shardRanks() : 1;
    double trainable = trainableParameters() / shards; // the stage's share
    OptimizerImpl impl = c.software.optimizerImpl();
    double[] cost = optimizerCost(c, trainable, optimizerTensors() / shards);
    double kernels = cost[1];
    int group = kernels > 0 ? c.launchGroup("optimizer (" + impl.key() + ")", c.software.launchSeconds() * kernels)
        : c.elementwise;
    int id = c.sink.addOp(c.sink.keepsNames() ? "optimizer.adamw" : "", OpKind.OPTIMIZER, c.compute, group,
        ADAM_FLOPS_PER_PARAM * trainable, cost[0] * trainable, 0, after);
    if (dp && zero >= 1 && zero <= 2) {
      c.collectives.dataParallel("zero.all_gather_weights", Collectives.Kind.ALL_GATHER,
          trainableParameters() * t.precision().bytes(), deps(id));
    }
  }

  /** ZeRO-3: gather a layer's weight shards from the replicas (hybrid shard: the node's) before using them. */
  private int gatherWeights(String name, int... after) {
    return ctx.collectives.gatherShards(name, layerWeightBytes, deps(after));
  }

  /**
   * Bytes of a layer's weights that cross the host link each time the layer runs under {@code offload: weights}:
   * the whole layer on one GPU; under ZeRO-3 parameter offload the rank's shard, which the replicas then gather.
   */
  private double streamedLayerBytes() {
    return zero >= 3 ? layerWeightBytes / ctx.collectives.shardRanks() : layerWeightBytes;
  }

  /** prefix + name without allocating when the prefix is empty (the closed form keeps no names). */
  private static String cat(String prefix, String name) {
    return prefix.isEmpty() ? name : prefix + name;
  }

  /** "[prefix]L{l}{suffix}", or just the suffix when the sink keeps no names. */
  private String layerName(String prefix, int l, String suffix) {
    return ctx.sink.keepsNames() ? prefix + "L" + l + suffix : suffix;
  }

  /** The name of layer {@code l}'s op on {@code c}'s GPU, or "" where its sink keeps no names. */
  private static String opName(StepContext c, String prefix, int l, String suffix) {
    return c.sink.keepsNames() ? prefix + "L" + l + suffix : "";
  }

  /**
   * ZeRO-Offload's optimizer on {@code c}'s GPU, as DeepSpeed's ZeRO-1/2 optimizer runs {@code offload_optimizer:
   * cpu} ({@code stage_1_and_2.py}; docs/CALIBRATION.md, "ZeRO-Offload's host-link bytes"): each layer's gradient
   * shard goes to the host in fp32 ({@link #OFFLOAD_GRADIENT_BYTES}) once {@code gradReady[l]} (its last
   * backward, or with replicas its reduction) and {@code accumulated[l]} (its last accumulation copy, -1 if none)
   * are done, AdamW runs on the CPU layer by layer as they arrive, and the updated shard comes back in the weights'
   * 16 bits, cast on the host.
   * With data-parallel replicas each rank holds and steps only its 1 / dp shard, its CPU step runs on its share of
   * the node's cores and memory bandwidth ({@link StepContext#cpuGroup}), and the replicas all-gather the weights.
   * {@code gradReady} holds the GPU's layers (a pipeline stage's), the last one stepped first.
   */
  void cpuOptimizerStep(StepContext c, int[] gradReady, int[] accumulated, String prefix) {
    double perLayer = offloadShardParametersPerLayer(c);
    int prevCpu = -1;
    int lastWeights = -1;
    int n = gradReady.length;
    int reps = c.sink.repeat(n);
    for (int l = n - 1; l >= n - reps; l--) {
      int g = gradReady[l];
      if (zero == 1 && t.microBatches() > 1) {
        // ZeRO-1 reduces and copies only at the accumulation boundary, whose micro-step is not the first:
        // DeepSpeed adds its (never filled) host accumulation buffer back into the gradient first
        g = copyIn(c, opName(c, prefix, l, ".grads_accumulate"), perLayer * t.precision().bytes(), g);
      }
      g = c.unified ? g : c.sink.addOp(opName(c, prefix, l, ".grads_to_host"), OpKind.TRANSFER, c.d2h, c.copyOut,
          0, 0, perLayer * offloadGradientBytes(), deps(g, accumulated == null ? -1 : accumulated[l]));
      prevCpu = c.sink.addOp(opName(c, prefix, l, ".adamw(cpu)"), OpKind.OPTIMIZER, c.cpu,
          c.cpuGroup, ADAM_FLOPS_PER_PARAM * perLayer, ADAM_CPU_BYTES_PER_PARAM * perLayer, 0, deps(g, prevCpu));
      if (!streamWeights) {
        lastWeights = copyIn(c, opName(c, prefix, l, ".updated_weights"),
            perLayer * t.precision().bytes(), prevCpu);
      }
    }
    c.sink.endRepeat();
    if (dp && zero >= 1 && zero <= 2) {
      // each replica updated its shard: the replicas gather the whole of the new weights (DeepSpeed's
      // all_gather_dp_groups after the step)
      c.collectives.dataParallel(c.sink.keepsNames() ? prefix + "zero.all_gather_weights" : "",
          Collectives.Kind.ALL_GATHER, trainableParameters() * t.precision().bytes(), deps(lastWeights, prevCpu));
    }
  }

  /**
   * Gradient accumulation under ZeRO-Offload, as DeepSpeed's ZeRO-2 path runs it when gradient_accumulation_steps
   * &gt; 1 ({@code async_accumulate_grad_in_cpu_via_gpu}, called for each of the rank's parameters after each
   * micro-step's reduction): the first micro-batch copies the layer's gradient shard to a pinned host buffer in the
   * parameters' dtype, every later one copies that buffer back to the GPU and adds it to the new gradient (the
   * buffer is not written again). ZeRO-1 reduces only at the boundary (one copy back, in {@link #cpuOptimizerStep});
   * so does every configuration with one micro-batch. Returns the copy, or -1 where none is made; the copy waits
   * for {@code dep}, the layer's backward, and nothing waits for it but the step's fp32 copy of the layer.
   */
  int accumulateOnHost(StepContext c, String layer, boolean firstBackward, int dep) {
    if (!cpuOptimizer || zero == 1 || t.microBatches() <= 1 || c.unified) {
      return -1;
    }
    double bytes = offloadShardParametersPerLayer(c) * t.precision().bytes();
    return firstBackward ? copyOut(c, layer, "grads_accumulate", bytes, dep)
        : copyIn(c, layer, "grads_accumulate", bytes, dep);
  }

  /**
   * Bytes per parameter of the gradient shard ZeRO-Offload moves to the host at the step's end: fp32. DeepSpeed's
   * {@code async_inplace_copy_grad_to_fp32_buffer_from_gpu} casts the 16-bit gradient on the GPU
   * ({@code src_tensor.to(self.master_weights_and_grads_dtype)}, fp32 unless fp16/bf16 master weights and gradients
   * are asked for; {@code src_tensor.float()} in older releases) and copies it into the pinned fp32 gradient of the
   * host partition. The ZeRO-Offload paper's data flow (Ren et al. 2021, arXiv:2101.06840, Fig. 2) sends fp16
   * gradients, 2 B; the code moves 4.
   */
  static final double OFFLOAD_GRADIENT_BYTES = 4;

  /**
   * Bytes per parameter of the offloaded gradient shard: {@link #OFFLOAD_GRADIENT_BYTES} where the host keeps fp32
   * master weights (DeepSpeed's default, and adapters, which train in fp32); without master weights (a pure bf16
   * run, as torchtune's FSDP2 CPU offload runs it: its sharded gradients are copied to the host in the
   * parameters' dtype) the 16-bit gradient.
   */
  double offloadGradientBytes() {
    return t.kind().frozenBase() || t.optimizer().masterWeights() ? OFFLOAD_GRADIENT_BYTES : t.precision().bytes();
  }

  /**
   * Parameters one GPU's CPU optimizer steps per layer: the mean layer's share of its trainable parameters (its
   * tensor-parallel and pipeline share), divided over the replicas ZeRO shards the optimizer state across.
   */
  double offloadShardParametersPerLayer(StepContext c) {
    double shards = zero >= 1 ? c.collectives.shardRanks() : 1;
    return trainableParameters() * t.plan().pp() / m.layers() / shards;
  }

  /**
   * What a result with the optimizer offloaded from several GPUs must say about the host links: each GPU's copies
   * are given a whole host link of their own, which a server whose GPUs share a PCIe switch's uplink to the CPU
   * would not give them (no system file describes its PCIe switches); null with one GPU or without offload.
   */
  String offloadWarning() {
    if (!cpuOptimizer || t.plan().gpus() <= 1 || ctx.unified) {
      return null;
    }
    return "offload: " + plan.offload().key() + " on " + t.plan().gpus() + " GPUs gives each GPU's gradient and"
        + " weight copies a "
        + ctx.system.hostLink().name() + " link of its own; where GPUs share a PCIe switch's uplink to the CPU their"
        + " copies would share it (not modelled: the system file does not describe its PCIe switches). The node's "
        + ctx.system.deviceCount() + " GPUs share its host: each CPU step runs on 1/" + ctx.system.deviceCount()
        + " of its cores and memory bandwidth";
  }

  /**
   * Trainable tensors: two per adapter, one prefix per layer, or every weight matrix, norm weight and bias of the
   * layers plus the embedding, the untied head and the final norm.
   */
  private double optimizerTensors() {
    int layers = m.layers();
    if (t.kind() == TaskKind.FINETUNE_LORA || t.kind() == TaskKind.FINETUNE_QLORA) {
      EagerOps eager = ctx.software.eagerOps();
      return 2.0 * Footprint.loraModules(m, t.loraTargets(), eager != null && eager.fusedQkv()) * layers;
    }
    if (t.kind() == TaskKind.PTUNING_V2) {
      return layers;
    }
    int matrices = 4 + m.ffnKind().matrices();
    int perLayer = matrices + m.normsPerLayer() * m.normKind().paramsPerChannel() + (m.linearBias() ? matrices : 0);
    return (double) perLayer * layers + 1 + (m.tiedEmbeddings() ? 0 : 1) + m.normKind().paramsPerChannel();
  }

  private double trainableParameters() {
    return Footprint.of(m, t, true, 0, ctx.system.deviceCount()).trainableParameters();
  }

  /** One layer's share of this GPU's trainable parameters (a pipeline stage holds layers / pp of them). */
  private double trainableBytesPerLayer(double bytesPerParam) {
    return trainableParameters() * t.plan().pp() / m.layers() * bytesPerParam; // the mean stage's layer
  }

  private int lmHead(String p, double tokens, int dep, double factor) {
    return lmHead(ctx, layers, p, tokens, deps(dep), factor);
  }

  /** Training: the output head, then the cross-entropy loss over its logits. */
  int headAndLoss(StepContext c, LayerEmitter le, String p, double tokens, int dep) {
    int head = lmHead(c, le, p, tokens, le.hostPass(cat(p, "head_loss."), deps(dep)), 1);
    return crossEntropy(c, cat(p, "cross_entropy"), tokens, CROSS_ENTROPY_FWD_BYTES_PER_LOGIT, deps(head));
  }

  /** Training: the loss's gradient, then the head's backward (input gradient only when the head is frozen). */
  int headAndLossBackward(StepContext c, LayerEmitter le, String p, double tokens, int dep, boolean frozen) {
    int loss = crossEntropy(c, cat(p, "cross_entropy"), tokens, CROSS_ENTROPY_BWD_BYTES_PER_LOGIT,
        le.hostPass(cat(p, "head_loss."), deps(dep)));
    return lmHead(c, le, p, tokens, deps(loss), frozen ? 1 : 2);
  }

  /**
   * Training: the word embedding's weight gradient, after the micro-batch's backward reaches the embedding. PyTorch's
   * dense embedding backward ({@code nn.Embedding} / {@code F.embedding} with {@code sparse=False}, which Megatron's
   * VocabParallelEmbedding calls) allocates a zeroed (vocab / tp) x hidden gradient on every backward
   * ({@code at::zeros({num_weights, grad_.size(-1)}, ...)} in ATen's {@code embedding_dense_backward_cuda}), then adds
   * each token's output gradient into its row (reads the token's gradient, reads and writes the row). Where the head
   * shares that weight on the same GPU ({@code headSharesWeight}: tied embeddings, embedding and head on one pipeline
   * stage), autograd sums the head's weight gradient and this one before accumulating them: reads both, writes one.
   * The gradient is in the activations' dtype (the output gradient's).
   */
  int embeddingBackward(StepContext c, String p, double tokens, boolean headSharesWeight, int dep) {
    double bytes = c.transformerEngineFp8 ? 2 : t.precision().bytes();
    double gradient = embeddingGradientBytes(c);
    double memBytes = EMBEDDING_GRAD_ZERO_PASSES * gradient + EMBEDDING_GRAD_ROW_PASSES * tokens * m.hidden() * bytes
        + (headSharesWeight ? TIED_GRAD_SUM_PASSES * gradient : 0);
    return c.sink.addOp(cat(p, "embedding_grad"), OpKind.OUTPUT, c.compute, c.elementwise, 0, memBytes, 0,
        deps(dep));
  }

  /** The word embedding's gradient on one GPU: (vocab / tp) x hidden in the activations' dtype. */
  double embeddingGradientBytes(StepContext c) {
    return m.vocab() / (double) t.plan().tp() * m.hidden() * (c.transformerEngineFp8 ? 2 : t.precision().bytes());
  }

  private int crossEntropy(StepContext c, String name, double tokens, double bytesPerLogit, int[] dep) {
    double logits = tokens * m.vocab() / (double) t.plan().tp();
    return c.sink.addOp(name, OpKind.OUTPUT, c.compute, c.elementwise, 5 * logits, bytesPerLogit * logits, 0,
        deps(dep));
  }

  /** The output head on {@code c}'s GPU (vocabulary-parallel under tp), its FLOPs counted on {@code le}. */
  int lmHead(StepContext c, LayerEmitter le, String p, double tokens, int[] dep, double factor) {
    double h = m.hidden();
    double v = m.vocab() / (double) t.plan().tp(); // vocabulary-parallel embedding and head
    // under Transformer Engine's fp8 recipe the head is not a TE module: bf16 weights and activations
    double wBytes = c.transformerEngineFp8 ? 2 : t.kind().training() && !t.kind().frozenBase() ? t.precision().bytes() : 2;
    double actBytes = c.transformerEngineFp8 ? 2 : t.precision().bytes();
    int id = c.sink.addGemm(cat(p, "lm_head"), OpKind.OUTPUT, c.compute, c.outputGemm,
        factor * 2 * tokens * h * v, factor * (h * v * wBytes + tokens * (h + v) * actBytes), tokens, v, h, deps(dep));
    le.totalFlops += factor * 2 * tokens * h * v * c.sink.weight();
    return id;
  }

  // ---------------------------------------------------------------- inference

  void buildInference() {
    long b = t.batch();
    long prompt = t.promptTokens();
    OpSink sink = ctx.sink;
    sink.phase(0);
    int input = copyIn("prompt", b * prompt * 4.0, -1);
    int prev = sink.addOp("embedding", OpKind.OUTPUT, ctx.compute, ctx.elementwise, 0,
        b * prompt * m.hidden() * 2.0 * 2, 0, deps(input));
    prev = passThroughLayers("prefill.", b, prompt, prompt, prev);
    prev = lmHead("prefill.", b, prev, 1);
    prev = sample("prefill.", b, prev);
    prefillEnd = prev;
    int steps = Math.max(0, t.generateTokens() - 1);
    sink.phase(1);
    int reps = sink.repeat(steps);
    tokenEnds = new int[reps];
    for (int k = 0; k < reps; k++) {
      String p = sink.keepsNames() ? "t" + (k + 1) + "." : "";
      // a closed-form sum runs one step at the mean context: every decode op is linear in the context
      double keys = reps < steps ? prompt + (steps + 1) / 2.0 : prompt + k + 1;
      prev = sink.addOp(cat(p, "embedding"), OpKind.OUTPUT, ctx.compute, ctx.elementwise, 0,
          b * m.hidden() * 2.0 * 2, 0, deps(prev));
      prev = passThroughLayers(p, b, 1, keys, prev);
      prev = lmHead(p, b, prev, 1);
      prev = sample(p, b, prev);
      tokenEnds[k] = prev;
    }
    sink.endRepeat();
  }

  /**
   * One pass through every layer: the layers resident on the GPU, then those left in host memory, either
   * computed by the CPU there (the activations cross the link both ways) or streamed to the GPU through a
   * two-layer buffer whose copies run ahead of the compute.
   */
  private int passThroughLayers(String p, long b, long queries, double keys, int prev) {
    int n = m.layers();
    int entry = prev;
    int reps = ctx.sink.repeat(gpuLayers);
    for (int l = 0; l < reps; l++) {
      prev = layers.forward(l, layerName(p, l, "."), b, queries, keys, false, deps(prev));
    }
    ctx.sink.endRepeat();
    if (gpuLayers == n) {
      return prev;
    }
    double activations = b * queries * m.hidden() * t.precision().bytes();
    if (cpuLayers) {
      prev = gpuLayers > 0 ? copyOut(cat(p, "activations_to_cpu"), activations, prev) : prev;
      reps = ctx.sink.repeat(n - gpuLayers);
      for (int l = gpuLayers; l < gpuLayers + reps; l++) {
        prev = layers.forwardOnCpu(l, layerName(p, l, ".cpu."), b, queries, keys, deps(prev));
      }
      ctx.sink.endRepeat();
      return copyIn(cat(p, "activations_to_gpu"), activations, prev);
    }
    int[] ends = new int[n];
    reps = ctx.sink.repeat(n - gpuLayers);
    for (int l = gpuLayers; l < gpuLayers + reps; l++) {
      int w = copyIn(layerName(p, l, ".weights"), layerWeightBytes, l - gpuLayers >= 2 ? ends[l - 2] : entry);
      prev = layers.forward(l, layerName(p, l, "."), b, queries, keys, false, deps(prev, w));
      ends[l] = prev;
    }
    ctx.sink.endRepeat();
    return prev;
  }

  /** Logits go to the host for sampling (a small D2H copy on a discrete card; nothing on unified memory). */
  private int sample(String p, long b, int prev) {
    return ctx.unified ? prev : copyOut(cat(p, "logits_to_host"), b * m.vocab() * 4.0, prev);
  }

  // ---------------------------------------------------------------- helpers

  private int copyIn(String name, double bytes, int dep) {
    return copyIn(ctx, name, bytes, dep);
  }

  int copyIn(StepContext c, String name, double bytes, int dep) {
    return copyIn(c, null, name, bytes, dep);
  }

  /** As above, named {@code layer + name} ({@code layer} null for none), joined only if the name is read. */
  private int copyIn(StepContext c, String layer, String name, double bytes, int dep) {
    if (c.unified) {
      return dep;
    }
    return c.sink.addOp(layer, name, OpKind.TRANSFER, c.h2d, c.copyIn, 0, 0, bytes, deps(dep));
  }

  /**
   * Under {@link Recompute#FULL_OFFLOAD}, a layer input's copy to host memory after {@code dep} (the previous layer's
   * output), which the layer's forward waits for, as the compute stream orders it; -1 otherwise (or on unified
   * memory). One layer input: tokens x hidden at the activations' width.
   */
  int checkpointToHost(StepContext c, String layer, int dep) {
    if (t.recompute() != Recompute.FULL_OFFLOAD || c.unified) {
      return -1;
    }
    return copyOut(c, layer, "checkpoint_to_host", checkpointBytes(), dep);
  }

  /** Under {@link Recompute#FULL_OFFLOAD}, the layer input's copy back before its recomputed forward; else -1. */
  int checkpointFromHost(StepContext c, String layer, int dep) {
    if (t.recompute() != Recompute.FULL_OFFLOAD || c.unified) {
      return -1;
    }
    return copyIn(c, layer, "checkpoint_from_host", checkpointBytes(), dep);
  }

  private double checkpointBytes() {
    return (double) t.batch() * t.seqLen() * m.hidden() * t.precision().bytes();
  }

  private int copyOut(String name, double bytes, int dep) {
    return copyOut(ctx, name, bytes, dep);
  }

  int copyOut(StepContext c, String name, double bytes, int dep) {
    return copyOut(c, null, name, bytes, dep);
  }

  /** As above, named {@code layer + name} ({@code layer} null for none), joined only if the name is read. */
  private int copyOut(StepContext c, String layer, String name, double bytes, int dep) {
    if (c.unified) {
      return dep;
    }
    return c.sink.addOp(layer, name, OpKind.TRANSFER, c.d2h, c.copyOut, 0, 0, bytes, deps(dep));
  }

  static int[] deps(int... ids) {
    int n = 0;
    for (int id : ids) {
      if (id >= 0) {
        n++;
      }
    }
    int[] out = new int[n];
    int k = 0;
    for (int id : ids) {
      if (id >= 0) {
        out[k++] = id;
      }
    }
    return out;
  }
}
