package llmsim.core.kernel;

/**
 * The roofline cost model in bulk, over structure-of-arrays. For each op i in [from, to):
 *
 * <pre>
 *   t_compute = flops[i] * invPeakFlops / shapeFactor[i] + floor[i]
 *                (shapeFactor from {@link #shapeFactors}, 1 when null; floor from {@link #gemmFloors}, 0 when null)
 *   t_memory  = deviceBytes[i] * invDeviceBandwidth
 *   t_link    = linkBytes[i] * invLinkBandwidth
 *   time[i]      = max(t_compute, t_memory, t_link) + launchSeconds
 *   attained[i]  = flops[i] / time[i]                 (0 when time is 0)
 *   intensity[i] = flops[i] / (deviceBytes[i] + linkBytes[i])  (+inf with no bytes and some flops; 0 with neither)
 *   bound[i]     = COMPUTE if t_compute >= max(t_memory, t_link), else MEMORY if t_memory >= t_link, else LINK
 * </pre>
 *
 * The coefficients already include the achievable fractions (peak x efficiency), so the kernel multiplies by
 * reciprocals and never divides in the hot min/max chain. Implementations must agree lane for lane.
 */
public interface RooflineKernel {

  double COMPUTE = 0;
  double MEMORY = 1;
  double LINK = 2;

  /** A short name reported by {@code llmsim --version} and in every JSON result. */
  String name();

  /** {@link #evaluate(double[], double[], double[], double[], int, int, Coefficients, double[], double[], double[],
   * double[]) evaluate} with every shape factor 1. */
  default void evaluate(double[] flops, double[] deviceBytes, double[] linkBytes, int from, int to, Coefficients c,
      double[] time, double[] attained, double[] intensity, double[] bound) {
    evaluate(flops, null, deviceBytes, linkBytes, from, to, c, time, attained, intensity, bound);
  }

  /**
   * The roofline over [from, to). {@code shapeFactor} (null: all 1) divides the compute time: the fraction of the
   * device a GEMM's shape keeps busy, from {@link #shapeFactors}.
   */
  default void evaluate(double[] flops, double[] shapeFactor, double[] deviceBytes, double[] linkBytes, int from,
      int to, Coefficients c, double[] time, double[] attained, double[] intensity, double[] bound) {
    evaluate(flops, shapeFactor, null, deviceBytes, linkBytes, from, to, c, time, attained, intensity, bound);
  }

  /**
   * The roofline over [from, to). {@code shapeFactor} (null: all 1) divides the compute time; {@code floor} (null: all
   * 0), a GEMM's fixed kernel time from {@link #gemmFloors}, is then added to it, so that it counts where the op is
   * compute-bound and runs under the memory time where that is longer.
   */
  void evaluate(double[] flops, double[] shapeFactor, double[] floor, double[] deviceBytes, double[] linkBytes,
      int from, int to, Coefficients c, double[] time, double[] attained, double[] intensity, double[] bound);

  /**
   * {@link GemmTiles#floor} of each op in [from, to) into {@code out}, for a group whose GEMM kernels take
   * {@code kernelFloor} seconds each: 0 where {@code m[i] <= 0} (no shape). One division per op, the same in every
   * implementation.
   */
  default void gemmFloors(double[] flops, double[] m, double[] n, double[] k, int from, int to, double kernelFloor,
      double[] out) {
    for (int i = from; i < to; i++) {
      out[i] = GemmTiles.floor(flops[i], m[i], n[i], k[i], kernelFloor);
    }
  }

  /**
   * {@link GemmTiles#factor} of each op in [from, to) into {@code out}: 1 where {@code m[i] <= 0} (no shape) or
   * {@code units <= 0}. Shapes must pass {@link GemmTiles#checkShape}.
   */
  void shapeFactors(double[] m, double[] n, double[] k, int from, int to, int units, double[] out);

  /**
   * One device/precision pair.
   *
   * @param invPeakFlops 1 / (peak FLOP/s x GEMM efficiency)
   * @param invDeviceBandwidth 1 / (memory bandwidth x streaming efficiency)
   * @param invLinkBandwidth 1 / (effective link bandwidth)
   * @param launchSeconds fixed cost added to every op
   */
  record Coefficients(double invPeakFlops, double invDeviceBandwidth, double invLinkBandwidth, double launchSeconds) {
    public static Coefficients of(double effectivePeakFlops, double effectiveDeviceBandwidth,
        double effectiveLinkBandwidth, double launchSeconds) {
      return new Coefficients(1 / effectivePeakFlops, 1 / effectiveDeviceBandwidth, 1 / effectiveLinkBandwidth,
          launchSeconds);
    }
  }
}
