package llmsim.report;

import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.util.List;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.util.Units;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/** Stacked bars of where the bytes go, per system, with each system's usable capacity drawn as a bar-wide line. */
public final class MemoryChart {
  private MemoryChart() {}

  /** One system's plan. */
  public record Entry(String system, MemoryPlan plan) {}

  public static JFreeChart create(String title, List<Entry> entries, ChartStyle style) {
    DefaultCategoryDataset stack = new DefaultCategoryDataset();
    DefaultCategoryDataset capacity = new DefaultCategoryDataset();
    double max = 0;
    for (Entry e : entries) {
      MemoryPlan p = e.plan();
      stack.addValue(p.weightsBytes() / Units.GIB, "weights", e.system());
      stack.addValue(p.gradientsBytes() / Units.GIB, "gradients", e.system());
      stack.addValue(p.optimizerBytes() / Units.GIB, "optimizer state", e.system());
      stack.addValue(p.activationsBytes() / Units.GIB, "activations", e.system());
      stack.addValue(p.kvCacheBytes() / Units.GIB, "KV cache", e.system());
      stack.addValue(p.workspaceBytes() / Units.GIB, "workspace", e.system());
      capacity.addValue(p.capacityBytes() / Units.GIB, "usable device capacity", e.system());
      max = Math.max(max, Math.max(p.totalBytes(), p.capacityBytes()) / Units.GIB);
    }
    StackedBarRenderer bars = new StackedBarRenderer();
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    bars.setMaximumBarWidth(0.25);
    for (int i = 0; i < 6; i++) {
      bars.setSeriesPaint(i, style.color(i));
    }
    LineAndShapeRenderer cap = new LineAndShapeRenderer(false, true);
    cap.setSeriesShape(0, new Rectangle2D.Double(-90, -2, 180, 4));
    cap.setSeriesPaint(0, Color.BLACK);
    CategoryAxis x = new CategoryAxis("system");
    x.setTickLabelFont(style.tick());
    x.setLabelFont(style.label());
    NumberAxis y = new NumberAxis("memory (GiB)");
    y.setTickLabelFont(style.tick());
    y.setLabelFont(style.label());
    y.setRange(0, max * 1.1);
    CategoryPlot plot = new CategoryPlot(stack, x, y, bars);
    plot.setDataset(1, capacity);
    plot.setRenderer(1, cap);
    plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return style.apply(new JFreeChart(title, style.title(), plot, true));
  }
}
