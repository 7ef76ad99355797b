package llmsim.report;

import java.awt.Color;
import java.awt.geom.Ellipse2D;
import java.util.List;
import java.util.Locale;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * A metric against model size for several systems: one line per system, with hollow markers where the
 * model no longer fits the device and is offloaded — the crossover the source articles argue about.
 */
public final class SweepChart {
  private SweepChart() {}

  /** One simulated point. */
  public record Point(String system, String model, double parameters, double value, boolean offloaded, boolean fits) {}

  public static JFreeChart create(String title, String metricLabel, List<String> systems, List<Point> points,
      ChartStyle style) {
    XYSeriesCollection lines = new XYSeriesCollection();
    XYSeriesCollection marks = new XYSeriesCollection();
    XYLineAndShapeRenderer lineR = new XYLineAndShapeRenderer(true, true);
    XYLineAndShapeRenderer markR = new XYLineAndShapeRenderer(false, true);
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    double xlo = Double.POSITIVE_INFINITY;
    double xhi = 0;
    for (int i = 0; i < systems.size(); i++) {
      String sys = systems.get(i);
      XYSeries all = new XYSeries(sys, true, true);
      XYSeries off = new XYSeries(sys + ": offloaded or does not fit", true, true);
      for (Point p : points) {
        if (!p.system().equals(sys) || !(p.value() > 0)) {
          continue;
        }
        all.add(p.parameters() / 1e9, p.value());
        if (p.offloaded() || !p.fits()) {
          off.add(p.parameters() / 1e9, p.value());
        }
        lo = Math.min(lo, p.value());
        hi = Math.max(hi, p.value());
        xlo = Math.min(xlo, p.parameters() / 1e9);
        xhi = Math.max(xhi, p.parameters() / 1e9);
      }
      lines.addSeries(all);
      lineR.setSeriesPaint(i, style.color(i));
      lineR.setSeriesStroke(i, style.line(2.5f));
      lineR.setSeriesShape(i, new Ellipse2D.Double(-4, -4, 8, 8));
      marks.addSeries(off);
      markR.setSeriesPaint(i, style.color(i));
      markR.setSeriesShapesFilled(i, false);
      markR.setSeriesShape(i, new Ellipse2D.Double(-9, -9, 18, 18));
      markR.setSeriesStroke(i, style.line(2f));
    }
    LogAxis x = new LogAxis("model size (billion parameters)");
    x.setBase(10);
    x.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    x.setNumberFormatOverride(new java.text.DecimalFormat("0.#", java.text.DecimalFormatSymbols.getInstance(Locale.US)));
    x.setLabelFont(style.label());
    x.setTickLabelFont(style.tick());
    LogAxis y = new LogAxis(metricLabel);
    y.setBase(10);
    y.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    y.setNumberFormatOverride(new java.text.DecimalFormat("0.##E0", java.text.DecimalFormatSymbols.getInstance(Locale.US)));
    y.setLabelFont(style.label());
    y.setTickLabelFont(style.tick());
    if (xhi > 0) {
      x.setRange(Math.pow(10, Math.floor(Math.log10(xlo))), Math.pow(10, Math.ceil(Math.log10(xhi))));
    }
    if (hi > 0) {
      y.setRange(Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi))));
    }
    XYPlot plot = new XYPlot(marks, x, y, markR);
    plot.setDataset(1, lines);
    plot.setRenderer(1, lineR);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    JFreeChart chart = new JFreeChart(title, style.title(), plot, true);
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(8, 8, 8, 30));
    return style.apply(chart);
  }
}
