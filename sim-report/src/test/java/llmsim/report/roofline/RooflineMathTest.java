package llmsim.report.roofline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

class RooflineMathTest {
  @Test
  void ridgePoint_ofH100SxmBf16_isPeakOverBandwidth() {
    // H100 SXM datasheet: 989.4 TFLOP/s dense bf16, 3.35 TB/s HBM3
    assertThat(RooflineMath.ridgePoint(989.4e12, 3.35e12)).isCloseTo(295.3, within(0.1));
  }

  @Test
  void ridgePoint_ofM2UltraFp16_isAbout34() {
    assertThat(RooflineMath.ridgePoint(27.2e12, 800e9)).isCloseTo(34.0, within(1e-9));
  }

  @Test
  void anOpAtIntensityI_attainsMinOfPeakAndIxBandwidth() {
    assertThat(RooflineMath.attainable(10, 989.4e12, 3.35e12)).isEqualTo(10 * 3.35e12);
    assertThat(RooflineMath.attainable(1000, 989.4e12, 3.35e12)).isEqualTo(989.4e12);
  }

  @Test
  void hostLinkRoof_atPcie5_risesAt63GBperSecondUntilThePeak() {
    double[][] roof = RooflineMath.roof(756.5e12, 63e9, 0.1, 1e5);
    assertThat(roof[0]).containsExactly(0.1, 0.1 * 63e9);
    assertThat(roof[1][0]).isCloseTo(756.5e12 / 63e9, within(1e-6));
    assertThat(roof[1][1]).isEqualTo(756.5e12);
    assertThat(roof[2]).containsExactly(1e5, 756.5e12);
  }

  @Test
  void roof_whoseRidgeIsBeyondTheAxis_staysASlope() {
    double[][] roof = RooflineMath.roof(1e15, 1e9, 0.1, 1e3);
    assertThat(roof).hasDimensions(2, 2);
    assertThat(roof[1]).containsExactly(1e3, 1e12);
  }

  @Test
  void decadeRange_coversTheValuesWithWholeDecades() {
    double[] r = RooflineMath.decadeRange(List.of(0.6, 295.0, 34.0), 1e-3, 1e7);
    assertThat(r).containsExactly(0.1, 1000.0);
    assertThat(RooflineMath.decadeTicks(r[0], r[1])).containsExactly(0.1, 1.0, 10.0, 100.0, 1000.0);
  }

  @Test
  void decadeRange_ignoresZerosAndInfinities() {
    assertThat(RooflineMath.decadeRange(List.of(0.0, Double.POSITIVE_INFINITY, 5.0), 1e-3, 1e7)).containsExactly(1.0, 10.0);
  }

  @Test
  void labelRows_separateNearbyLabels() {
    int[] rows = RooflineMath.labelRows(new double[] {1, 1.1, 100}, new double[] {1e12, 1.05e12, 1e12}, 0.25);
    assertThat(rows).containsExactly(0, 1, 0);
  }
}
