package llmsim.core.workload;

import llmsim.core.engine.OpKind;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
import llmsim.core.software.EagerOps;
import llmsim.core.software.MlxBuild;
import llmsim.core.task.LoraTarget;

/**
 * Emits one transformer layer's ops, forward or backward, for {@code tokens} query tokens attending
 * over {@code keys} keys per sequence. GEMM FLOPs are 2 x tokens x in x out; the attention core is
 * 2 x batch x queries x keys x q_dim for the scores and as much again for attention x V. A backward
 * GEMM costs twice its forward (input and weight gradients), once when the weights are frozen.
 */
final class LayerEmitter {
  private static final int[] NO_DEPS = {};
  private static final double BF16_BYTES = 2;
  final StepContext ctx;
  final ModelSpec m;
  final double actBytes;
  final double weightBytesPerParam;
  final boolean quantised;
  /**
   * bitsandbytes NF4 (QLoRA): a pass over more than one token row dequantises each weight to bf16 in a kernel
   * of its own (reading the 4.127-bit weight, writing 2 B), and the GEMM then reads the bf16 copy; one row
   * (single-sequence decode) runs bitsandbytes' fused 4-bit mat-vec, which reads the packed weights directly.
   */
  final boolean nf4;
  /**
   * Per weight, the fp32 absmax a double-quantised NF4 dequantisation passes between its kernels (one per 64-weight
   * block): written by the nested dequantisation (4 B), read and written by {@code absmax += offset} (8 B), read by the
   * 4-bit kernel (4 B): 16 / 64 B (bitsandbytes {@code dequantize_4bit}, Unsloth {@code fast_dequantize}).
   */
  static final double NF4_ABSMAX_FP32_BYTES = 16.0 / 64;
  final boolean flash;
  final double scoreBytesPerElement;
  /** Without flash attention: bytes per score element of the attention backward (twice the forward's by default). */
  final double backwardScoreBytesPerElement;
  final int loraRank;
  /**
   * Each LoRA target's adapter as this GPU runs it, in x out (column-parallel q, k, v, gate, up split by their
   * outputs, row-parallel o, down by their inputs); null where the task does not target it or the model lacks it.
   */
  private final double[][] adapterShapes = new double[LoraTarget.values().length][];
  /**
   * Under a fused-qkv profile ({@link EagerOps#fusedQkv}), the one LoRA module on the qkv Linear in place of the q, k,
   * v adapters: {in, enabled output width, padded (whole qkv) width, enabled parts}, this GPU's share; else null.
   */
  private final double[] qkvAdapter;
  /** Bytes per KV-cache element read by attention: the cache format for inference, activations for training. */
  final double kvBytes;
  /**
   * Bytes per element of the tensor-parallel all-reduce (or sequence parallelism's reduce-scatter): the row-parallel
   * GEMM's output, which stays 16-bit when the GEMMs run in fp8. Fp8 is the GEMMs' input format: TensorRT-LLM's
   * FP8RowLinear quantises its 16-bit input, runs the fp8 GEMM and reduces the output in the network's dtype
   * ({@code multiply_reduce}, tensorrt_llm/quantization/layers.py); docs/CALIBRATION.md.
   */
  final double reduceBytes;
  /**
   * Transformer Engine's fp8 recipe ({@link TransformerEngineFp8}): activations in bf16, GEMM inputs in fp8 cast by
   * kernels of their own.
   */
  final boolean te;

  /**
   * The eager element-wise work of the profile's module code (null: fused kernels). {@link #llamaEager} applies its
   * RMSNorm, rotary and unfused-projection terms to LLaMA-family layers (RMSNorm models, all rotary in the catalog);
   * its SwiGLU terms apply to gated MLPs and its LoRA terms to every adapter.
   */
  final EagerOps eager;
  final boolean llamaEager;
  /** Whether this task trains the layers' own weights (their norms' weights get gradients). */
  final boolean trainsBase;
  /** Tensor-parallel degree: q, ffn and heads split over it; KV heads over min(tp, kv_heads). */
  final int tp;
  final int kvSplit;
  final boolean sequenceParallel;
  /** While true, ops go to the CPU stream and are costed at host memory bandwidth and CPU FLOP/s. */
  private boolean onCpu;
  /** Matmul FLOPs (GEMMs and the attention core) of recomputed forward passes: hardware, not model, FLOPs. */
  double recomputeFlops;
  /** Matmul FLOPs of every pass; element-wise FLOPs are costed but, as in MFU conventions, not counted. */
  double totalFlops;

  LayerEmitter(StepContext ctx, ModelSpec m, double actBytes, double weightBytesPerParam, boolean quantised,
      boolean nf4, boolean flash, double scoreBytesPerElement, int loraRank, java.util.Set<LoraTarget> loraTargets,
      double kvBytes) {
    this(ctx, m, actBytes, weightBytesPerParam, quantised, nf4, flash, scoreBytesPerElement,
        2 * scoreBytesPerElement, loraRank, loraTargets, kvBytes, null, false);
  }

