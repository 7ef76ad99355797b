package llmsim.core.hw;

import llmsim.core.util.Checks;

/**
 * Achievable fractions of a device's peaks, each with the measurement it came from.
 *
 * @param gemm fraction of the dense peak a large GEMM reaches
 * @param gemmSource where {@code gemm} came from
 * @param memoryStreaming fraction of the memory bandwidth a streaming copy reaches
 * @param memorySource where {@code memoryStreaming} came from
 * @param measured false when these are the documented defaults rather than a measurement
 * @param flashAttention fraction of the dense 16-bit peak FlashAttention-2's forward kernel reaches, where measured;
 *     else the GEMM fraction
 * @param flashAttentionBackward the same for its backward kernel (counting the 5 matmuls it executes), where measured;
 *     else the forward's
 */
public record Efficiency(double gemm, String gemmSource, double memoryStreaming, String memorySource, boolean measured,
    double gemmFp8, String gemmFp8Source, double flashAttention, String flashAttentionSource,
    double flashAttentionBackward, String flashAttentionBackwardSource) {

  /** Without a separate figure for FlashAttention-2's backward: it reaches the forward's fraction. */
  public Efficiency(double gemm, String gemmSource, double memoryStreaming, String memorySource, boolean measured,
      double gemmFp8, String gemmFp8Source, double flashAttention, String flashAttentionSource) {
    this(gemm, gemmSource, memoryStreaming, memorySource, measured, gemmFp8, gemmFp8Source, flashAttention,
        flashAttentionSource, flashAttention, flashAttentionSource);
  }

  /** Without a FlashAttention-2 figure: attention reaches the GEMM fraction. */
  public Efficiency(double gemm, String gemmSource, double memoryStreaming, String memorySource, boolean measured,
      double gemmFp8, String gemmFp8Source) {
    this(gemm, gemmSource, memoryStreaming, memorySource, measured, gemmFp8, gemmFp8Source, gemm, gemmSource);
  }

  /** Without a separate fp8 figure: fp8 GEMMs reach the same fraction as 16-bit ones. */
  public Efficiency(double gemm, String gemmSource, double memoryStreaming, String memorySource, boolean measured) {
    this(gemm, gemmSource, memoryStreaming, memorySource, measured, gemm, gemmSource);
  }

  /** GEMM fraction at a precision: the fp8 figure for fp8 and int8 when measured, else the 16-bit one. */
  public double gemmAt(Precision p) {
    return p == Precision.FP8 || p == Precision.INT8 ? gemmFp8 : gemm;
  }

  /** Defaults for a device without its own microbenchmark; see docs/CALIBRATION.md. */
  public static final double DEFAULT_GEMM = 0.75;

  public static final double DEFAULT_MEMORY = 0.80;

  public Efficiency {
    Checks.fraction("gemm efficiency", gemm);
    Checks.fraction("memory streaming efficiency", memoryStreaming);
    Checks.notBlank("gemm efficiency source", gemmSource);
    Checks.notBlank("memory efficiency source", memorySource);
    Checks.fraction("fp8 gemm efficiency", gemmFp8);
    Checks.fraction("FlashAttention-2 efficiency", flashAttention);
    Checks.fraction("FlashAttention-2 backward efficiency", flashAttentionBackward);
  }
}
