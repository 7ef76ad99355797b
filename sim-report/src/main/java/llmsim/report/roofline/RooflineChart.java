package llmsim.report.roofline;

import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import llmsim.core.hw.Precision;
import llmsim.report.ChartStyle;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.TickUnits;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/** Log-log roofline: compute ceilings, device-memory roof, host-link roof, ridge points and ops. */
public final class RooflineChart {
  private RooflineChart() {}

  public static JFreeChart create(String title, List<RooflineData> systems, ChartStyle style) {
    double[] x = xRange(systems);
    double[] y = yRange(systems, x);
    XYSeriesCollection roofs = new XYSeriesCollection();
    XYLineAndShapeRenderer roofRenderer = new XYLineAndShapeRenderer(true, false);
    XYSeriesCollection ops = new XYSeriesCollection();
    XYLineAndShapeRenderer opRenderer = new XYLineAndShapeRenderer(false, true);
    XYPlot plot = new XYPlot();
    boolean overlay = systems.size() > 1;
    for (int si = 0; si < systems.size(); si++) {
      RooflineData d = systems.get(si);
      String prefix = overlay ? d.system() + ": " : "";
      int pi = 0;
      for (Map.Entry<String, Double> c : mergedCeilings(d.ceilings()).entrySet()) {
        if (overlay && !c.getKey().contains("fp16")) {
          continue;
        }
        XYSeries s = series(prefix + c.getKey() + " " + tf(c.getValue()) + " / memory "
            + gbs(d.memoryBytesPerSecond()), RooflineMath.roof(c.getValue(), d.memoryBytesPerSecond(), x[0], x[1]));
        roofs.addSeries(s);
        int idx = roofs.getSeriesCount() - 1;
        roofRenderer.setSeriesPaint(idx, overlay ? style.color(si) : style.color(pi));
        roofRenderer.setSeriesStroke(idx, style.line(pi == 0 ? 2.5f : 1.5f));
        double ridge = RooflineMath.ridgePoint(c.getValue(), d.memoryBytesPerSecond());
        if (ridge > x[0] && ridge < x[1] && (pi == 0 || !overlay)) {
          XYTextAnnotation a = new XYTextAnnotation(String.format(Locale.US, "ridge %.0f", ridge), ridge, c.getValue() * 1.25);
          a.setFont(style.tick());
          a.setPaint(overlay ? style.color(si) : style.color(pi));
          plot.addAnnotation(a);
        }
        pi++;
      }
      double topPeak = d.ceilings().values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
      XYSeries link = series(prefix + "host link roof: " + d.linkName() + " " + gbs(d.linkBytesPerSecond()),
          RooflineMath.roof(topPeak, d.linkBytesPerSecond(), x[0], x[1]));
      roofs.addSeries(link);
      int li = roofs.getSeriesCount() - 1;
      roofRenderer.setSeriesPaint(li, overlay ? style.color(si) : new Color(0xff7f0e));
      roofRenderer.setSeriesStroke(li, style.dashed(2f));
      if (!d.points().isEmpty()) {
        double[] px = d.points().stream().mapToDouble(RooflineData.Point::intensity).toArray();
        double[] py = d.points().stream().mapToDouble(RooflineData.Point::flopsPerSecond).toArray();
        int[] rows = RooflineMath.labelRows(px, py, 0.25);
        XYSeries pts = new XYSeries(prefix + "workload ops (attained)", false, true);
        for (int k = 0; k < px.length; k++) {
          pts.add(px[k], py[k]);
          if (overlay) {
            continue; // colours tell the systems apart; per-op labels would pile up
          }
          XYTextAnnotation a = new XYTextAnnotation(d.points().get(k).label(), px[k], py[k] * Math.pow(1.45, rows[k] + 1));
          a.setFont(style.tick().deriveFont(Font.PLAIN, 12f));
          a.setTextAnchor(TextAnchor.BOTTOM_CENTER);
          plot.addAnnotation(a);
        }
        ops.addSeries(pts);
        int oi = ops.getSeriesCount() - 1;
        opRenderer.setSeriesShape(oi, new Ellipse2D.Double(-5, -5, 10, 10));
        opRenderer.setSeriesPaint(oi, overlay ? style.color(si) : Color.BLACK);
      }
    }
    plot.setDataset(0, ops);
    plot.setRenderer(0, opRenderer);
    plot.setDataset(1, roofs);
    plot.setRenderer(1, roofRenderer);
    plot.setDomainAxis(logAxis("arithmetic intensity (FLOP/byte)", x, style));
    plot.setRangeAxis(logAxis("attainable FLOP/s (dense)", y, style));
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    JFreeChart chart = new JFreeChart(title, style.title(), plot, true);
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(8, 8, 8, 36));
    return style.apply(chart);
  }

  /** Precisions with the same peak share one ceiling, named together ("fp16/bf16"), in ascending peak order. */
  static Map<String, Double> mergedCeilings(Map<Precision, Double> ceilings) {
    Map<Double, List<String>> byPeak = new java.util.TreeMap<>();
    ceilings.forEach((p, v) -> byPeak.computeIfAbsent(v, k -> new ArrayList<>()).add(p.key()));
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    byPeak.forEach((v, names) -> out.put(String.join("/", names), v));
    return out;
  }

  static double[] xRange(List<RooflineData> systems) {
    List<Double> xs = new ArrayList<>(List.of(0.1, 1000.0));
    for (RooflineData d : systems) {
      for (double c : d.ceilings().values()) {
        xs.add(RooflineMath.ridgePoint(c, d.memoryBytesPerSecond()) * 2);
        xs.add(RooflineMath.ridgePoint(c, d.linkBytesPerSecond()));
      }
      d.points().forEach(p -> xs.add(p.intensity()));
    }
    return RooflineMath.decadeRange(xs, 1e-3, 1e7);
  }

  static double[] yRange(List<RooflineData> systems, double[] x) {
    List<Double> ys = new ArrayList<>();
    for (RooflineData d : systems) {
      ys.add(x[0] * d.linkBytesPerSecond());
      d.ceilings().values().forEach(c -> ys.add(c * 3));
      d.points().forEach(p -> ys.add(p.flopsPerSecond()));
    }
    return RooflineMath.decadeRange(ys, 1e6, 1e18);
  }

  static LogAxis logAxis(String label, double[] range, ChartStyle style) {
    LogAxis a = new LogAxis(label);
    a.setBase(10);
    TickUnits units = new TickUnits();
    units.add(new NumberTickUnit(1.0));
    a.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    a.setTickUnit(new NumberTickUnit(1.0));
    a.setSmallestValue(range[0]);
    a.setRange(range[0], range[1]);
    a.setLabelFont(style.label());
    a.setTickLabelFont(style.tick());
    a.setNumberFormatOverride(new java.text.DecimalFormat("0.#E0", java.text.DecimalFormatSymbols.getInstance(Locale.US)));
    return a;
  }

  static XYSeries series(String name, double[][] pts) {
    XYSeries s = new XYSeries(name, false, true);
    for (double[] p : pts) {
      s.add(p[0], p[1]);
    }
    return s;
  }

  static String tf(double flops) {
    return String.format(Locale.US, "%.1f TFLOP/s", flops / 1e12);
  }

  static String gbs(double bps) {
    return bps >= 1e12 ? String.format(Locale.US, "%.2f TB/s", bps / 1e12) : String.format(Locale.US, "%.0f GB/s", bps / 1e9);
  }
}
