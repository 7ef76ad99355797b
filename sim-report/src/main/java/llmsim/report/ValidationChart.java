package llmsim.report;

import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Predicted against measured, log-log, with the y = x line and +-20% bands. Values in different units
 * share the chart because only their ratio matters; points are coloured by category and labelled by case id.
 */
public final class ValidationChart {
  private ValidationChart() {}

  /** One case that ran. */
  public record Point(String id, String category, double measured, double predicted) {}

  public static JFreeChart create(String title, List<Point> points, ChartStyle style) {
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    for (Point p : points) {
      lo = Math.min(lo, Math.min(p.measured(), p.predicted()));
      hi = Math.max(hi, Math.max(p.measured(), p.predicted()));
    }
    if (points.isEmpty()) {
      lo = 1;
      hi = 10;
    }
    double xlo = Math.pow(10, Math.floor(Math.log10(lo)));
    double xhi = Math.pow(10, Math.ceil(Math.log10(hi)));
    XYSeriesCollection guides = new XYSeriesCollection();
    guides.addSeries(line("predicted = measured", xlo, xhi, 1.0));
    guides.addSeries(line("+20%", xlo, xhi, 1.2));
    guides.addSeries(line("-20%", xlo, xhi, 0.8));
    XYLineAndShapeRenderer gr = new XYLineAndShapeRenderer(true, false);
    gr.setSeriesPaint(0, Color.BLACK);
    gr.setSeriesStroke(0, style.line(1.5f));
    gr.setSeriesPaint(1, Color.GRAY);
    gr.setSeriesStroke(1, style.dashed(1f));
    gr.setSeriesPaint(2, Color.GRAY);
    gr.setSeriesStroke(2, style.dashed(1f));
    Map<String, XYSeries> byCategory = new TreeMap<>();
    XYPlot plot = new XYPlot();
    for (Point p : points) {
      byCategory.computeIfAbsent(p.category(), c -> new XYSeries(c, false, true)).add(p.measured(), p.predicted());
      XYTextAnnotation a = new XYTextAnnotation(p.id(), p.measured(), p.predicted() * 1.12);
      a.setFont(style.tick().deriveFont(11f));
      a.setTextAnchor(TextAnchor.BOTTOM_CENTER);
      plot.addAnnotation(a);
    }
    XYSeriesCollection pts = new XYSeriesCollection();
    XYLineAndShapeRenderer pr = new XYLineAndShapeRenderer(false, true);
    int i = 0;
    for (XYSeries s : new ArrayList<>(byCategory.values())) {
      pts.addSeries(s);
      pr.setSeriesPaint(i, style.color(i));
      pr.setSeriesShape(i, new Ellipse2D.Double(-5, -5, 10, 10));
      i++;
    }
    plot.setDataset(0, pts);
    plot.setRenderer(0, pr);
    plot.setDataset(1, guides);
    plot.setRenderer(1, gr);
    plot.setDomainAxis(axis("measured (case's unit)", xlo, xhi, style));
    plot.setRangeAxis(axis("predicted (same unit)", xlo, xhi, style));
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    JFreeChart chart = new JFreeChart(title, style.title(), plot, true);
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(8, 8, 8, 30));
    return style.apply(chart);
  }

  private static XYSeries line(String name, double lo, double hi, double factor) {
    XYSeries s = new XYSeries(name, false, true);
    s.add(lo, lo * factor);
    s.add(hi, hi * factor);
    return s;
  }

  private static LogAxis axis(String label, double lo, double hi, ChartStyle style) {
    LogAxis a = new LogAxis(label);
    a.setBase(10);
    a.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    a.setRange(lo, hi);
    a.setLabelFont(style.label());
    a.setTickLabelFont(style.tick());
    a.setNumberFormatOverride(new java.text.DecimalFormat("0.#E0", java.text.DecimalFormatSymbols.getInstance(Locale.US)));
    return a;
  }
}
