package llmsim.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.geom.Ellipse2D;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import llmsim.core.cost.Money;
import llmsim.core.util.Units;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.annotations.XYTextAnnotation;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code llmsim advise}'s answer as a picture: every option's wall time against its cost, the time-cost Pareto front
 * joined as a line (the options nothing beats on both), the deadline and budget as dashed lines, and the winner ringed
 * and labelled. An axis is logarithmic where its options span more than {@link #LOG_SPAN} (minutes to days).
 */
public final class ParetoChart {
  private ParetoChart() {}

  /** One option: {@code label} names it on the chart ("4x a100-sxm-80gb"). */
  public record Point(String label, double hours, double cost, boolean front, boolean meets) {}

  /** Ranges wider than this ratio get a logarithmic axis. */
  static final double LOG_SPAN = 30;

  /** Series keys, in the order drawn. */
  public static final String OPTIONS = "options";
  public static final String MISSES = "options over the deadline or budget";
  public static final String FRONT = "time-cost Pareto front";
  public static final String WINNER = "winner: the cheapest that meets the constraints";

  /** The plotted points: {@link #OPTIONS}, {@link #MISSES}, {@link #FRONT} (by time) and {@link #WINNER}. */
  public static XYSeriesCollection dataset(List<Point> points, Point winner) {
    XYSeries meets = new XYSeries(OPTIONS, false, true);
    XYSeries misses = new XYSeries(MISSES, false, true);
    XYSeries front = new XYSeries(FRONT, false, true);
    XYSeries win = new XYSeries(WINNER, false, true);
    for (Point p : points) {
      (p.meets() ? meets : misses).add(p.hours(), p.cost());
    }
    points.stream().filter(Point::front).sorted(Comparator.comparingDouble(Point::hours))
        .forEach(p -> front.add(p.hours(), p.cost()));
    if (winner != null) {
      win.add(winner.hours(), winner.cost());
    }
    XYSeriesCollection d = new XYSeriesCollection();
    d.addSeries(meets);
    d.addSeries(misses);
    d.addSeries(front);
    d.addSeries(win);
    return d;
  }

  /**
   * @param deadlineHours the deadline, or infinity for none
   * @param budget the budget in {@code currency}, or infinity for none
   */
  public static JFreeChart create(String title, String currency, List<Point> points, Point winner,
      double deadlineHours, double budget, ChartStyle style) {
    XYSeriesCollection d = dataset(points, winner);
    XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(false, true);
    Color grey = new Color(0x7f7f7f);
    Color front = style.color(0);
    Color win = style.color(1);
    r.setSeriesPaint(0, grey);
    r.setSeriesShape(0, new Ellipse2D.Double(-4, -4, 8, 8));
    r.setSeriesPaint(1, new Color(0xbbbbbb));
    r.setSeriesShapesFilled(1, false);
    r.setSeriesShape(1, new Ellipse2D.Double(-4, -4, 8, 8));
    r.setSeriesLinesVisible(2, true);
    r.setSeriesPaint(2, front);
    r.setSeriesStroke(2, style.line(2.5f));
    r.setSeriesShape(2, new Ellipse2D.Double(-6, -6, 12, 12));
    r.setSeriesPaint(3, win);
    r.setSeriesShapesFilled(3, false);
    r.setSeriesStroke(3, style.line(3f));
    r.setSeriesShape(3, new Ellipse2D.Double(-12, -12, 24, 24));

    double[] hours = points.stream().mapToDouble(Point::hours).toArray();
    double[] costs = points.stream().mapToDouble(Point::cost).toArray();
    ValueAxis x = axis("wall time (hours)", range(hours, deadlineHours), style);
    ValueAxis y = axis("job cost (" + currency + ")", range(costs, budget), style);
    XYPlot plot = new XYPlot(d, x, y, r);
    plot.setDomainGridlinePaint(new Color(0xdddddd));
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    if (deadlineHours < Double.POSITIVE_INFINITY) {
      plot.addDomainMarker(marker(deadlineHours, "deadline", style), Layer.BACKGROUND);
    }
    if (budget < Double.POSITIVE_INFINITY) {
      ValueMarker m = marker(budget, "budget", style);
      m.setLabelAnchor(RectangleAnchor.BOTTOM_RIGHT);
      m.setLabelTextAnchor(TextAnchor.TOP_RIGHT);
      plot.addRangeMarker(m, Layer.BACKGROUND);
    }
    List<Point> onFront = points.stream().filter(Point::front).sorted(Comparator.comparingDouble(Point::hours))
        .toList();
    for (int i = 0; i < onFront.size(); i++) { // labels above and below by turns, so neighbours do not overlap
      Point p = onFront.get(i);
      if (p != winner) {
        XYTextAnnotation a = new XYTextAnnotation(" " + p.label(), p.hours(), p.cost());
        a.setFont(style.tick());
        a.setPaint(front.darker());
        a.setTextAnchor(i % 2 == 0 ? TextAnchor.BOTTOM_LEFT : TextAnchor.TOP_LEFT);
        plot.addAnnotation(a);
      }
    }
    if (winner != null) {
      XYTextAnnotation a = new XYTextAnnotation("   winner: " + winner.label() + ", "
          + Units.duration(winner.hours() * 3600) + ", " + Money.format(winner.cost(), currency), winner.hours(),
          winner.cost());
      a.setFont(style.label().deriveFont(Font.BOLD));
      a.setPaint(win);
      a.setTextAnchor(TextAnchor.TOP_LEFT);
      plot.addAnnotation(a);
    }
    JFreeChart chart = new JFreeChart(title, style.title(), plot, true);
    chart.setPadding(new org.jfree.chart.ui.RectangleInsets(8, 8, 8, 30));
    return style.apply(chart);
  }

  private static ValueMarker marker(double at, String label, ChartStyle style) {
    ValueMarker m = new ValueMarker(at, new Color(0xd62728), style.dashed(1.5f));
    m.setLabel(label);
    m.setLabelFont(style.tick());
    m.setLabelPaint(new Color(0xd62728));
    m.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
    m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
    return m;
  }

  /** The span of the positive values and of the constraint, when finite: [lo, hi]. */
  private static double[] range(double[] values, double constraint) {
    java.util.DoubleSummaryStatistics span = java.util.stream.DoubleStream.concat(java.util.Arrays.stream(values),
        java.util.stream.DoubleStream.of(constraint)).filter(v -> v > 0 && Double.isFinite(v)).summaryStatistics();
    return span.getCount() == 0 ? new double[] {0.1, 10} : new double[] {span.getMin(), span.getMax()};
  }

  /**
   * A logarithmic axis with a tick per decade when the range spans more than {@link #LOG_SPAN} (minutes to days),
   * else a plain one: a log axis over less than a decade would show one tick or none.
   */
  private static ValueAxis axis(String label, double[] range, ChartStyle style) {
    java.text.DecimalFormat format = new java.text.DecimalFormat("#,##0.###",
        java.text.DecimalFormatSymbols.getInstance(Locale.US));
    ValueAxis a;
    if (range[1] / range[0] > LOG_SPAN) {
      LogAxis log = new LogAxis(label);
      log.setBase(10);
      log.setStandardTickUnits(NumberAxis.createIntegerTickUnits());
      log.setNumberFormatOverride(format);
      log.setMinorTickMarksVisible(true);
      log.setRange(range[0] / 1.5, range[1] * 3); // room for the labels, right and above
      a = log;
    } else {
      NumberAxis lin = new NumberAxis(label);
      lin.setAutoRangeIncludesZero(false);
      lin.setNumberFormatOverride(format);
      double span = range[1] > range[0] ? range[1] - range[0] : range[0];
      lin.setRange(Math.max(0, range[0] - 0.05 * span), range[1] + 0.2 * span); // room for the labels
      a = lin;
    }
    a.setLabelFont(style.label());
    a.setTickLabelFont(style.tick());
    return a;
  }
}