  LayerEmitter(StepContext ctx, ModelSpec m, double actBytes, double weightBytesPerParam, boolean quantised,
      boolean nf4, boolean flash, double scoreBytesPerElement, double backwardScoreBytesPerElement, int loraRank,
      java.util.Set<LoraTarget> loraTargets, double kvBytes, EagerOps eager, boolean trainsBase) {
    this.ctx = ctx;
    this.eager = eager;
    this.llamaEager = eager != null && m.normKind() == NormKind.RMSNORM;
    this.trainsBase = trainsBase;
    this.m = m;
    this.te = ctx.transformerEngineFp8;
    // under TE's fp8 recipe only the GEMMs' inputs are fp8: every other activation is bf16
    this.actBytes = te ? TransformerEngineFp8.BF16_BYTES : actBytes;
    this.weightBytesPerParam = te ? TransformerEngineFp8.FP8_BYTES : weightBytesPerParam;
    this.quantised = quantised;
    this.nf4 = nf4;
    this.flash = flash;
    this.scoreBytesPerElement = scoreBytesPerElement;
    this.backwardScoreBytesPerElement = backwardScoreBytesPerElement;
    this.loraRank = loraRank;
    this.kvBytes = te ? TransformerEngineFp8.BF16_BYTES : kvBytes;
    this.reduceBytes = Math.max(this.actBytes, BF16_BYTES);
    this.tp = ctx.collectives.plan.tp();
    this.kvSplit = (int) Math.min(tp, m.kvHeads());
    this.sequenceParallel = tp > 1 && ctx.collectives.plan.sequenceParallel();
    for (LoraTarget target : loraTargets) {
      long[] shape = llmsim.core.memory.Footprint.loraShape(m, target);
      if (loraRank > 0 && shape[0] > 0) {
        int split = target == LoraTarget.K || target == LoraTarget.V ? kvSplit : tp;
        boolean rowParallel = target == LoraTarget.O || target == LoraTarget.DOWN;
        adapterShapes[target.ordinal()] = rowParallel ? new double[] {shape[0] / (double) split, shape[1]}
            : new double[] {shape[0], shape[1] / (double) split};
      }
    }
    double[] fused = null;
    if (eager != null && eager.fusedQkv()) {
      double enabled = 0;
      int parts = 0;
      for (LoraTarget target : new LoraTarget[] {LoraTarget.Q, LoraTarget.K, LoraTarget.V}) {
        double[] shape = adapterShapes[target.ordinal()];
        if (shape != null) {
          enabled += shape[1];
          parts++;
          adapterShapes[target.ordinal()] = null;
        }
      }
      if (parts > 0) {
        fused = new double[] {m.hidden(), enabled, m.qDim() / (double) tp + 2.0 * m.kvDim() / kvSplit, parts};
      }
    }
    this.qkvAdapter = fused;
  }

  /** A forward pass of layer {@code layer} the CPU computes from host memory (llama.cpp layers beyond -ngl). */
  int forwardOnCpu(int layer, String prefix, long batch, long queries, double keys, int... deps) {
    onCpu = true;
    try {
      return forward(layer, prefix, batch, queries, keys, false, deps);
    } finally {
      onCpu = false;
    }
  }

  /** Forward pass of layer {@code layer}, its ops tagged with it; returns the id of its last op. */
  int forward(int layer, String prefix, long batch, long queries, double keys, boolean recompute, int... deps) {
    ctx.sink.layer(layer);
    int last = forwardOps(prefix, batch, queries, keys, recompute,
        issued(prefix, true, softmaxUnfused(batch, queries, keys), deps));
    ctx.sink.layer(-1);
    return last;
  }

  /** Backward pass of layer {@code layer}, its ops tagged with it (see {@link #backwardOps}). */
  int backward(int layer, String prefix, long batch, long seq, double keys, boolean frozen, boolean recomputeAttention,
      int... deps) {
    ctx.sink.layer(layer);
    int last = backwardOps(prefix, batch, seq, keys, frozen, recomputeAttention,
        issued(prefix, false, softmaxUnfused(batch, seq, keys), deps));
    ctx.sink.layer(-1);
    return last;
  }

  /**
   * Where the profile's host thread issues each layer pass ahead of the GPU: one op on this GPU's CPU lane, in
   * program order after the passes issued before it and waiting on nothing the GPU does, which the pass's first
   * kernel waits for as well as {@code deps}. A pass then takes the longer of its host and GPU time. Else (or for
   * a pass the CPU computes itself) {@code deps} unchanged.
   */
  private int[] issued(String prefix, int[] deps) {
    return issued(prefix, false, false, deps);
  }

