package llmsim.report;

import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.labels.XYItemLabelGenerator;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * How a result moves as one hardware or model field changes: one line per system, the field's value across,
 * the metric up, each point labelled with what bound it there — so a bound changing shows where a lever stops
 * paying.
 */
public final class SensitivityChart {
  private SensitivityChart() {}

  /** One simulated point: the field at {@code value}, the metric there and the bound's key. */
  public record Point(String system, double value, double metric, String bound) {}

  public static XYSeriesCollection createDataset(List<String> systems, List<Point> points) {
    XYSeriesCollection lines = new XYSeriesCollection();
    for (String sys : systems) {
      XYSeries s = new XYSeries(sys, true, true);
      points.stream().filter(p -> p.system().equals(sys) && Double.isFinite(p.metric()))
          .forEach(p -> s.add(p.value(), p.metric()));
      lines.addSeries(s);
    }
    return lines;
  }

  public static JFreeChart create(String title, String fieldLabel, String metricLabel, List<String> systems,
      List<Point> points, ChartStyle style) {
    XYSeriesCollection lines = createDataset(systems, points);
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, true);
    for (int i = 0; i < systems.size(); i++) {
      r.setSeriesPaint(i, style.color(i));
      r.setSeriesStroke(i, style.line(2.5f));
      r.setSeriesShape(i, new Ellipse2D.Double(-4, -4, 8, 8));
    }
    XYItemLabelGenerator bound = (data, series, item) -> boundAt(points, systems.get(series),
        data.getXValue(series, item));
    r.setDefaultItemLabelGenerator(bound);
    r.setDefaultItemLabelsVisible(true);
    r.setDefaultItemLabelFont(style.tick());
    NumberAxis x = new NumberAxis(fieldLabel);
    x.setAutoRangeIncludesZero(false);
    x.setLabelFont(style.label());
    x.setTickLabelFont(style.tick());
    NumberAxis y = new NumberAxis(metricLabel);
    y.setAutoRangeIncludesZero(true);
    y.setNumberFormatOverride(new java.text.DecimalFormat("0.###", java.text.DecimalFormatSymbols.getInstance(Locale.US)));
    y.setLabelFont(style.label());
    y.setTickLabelFont(style.tick());
    XYPlot plot = new XYPlot(lines, x, y, r);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    JFreeChart chart = new JFreeChart(title, style.title(), plot, true);
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(8, 8, 8, 30));
    return style.apply(chart);
  }

  /** The bound of {@code system}'s point at {@code value}: the label drawn beside it. */
  static String boundAt(List<Point> points, String system, double value) {
    return points.stream().filter(p -> p.system().equals(system) && p.value() == value).map(Point::bound)
        .findFirst().orElse("");
  }
}
