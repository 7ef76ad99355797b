package llmsim.report;

import java.awt.Color;
import java.util.List;
import java.util.Map;
import llmsim.core.engine.Bound;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** Time by bound per system: a horizontal stacked bar of seconds attributed to each bound. */
public final class BoundsChart {
  private BoundsChart() {}

  /** One system's time by bound. */
  public record Entry(String system, Map<Bound, Double> seconds) {}

  public static JFreeChart create(String title, List<Entry> entries, ChartStyle style) {
    DefaultCategoryDataset d = new DefaultCategoryDataset();
    double max = entries.stream().mapToDouble(e -> e.seconds().values().stream().mapToDouble(Double::doubleValue).sum())
        .max().orElse(1);
    boolean ms = max < 1;
    for (Entry e : entries) {
      for (Bound b : Bound.values()) {
        d.addValue(e.seconds().get(b) * (ms ? 1e3 : 1), b.key().replace('_', ' '), e.system());
      }
    }
    StackedBarRenderer r = new StackedBarRenderer();
    r.setBarPainter(new StandardBarPainter());
    r.setShadowVisible(false);
    r.setMaximumBarWidth(0.2);
    for (Bound b : Bound.values()) {
      r.setSeriesPaint(b.ordinal(), style.boundColor(b));
    }
    CategoryAxis x = new CategoryAxis("system");
    x.setTickLabelFont(style.tick());
    x.setLabelFont(style.label());
    NumberAxis y = new NumberAxis("time per step by bound (" + (ms ? "ms" : "s") + ")");
    y.setTickLabelFont(style.tick());
    y.setLabelFont(style.label());
    CategoryPlot plot = new CategoryPlot(d, x, y, r);
    plot.setOrientation(PlotOrientation.HORIZONTAL);
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return style.apply(new JFreeChart(title, style.title(), plot, true));
  }
}