  /**
   * As {@link #issued(String, int[])}; with {@code unfusedSoftmax}, the host also issues the eager softmax calls that
   * replace Megatron's fused kernel (their own op on the CPU lane, after the pass's). A layer's forward pass
   * ({@code forwardPass}) under a profile whose host stops before the MLP issues only the part before that sync here
   * (the rest: {@link StepContext#hostSyncBeforeMlp}).
   */
  private int[] issued(String prefix, boolean forwardPass, boolean unfusedSoftmax, int[] deps) {
    if (ctx.hostDispatch < 0 || onCpu) {
      return deps;
    }
    int group = forwardPass && ctx.hostDispatchBeforeMlp >= 0 ? ctx.hostDispatchBeforeMlp : ctx.hostDispatch;
    int id = ctx.sink.addOp(prefix, "host_dispatch", OpKind.DISPATCH, ctx.cpu, group, 0, 0, 0);
    if (id < 0) {
      return deps;
    }
    int[] all = java.util.Arrays.copyOf(deps, deps.length + 1);
    all[deps.length] = id;
    if (unfusedSoftmax && ctx.hostUnfusedSoftmax >= 0) {
      int extra = ctx.sink.addOp(prefix, "host_dispatch.unfused_softmax", OpKind.DISPATCH, ctx.cpu,
          ctx.hostUnfusedSoftmax, 0, 0, 0);
      if (extra >= 0) {
        all = java.util.Arrays.copyOf(all, all.length + 1);
        all[all.length - 1] = extra;
      }
    }
    return all;
  }

  /**
   * Whether this pass's softmax runs Megatron's eager fp32 path instead of its fused kernel (only under a profile
   * with {@link llmsim.core.software.SoftwareProfile#megatronFusedSoftmax}, where the fused kernel's shape condition
   * fails: see {@link llmsim.core.software.SoftwareProfile#megatronSoftmaxFused}).
   */
  boolean softmaxUnfused(long batch, long queries, double keys) {
    return !flash && ctx.software.megatronFusedSoftmax()
        && !llmsim.core.software.SoftwareProfile.megatronSoftmaxFused(batch * (double) m.heads() / tp, queries, keys);
  }

  /**
   * Bytes per score element the eager fp32 softmax moves beyond the fused kernel's read and write (2 + 2): float()
   * reads 2 and writes 4, the scale reads and writes 4 each, masked_fill_ reads and writes 4 with a 1-byte mask,
   * softmax reads and writes 4, half() reads 4 and writes 2: 37 - 4 = 33.
   */
  static final double UNFUSED_SOFTMAX_EXTRA_FWD_BYTES = 33;
  /**
   * Backward, beyond the fused kernel's 6 (the gradient and the saved probabilities read, the input gradient
   * written): the half() gradient cast (2 read, 4 written), softmax's (4 + 4 read, 4 written), masked_fill's
   * (4 read, 1 mask, 4 written), the scale's (4 + 4) and float()'s cast back (4 read, 2 written): 41 - 6 = 35.
   */
  static final double UNFUSED_SOFTMAX_EXTRA_BWD_BYTES = 35;

  /**
   * The host's issue of a pass outside the layers, costed as a layer pass (see {@link #issued}): the embedding with
   * the batch preparation before it, or the output head with the loss, forward or backward. Returns {@code deps}
   * with the host's op added, as {@link #issued} does.
   */
  int[] hostPass(String prefix, int... deps) {
    return issued(prefix, deps);
  }

  /** Ops a forward layer emits (used to spread the profile's per-layer launch count). */
  static int opsPerLayer(ModelSpec m, boolean flash, int adapters) {
    return opsPerLayer(m, flash, adapters, null);
  }

  /** As {@link #opsPerLayer(ModelSpec, boolean, int)}, with an eager profile's rotary op and adapter glue ops. */
  static int opsPerLayer(ModelSpec m, boolean flash, int adapters, EagerOps eager) {
    int norms = m.normsPerLayer();
    int attention = flash ? 1 : 3;
    return norms + 1 + attention + 1 + 1 + 3 + 1 + adapters + eagerOps(m, adapters, eager);
  }

  /** Ops a backward layer emits: residual, three MLP ops, the norms, o_proj, attention, the adapters, qkv. */
  static int backwardOpsPerLayer(ModelSpec m, int adapters) {
    return backwardOpsPerLayer(m, adapters, null);
  }

  static int backwardOpsPerLayer(ModelSpec m, int adapters, EagerOps eager) {
    return 7 + m.normsPerLayer() + adapters + eagerOps(m, adapters, eager);
  }

  /** The ops an eager profile adds to a layer pass: rotary on LLaMA-family layers, and one glue op per adapter. */
  private static int eagerOps(ModelSpec m, int adapters, EagerOps eager) {
    return eager == null ? 0 : (m.normKind() == NormKind.RMSNORM ? 1 : 0) + adapters;
  }

  /** Bytes of one norm's forward over {@code elements} token x hidden elements. */
  private double normForward(double elements) {
    if (te) { // LayerNormLinear's norm reads bf16 and writes its output in fp8
      return (TransformerEngineFp8.BF16_BYTES + TransformerEngineFp8.FP8_BYTES) * elements;
    }
    if (ctx.software.unfusedNorms()) { // MLX before mx.fast: each op of the norm reads and writes its tensors
      return MlxBuild.normPasses(m.normKind()) * elements * actBytes;
    }
    return llamaEager ? eager.normForwardBytes() * elements : 2 * elements * actBytes;
  }

