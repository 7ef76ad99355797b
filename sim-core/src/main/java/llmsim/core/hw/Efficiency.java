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
 */
public record Efficiency(double gemm, String gemmSource, double memoryStreaming, String memorySource, boolean measured) {

  /** Defaults for a device without its own microbenchmark; see docs/CALIBRATION.md. */
  public static final double DEFAULT_GEMM = 0.75;

  public static final double DEFAULT_MEMORY = 0.80;

  public Efficiency {
    Checks.fraction("gemm efficiency", gemm);
    Checks.fraction("memory streaming efficiency", memoryStreaming);
    Checks.notBlank("gemm efficiency source", gemmSource);
    Checks.notBlank("memory efficiency source", memorySource);
  }
}
