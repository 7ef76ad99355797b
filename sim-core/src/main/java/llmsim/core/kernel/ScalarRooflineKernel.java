package llmsim.core.kernel;

/** The reference implementation: a plain loop, the definition the Panama kernel must match. */
public final class ScalarRooflineKernel implements RooflineKernel {

  @Override
  public String name() {
    return "scalar";
  }

  @Override
  public void evaluate(double[] flops, double[] shapeFactor, double[] floor, double[] deviceBytes, double[] linkBytes,
      int from, int to, Coefficients c, double[] time, double[] attained, double[] intensity, double[] bound) {
    final double ip = c.invPeakFlops();
    final double im = c.invDeviceBandwidth();
    final double il = c.invLinkBandwidth();
    final double launch = c.launchSeconds();
    for (int i = from; i < to; i++) {
      double f = flops[i];
      double db = deviceBytes[i];
      double lb = linkBytes[i];
      double tc = shapeFactor == null ? f * ip : f * ip / shapeFactor[i];
      if (floor != null) {
        tc = tc + floor[i];
      }
      double tm = db * im;
      double tl = lb * il;
      double tmax = Math.max(tc, Math.max(tm, tl));
      double t = tmax + launch;
      time[i] = t;
      attained[i] = t > 0 ? f / t : 0;
      double b = db + lb;
      intensity[i] = b > 0 ? f / b : (f > 0 ? Double.POSITIVE_INFINITY : 0);
      bound[i] = tc >= Math.max(tm, tl) ? COMPUTE : (tm >= tl ? MEMORY : LINK);
    }
  }

  @Override
  public void shapeFactors(double[] m, double[] n, double[] k, int from, int to, int units, double[] out) {
    for (int i = from; i < to; i++) {
      out[i] = GemmTiles.factor(m[i], n[i], k[i], units);
    }
  }
}