  /**
   * Bytes of one norm's backward, with the sums of the input gradients of the {@code projections} separate modules
   * that read its output (eager LLaMA code: q, k, v; gate, up).
   */
  private double normBackward(double elements, int projections) {
    if (ctx.software.unfusedNorms()) { // autograd's two passes per forward pass, as the fused norm's 4 to its 2
      return 2 * MlxBuild.normPasses(m.normKind()) * elements * actBytes;
    }
    if (!llamaEager) {
      return 4 * elements * actBytes;
    }
    return (eager.normBackwardBytes() + (trainsBase ? eager.normWeightGradBytes() : 0)
        + (projections - 1) * eager.projectionGradSumBytes()) * elements;
  }

  /** A layer's forward ops; returns the id of the last. The first waits on {@code deps}. */
  private int forwardOps(String prefix, long batch, long queries, double keys, boolean recompute, int... deps) {
    Pass p = new Pass(prefix, batch * queries, recompute ? 1 : 0, deps);
    double tokens = batch * (double) queries;
    double h = m.hidden();
    double q = m.qDim() / tp;
    double kv = m.kvDim() / kvSplit;
    double f = m.ffnHidden() / tp;
    double sp = sequenceParallel ? tp : 1; // norms and residuals on 1/tp of the tokens under sequence parallelism
    p.elementwise("attn_norm", OpKind.NORM_ELEMENTWISE, normForward(tokens * h / sp), 5 * tokens * h / sp);
    p.spGather("attn.sp_all_gather", tokens * h * actBytes);
    p.gemm("qkv_proj", OpKind.ATTENTION, h, q + 2 * kv, 1);
    fusedQkvAdapter(p, false);
    adapters(p, false, LoraTarget.Q, LoraTarget.K, LoraTarget.V);
    if (llamaEager) {
      p.elementwise("rope", OpKind.ATTENTION, eager.ropeForwardBytes() * tokens * (q + kv) + kvRepeatBytes(tokens),
          6 * tokens * (q + kv));
    }
    attentionCore(p, batch, queries, keys);
    p.teInputCast("o_proj.fp8_cast", OpKind.ATTENTION, tokens * q);
    p.gemm("o_proj", OpKind.ATTENTION, q, h, 1);
    adapters(p, false, LoraTarget.O);
    p.allReduce("attn.tp_all_reduce", tokens * h * reduceBytes);
    p.elementwise("residual_1", OpKind.NORM_ELEMENTWISE, 3 * tokens * h * actBytes / sp, tokens * h / sp);
    if (m.normsPerLayer() > 1) {
      p.elementwise("mlp_norm", OpKind.NORM_ELEMENTWISE, normForward(tokens * h / sp), 5 * tokens * h / sp);
    }
    p.spGather("mlp.sp_all_gather", tokens * h * actBytes);
    p.hostSyncBeforeMlp();
    int upMatrices = m.ffnKind() == FfnKind.SWIGLU ? 2 : 1;
    p.gemm(upMatrices == 2 ? "gate_up_proj" : "fc1", OpKind.MLP, h, upMatrices * f, 1);
    adapters(p, false, LoraTarget.GATE, LoraTarget.UP);
    double gluBytes = upMatrices == 2 && eager != null ? eager.gluForwardBytes() : (upMatrices + 1) * actBytes;
    p.elementwise(upMatrices == 2 ? "swiglu" : "gelu", OpKind.MLP, gluBytes * tokens * f, 8 * tokens * f);
    p.teInputCast(upMatrices == 2 ? "down_proj.fp8_cast" : "fc2.fp8_cast", OpKind.MLP, tokens * f);
    p.gemm(upMatrices == 2 ? "down_proj" : "fc2", OpKind.MLP, f, h, 1);
    adapters(p, false, LoraTarget.DOWN);
    p.allReduce("mlp.tp_all_reduce", tokens * h * reduceBytes);
    return p.elementwise("residual_2", OpKind.NORM_ELEMENTWISE, 3 * tokens * h * actBytes / sp, tokens * h / sp);
  }

  /** The attention core of a forward pass: one fused kernel with FlashAttention, else QK^T, softmax, attention x V. */
  private void attentionCore(Pass p, long batch, long queries, double keys) {
    double tokens = batch * (double) queries;
    double q = m.qDim() / tp;
    double kv = m.kvDim() / kvSplit;
    double attnFlops = 4.0 * batch * queries * keys * q;
    double kvRead = 2.0 * batch * keys * kv * kvBytes
        * (queries == 1 ? ctx.software.decodeKvReads(m.heads(), m.kvHeads(), tp) : 1);
    if (flash) {
      double executed = 4.0 * batch * q * flashPairs(queries, keys, false);
      p.op("attention", OpKind.ATTENTION, ctx.attention, executed, tokens * q * actBytes * 2 + kvRead, attnFlops);
    } else {
      // the score chain moves scoreBytesPerElement per element: 2 written by QK^T, 2 read by attention x V,
      // the rest by the scale/mask/softmax kernels between them
      double elements = (double) batch * m.heads() / tp * queries * keys;
      p.op("attn_scores", OpKind.ATTENTION, ctx.attention, attnFlops / 2, tokens * q * actBytes + kvRead / 2 + 2 * elements);
      double extra = softmaxUnfused(batch, queries, keys) ? UNFUSED_SOFTMAX_EXTRA_FWD_BYTES : 0;
      p.op("softmax", OpKind.ATTENTION, ctx.elementwise, 5.0 * elements,
          (scoreBytesPerElement - 4 + extra) * elements);
      p.op("attn_v", OpKind.ATTENTION, ctx.attention, attnFlops / 2, 2 * elements + kvRead / 2 + tokens * q * actBytes);
    }
  }

