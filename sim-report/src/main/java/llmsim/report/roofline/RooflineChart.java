package llmsim.report.roofline;

import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import llmsim.core.hw.Precision;
import llmsim.report.ChartStyle;
import org.jfree.chart.ChartRenderingInfo;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYLineAnnotation;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Log-log roofline: the ceiling of the precision the work runs at (bold) and the device's other native ceilings,
 * the device-memory roof, the host-link roof, ridge points, each op class as its own labelled point (hollow when
 * launch overhead holds it below the roof), and for inference the decode step at batch 1, 2, 4, ... with the
 * critical batch size. Labels are laid out after a first render, where the plot area is known, so none overlap.
 */
public final class RooflineChart {
  private RooflineChart() {}

  private static final Color TRAJECTORY = new Color(0x6a3d9a);
  private static final Color CRITICAL = new Color(0xd62728);

  /** A label to lay out: its text, anchor in data space, colour, and whether it may be dropped for lack of room. */
  private record Pending(String text, double x, double y, Color color, boolean optional, Font font) {}

  public static JFreeChart create(String title, List<RooflineData> systems, ChartStyle style) {
    double[] x = xRange(systems);
    double[] y = yRange(systems, x);
    XYSeriesCollection roofs = new XYSeriesCollection();
    XYLineAndShapeRenderer roofRenderer = new XYLineAndShapeRenderer(true, false);
    XYSeriesCollection ops = new XYSeriesCollection();
    XYLineAndShapeRenderer opRenderer = new XYLineAndShapeRenderer(false, true);
    boolean overlay = systems.size() > 1;
    List<Pending> labels = new ArrayList<>();
    Font labelFont = style.tick().deriveFont(Font.PLAIN, 12f);
    for (int si = 0; si < systems.size(); si++) {
      RooflineData d = systems.get(si);
      String prefix = overlay ? d.system() + ": " : "";
      Color systemColor = (Color) style.color(si);
      for (Ceiling c : ceilings(d, overlay)) {
        XYSeries s = series(prefix + c.name() + " " + tf(c.peak()) + " / memory " + gbs(d.memoryBytesPerSecond()),
            RooflineMath.roof(c.peak(), d.memoryBytesPerSecond(), x[0], x[1]));
        roofs.addSeries(s);
        int idx = roofs.getSeriesCount() - 1;
        Color color = overlay ? systemColor : c.work() ? new Color(0x1f77b4) : new Color(0x9a9a9a);
        roofRenderer.setSeriesPaint(idx, color);
        roofRenderer.setSeriesStroke(idx, style.line(c.work() ? 2.5f : 1.2f));
        double ridge = RooflineMath.ridgePoint(c.peak(), d.memoryBytesPerSecond());
        if (ridge > x[0] && ridge < x[1] && (c.work() || d.work() == null && !overlay)) {
          labels.add(new Pending(String.format(Locale.US, "ridge %s FLOP/byte", intensity(ridge)), ridge, c.peak(),
              color, overlay, style.tick()));
        }
      }
      XYSeries link = series(prefix + "host link roof: " + d.linkName() + " " + gbs(d.linkBytesPerSecond()),
          RooflineMath.roof(d.work() != null ? d.work().peakFlops() : d.topPeak(), d.linkBytesPerSecond(), x[0], x[1]));
      roofs.addSeries(link);
      int li = roofs.getSeriesCount() - 1;
      roofRenderer.setSeriesPaint(li, overlay ? systemColor : new Color(0xff7f0e));
      roofRenderer.setSeriesStroke(li, style.dashed(2f));
      addTrajectory(d, prefix, overlay ? systemColor : TRAJECTORY, roofs, roofRenderer, labels, labelFont, overlay, style);
      for (RooflineData.Point p : d.points()) {
        XYSeries pts = new XYSeries(prefix + p.label(), false, true);
        pts.add(p.intensity(), p.flopsPerSecond());
        ops.addSeries(pts);
        int oi = ops.getSeriesCount() - 1;
        Color color = overlay ? systemColor : p.kind() == null ? new Color(0xff7f0e) : (Color) style.kindColor(p.kind());
        Shape shape = p.decode() ? new Ellipse2D.Double(-6, -6, 12, 12) : new Rectangle2D.Double(-6, -6, 12, 12);
        opRenderer.setSeriesShape(oi, shape);
        opRenderer.setSeriesPaint(oi, color);
        opRenderer.setSeriesShapesFilled(oi, !p.launchBound());
        opRenderer.setSeriesOutlineStroke(oi, style.line(2f));
        opRenderer.setUseOutlinePaint(false);
        opRenderer.setSeriesVisibleInLegend(oi, overlay && oi == firstSeriesOf(ops, prefix));
        if (!overlay) { // colours tell the systems apart in an overlay; per-op labels would pile up
          labels.add(new Pending(p.label() + (p.launchBound() ? ": launch-bound" : ""), p.intensity(),
              p.flopsPerSecond(), color.darker(), false, labelFont));
        }
      }
    }
    if (overlay) { // one legend entry per system stands for all its op points
      opRenderer.setLegendItemLabelGenerator((ds, series) -> {
        String key = ds.getSeriesKey(series).toString();
        return key.substring(0, key.indexOf(": ") + 2) + "workload ops (hollow: launch-bound)";
      });
    }
    XYPlot plot = new XYPlot();
    plot.setDataset(0, ops);
    plot.setRenderer(0, opRenderer);
    plot.setDataset(1, roofs);
    plot.setRenderer(1, roofRenderer);
    plot.setDomainAxis(logAxis("arithmetic intensity (FLOP/byte)", x, style, RooflineChart::intensity));
    plot.setRangeAxis(logAxis("attainable FLOP/s (dense)", y, style, RooflineChart::flopsPerSecond));
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    JFreeChart chart = new JFreeChart(title, style.title(), plot, true);
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(8, 8, 8, 36));
    style.apply(chart);
    annotate(chart, plot, labels, x, y, style);
    return chart;
  }

  private static int firstSeriesOf(XYSeriesCollection ops, String prefix) {
    for (int i = 0; i < ops.getSeriesCount(); i++) {
      if (ops.getSeriesKey(i).toString().startsWith(prefix)) {
        return i;
      }
    }
    return -1;
  }

  /** The decode step at batch 1, 2, 4, ... as a line toward the ridge, and the critical batch size on the roof. */
  private static void addTrajectory(RooflineData d, String prefix, Color color, XYSeriesCollection roofs,
      XYLineAndShapeRenderer renderer, List<Pending> labels, Font font, boolean overlay, ChartStyle style) {
    if (d.trajectory().isEmpty()) {
      return;
    }
    List<RooflineData.Step> steps = d.trajectory();
    int last = steps.get(steps.size() - 1).batch();
    String crit = criticalText(d.criticalBatch());
    XYSeries t = new XYSeries(prefix + "decode step at batch 1, 2, 4 ... " + last + "; " + crit, false, true);
    steps.forEach(s -> t.add(s.intensity(), s.flopsPerSecond()));
    roofs.addSeries(t);
    int ti = roofs.getSeriesCount() - 1;
    renderer.setSeriesPaint(ti, color);
    renderer.setSeriesStroke(ti, style.dashed(1.5f));
    renderer.setSeriesShapesVisible(ti, true);
    renderer.setSeriesShape(ti, new Rectangle2D.Double(-3.5, -3.5, 7, 7));
    if (overlay) {
      return;
    }
    for (int i = 0; i < steps.size(); i++) {
      RooflineData.Step s = steps.get(i);
      String text = (i == 0 ? "decode, batch " : "") + s.batch() + (s.fits() ? "" : " (does not fit)");
      labels.add(new Pending(text, s.intensity(), s.flopsPerSecond(), color, i > 0, font));
    }
    double b = d.criticalBatch();
    if (Double.isFinite(b) && d.work() != null) {
      XYSeries mark = new XYSeries(prefix + "critical batch", false, true);
      mark.add(d.ridge(), d.work().peakFlops());
      roofs.addSeries(mark);
      int mi = roofs.getSeriesCount() - 1;
      renderer.setSeriesPaint(mi, CRITICAL);
      renderer.setSeriesShapesVisible(mi, true);
      renderer.setSeriesShape(mi, new Ellipse2D.Double(-7, -7, 14, 14));
      renderer.setSeriesVisibleInLegend(mi, false);
      labels.add(0, new Pending(crit, d.ridge(), d.work().peakFlops(), CRITICAL, false, font.deriveFont(Font.BOLD)));
    } else if (!Double.isNaN(b)) {
      RooflineData.Step s = steps.get(steps.size() - 1);
      labels.add(new Pending(crit, s.intensity(), s.flopsPerSecond(), CRITICAL, false, font.deriveFont(Font.BOLD)));
    }
  }

  /** What the trajectory says about the critical batch size. */
  static String criticalText(double b) {
    if (Double.isNaN(b)) {
      return "";
    }
    if (Double.isInfinite(b)) {
      return "never compute-bound: each sequence's KV-cache reads grow as fast as its FLOPs";
    }
    return String.format(Locale.US, "critical batch %,d: decode turns compute-bound", (long) Math.ceil(b));
  }

  /**
   * Render once off-screen to learn where the plot area lies, lay the labels out in pixels, and add them (with a
   * leader line where a label had to move away from its point) as annotations in data space.
   */
  private static void annotate(JFreeChart chart, XYPlot plot, List<Pending> labels, double[] x, double[] y,
      ChartStyle style) {
    if (labels.isEmpty()) {
      return;
    }
    BufferedImage img = new BufferedImage(style.width(), style.height(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    ChartRenderingInfo info = new ChartRenderingInfo();
    chart.draw(g, new Rectangle2D.Double(0, 0, style.width(), style.height()), info);
    Rectangle2D area = info.getPlotInfo().getDataArea();
    double lx0 = Math.log10(x[0]);
    double lx1 = Math.log10(x[1]);
    double ly0 = Math.log10(y[0]);
    double ly1 = Math.log10(y[1]);
    List<LabelLayout.Label> boxes = new ArrayList<>();
    for (Pending p : labels) {
      FontMetrics fm = g.getFontMetrics(p.font());
      double px = (Math.log10(p.x()) - lx0) / (lx1 - lx0) * area.getWidth();
      double py = (ly1 - Math.log10(p.y())) / (ly1 - ly0) * area.getHeight();
      boxes.add(new LabelLayout.Label(px, py, fm.stringWidth(p.text()) + 4, fm.getHeight(), p.optional()));
    }
    g.dispose();
    List<LabelLayout.Box> placed = LabelLayout.place(boxes, area.getWidth(), area.getHeight());
    for (int i = 0; i < labels.size(); i++) {
      LabelLayout.Box b = placed.get(i);
      if (b == LabelLayout.DROPPED) {
        continue;
      }
      Pending p = labels.get(i);
      double dx = Math.pow(10, lx0 + b.cx() / area.getWidth() * (lx1 - lx0));
      double dy = Math.pow(10, ly1 - b.cy() / area.getHeight() * (ly1 - ly0));
      XYTextAnnotation a = new XYTextAnnotation(p.text(), dx, dy);
      a.setFont(p.font());
      a.setPaint(p.color());
      a.setTextAnchor(TextAnchor.CENTER);
      a.setBackgroundPaint(new Color(255, 255, 255, 200));
      plot.addAnnotation(a);
      LabelLayout.Label l = boxes.get(i);
      double far = Math.hypot(b.cx() - l.x(), b.cy() - l.y());
      if (far > b.height() * 1.5 + LabelLayout.GAP && far > b.width() / 2 + LabelLayout.GAP + 2) {
        double ey = b.cy() + (l.y() > b.cy() ? b.height() / 2 : -b.height() / 2);
        double ly = Math.pow(10, ly1 - ey / area.getHeight() * (ly1 - ly0));
        plot.addAnnotation(new XYLineAnnotation(p.x(), p.y(), dx, ly, style.line(0.8f), new Color(0x999999)));
      }
    }
  }

  /** One ceiling line: a native precision group, or the work's precision when it runs emulated. */
  record Ceiling(String name, double peak, boolean work) {}

  /**
   * Native precisions with the same peak share one ceiling ("fp16/bf16"), ascending; the work's ceiling is marked
   * (and added, when its precision is emulated). An overlay keeps only each system's work ceiling (or its highest
   * 16-bit one without work).
   */
  static List<Ceiling> ceilings(RooflineData d, boolean overlay) {
    List<Ceiling> out = new ArrayList<>();
    RooflineData.Work w = d.work();
    boolean workNative = w != null && d.ceilings().containsKey(w.precision());
    for (Map.Entry<String, Double> c : mergedCeilings(d.ceilings()).entrySet()) {
      boolean isWork = workNative && c.getValue().equals(d.ceilings().get(w.precision()));
      String name = isWork ? c.getKey() + " (the work runs in " + w.precision().key() + ")" : c.getKey();
      out.add(new Ceiling(name, c.getValue(), isWork));
    }
    if (w != null && !workNative) {
      out.add(new Ceiling(w.note() == null ? w.precision().key() : w.note(), w.peakFlops(), true));
    }
    if (overlay) {
      List<Ceiling> work = out.stream().filter(Ceiling::work).toList();
      if (!work.isEmpty()) {
        return work;
      }
      List<Ceiling> half = out.stream().filter(c -> c.name().contains("16")).toList();
      return List.of(half.isEmpty() ? out.get(out.size() - 1) : half.get(half.size() - 1));
    }
    return out;
  }

  /** Precisions with the same peak share one ceiling, named together ("fp16/bf16"), in ascending peak order. */
  static Map<String, Double> mergedCeilings(Map<Precision, Double> ceilings) {
    Map<Double, List<String>> byPeak = new java.util.TreeMap<>();
    new java.util.TreeMap<>(ceilings).forEach((p, v) -> byPeak.computeIfAbsent(v, k -> new ArrayList<>()).add(p.key()));
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
      d.trajectory().forEach(p -> xs.add(p.intensity()));
    }
    return RooflineMath.decadeRange(xs, 1e-3, 1e7);
  }

  static double[] yRange(List<RooflineData> systems, double[] x) {
    List<Double> ys = new ArrayList<>();
    for (RooflineData d : systems) {
      ys.add(x[0] * d.linkBytesPerSecond());
      d.ceilings().values().forEach(c -> ys.add(c * 3));
      d.points().forEach(p -> ys.add(p.flopsPerSecond() / 2));
      d.trajectory().forEach(p -> ys.add(p.flopsPerSecond() / 2));
    }
    return RooflineMath.decadeRange(ys, 1e6, 1e18);
  }

  static LogAxis logAxis(String label, double[] range, ChartStyle style, java.util.function.DoubleFunction<String> fmt) {
    LogAxis a = new LogAxis(label);
    a.setBase(10);
    a.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    a.setTickUnit(new NumberTickUnit(1.0));
    a.setSmallestValue(range[0]);
    a.setRange(range[0], range[1]);
    a.setLabelFont(style.label());
    a.setTickLabelFont(style.tick());
    a.setNumberFormatOverride(new UnitFormat(fmt));
    return a;
  }

  /** A tick format that writes each value with its unit, as {@link #flopsPerSecond} or {@link #intensity} do. */
  private static final class UnitFormat extends NumberFormat {
    private final transient java.util.function.DoubleFunction<String> fmt;

    UnitFormat(java.util.function.DoubleFunction<String> fmt) {
      this.fmt = fmt;
    }

    @Override
    public StringBuffer format(double v, StringBuffer to, FieldPosition pos) {
      return to.append(fmt.apply(v));
    }

    @Override
    public StringBuffer format(long v, StringBuffer to, FieldPosition pos) {
      return to.append(fmt.apply(v));
    }

    @Override
    public Number parse(String source, ParsePosition pos) {
      throw new UnsupportedOperationException("tick labels are only written");
    }
  }

  /** FLOP/s with an SI prefix, as people write them: "1 GFLOP/s", "100 TFLOP/s", "2 PFLOP/s". */
  public static String flopsPerSecond(double v) {
    String[] units = {"FLOP/s", "kFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s", "EFLOP/s"};
    int k = v <= 0 ? 0 : Math.max(0, Math.min(units.length - 1, (int) Math.floor(Math.log10(v) / 3 + 1e-9)));
    return new java.text.DecimalFormat("#,##0.##", java.text.DecimalFormatSymbols.getInstance(Locale.US))
        .format(v / Math.pow(1000, k)) + " " + units[k];
  }

  /** An intensity in FLOP/byte without exponents: "0.01", "1", "1,000". */
  public static String intensity(double v) {
    return new java.text.DecimalFormat(v >= 10 ? "#,##0" : "#,##0.###", java.text.DecimalFormatSymbols.getInstance(Locale.US)).format(v);
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
