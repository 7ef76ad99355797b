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
 * @param megatronFusedSoftmax whether its attention is Megatron's classic attention, whose scale-mask-softmax is
 *     {@code FusedScaleMaskSoftmax}: one fused kernel where {@link #megatronSoftmaxFused} holds, PyTorch's eager fp32
 *     ops otherwise (Megatron-LM before {@code --use-flash-attn}, Megatron-DeepSpeed as vTrain ran it:
 *     VIA-Research/vTrain src/model/fused_softmax.py; docs/CALIBRATION.md#host-dispatch); needs classic attention
 * @param pipelineScatterGather whether pipeline sends split the tensor over the tensor-parallel ranks (Megatron-LM
 *     before Megatron-Core and Megatron-DeepSpeed: {@code --no-scatter-gather-tensors-in-pipeline} is off by
 *     default, so {@code _communicate} in {@code megatron/p2p_communication.py} sends
 *     {@code split_tensor_into_1d_equal_chunks} of the activation, 1 / tp per rank, and the receiver rebuilds it
 *     with {@code gather_split_1d_tensor}, an all-gather over the tensor-parallel group)
 * @param transformerEngineFp8 whether fp8 training runs Transformer Engine's fp8 recipe (delayed scaling) on its
 *     layers, as Megatron-Core and NeMo do with TE layers: fp8 GEMM inputs cast in TE's own kernels, bf16 between
 *     the GEMMs (NVIDIA/TransformerEngine transformer_engine/pytorch/module/linear.py;
 *     docs/CALIBRATION.md#transformer-engine-fp8); a profile without it is not offered fp8 training by advise
 * @param recordedDate the {@code software_date} a scenario gave a profile that has one version: recorded and warned
 *     about ({@link #dateWarning}), not modelled; null when none was given
 * @param mlx for MLX, the version its kernels come from (by {@code software_date}: {@link MlxBuild}); null for
 *     every other profile
 * @param mlpHostSyncShare 0: the host thread runs ahead through each layer pass. Above 0 (with host dispatch): in
 *     each forward and recomputed forward layer pass the host stops once, before the MLP, until the GPU has done
 *     everything issued before it, having issued this share of the pass's host time; it then issues the rest.
 *     Megatron-DeepSpeed's {@code ParallelTransformerLayer.forward} creates {@code moe_loss} and {@code mlp_bias}
 *     as {@code torch.tensor(0.0, device=...)} there, in dense models too, and a tensor made from a Python number
 *     on a CUDA device is a host-to-device copy that synchronises (docs/CALIBRATION.md#megatron-deepspeed)
 * @param flashAttentionSpeed the speed of the profile's flash attention kernels against FlashAttention-2's, where it
 *     runs FlashAttention-class kernels ({@code flashAttention2}): 1 for FlashAttention-2 (and kernels as fast);
 *     {@link #FLASH_ATTENTION_1_SPEED} for FlashAttention v1 and the Triton kernel of its day (docs/CALIBRATION.md#llm-foundry)
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
    boolean causalBlockSkip,
    boolean megatronFusedSoftmax,
    boolean pipelineScatterGather,
    boolean transformerEngineFp8,
    String recordedDate,
    MlxBuild mlx,
    double mlpHostSyncShare,
    double flashAttentionSpeed) {

  /**
   * FlashAttention v1's speed against FlashAttention-2's on the same device: the FlashAttention-2 paper (Dao 2023,
   * arXiv 2307.08691, section 4.1) measures FlashAttention-2 "around 2x faster than FlashAttention" forward and
   * backward on an A100 (its abstract: "around 2x speedup compared to FlashAttention"; FlashAttention "reaching only
   * 25-40% of the theoretical maximum FLOPs/s", FlashAttention-2 50-73%).
   */
  public static final double FLASH_ATTENTION_1_SPEED = 0.5;

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
    if (causalBlockSkip && !flashAttention) {
      throw new IllegalArgumentException(id + ": causal block skip needs a flash attention kernel, but its attention"
          + " computes the whole score matrix");
    }
    if (mlpHostSyncShare < 0 || mlpHostSyncShare >= 1) {
      throw new IllegalArgumentException(id + ": the host's share of a pass before its MLP's sync must be in [0, 1),"
          + " was " + mlpHostSyncShare);
    }
    if (!(flashAttentionSpeed > 0 && flashAttentionSpeed <= 1)) {
      throw new IllegalArgumentException(id + ": the flash attention kernels' speed against FlashAttention-2's must be"
          + " in (0, 1], was " + flashAttentionSpeed);
    }
    if (flashAttentionSpeed < 1 && !flashAttention2) {
      throw new IllegalArgumentException(id + ": a flash attention speed against FlashAttention-2's needs"
          + " FlashAttention-class kernels (flash attention 2)");
    }
    if (mlpHostSyncShare > 0 && hostSecondsPerLayerPass <= 0) {
      throw new IllegalArgumentException(id + ": a host sync before the MLP needs the host to issue the layer passes"
          + " (host seconds per layer pass > 0)");
    }
    if (megatronFusedSoftmax && flashAttention) {
      throw new IllegalArgumentException(id + ": Megatron's fused softmax belongs to classic attention, but its"
          + " attention is a flash kernel");
    }
  }

  /**
   * A builder for profile {@code id}. Required: launch seconds, kernels per layer, flash attention, workspace and
   * source; every other component has the default its setter names.
   */
  public static Builder builder(String id, String description) {
    return new Builder(id, description);
  }

  /** A builder holding every component of this profile as it is (nothing re-derived). */
  public Builder toBuilder() {
    return toBuilder(id, description).aliases(aliases);
  }

  /**
   * A builder for another profile, {@code newId}, that starts as a copy of this one: every component but the id, the
   * description and the aliases (none).
   */
  public Builder toBuilder(String newId, String newDescription) {
    return builder(newId, newDescription).gemmScale(gemmScale).streamScale(streamScale)
        .launchSeconds(launchSeconds).kernelsPerLayer(kernelsPerLayer).flashAttention(flashAttention)
        .scoreBytesPerElement(scoreBytesPerElement).workspaceBytes(workspaceBytes).dequantScale(dequantScale)
        .cpuRunsHostLayers(cpuRunsHostLayers).promptChunkTokens(promptChunkTokens).source(source)
        .backwardKernelsPerLayer(backwardKernelsPerLayer).flashAttention2(flashAttention2).llamaCpp(llamaCpp)
        .decodeKvPerQueryHead(decodeKvPerQueryHead).hostSecondsPerLayerPass(hostSecondsPerLayerPass)
        .eagerOps(eagerOps).optimizerImpl(optimizerImpl).causalBlockSkip(causalBlockSkip)
        .megatronFusedSoftmax(megatronFusedSoftmax).pipelineScatterGather(pipelineScatterGather)
        .transformerEngineFp8(transformerEngineFp8).recordedDate(recordedDate).mlx(mlx)
        .mlpHostSyncShare(mlpHostSyncShare).flashAttentionSpeed(flashAttentionSpeed);
  }

  /**
   * This profile with the {@code software_date} a scenario gave, for a profile that has one version only (llama.cpp's
   * date selects its build instead: {@link #atBuild}): recorded, and said in each result's warnings, since it changes
   * nothing (see {@link #dateWarning}).
   */
  public SoftwareProfile withRecordedDate(String date) {
    if (llamaCpp != null || mlx != null) {
      throw new IllegalStateException(id + ": its software_date selects its version (atBuild), it is not only recorded");
    }
    return toBuilder().recordedDate(date).build();
  }

  /**
   * What a result must say when a scenario dated software that has one version here: the date is recorded, not
   * modelled; null when no date was given (or the profile is llama.cpp's, whose date is modelled).
   */
  public String dateWarning() {
    return recordedDate == null ? null : "software_date " + recordedDate + " is recorded, not modelled: the '" + id
        + "' profile has one version, its kernels as " + source + " describes them, whatever the date";
  }

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
    return toBuilder().hostSecondsPerLayerPass(secondsPerLayerPass).build();
  }

  /** Whether a host thread issues the layer passes ahead of the GPU (their kernels then pay no launch). */
  public boolean hostDispatch() {
    return hostSecondsPerLayerPass > 0;
  }

  /**
   * This llama.cpp profile as build {@code build} runs: its date's kernels, and with {@code -fa} the attention as
   * one fused kernel (no score chain in memory).
   */
  public SoftwareProfile atBuild(LlamaCppBuild build) {
    if (llamaCpp == null) {
      throw new IllegalStateException(id + " is not a llama.cpp profile");
    }
    return toBuilder().flashAttention(build.flashAttention()).llamaCpp(build).build();
  }

  /**
   * This MLX profile as version {@code build} runs: today's kernels from {@link MlxBuild#FAST_KERNELS} on (the
   * profile unchanged), and before them classic attention whose scores each single-op kernel reads and writes in the
   * activation dtype, unfused norms and their kernel count ({@link MlxBuild}; docs/CALIBRATION.md#mlx).
   */
  public SoftwareProfile atBuild(MlxBuild build) {
    if (mlx == null) {
      throw new IllegalStateException(id + " is not an MLX profile");
    }
    if (build.fastKernels()) {
      return toBuilder().mlx(build).build();
    }
    return toBuilder().mlx(build).flashAttention(false).causalBlockSkip(false)
        .kernelsPerLayer(MlxBuild.UNFUSED_KERNELS_PER_LAYER)
        .backwardKernelsPerLayer(2 * MlxBuild.UNFUSED_KERNELS_PER_LAYER).build();
  }

  /**
   * Bytes per attention-score element of the forward chain without flash attention, at {@code actBytes} per
   * activation element: an unfused MLX version's passes in the activation dtype, else the profile's own count.
   */
  public double scoreBytesPerElement(double actBytes) {
    return mlx != null && !flashAttention ? mlx.scoreBytesPerElement(actBytes) : scoreBytesPerElement;
  }

  /**
   * Bytes per attention-score element of a backward without flash attention: MLX's VJP of its unfused ops
   * ({@link MlxBuild#backwardScoreBytesPerElement}), else twice the forward chain's.
   */
  public double backwardScoreBytesPerElement(double actBytes) {
    return mlx != null && !flashAttention ? mlx.backwardScoreBytesPerElement(actBytes)
        : 2 * scoreBytesPerElement(actBytes);
  }

  /**
   * This profile as a task runs it: MLX from 0.8 on trains through its SDPA fallback's single ops (classic
   * attention, the scores materialised forward and backward; {@link MlxBuild#NO_SDPA_IN_GRAD}; before 0.8 it was
   * classic already), while inference keeps the fused kernels. Every other profile, and inference, unchanged.
   */
  public SoftwareProfile forTask(boolean training) {
    if (!training || mlx == null || !flashAttention) {
      return this;
    }
    return toBuilder().flashAttention(false).causalBlockSkip(false).build();
  }

  /** Whether norms run as single-op kernels (an MLX version before {@link MlxBuild#FAST_KERNELS}). */
  public boolean unfusedNorms() {
    return mlx != null && !mlx.fastKernels();
  }

  /** This profile with decode attention reading a sequence's keys and values once per query head. */
  public SoftwareProfile withDecodeKvPerQueryHead() {
    return toBuilder().decodeKvPerQueryHead(true).build();
  }

  /**
   * This profile with a flash kernel that skips the key blocks a causal mask hides (Transformer Engine's fused
   * attention, as FlashAttention-2's kernels do).
   */
  public SoftwareProfile withCausalBlockSkip() {
    if (!flashAttention) {
      throw new IllegalStateException(id + " computes the whole score matrix (no flash kernel)");
    }
    return toBuilder().causalBlockSkip(true).build();
  }

  /**
   * Builds a {@link SoftwareProfile} with named setters. The record's compact constructor validates the result; the
   * builder only refuses a required component left unset.
   */
  public static final class Builder {
    private final String id;
    private final String description;
    private List<String> aliases = List.of();
    private double gemmScale = 1;
    private double streamScale = 1;
    private Double launchSeconds;
    private Integer kernelsPerLayer;
    private Boolean flashAttention;
    private double scoreBytesPerElement = CLASSIC_FUSED_SOFTMAX_SCORE_BYTES;
    private Double workspaceBytes;
    private double dequantScale = 1;
    private boolean cpuRunsHostLayers;
    private int promptChunkTokens;
    private String source;
    private Integer backwardKernelsPerLayer;
    private boolean flashAttention2;
    private LlamaCppBuild llamaCpp;
    private boolean decodeKvPerQueryHead;
    private double hostSecondsPerLayerPass;
    private EagerOps eagerOps;
    private OptimizerImpl optimizerImpl = OptimizerImpl.FUSED;
    private Boolean causalBlockSkip;
    private boolean megatronFusedSoftmax;
    private boolean pipelineScatterGather;
    private boolean transformerEngineFp8;
    private String recordedDate;
    private MlxBuild mlx;
    private double mlpHostSyncShare;
    private double flashAttentionSpeed = 1;

    private Builder(String id, String description) {
      this.id = id;
      this.description = description;
    }

    /** Other names the profile is found by (default: none). */
    public Builder aliases(List<String> names) {
      this.aliases = names;
      return this;
    }

    /** Other names the profile is found by (default: none). */
    public Builder aliases(String... names) {
      return aliases(List.of(names));
    }

    /** Default 1: the framework's GEMMs reach the device's measured best-shape fraction. */
    public Builder gemmScale(double v) {
      this.gemmScale = v;
      return this;
    }

    /** Default 1: weight-reading kernels reach the device's measured streaming fraction. */
    public Builder streamScale(double v) {
      this.streamScale = v;
      return this;
    }

    /** Required. */
    public Builder launchSeconds(double v) {
      this.launchSeconds = v;
      return this;
    }

    /** Required. */
    public Builder kernelsPerLayer(int v) {
      this.kernelsPerLayer = v;
      return this;
    }

    /** Required. */
    public Builder flashAttention(boolean v) {
      this.flashAttention = v;
      return this;
    }

    /**
     * Default {@link #CLASSIC_FUSED_SOFTMAX_SCORE_BYTES}; read only without flash attention, so every profile with
     * classic attention states its own chain.
     */
    public Builder scoreBytesPerElement(double v) {
      this.scoreBytesPerElement = v;
      return this;
    }

    /** Required. */
    public Builder workspaceBytes(double v) {
      this.workspaceBytes = v;
      return this;
    }

    /** Default 1: block-quantised weights stream as fast as 16-bit ones. */
    public Builder dequantScale(double v) {
      this.dequantScale = v;
      return this;
    }

    /** Default false: host layers are streamed to the GPU each pass. */
    public Builder cpuRunsHostLayers(boolean v) {
      this.cpuRunsHostLayers = v;
      return this;
    }

    /** Default 0: the whole prompt at once. */
    public Builder promptChunkTokens(int v) {
      this.promptChunkTokens = v;
      return this;
    }

    /** Required: where the profile's figures are justified. */
    public Builder source(String v) {
      this.source = v;
      return this;
    }

    /** Default: twice the forward's kernels per layer. */
    public Builder backwardKernelsPerLayer(int v) {
      this.backwardKernelsPerLayer = v;
      return this;
    }

    /** Default false: fused vendor kernels, reaching the GEMM fraction. */
    public Builder flashAttention2(boolean v) {
      this.flashAttention2 = v;
      return this;
    }

    /** Default null: not llama.cpp. */
    public Builder llamaCpp(LlamaCppBuild v) {
      this.llamaCpp = v;
      return this;
    }

    /** Default false: a group's query heads share one load of their KV head. */
    public Builder decodeKvPerQueryHead(boolean v) {
      this.decodeKvPerQueryHead = v;
      return this;
    }

    /** Default 0: launches are paid per kernel on the GPU's stream. */
    public Builder hostSecondsPerLayerPass(double v) {
      this.hostSecondsPerLayerPass = v;
      return this;
    }

    /** Default null: the element-wise work is costed as fused kernels. */
    public Builder eagerOps(EagerOps v) {
      this.eagerOps = v;
      return this;
    }

    /** Default {@link OptimizerImpl#FUSED}. */
    public Builder optimizerImpl(OptimizerImpl v) {
      this.optimizerImpl = v;
      return this;
    }

    /**
     * Default: FlashAttention-2's kernels ({@code flashAttention && flashAttention2}) outside llama.cpp have it, other
     * kernels are not assumed to.
     */
    public Builder causalBlockSkip(boolean v) {
      this.causalBlockSkip = v;
      return this;
    }

    /** Default false. */
    public Builder megatronFusedSoftmax(boolean v) {
      this.megatronFusedSoftmax = v;
      return this;
    }

    /** Default false: each rank sends the whole activation. */
    public Builder pipelineScatterGather(boolean v) {
      this.pipelineScatterGather = v;
      return this;
    }

    /** Default false: fp8 training is not run through Transformer Engine's recipe. */
    public Builder transformerEngineFp8(boolean v) {
      this.transformerEngineFp8 = v;
      return this;
    }

    /** The {@code software_date} a scenario gave a profile with one version (default: none). */
    public Builder recordedDate(String v) {
      this.recordedDate = v;
      return this;
    }

    /** Default null: not MLX. */
    public Builder mlx(MlxBuild v) {
      this.mlx = v;
      return this;
    }

    /** Default 0: no host sync inside a layer pass (see {@link SoftwareProfile#mlpHostSyncShare}). */
    public Builder mlpHostSyncShare(double v) {
      this.mlpHostSyncShare = v;
      return this;
    }

    /** Default 1: FlashAttention-2's speed (see {@link SoftwareProfile#flashAttentionSpeed}). */
    public Builder flashAttentionSpeed(double v) {
      this.flashAttentionSpeed = v;
      return this;
    }

    public SoftwareProfile build() {
      boolean flash = required(flashAttention, "flash attention");
      int kernels = required(kernelsPerLayer, "kernels per layer");
      return new SoftwareProfile(id, description, aliases, gemmScale, streamScale,
          required(launchSeconds, "launch overhead (s)"), kernels, flash, scoreBytesPerElement,
          required(workspaceBytes, "workspace (bytes)"), dequantScale, cpuRunsHostLayers, promptChunkTokens,
          required(source, "source"), backwardKernelsPerLayer == null ? 2 * kernels : backwardKernelsPerLayer,
          flashAttention2, llamaCpp, decodeKvPerQueryHead, hostSecondsPerLayerPass, eagerOps, optimizerImpl,
          causalBlockSkip == null ? flash && flashAttention2 && llamaCpp == null : causalBlockSkip,
          megatronFusedSoftmax, pipelineScatterGather, transformerEngineFp8, recordedDate, mlx, mlpHostSyncShare,
          flashAttentionSpeed);
    }

    private <T> T required(T value, String what) {
      if (value == null) {
        throw new IllegalArgumentException("software profile " + id + ": " + what + " must be set");
      }
      return value;
    }
  }

  /**
   * Bytes per attention-score element of a 16-bit score chain with a fused softmax: QK^T written (2 B), the softmax
   * reading and writing it (4 B), attention x V reading it (2 B). The builder's default, read only by classic
   * (non-flash) attention.
   */
  public static final double CLASSIC_FUSED_SOFTMAX_SCORE_BYTES = 8;
}