  /**
   * Backward of one layer: every forward op again, GEMMs at 2x (1x for frozen weights), element-wise at 2x bytes.
   * {@code recomputeAttention} (selective recomputation): the attention core's forward runs again before its
   * backward, since its scores were not kept; FlashAttention keeps none anyway, and recomputes them in its own
   * backward kernel, so there it adds nothing.
   */
  private int backwardOps(String prefix, long batch, long seq, double keys, boolean frozen,
      boolean recomputeAttention, int... deps) {
    Pass p = new Pass(prefix, batch * seq, 0, deps);
    p.backward = true;
    double tokens = batch * (double) seq;
    double h = m.hidden();
    double q = m.qDim() / tp;
    double kv = m.kvDim() / kvSplit;
    double f = m.ffnHidden() / tp;
    double g = frozen ? 1 : 2;
    int upMatrices = m.ffnKind() == FfnKind.SWIGLU ? 2 : 1;
    double sp = sequenceParallel ? tp : 1;
    p.elementwise("residual_2.bwd", OpKind.NORM_ELEMENTWISE, 3 * tokens * h * actBytes / sp, tokens * h / sp);
    p.spGather("mlp.bwd.sp_all_gather", tokens * h * actBytes); // the reduce-scatter's transpose
    p.teGradCast(upMatrices == 2 ? "down_proj.bwd.fp8_cast" : "fc2.bwd.fp8_cast", OpKind.MLP, tokens * h, frozen);
    p.gemm(upMatrices == 2 ? "down_proj.bwd" : "fc2.bwd", OpKind.MLP, f, h, g);
    adapters(p, true, LoraTarget.DOWN);
    double gluBytes = upMatrices == 2 && eager != null ? eager.gluBackwardBytes() : 2 * (upMatrices + 1) * actBytes;
    p.elementwise(upMatrices == 2 ? "swiglu.bwd" : "gelu.bwd", OpKind.MLP, gluBytes * tokens * f, 16 * tokens * f);
    p.teGradCast(upMatrices == 2 ? "gate_up_proj.bwd.fp8_cast" : "fc1.bwd.fp8_cast", OpKind.MLP,
        tokens * upMatrices * f, frozen);
    p.teNormTranspose(upMatrices == 2 ? "gate_up_proj.bwd.fp8_transpose" : "fc1.bwd.fp8_transpose", OpKind.MLP,
        tokens * h, frozen);
    p.gemm(upMatrices == 2 ? "gate_up_proj.bwd" : "fc1.bwd", OpKind.MLP, h, upMatrices * f, g);
    adapters(p, true, LoraTarget.UP, LoraTarget.GATE);
    p.allReduce("mlp.bwd.tp_all_reduce", tokens * h * reduceBytes);
    if (m.normsPerLayer() > 1) {
      p.elementwise("mlp_norm.bwd", OpKind.NORM_ELEMENTWISE, normBackward(tokens * h / sp, upMatrices),
          10 * tokens * h / sp);
    }
    p.spGather("attn.bwd.sp_all_gather", tokens * h * actBytes);
    p.teGradCast("o_proj.bwd.fp8_cast", OpKind.ATTENTION, tokens * h, frozen);
    p.gemm("o_proj.bwd", OpKind.ATTENTION, q, h, g);
    adapters(p, true, LoraTarget.O);
    if (recomputeAttention && !flash) {
      Pass r = new Pass(prefix + "recompute.", tokens, 1, p.deps);
      attentionCore(r, batch, seq, keys);
      p.deps = r.deps;
    }
    double attnFlops = 2 * 4.0 * batch * seq * keys * q;
    // FlashAttention-2's backward recomputes QK^T and P before its four gradient matmuls: 5 matmuls over the pairs
    // it visits, 2.5x its forward's 2 (FlashAttention-2, Algorithm 2; its benchmark counts bwd = 2.5 x fwd)
    double executed = flash && ctx.software.causalBlockSkip() ? 2.5 * 4.0 * batch * q * flashPairs(seq, keys, true)
        : attnFlops;
    double scoreBytes = flash ? 0 : (backwardScoreBytesPerElement
        + (softmaxUnfused(batch, seq, keys) ? UNFUSED_SOFTMAX_EXTRA_BWD_BYTES : 0)) * batch * m.heads() / tp
        * (double) seq * keys;
    p.op("attention.bwd", OpKind.ATTENTION, ctx.attention, executed,
        2 * (tokens * q * actBytes * 2 + 2.0 * batch * keys * kv * actBytes) + scoreBytes, attnFlops);
    if (llamaEager) {
      p.elementwise("rope.bwd", OpKind.ATTENTION, eager.ropeBackwardBytes() * tokens * (q + kv) + kvRepeatBytes(tokens),
          6 * tokens * (q + kv));
    }
    adapters(p, true, LoraTarget.V, LoraTarget.K, LoraTarget.Q);
    fusedQkvAdapter(p, true);
    p.teGradCast("qkv_proj.bwd.fp8_cast", OpKind.ATTENTION, tokens * (q + 2 * kv), frozen);
    p.teNormTranspose("qkv_proj.bwd.fp8_transpose", OpKind.ATTENTION, tokens * h, frozen);
    p.gemm("qkv_proj.bwd", OpKind.ATTENTION, h, q + 2 * kv, g);
    p.allReduce("attn.bwd.tp_all_reduce", tokens * h * reduceBytes);
    int qkvModules = llamaEager && eager.fusedQkv() ? 1 : 3;
    return p.elementwise("attn_norm.bwd", OpKind.NORM_ELEMENTWISE, normBackward(tokens * h / sp, qkvModules),
        10 * tokens * h / sp);
  }

