package llmsim.core.software;

import java.util.List;
import llmsim.core.util.Checks;

/**
 * How a framework uses the hardware. Each factor is documented in docs/CALIBRATION.md with the
 * microbenchmark or documented behaviour it comes from; none is fitted to an end-to-end result.
 *
 * @param gemmScale multiplies the device's measured GEMM fraction (1.0: the framework's GEMMs reach
 *     the microbenchmark's best-shape throughput)
 * @param streamScale multiplies the device's measured streaming fraction for weight-reading kernels
 * @param launchSeconds fixed cost per kernel launch (CPU dispatch + GPU launch latency)
 * @param kernelsPerLayer kernels one transformer layer launches in a forward pass
 * @param flashAttention whether attention scores are never materialised in memory
 * @param scoreBytesPerElement without flash attention: bytes moved per attention-score element by the
 *     whole score chain of the forward pass (QK^T write, scale, mask, softmax with its casts, the read
 *     by attention x V), counted from the framework's code path (docs/CALIBRATION.md)
 * @param workspaceBytes device memory the framework holds beyond tensors (context, allocator, buffers)
 * @param dequantScale fraction of streaming efficiency kept when weights are in a block-quantised format
 * @param cpuRunsHostLayers when only some layers fit on the GPU: true if the layers left in host memory
 *     are computed by the CPU there (llama.cpp's {@code -ngl}), false if they are streamed to the GPU each
 *     pass (Accelerate's {@code device_map="auto"} with CPU offload)
 * @param promptChunkTokens prompts are processed in chunks of this many tokens per sequence, so that
 *     activations do not grow with the prompt (llama.cpp's n_batch/n_ubatch); 0 for the whole prompt at once
 * @param backwardKernelsPerLayer kernels one transformer layer launches in a backward pass (default: twice the
 *     forward's, as autograd runs about two per forward kernel: a GEMM's input and weight gradients, an
 *     element-wise op's gradient and the reduction of a broadcast operand, and gradient accumulation)
 * @param flashAttention2 whether attention runs FlashAttention-2's kernels (PyTorch's SDPA), which reach the
 *     device's FlashAttention-2 fraction rather than its GEMM fraction; false for fused vendor kernels
 * @param llamaCpp for llama.cpp, the build its kernels come from (by {@code software_date}; {@code -fa}); null for
 *     every other profile
 * @param decodeKvPerQueryHead whether decode attention loads a sequence's keys and values once per query head
 *     (one thread block per query head and sequence, as TensorRT-LLM's masked multi-head attention kernel before
 *     its XQA kernel), so that under grouped- or multi-query attention the KV cache is read heads / kv_heads
 *     times per step; false where the kernel shares one load among a group's query heads
 * @param hostSecondsPerLayerPass 0: the launch cost is paid per kernel on the GPU's stream, in series with the work
 *     (the figure was measured as the excess of eager over graph-captured runs). Above 0: the host thread issues each
 *     layer pass (a forward, a recomputed forward, a backward) in this many seconds on its own CPU lane, running
 *     ahead of the GPU as CUDA's asynchronous launches let it, so a pass takes the longer of its host time and its
 *     GPU time, not their sum, and the kernels pay no launch of their own (docs/CALIBRATION.md#host-dispatch)
 * @param eagerOps the element-wise work eager module code launches around a LLaMA-family layer's GEMMs and each LoRA
 *     adapter; null for a profile whose kernels fuse it (one read and write per norm, no separate rotary pass)
 * @param optimizerImpl how its AdamW step is launched on the GPU (fused unless the profile says otherwise)
 * @param causalBlockSkip whether its attention runs FlashAttention-2-style tiled kernels: under a causal mask they
 *     skip the key blocks the mask hides entirely and compute the blocks on the diagonal in full, and their backward
 *     recomputes the scores (5 matmuls to the forward's 2). FlashAttention-2's kernels, SDPA's flash backend,
 *     Transformer Engine's fused attention; false where the whole score matrix is computed (classic attention) or
 *     where the kernel has not been checked (docs/CALIBRATION.md#causal-attention)
 */
