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
 * model no longer fits the device and is offloaded — the crossover the source articles argue about. A point that
 * does not fit even with offload is not drawn (its rate is of a run that cannot happen); the subtitle names it.
 */
public final class SweepChart {
  private SweepChart() {}

  /** One simulated point. */
  public record Point(String system, String model, double parameters, double value, boolean offloaded, boolean fits) {}

  /** What is drawn: per system (in order), its line of runnable points and its offloaded ones; and what is not. */
  record Data(XYSeriesCollection lines, XYSeriesCollection marks, List<Point> notDrawn) {}

  static Data dataset(List<String> systems, List<Point> points) {
    XYSeriesCollection lines = new XYSeriesCollection();
    XYSeriesCollection marks = new XYSeriesCollection();
    List<Point> notDrawn = new java.util.ArrayList<>();
    for (String sys : systems) {
      XYSeries all = new XYSeries(sys, true, true);
      XYSeries off = new XYSeries(sys + ": offloaded", true, true);
      for (Point p : points) {
        if (!p.system().equals(sys) || !(p.value() > 0)) {
          continue;
        }
        if (!p.fits()) {
          notDrawn.add(p);
          continue;
        }
        all.add(p.parameters() / 1e9, p.value());
        if (p.offloaded()) {
          off.add(p.parameters() / 1e9, p.value());
        }
      }
      lines.addSeries(all);
      marks.addSeries(off);
    }
    return new Data(lines, marks, notDrawn);
  }

  public static JFreeChart create(String title, String metricLabel, List<String> systems, List<Point> points,
      ChartStyle style) {
    Data d = dataset(systems, points);
    XYSeriesCollection lines = d.lines();
    XYSeriesCollection marks = d.marks();
    XYLineAndShapeRenderer lineR = new XYLineAndShapeRenderer(true, true);
    XYLineAndShapeRenderer markR = new XYLineAndShapeRenderer(false, true);
    double lo = Double.POSITIVE_INFINITY;
    double hi = 0;
    double xlo = Double.POSITIVE_INFINITY;
    double xhi = 0;
    for (int i = 0; i < systems.size(); i++) {
      XYSeries all = lines.getSeries(i);
      for (int k = 0; k < all.getItemCount(); k++) {
        double px = all.getX(k).doubleValue();
        double py = all.getY(k).doubleValue();
        lo = Math.min(lo, py);
        hi = Math.max(hi, py);
        xlo = Math.min(xlo, px);
        xhi = Math.max(xhi, px);
      }
      lineR.setSeriesPaint(i, style.color(i));
      lineR.setSeriesStroke(i, style.line(2.5f));
      lineR.setSeriesShape(i, new Ellipse2D.Double(-4, -4, 8, 8));
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
    // a label at each decade, as a plain number (1,000 rather than 1E3), minor ticks between
    y.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
    y.setNumberFormatOverride(new java.text.DecimalFormat("#,##0.###", java.text.DecimalFormatSymbols.getInstance(Locale.US)));
    y.setMinorTickCount(9);
    y.setMinorTickMarksVisible(true);
    y.setLabelFont(style.label());
    y.setTickLabelFont(style.tick());
    if (xhi > 0) {
      x.setRange(Math.pow(10, Math.floor(Math.log10(xlo))), Math.pow(10, Math.ceil(Math.log10(xhi))) * 1.0001);
    }
    if (hi > 0) {
      // a hair past the top decade, which the axis otherwise leaves unlabelled when it is the range's end
      y.setRange(Math.pow(10, Math.floor(Math.log10(lo))), Math.pow(10, Math.ceil(Math.log10(hi))) * 1.0001);
    }
    XYPlot plot = new XYPlot(marks, x, y, markR);
    plot.setDataset(1, lines);
    plot.setRenderer(1, lineR);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    JFreeChart chart = new JFreeChart(title, style.title(), plot, true);
    if (!d.notDrawn().isEmpty()) {
      chart.addSubtitle(new org.jfree.chart.title.TextTitle("not drawn, as they do not fit even with offload: "
          + String.join(", ", d.notDrawn().stream().map(p -> p.model() + " on " + p.system()).toList()), style.tick()));
    }
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(8, 8, 8, 30));
    return style.apply(chart);
  }
}