  /**
   * FlashAttention-2's tiles for head dimension 128 on A100 and H100 (sm80/sm90): forward kBlockM x kBlockN = 128 x
   * 64, backward 64 x 128 (Dao-AILab/flash-attention csrc/flash_attn/src/flash_fwd_launch_template.h,
   * flash_bwd_launch_template.h, run_mha_fwd_hdim128 / run_mha_bwd_hdim128); they stand in for every flash kernel
   * that skips masked blocks.
   */
  static final int FWD_BLOCK_M = 128;
  static final int FWD_BLOCK_N = 64;
  static final int BWD_BLOCK_M = 64;
  static final int BWD_BLOCK_N = 128;

  /**
   * The query-key pairs per head and sequence a flash kernel computes for {@code queries} queries over {@code keys}
   * keys (the queries being the last of the keys): every pair without causal block skipping, or for a single query;
   * else the key blocks up to each query block's diagonal, the blocks on it in full.
   */
  private double flashPairs(long queries, double keys, boolean backward) {
    if (!ctx.software.causalBlockSkip() || queries <= 1) {
      return queries * keys;
    }
    long k = Math.round(keys);
    return backward ? causalPairsBackward(queries, k, BWD_BLOCK_M, BWD_BLOCK_N)
        : causalPairsForward(queries, k, FWD_BLOCK_M, FWD_BLOCK_N);
  }

  /**
   * FlashAttention-2's forward under a causal mask: query block m (rows m x bm ...) visits key blocks up to
   * ceil(((m + 1) x bm + keys - queries) / bn), at most all of them ({@code n_block_max} in flash_fwd_kernel.h).
   */
  static double causalPairsForward(long queries, long keys, int bm, int bn) {
    long offset = keys - queries;
    long keyBlocks = -Math.floorDiv(-keys, bn);
    double pairs = 0;
    for (long m0 = 0; m0 < queries; m0 += bm) {
      long rows = Math.min(bm, queries - m0);
      long blocks = Math.min(keyBlocks, Math.max(0, -Math.floorDiv(-(m0 + bm + offset), bn)));
      pairs += (double) rows * Math.min(blocks * bn, keys);
    }
    return pairs;
  }

  /**
   * FlashAttention-2's backward under a causal mask: key block n (columns n x bn ...) visits the query blocks from
   * max(0, (n x bn + queries - keys) / bm) to the last ({@code m_block_min} in flash_bwd_kernel.h).
   */
  static double causalPairsBackward(long queries, long keys, int bm, int bn) {
    long offset = keys - queries;
    double pairs = 0;
    for (long n0 = 0; n0 < keys; n0 += bn) {
      long cols = Math.min(bn, keys - n0);
      long firstBlock = Math.max(0, (n0 - offset) / bm);
      pairs += (double) cols * Math.max(0, queries - firstBlock * bm);
    }
    return pairs;
  }

  /** Op names of each target's adapter, forward and backward (built once, not per op). */
  private static final String[][] ADAPTER_NAMES = new String[LoraTarget.values().length][4];

  static {
    for (LoraTarget t : LoraTarget.values()) {
      ADAPTER_NAMES[t.ordinal()][0] = "lora_" + t.key();
      ADAPTER_NAMES[t.ordinal()][1] = "lora_" + t.key() + ".bwd";
      ADAPTER_NAMES[t.ordinal()][2] = "lora_" + t.key() + ".glue";
      ADAPTER_NAMES[t.ordinal()][3] = "lora_" + t.key() + ".glue.bwd";
    }
  }

  /**
   * The LoRA adapters this task puts on {@code group} (a projection's in x out, split by tensor parallelism as
   * the projection is): nothing without LoRA, or for a target this model lacks (a gate without a gated MLP).
   */
  private void adapters(Pass p, boolean backward, LoraTarget... group) {
    for (LoraTarget target : group) {
      double[] shape = adapterShapes[target.ordinal()];
      if (shape != null) {
        p.adapter(ADAPTER_NAMES[target.ordinal()][backward ? 1 : 0], shape[0], shape[1], backward ? 2 : 1);
        if (eager != null) {
          p.elementwise(ADAPTER_NAMES[target.ordinal()][backward ? 3 : 2], OpKind.ATTENTION,
              p.tokens * adapterGlueBytes(shape[0], shape[1], backward), p.tokens * shape[1]);
        }
      }
    }
  }


