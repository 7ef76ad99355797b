package llmsim.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.util.List;
import java.util.Locale;
import llmsim.core.engine.Bound;
import llmsim.core.engine.OpKind;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.Plot;

/** Fonts, colours and sizes for every chart, in one place. */
public record ChartStyle(int width, int height, Font title, Font label, Font tick, List<Color> palette) {

  public static final ChartStyle DEFAULT = new ChartStyle(1200, 750,
      new Font("DejaVu Sans", Font.BOLD, 20), new Font("DejaVu Sans", Font.PLAIN, 15),
      new Font("DejaVu Sans", Font.PLAIN, 13),
      List.of(new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e),
          new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f),
          new Color(0xbcbd22), new Color(0x17becf)));

  static {
    Locale.setDefault(Locale.US);
  }

  public Color color(int i) {
    return palette.get(Math.floorMod(i, palette.size()));
  }

  public Paint kindColor(OpKind k) {
    return switch (k) {
      case ATTENTION -> new Color(0x1f77b4);
      case MLP -> new Color(0x2ca02c);
      case NORM_ELEMENTWISE -> new Color(0xbcbd22);
      case OUTPUT -> new Color(0x9467bd);
      case OPTIMIZER -> new Color(0xd62728);
      case TRANSFER -> new Color(0xff7f0e);
      case DISPATCH -> new Color(0x7f7f7f);
    };
  }

  public Paint boundColor(Bound b) {
    return switch (b) {
      case COMPUTE -> new Color(0x2ca02c);
      case DEVICE_MEMORY -> new Color(0x1f77b4);
      case HOST_LINK -> new Color(0xff7f0e);
      case HOST -> new Color(0xd62728);
      case OVERHEAD -> new Color(0x7f7f7f);
      case INTRA_NODE_LINK -> new Color(0x9467bd);
      case NETWORK -> new Color(0x8c564b);
      case PIPELINE_BUBBLE -> new Color(0xc7c7c7);
    };
  }

  public BasicStroke line(float width) {
    return new BasicStroke(width);
  }

  public BasicStroke dashed(float width) {
    return new BasicStroke(width, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {8f, 5f}, 0f);
  }

  /** Apply fonts and a white background. */
  public JFreeChart apply(JFreeChart chart) {
    chart.setBackgroundPaint(Color.WHITE);
    chart.getTitle().setFont(title);
    if (chart.getLegend() != null) {
      chart.getLegend().setItemFont(tick);
    }
    Plot p = chart.getPlot();
    p.setBackgroundPaint(Color.WHITE);
    return chart;
  }
}
