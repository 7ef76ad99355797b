package llmsim.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SweepChartTest {
  @Test
  void aPointThatDoesNotFit_isNotDrawn_anOffloadedOneIsRinged() {
    List<SweepChart.Point> points = List.of(
        new SweepChart.Point("gpu", "small", 7e9, 600, false, true),
        new SweepChart.Point("gpu", "medium", 13e9, 300, true, true),
        new SweepChart.Point("gpu", "large", 33e9, 120, true, false),
        new SweepChart.Point("mac", "small", 7e9, 450, false, true),
        new SweepChart.Point("mac", "large", 33e9, 90, false, false));
    SweepChart.Data d = SweepChart.dataset(List.of("gpu", "mac"), points);
    // the lines hold the runnable points only: a rate for a run that cannot happen is not plotted
    assertThat(d.lines().getSeries(0).getItemCount()).isEqualTo(2);
    assertThat(d.lines().getSeries(0).getX(1).doubleValue()).isEqualTo(13.0);
    assertThat(d.lines().getSeries(1).getItemCount()).isEqualTo(1);
    // the ring marks the offloaded point that fits, not the one that does not
    assertThat(d.marks().getSeries(0).getItemCount()).isEqualTo(1);
    assertThat(d.marks().getSeries(0).getY(0).doubleValue()).isEqualTo(300);
    assertThat(d.marks().getSeries(0).getKey()).isEqualTo("gpu: offloaded");
    assertThat(d.notDrawn()).extracting(SweepChart.Point::model).containsExactly("large", "large");
    // the chart names what it left out
    org.jfree.chart.JFreeChart c = SweepChart.create("t", "tokens/s", List.of("gpu", "mac"), points,
        ChartStyle.DEFAULT);
    assertThat(((org.jfree.chart.title.TextTitle) c.getSubtitle(c.getSubtitleCount() - 1)).getText())
        .isEqualTo("not drawn, as they do not fit even with offload: large on gpu, large on mac");
  }
}