  /**
   * Grouped-query attention under a profile that expands k and v to every query head before the attention kernel
   * ({@link EagerOps#repeatsKv}): forward, k and v each read at their width and written at q's; backward, the
   * expanded gradients read and reduced back (the same bytes). Nothing without GQA.
   */
  private double kvRepeatBytes(double tokens) {
    if (!eager.repeatsKv() || m.kvHeads() >= m.heads()) {
      return 0;
    }
    return 2 * tokens * (m.qDim() / (double) tp + m.kvDim() / (double) kvSplit) * actBytes;
  }

  /**
   * The fused-qkv profile's one LoRA module on the qkv Linear (nothing where it has none): A maps the input to
   * parts x r columns in one GEMM, B maps each part's r columns to its output, their GEMM FLOPs the separate
   * adapters' sum; its glue is a plain adapter's over the padded qkv width plus {@link EagerOps#fusedQkvLoraExtraBytes}.
   */
  private void fusedQkvAdapter(Pass p, boolean backward) {
    if (qkvAdapter == null) {
      return;
    }
    double in = qkvAdapter[0];
    double enabled = qkvAdapter[1];
    double padded = qkvAdapter[2];
    p.adapter(backward ? "lora_qkv.bwd" : "lora_qkv", in, enabled, backward ? 2 : 1, qkvAdapter[3]);
    double extra = EagerOps.fusedQkvLoraExtraBytes(enabled, padded, m.kvHeads() < m.heads(), backward);
    p.elementwise(backward ? "lora_qkv.glue.bwd" : "lora_qkv.glue", OpKind.ATTENTION,
        p.tokens * (adapterGlueBytes(in, padded, backward) + extra), p.tokens * padded);
  }

  /**
   * An eager profile's element-wise work around one adapter, per token, for an adapter of {@code in} x {@code out}:
   * the input's fp32 round trip (not on a 4-bit base, whose PEFT layer runs the adapter under autocast as it comes),
   * the scaling and the add into the base output (and the 4-bit base output's clone), or backward their gradients
   * and the sum of the input gradient into the base layer's.
   */
  private double adapterGlueBytes(double in, double out, boolean backward) {
    double cast = (nf4 ? 0 : eager.loraCastBytes() * in) + eager.loraDropoutBytes() * in;
    return backward ? cast + eager.loraBackwardInBytes() * in + eager.loraBackwardOutBytes() * out
        : cast + (eager.loraForwardOutBytes() + (nf4 ? eager.qloraCloneBytes() : 0)) * out;
  }

  /** One pass through a layer: ops chained in order on the compute stream. */
  private final class Pass {
    final String prefix;
    final double tokens;
    final int recompute;
    /** A backward pass: its GEMMs carry the input-gradient shape. */
    boolean backward;
    int[] deps;

    Pass(String prefix, double tokens, int recompute, int[] deps) {
      this.prefix = prefix;
      this.tokens = tokens;
      this.recompute = recompute;
      this.deps = deps;
    }

    int op(String name, OpKind kind, int group, double flops, double bytes) {
      return op(name, kind, group, flops, bytes, 0, 0, 0);
    }

    /**
     * An op costed at the FLOPs its kernel executes, {@code flops}, that counts as {@code modelFlops} in the
     * utilisation figures (a flash kernel's attention: the whole score matrix, backward twice the forward, as MFU
     * conventions count it).
     */
    int op(String name, OpKind kind, int group, double flops, double bytes, double modelFlops) {
      int id = op(name, kind, group, flops, bytes, 0, 0, 0);
      if (!ctx.elementwiseGroup(ctx.backwardOf(group))) {
        double w = ctx.sink.weight();
        totalFlops += (modelFlops - flops) * w;
        if (recompute == 1) {
          recomputeFlops += (modelFlops - flops) * w;
        }
      }
      return id;
    }

    /** An op; a GEMM ({@code m > 0}) carries its shape m x n x k unless it runs on the CPU. */
    int op(String name, OpKind kind, int forwardGroup, double flops, double bytes, double m, double n, double k) {
      int group = backward ? ctx.backwardOf(forwardGroup) : forwardGroup;
      int id = m > 0 && !onCpu
          ? ctx.sink.addGemm(prefix, name, kind, ctx.compute, group, flops, bytes, m, n, k, deps)
          : ctx.sink.addOp(prefix, name, kind, onCpu ? ctx.cpu : ctx.compute, onCpu ? ctx.cpuGroup : group, flops,
              bytes, 0, deps);
      deps = id < 0 ? NO_DEPS : new int[] {id};
      if (!ctx.elementwiseGroup(group)) {
        double w = ctx.sink.weight();
        totalFlops += flops * w;
        if (recompute == 1) {
          recomputeFlops += flops * w;
        }
      }
      return id;
    }