public record SoftwareProfile(
    String id,
    String description,
    List<String> aliases,
    double gemmScale,
    double streamScale,
    double launchSeconds,
    int kernelsPerLayer,
    boolean flashAttention,
    double scoreBytesPerElement,
    double workspaceBytes,
    double dequantScale,
    boolean cpuRunsHostLayers,
    int promptChunkTokens,
    String source,
    int backwardKernelsPerLayer,
    boolean flashAttention2,
    LlamaCppBuild llamaCpp,
    boolean decodeKvPerQueryHead,
    double hostSecondsPerLayerPass,
    EagerOps eagerOps,
    OptimizerImpl optimizerImpl,
    boolean causalBlockSkip) {

  /**
   * How many times a decode step's attention reads each KV head a GPU holds, under tensor parallelism {@code tp}:
   * once, or, where the kernel loads keys and values per query head, once for each of the GPU's query heads that
   * share it: (heads / tp) / (kv_heads / min(tp, kv_heads)) (KV heads are split over at most kv_heads GPUs).
   */
  public double decodeKvReads(int heads, int kvHeads, int tp) {
    if (!decodeKvPerQueryHead) {
      return 1;
    }
    return (heads / (double) tp) / (kvHeads / (double) Math.min(tp, kvHeads));
  }

  /**
   * Every component but {@code causalBlockSkip}, which FlashAttention-2's kernels ({@code flashAttention2}) have and
   * the others are not assumed to.
   */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer, boolean flashAttention2, LlamaCppBuild llamaCpp, boolean decodeKvPerQueryHead,
      double hostSecondsPerLayerPass, EagerOps eagerOps, OptimizerImpl optimizerImpl) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, llamaCpp, decodeKvPerQueryHead, hostSecondsPerLayerPass, eagerOps,
        optimizerImpl, flashAttention && flashAttention2 && llamaCpp == null);
  }

  /** A profile with eager module code {@code eagerOps} and AdamW launched as {@code optimizerImpl}. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer, boolean flashAttention2, EagerOps eagerOps, OptimizerImpl optimizerImpl) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, null, false, 0, eagerOps, optimizerImpl,
        flashAttention && flashAttention2);
  }

  /** A profile with eager module code {@code eagerOps} whose AdamW step is one fused kernel. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer, boolean flashAttention2, EagerOps eagerOps) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, eagerOps, OptimizerImpl.FUSED);
  }

  /** A profile that is not llama.cpp, with fused kernels, decode reading each KV head once per step. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer, boolean flashAttention2) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, null, false, 0, null, OptimizerImpl.FUSED,
        flashAttention && flashAttention2);
  }

  /**
   * Whether the profile runs Megatron's classic attention, whose scale-mask-softmax is one fused kernel only where
   * {@link #megatronSoftmaxFused} allows it (the {@code megatron-classic} profile).
   */
  public boolean megatronSoftmax() {
    return !flashAttention && id.equals("megatron-classic");
  }

  /**
   * Whether pipeline sends split the tensor over the tensor-parallel ranks (Megatron-LM before Megatron-Core and
   * Megatron-DeepSpeed: {@code --no-scatter-gather-tensors-in-pipeline} is off by default, so {@code _communicate} in
   * {@code megatron/p2p_communication.py} sends {@code split_tensor_into_1d_equal_chunks} of the activation, 1 / tp
   * per rank, and the receiver rebuilds it with {@code gather_split_1d_tensor}, an all-gather over the
   * tensor-parallel group): the {@code megatron-classic} profile.
   */
  public boolean megatronPipelineScatterGather() {
    return id.equals("megatron-classic");
  }

  /**
   * Megatron's FusedScaleMaskSoftmax condition for its fused causal kernel: 16 < keys <= 2048, queries a multiple of
   * 4 and attention batches (micro-batch x heads on this GPU) a multiple of 4; otherwise it runs PyTorch's ops in
   * fp32 (VIA-Research/vTrain src/model/fused_softmax.py, Megatron's megatron/model/fused_softmax.py as vTrain
   * copied it; docs/CALIBRATION.md#host-dispatch).
   */
  public static boolean megatronSoftmaxFused(double attentionBatches, long queries, double keys) {
    return keys > 16 && keys <= 2048 && queries % 4 == 0 && attentionBatches % 4 == 0;
  }

  /** This profile with its layer passes issued by a host thread running ahead of the GPU (see the record doc). */
  public SoftwareProfile withHostDispatch(double secondsPerLayerPass) {
    return extended(flashAttention, llamaCpp, decodeKvPerQueryHead, secondsPerLayerPass, causalBlockSkip);
  }

  /** Whether a host thread issues the layer passes ahead of the GPU (their kernels then pay no launch). */
  public boolean hostDispatch() {
    return hostSecondsPerLayerPass > 0;
  }

  /** A profile whose attention reaches the GEMM fraction. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, false);
  }

  /** A profile whose backward launches twice the forward's kernels. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        2 * kernelsPerLayer);
  }

  public SoftwareProfile {
    Checks.notBlank("software id", id);
    aliases = List.copyOf(aliases);
    Checks.fraction("gemm scale", gemmScale);
    Checks.fraction("stream scale", streamScale);
    Checks.nonNegative("launch overhead (s)", launchSeconds);
    Checks.nonNegative("host seconds per layer pass", hostSecondsPerLayerPass);
    Checks.positive("kernels per layer", kernelsPerLayer);
    Checks.positive("backward kernels per layer", backwardKernelsPerLayer);
    Checks.nonNegative("workspace (bytes)", workspaceBytes);
    Checks.positive("score bytes per element", scoreBytesPerElement);
    Checks.fraction("dequant scale", dequantScale);
    Checks.notNull("optimizer implementation", optimizerImpl);
    if (promptChunkTokens < 0) {
      throw new IllegalArgumentException("prompt chunk (tokens) must be >= 0, was " + promptChunkTokens);
    }
  }

  /**
   * This llama.cpp profile as build {@code build} runs: its date's kernels, and with {@code -fa} the attention as
   * one fused kernel (no score chain in memory).
   */
  public SoftwareProfile atBuild(LlamaCppBuild build) {
    if (llamaCpp == null) {
      throw new IllegalStateException(id + " is not a llama.cpp profile");
    }
    return extended(build.flashAttention(), build, decodeKvPerQueryHead, hostSecondsPerLayerPass, causalBlockSkip);
  }

  /** A llama.cpp profile at {@code build}. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer, boolean flashAttention2, LlamaCppBuild build) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, build, false, 0, null, OptimizerImpl.FUSED, false);
  }

  /** This profile with decode attention reading a sequence's keys and values once per query head. */
  public SoftwareProfile withDecodeKvPerQueryHead() {
    return extended(flashAttention, llamaCpp, true, hostSecondsPerLayerPass, causalBlockSkip);
  }

  /**
   * This profile with a flash kernel that skips the key blocks a causal mask hides (Transformer Engine's fused
   * attention, as FlashAttention-2's kernels do).
   */
  public SoftwareProfile withCausalBlockSkip() {
    if (!flashAttention) {
      throw new IllegalStateException(id + " computes the whole score matrix (no flash kernel)");
    }
    return extended(flashAttention, llamaCpp, decodeKvPerQueryHead, hostSecondsPerLayerPass, true);
  }

  /** This profile with the components its withers change set as given, every other one as it is. */
  private SoftwareProfile extended(boolean flash, LlamaCppBuild build, boolean kvPerQueryHead, double hostPerPass,
      boolean causalSkip) {
    return new SoftwareProfile(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flash,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, build, kvPerQueryHead, hostPerPass, eagerOps, optimizerImpl,
        causalSkip);
  }
}
