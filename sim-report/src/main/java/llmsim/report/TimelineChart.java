package llmsim.report;

import java.awt.Color;
import java.util.EnumMap;
import java.util.Map;
import llmsim.core.engine.OpKind;
import llmsim.core.engine.Trace;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.SymbolAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.StandardXYBarPainter;
import org.jfree.chart.renderer.xy.XYBarRenderer;
import org.jfree.data.xy.XYIntervalSeries;
import org.jfree.data.xy.XYIntervalSeriesCollection;

/**
 * The simulated step as a timeline: one lane per stream, bars coloured by op kind. Ops shorter than a
 * pixel are merged per lane into time bins (each bin takes the kind busiest in it), so a run of 100 000
 * decode ops stays a readable chart and a small file. A GPU that ran in step with another ({@link
 * Trace#inStepWith}) is drawn once, by that GPU's lanes, whose names say how many ran with it.
 */
public final class TimelineChart {
  /** Time bins per lane: about one per horizontal pixel. */
  static final int BINS = 1200;

  private TimelineChart() {}

  public static JFreeChart create(String title, Trace t, ChartStyle style) {
    double span = Math.max(t.makespan(), 1e-12);
    double scale = span >= 1 ? 1 : 1e3;
    String unit = span >= 1 ? "s" : "ms";
    Map<OpKind, XYIntervalSeries> series = new EnumMap<>(OpKind.class);
    for (OpKind k : OpKind.values()) {
      series.put(k, new XYIntervalSeries(k.label()));
    }
    int[] shown = shownStreams(t);
    int lanes = shown.length;
    double[][][] busyOf = binBusy(t, shown, span);
    for (int lane = 0; lane < lanes; lane++) {
      double[][] busy = busyOf[lane];
      int b = 0;
      while (b < BINS) {
        int kind = argmax(busy[b]);
        if (kind < 0) {
          b++;
          continue;
        }
        int e = b + 1;
        while (e < BINS && argmax(busy[e]) == kind) {
          e++;
        }
        double x0 = span * b / BINS * scale;
        double x1 = span * e / BINS * scale;
        series.get(OpKind.values()[kind]).add(lane, lane - 0.35, lane + 0.35, x0, x0, x1);
        b = e;
      }
    }
    XYIntervalSeriesCollection data = new XYIntervalSeriesCollection();
    XYBarRenderer r = new XYBarRenderer();
    r.setUseYInterval(true);
    r.setBarPainter(new StandardXYBarPainter());
    r.setShadowVisible(false);
    int i = 0;
    for (OpKind k : OpKind.values()) {
      if (series.get(k).getItemCount() > 0) {
        data.addSeries(series.get(k));
        r.setSeriesPaint(i++, style.kindColor(k));
      }
    }
    String[] names = new String[lanes];
    for (int lane = 0; lane < lanes; lane++) {
      int peers = t.peersInStep(t.gpuOf(shown[lane]));
      names[lane] = t.streams().get(shown[lane]) + (peers == 0 ? "" : " (+" + peers + " in step)");
    }
    SymbolAxis laneAxis = new SymbolAxis("resource", names);
    laneAxis.setTickLabelFont(style.tick());
    laneAxis.setLabelFont(style.label());
    laneAxis.setGridBandsVisible(false);
    laneAxis.setRange(-0.6, lanes - 0.4);
    NumberAxis time = new NumberAxis("simulated time (" + unit + ")");
    time.setLabelFont(style.label());
    time.setTickLabelFont(style.tick());
    time.setRange(0, span * scale * 1.02);
    XYPlot plot = new XYPlot(data, laneAxis, time, r);
    plot.setOrientation(PlotOrientation.HORIZONTAL);
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return style.apply(new JFreeChart(title, style.title(), plot, true));
  }

  /**
   * The streams a timeline draws: all of a single GPU's (an idle copy engine says something), but only those
   * with work once several GPUs (pipeline stages) bring more than {@value #ALL_LANES_UP_TO} streams; none of a GPU
   * that ran in step with another, whose lanes would be that GPU's again.
   */
  public static int[] shownStreams(Trace t) {
    int n = t.streams().size();
    boolean[] used = new boolean[n];
    for (int op = 0; op < t.size(); op++) {
      used[t.stream(op)] = true;
    }
    return java.util.stream.IntStream.range(0, n)
        .filter(s -> (n <= ALL_LANES_UP_TO || used[s]) && ChromeTrace.drawn(t, s)).toArray();
  }

  static final int ALL_LANES_UP_TO = 8;

  /** Busy seconds per bin and op kind of each of the streams {@code lanes}, in one pass over the ops. */
  static double[][][] binBusy(Trace t, int[] lanes, double span) {
    int[] laneOf = new int[t.streams().size()];
    java.util.Arrays.fill(laneOf, -1);
    double[][][] busyOf = new double[lanes.length][BINS][OpKind.values().length];
    for (int lane = 0; lane < lanes.length; lane++) {
      laneOf[lanes[lane]] = lane;
    }
    double width = span / BINS;
    for (int op = 0; op < t.size(); op++) {
      int lane = laneOf[t.stream(op)];
      if (lane < 0) {
        continue;
      }
      double[][] busy = busyOf[lane];
      double s = t.start()[op];
      double e = t.end()[op];
      int k = t.kind(op).ordinal();
      int b0 = Math.min(BINS - 1, (int) (s / width));
      int b1 = Math.min(BINS - 1, (int) (e / width));
      for (int b = b0; b <= b1; b++) {
        double lo = Math.max(s, b * width);
        double hi = Math.min(e, (b + 1) * width);
        if (hi > lo) {
          busy[b][k] += hi - lo;
        }
      }
    }
    return busyOf;
  }

  private static int argmax(double[] v) {
    int best = -1;
    double max = 0;
    for (int i = 0; i < v.length; i++) {
      if (v[i] > max) {
        max = v[i];
        best = i;
      }
    }
    return best;
  }
}