    /**
     * A GEMM of tokens x in by in x out. Its shape goes with it: tokens x out x in forward; a backward pass carries
     * its input-gradient shape, tokens x in x out, which its weight-gradient half shares the factor of.
     */
    int gemm(String name, OpKind kind, double in, double out, double factor) {
      double wBytes = weightBytesPerParam;
      int group = ctx.gemmGroup(quantised);
      if (nf4 && tokens > 1) {
        op(ctx.sink.keepsNames() ? name + ".dequant_nf4" : "", kind, ctx.dequantNf4, in * out,
            in * out * (weightBytesPerParam + BF16_BYTES + NF4_ABSMAX_FP32_BYTES));
        wBytes = BF16_BYTES;
      } else if (quantised && ctx.dequantisesToF16(tokens)) {
        // llama.cpp CUDA before #8075: to_fp16 writes the matrix's f16 copy, FP16 cuBLAS then reads it
        op(ctx.sink.keepsNames() ? name + ".dequant_f16" : "", kind, ctx.elementwise, in * out,
            in * out * (weightBytesPerParam + BF16_BYTES));
        wBytes = BF16_BYTES;
        group = ctx.gemm;
      }
      // under TE's fp8 recipe the GEMM reads fp8 inputs and writes bf16
      double inBytes = te ? TransformerEngineFp8.FP8_BYTES : actBytes;
      double bytes = factor * (in * out * wBytes + tokens * (in * inBytes + out * actBytes));
      return op(name, kind, group, factor * 2 * tokens * in * out, bytes, tokens,
          backward ? in : out, backward ? out : in);
    }

    int adapter(String name, double in, double out, double factor) {
      return adapter(name, in, out, factor, 1);
    }

    /**
     * An adapter whose A maps the input to {@code parts} x r columns in one GEMM and whose B maps each part's r
     * columns to its share of {@code out}: 2 x tokens x r x (parts x in + out) FLOPs, the input read once.
     */
    int adapter(String name, double in, double out, double factor, double parts) {
      double r = loraRank;
      double flops = factor * 2 * tokens * r * (parts * in + out);
      double bytes = factor * (4 * r * (parts * in + out) + tokens * (in + out + 2 * parts * r) * actBytes);
      return op(name, OpKind.ATTENTION, ctx.gemm, flops, bytes);
    }

    /**
     * The tensor-parallel all-reduce of this pass's activations (nothing without tensor parallelism); under
     * sequence parallelism a reduce-scatter, whose all-gather {@link #spGather} issues before the next GEMM.
     */
    void allReduce(String name, double bytes) {
      collective(name, sequenceParallel ? Collectives.Kind.REDUCE_SCATTER : Collectives.Kind.ALL_REDUCE, bytes);
    }

    /** Sequence parallelism's all-gather of the activations before a column-parallel GEMM. */
    void spGather(String name, double bytes) {
      if (sequenceParallel) {
        collective(name, Collectives.Kind.ALL_GATHER, bytes);
      }
    }

    /**
     * Where the profile's host stops before the MLP of a forward pass ({@link StepContext#hostSyncBeforeMlp}): the
     * host waits for this pass's last op so far, then issues the MLP, whose first kernel waits for that issue too.
     */
    void hostSyncBeforeMlp() {
      if (onCpu) {
        return;
      }
      int issue = ctx.hostSyncBeforeMlp(prefix, deps);
      if (issue >= 0) {
        deps = java.util.Arrays.copyOf(deps, deps.length + 1);
        deps[deps.length - 1] = issue;
      }
    }

    private void collective(String name, Collectives.Kind kind, double bytes) {
      if (ctx.collectives.plan.tp() <= 1) {
        return;
      }
      int id = ctx.collectives.tensorParallel(prefix, name, kind, bytes, deps);
      deps = id < 0 ? NO_DEPS : new int[] {id};
    }

    int elementwise(String name, OpKind kind, double bytes, double flops) {
      return op(name, kind, ctx.elementwise, flops, bytes);
    }

    /**
     * te.Linear's cast of its bf16 input of {@code elements} to fp8 (TERowParallelLinear: o_proj, fc2), with the
     * fp8 transpose the weight gradient reads when the weights train; nothing outside TE's fp8 recipe.
     */
    void teInputCast(String name, OpKind kind, double elements) {
      if (te) {
        elementwise(name, kind, elements * (trainsBase ? TransformerEngineFp8.CAST_TRANSPOSE_BYTES
            : TransformerEngineFp8.CAST_BYTES), elements);
      }
    }

    /** Backward: the output gradient's cast to fp8 (with its transpose when the weights train). */
    void teGradCast(String name, OpKind kind, double elements, boolean frozen) {
      if (te) {
        elementwise(name, kind, elements * (frozen ? TransformerEngineFp8.CAST_BYTES
            : TransformerEngineFp8.CAST_TRANSPOSE_BYTES), elements);
      }
    }

    /** Backward of a LayerNormLinear whose weights train: its norm's fp8 output transposed for the weight gradient. */
    void teNormTranspose(String name, OpKind kind, double elements, boolean frozen) {
      if (te && !frozen) {
        elementwise(name, kind, elements * TransformerEngineFp8.TRANSPOSE_BYTES, 0);
      }
    }
  }
}
