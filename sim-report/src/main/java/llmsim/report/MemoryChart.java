package llmsim.report;

import java.awt.Color;
import java.awt.geom.Rectangle2D;
import java.util.List;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.util.Units;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.CategoryLabelPositions;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.renderer.category.LineAndShapeRenderer;
import org.jfree.chart.renderer.category.StackedBarRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * Stacked bars of where the bytes go, per system: the device's bar with its usable capacity drawn as a bar-wide
 * line and, where anything is offloaded, what the device would need without offload as a second line; beside it
 * a host bar with what offload put in host memory against the host's capacity. Nothing over capacity is hidden.
 */
public final class MemoryChart {
  private MemoryChart() {}

  /** One system's plan. */
  public record Entry(String system, MemoryPlan plan) {}

  static final String HOST = "in host memory (offload)";
  static final String CAPACITY = "capacity";
  static final String NEEDED = "needed without offload";

  /** The bars (stacked categories per column) and the markers (capacity, needed), in GiB. */
  record Data(DefaultCategoryDataset bars, DefaultCategoryDataset markers, double maxGib) {}

  /** Columns "ID device" and, when the plan keeps bytes in host memory, "ID host". */
  static Data createDataset(List<Entry> entries) {
    DefaultCategoryDataset stack = new DefaultCategoryDataset();
    DefaultCategoryDataset markers = new DefaultCategoryDataset();
    double max = 0;
    for (Entry e : entries) {
      MemoryPlan p = e.plan();
      String device = e.system() + " device";
      stack.addValue(p.weightsBytes() / Units.GIB, "weights", device);
      stack.addValue(p.gradientsBytes() / Units.GIB, "gradients", device);
      stack.addValue(p.optimizerBytes() / Units.GIB, "optimizer state", device);
      stack.addValue(p.activationsBytes() / Units.GIB, "activations", device);
      stack.addValue(p.kvCacheBytes() / Units.GIB, "KV cache", device);
      stack.addValue(p.workspaceBytes() / Units.GIB, "workspace", device);
      stack.addValue(0.0, HOST, device);
      markers.addValue(p.capacityBytes() / Units.GIB, CAPACITY, device);
      boolean offloaded = p.hostBytes() > 0;
      markers.addValue(offloaded ? p.neededBytes() / Units.GIB : null, NEEDED, device);
      max = Math.max(max, Math.max(p.totalBytes(), p.capacityBytes()));
      if (offloaded) {
        max = Math.max(max, p.neededBytes());
        String host = e.system() + " host";
        for (String s : List.of("weights", "gradients", "optimizer state", "activations", "KV cache", "workspace")) {
          stack.addValue(0.0, s, host);
        }
        stack.addValue(p.hostBytes() / Units.GIB, HOST, host);
        markers.addValue(p.hostCapacityBytes() / Units.GIB, CAPACITY, host);
        markers.addValue(null, NEEDED, host);
        max = Math.max(max, Math.max(p.hostBytes(), p.hostCapacityBytes()));
      }
    }
    return new Data(stack, markers, max / Units.GIB);
  }

  public static JFreeChart create(String title, List<Entry> entries, ChartStyle style) {
    Data d = createDataset(entries);
    StackedBarRenderer bars = new StackedBarRenderer();
    bars.setBarPainter(new StandardBarPainter());
    bars.setShadowVisible(false);
    bars.setMaximumBarWidth(0.25);
    for (int i = 0; i < 7; i++) {
      bars.setSeriesPaint(i, style.color(i));
    }
    LineAndShapeRenderer lines = new LineAndShapeRenderer(false, true);
    lines.setSeriesShape(0, new Rectangle2D.Double(-60, -2, 120, 4));
    lines.setSeriesPaint(0, Color.BLACK);
    lines.setSeriesShape(1, new Rectangle2D.Double(-60, -1.5, 120, 3));
    lines.setSeriesPaint(1, new Color(0xd62728));
    CategoryAxis x = new CategoryAxis("system");
    x.setTickLabelFont(style.tick());
    x.setLabelFont(style.label());
    if (d.bars().getColumnCount() > 4) {
      x.setCategoryLabelPositions(CategoryLabelPositions.UP_45);
    }
    NumberAxis y = new NumberAxis("memory (GiB)");
    y.setTickLabelFont(style.tick());
    y.setLabelFont(style.label());
    y.setRange(0, d.maxGib() * 1.1); // markers are not in the auto range
    CategoryPlot plot = new CategoryPlot(d.bars(), x, y, bars);
    plot.setDataset(1, d.markers());
    plot.setRenderer(1, lines);
    plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
    plot.setRangeGridlinePaint(new Color(0xdddddd));
    return style.apply(new JFreeChart(title, style.title(), plot, true));
  }
}
