package llmsim.report.roofline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.hw.Precision;
import org.junit.jupiter.api.Test;

class RooflineChartTest {
  @Test
  void flopsPerSecond_writesSiPrefixesNotExponents() {
    assertThat(RooflineChart.flopsPerSecond(1e9)).isEqualTo("1 GFLOP/s");
    assertThat(RooflineChart.flopsPerSecond(1e14)).isEqualTo("100 TFLOP/s");
    assertThat(RooflineChart.flopsPerSecond(1e16)).isEqualTo("10 PFLOP/s");
    assertThat(RooflineChart.flopsPerSecond(1e8)).isEqualTo("100 MFLOP/s");
    assertThat(RooflineChart.intensity(0.01)).isEqualTo("0.01");
    assertThat(RooflineChart.intensity(1e5)).isEqualTo("100,000");
  }

  static RooflineData data(Map<Precision, Double> peaks, RooflineData.Work work) {
    return new RooflineData("dev", peaks, 3.35e12, 63e9, "PCIe", List.of(), work, List.of(), Double.NaN);
  }

  @Test
  void ceilings_bf16Work_isDrawnBoldOnTheCeilingItsPrecisionHas() {
    Map<Precision, Double> peaks = new EnumMap<>(Map.of(Precision.FP32, 66.9e12, Precision.FP16, 989.4e12,
        Precision.BF16, 989.4e12));
    List<RooflineChart.Ceiling> c = RooflineChart.ceilings(data(peaks, new RooflineData.Work(Precision.BF16, 989.4e12, null)), false);
    assertThat(c).extracting(RooflineChart.Ceiling::work).containsExactly(false, true);
    assertThat(c.get(1).name()).startsWith("fp16/bf16").contains("runs in bf16");
    assertThat(c.get(1).peak()).isEqualTo(989.4e12);
  }

  @Test
  void ceilings_emulatedWork_getsItsOwnCeilingNotANativeOnesName() {
    // a device with fp32 and fp16 at one peak, running bf16 emulated at half the fp32 rate
    Map<Precision, Double> peaks = new EnumMap<>(Map.of(Precision.FP32, 27.2e12, Precision.FP16, 27.2e12));
    RooflineData d = data(peaks, new RooflineData.Work(Precision.BF16, 13.6e12, "bf16, not native: runs at 0.50x fp32"));
    List<RooflineChart.Ceiling> c = RooflineChart.ceilings(d, false);
    assertThat(c).hasSize(2);
    assertThat(c.get(0).name()).isEqualTo("fp32/fp16");
    assertThat(c.get(0).work()).isFalse();
    assertThat(c.get(1).name()).startsWith("bf16");
    assertThat(c.get(1).peak()).isEqualTo(13.6e12);
    assertThat(RooflineChart.ceilings(d, true)).extracting(RooflineChart.Ceiling::name).containsExactly(c.get(1).name());
  }

  @Test
  void criticalText_saysTheBatchOrWhyThereIsNone() {
    assertThat(RooflineChart.criticalText(294.2)).isEqualTo("critical batch 295: decode turns compute-bound");
    assertThat(RooflineChart.criticalText(Double.POSITIVE_INFINITY)).startsWith("never compute-bound");
  }

  @Test
  void labelLayout_crowdedPoints_getBoxesThatNeitherOverlapNorCoverAPoint() {
    List<LabelLayout.Label> labels = new ArrayList<>();
    for (int i = 0; i < 8; i++) { // eight labels on points 3 px apart, as decode ops at one intensity
      labels.add(new LabelLayout.Label(300, 200 + 3 * i, 180, 15, false));
    }
    List<LabelLayout.Box> boxes = LabelLayout.place(labels, 1000, 600);
    for (int i = 0; i < boxes.size(); i++) {
      LabelLayout.Box a = boxes.get(i);
      assertThat(a).isNotEqualTo(LabelLayout.DROPPED);
      assertThat(a.cx() - a.width() / 2).isGreaterThanOrEqualTo(0);
      for (int j = i + 1; j < boxes.size(); j++) {
        assertThat(a.overlaps(boxes.get(j))).as("labels %d and %d", i, j).isFalse();
      }
      for (LabelLayout.Label p : labels) {
        assertThat(a.overlaps(new LabelLayout.Box(p.x(), p.y(), LabelLayout.MARKER, LabelLayout.MARKER))).isFalse();
      }
    }
  }

  @Test
  void labelLayout_optionalLabelWithNoRoom_isDropped() {
    List<LabelLayout.Label> labels = List.of(new LabelLayout.Label(50, 10, 100, 20, false),
        new LabelLayout.Label(50, 10, 100, 20, true));
    List<LabelLayout.Box> boxes = LabelLayout.place(labels, 100, 20);
    assertThat(boxes.get(1)).isEqualTo(LabelLayout.DROPPED);
  }
}
