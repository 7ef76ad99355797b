package llmsim.report.roofline;

import java.util.ArrayList;
import java.util.List;

/** Pure roofline arithmetic: ridge points, attainable FLOP/s, whole-decade axis ranges, label nudges. */
public final class RooflineMath {
  private RooflineMath() {}

  /** FLOP/byte where the bandwidth roof meets the compute ceiling. */
  public static double ridgePoint(double peakFlops, double bytesPerSecond) {
    return peakFlops / bytesPerSecond;
  }

  /** What an op at {@code intensity} FLOP/byte can attain under one ceiling and one roof. */
  public static double attainable(double intensity, double peakFlops, double bytesPerSecond) {
    return Math.min(peakFlops, intensity * bytesPerSecond);
  }

  /** [lower, upper] powers of ten that contain every value (positive, finite ones only), at least one decade wide. */
  public static double[] decadeRange(List<Double> values, double minLower, double maxUpper) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    for (double v : values) {
      if (v > 0 && Double.isFinite(v)) {
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    if (hi == 0) {
      return new double[] {minLower, maxUpper};
    }
    double lower = Math.pow(10, Math.floor(Math.log10(lo)));
    double upper = Math.pow(10, Math.ceil(Math.log10(hi)));
    if (upper <= lower) {
      upper = lower * 10;
    }
    return new double[] {Math.max(lower, minLower), Math.min(upper, maxUpper)};
  }

  /** The powers of ten in [lower, upper]: the only ticks a log axis gets. */
  public static List<Double> decadeTicks(double lower, double upper) {
    List<Double> out = new ArrayList<>();
    for (int e = (int) Math.round(Math.log10(lower)); e <= Math.round(Math.log10(upper)); e++) {
      out.add(Math.pow(10, e));
    }
    return out;
  }

  /**
   * The three corners of a roof over [xMin, xMax]: (xMin, xMin x bw) rising to the ridge, then flat at the
   * peak. If the ridge lies beyond xMax, the roof ends at (xMax, xMax x bw).
   */
  public static double[][] roof(double peakFlops, double bytesPerSecond, double xMin, double xMax) {
    double ridge = ridgePoint(peakFlops, bytesPerSecond);
    if (ridge >= xMax) {
      return new double[][] {{xMin, xMin * bytesPerSecond}, {xMax, xMax * bytesPerSecond}};
    }
    if (ridge <= xMin) {
      return new double[][] {{xMin, peakFlops}, {xMax, peakFlops}};
    }
    return new double[][] {{xMin, xMin * bytesPerSecond}, {ridge, peakFlops}, {xMax, peakFlops}};
  }

  /**
   * Vertical offsets (in label heights) that keep labels at nearby log positions apart: points are taken
   * in order of x, and one closer than {@code minDecades} (in both axes) to the previous label moves up one row.
   */
  public static int[] labelRows(double[] xs, double[] ys, double minDecades) {
    int[] rows = new int[xs.length];
    for (int i = 1; i < xs.length; i++) {
      for (int j = 0; j < i; j++) {
        boolean near = Math.abs(Math.log10(xs[i]) - Math.log10(xs[j])) < minDecades
            && Math.abs(Math.log10(ys[i]) - Math.log10(ys[j])) < minDecades;
        if (near && rows[i] <= rows[j]) {
          rows[i] = rows[j] + 1;
        }
      }
    }
    return rows;
  }
}
