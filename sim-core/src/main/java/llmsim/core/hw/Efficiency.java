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
 * @param gemmSustained fraction of the dense peak a GEMM holds once the device is saturated at its power limit (a
 *     training step, a serving run: compute for seconds on end), where measured; else {@code gemm}. {@code gemm} is a
 *     burst's: a microbenchmark's short run, timed at or near the boost clock
 * @param gemmFp8Sustained the same at fp8; else {@code gemmFp8} scaled as the 16-bit figures are
 * @param sustainedSource where the sustained figures came from
 */
public record Efficiency(double gemm, String gemmSource, double memoryStreaming, String memorySource, boolean measured,
    double gemmFp8, String gemmFp8Source, double flashAttention, String flashAttentionSource,
    double flashAttentionBackward, String flashAttentionBackwardSource, double gemmSustained, double gemmFp8Sustained,
    String sustainedSource) {

  /** Without a sustained figure: the device holds its burst rate under load. */
  public Efficiency(double gemm, String gemmSource, double memoryStreaming, String memorySource, boolean measured,
      double gemmFp8, String gemmFp8Source, double flashAttention, String flashAttentionSource,
      double flashAttentionBackward, String flashAttentionBackwardSource) {
    this(gemm, gemmSource, memoryStreaming, memorySource, measured, gemmFp8, gemmFp8Source, flashAttention,
        flashAttentionSource, flashAttentionBackward, flashAttentionBackwardSource, gemm, gemmFp8, gemmSource);
  }

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

  /**
   * What a compute-bound kernel keeps of its burst rate at a precision once the device runs at its power limit: the
   * sustained GEMM fraction over the burst one (1 where no sustained rate is measured). Under a long run the SM clock
   * settles below boost, and every kernel that fills the SMs (GEMMs, attention) slows with it; a memory-bound
   * kernel does not (docs/CALIBRATION.md, "Sustained compute").
   */
  public double sustainedScale(Precision p) {
    return p == Precision.FP8 || p == Precision.INT8 ? gemmFp8Sustained / gemmFp8 : gemmSustained / gemm;
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
    Checks.fraction("sustained gemm efficiency", gemmSustained);
    Checks.fraction("sustained fp8 gemm efficiency", gemmFp8Sustained);
    Checks.notBlank("sustained gemm efficiency source", sustainedSource);
    if (gemmSustained > gemm || gemmFp8Sustained > gemmFp8) {
      throw new IllegalArgumentException("sustained gemm efficiency (" + gemmSustained + ", fp8 " + gemmFp8Sustained
          + ") must not exceed the burst one (" + gemm + ", fp8 " + gemmFp8 + ")");
    }
  }
}
