package llmsim.core.kernel;

/**
 * The roofline cost model in bulk, over structure-of-arrays. For each op i in [from, to):
 *
 * <pre>
 *   t_compute = flops[i] * invPeakFlops
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

  void evaluate(double[] flops, double[] deviceBytes, double[] linkBytes, int from, int to, Coefficients c,
      double[] time, double[] attained, double[] intensity, double[] bound);

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
