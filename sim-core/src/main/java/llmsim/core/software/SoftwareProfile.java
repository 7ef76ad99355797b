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
 * @param eagerOps the element-wise work eager module code launches around a LLaMA-family layer's GEMMs and each LoRA
 *     adapter; null for a profile whose kernels fuse it (one read and write per norm, no separate rotary pass)
 * @param optimizerImpl how its AdamW step is launched on the GPU (fused unless the profile says otherwise)
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
    EagerOps eagerOps,
    OptimizerImpl optimizerImpl) {

  /** A profile whose AdamW step is one fused kernel. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer, boolean flashAttention2, EagerOps eagerOps) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, eagerOps, OptimizerImpl.FUSED);
  }

  /** A profile whose kernels fuse the element-wise work around the GEMMs. */
  public SoftwareProfile(String id, String description, List<String> aliases, double gemmScale, double streamScale,
      double launchSeconds, int kernelsPerLayer, boolean flashAttention, double scoreBytesPerElement,
      double workspaceBytes, double dequantScale, boolean cpuRunsHostLayers, int promptChunkTokens, String source,
      int backwardKernelsPerLayer, boolean flashAttention2) {
    this(id, description, aliases, gemmScale, streamScale, launchSeconds, kernelsPerLayer, flashAttention,
        scoreBytesPerElement, workspaceBytes, dequantScale, cpuRunsHostLayers, promptChunkTokens, source,
        backwardKernelsPerLayer, flashAttention2, null);
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
}
