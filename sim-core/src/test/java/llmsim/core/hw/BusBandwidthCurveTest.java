package llmsim.core.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading a measured busbw-by-size table: expectations computed here from the table's own points. */
class BusBandwidthCurveTest {
  /** Four points of Azure's ND A100 v4 nccl-tests all-reduce table (8 GPUs): 1 KB, 1 MB, 2 MB, 8 GB. */
  static final List<Double> SIZES = List.of(1024.0, 1048576.0, 2097152.0, 8589934592.0);
  static final List<Double> BUSBW = List.of(0.04e9, 36.22e9, 53.54e9, 231.58e9);
  static final BusBandwidthCurve CURVE = new BusBandwidthCurve(8, SIZES, BUSBW, "test");

  @Test
  void atAMeasuredSize_theBusBandwidthIsTheTables_andItsFractionIsOverTheLargestSizes() {
    for (int i = 0; i < SIZES.size(); i++) {
      assertThat(CURVE.busBandwidth(SIZES.get(i))).isCloseTo(BUSBW.get(i), within(1e-3));
      assertThat(CURVE.fraction(SIZES.get(i))).isCloseTo(BUSBW.get(i) / 231.58e9, within(1e-12));
    }
  }

  @Test
  void betweenTwoSizes_theBusBandwidthIsInterpolatedInTheLogOfTheSize() {
    // 1.5 MB-ish: the geometric mean of 1 MB and 2 MB lies half-way in log size
    double mid = Math.sqrt(1048576.0 * 2097152.0);
    assertThat(CURVE.busBandwidth(mid)).isCloseTo((36.22e9 + 53.54e9) / 2, within(1.0));
    // a quarter of the way from 1 MB to 2 MB in log size: 2^0.25 MB
    assertThat(CURVE.busBandwidth(1048576.0 * Math.pow(2, 0.25))).isCloseTo(36.22e9 + 0.25 * (53.54e9 - 36.22e9),
        within(1.0));
  }

  @Test
  void belowTheSmallestSize_theTimeIsTheSmallestSizes_andBeyondTheLargest_theFractionIsOne() {
    // time = size / busbw stays that of 1 KB
    double floor = 1024.0 / 0.04e9;
    assertThat(8.0 / CURVE.busBandwidth(8.0)).isCloseTo(floor, within(1e-15));
    assertThat(CURVE.fraction(16 * 8589934592.0)).isEqualTo(1.0);
    assertThat(CURVE.extraSeconds(16 * 8589934592.0, 1e10, 234.89e9)).isZero();
  }

  @Test
  void theExtraTime_isTheBytesAtTheRateTimesTheFraction_lessTheBytesAtTheRate() {
    double moved = 1.75 * 2097152.0;
    double rate = 234.89e9;
    double f = 53.54 / 231.58;
    assertThat(CURVE.extraSeconds(2097152.0, moved, rate)).isCloseTo(moved / (rate * f) - moved / rate,
        within(1e-15));
  }

  @Test
  void aLargerMessage_neverTakesLessTime_whereTheTablesRoundedBusbwDips() {
    // nvlink3's table at 1, 2, 4 and 8 KB: busbw to two decimals, so 4 KB's 0.17 reads as 24.1 us where 2 KB's 0.08
    // takes 25.6; more bytes through the same ring cannot finish sooner (a 10-token prefill's all-reduces were faster
    // than a 1-token one's, so a longer prompt lowered the TTFT)
    BusBandwidthCurve c = new BusBandwidthCurve(8, List.of(1024.0, 2048.0, 4096.0, 8192.0),
        List.of(0.04e9, 0.08e9, 0.17e9, 0.33e9), "test");
    double slowest = 2048.0 / 0.08e9; // the slowest measured time at or below 4 KB (1 KB's is the same)
    assertThat(4096.0 / c.busBandwidth(4096.0)).isCloseTo(slowest, within(1e-15));
    double previous = 0;
    for (double size = 512; size <= 16384; size *= 1.05) {
      double time = size / c.busBandwidth(size);
      assertThat(time).as("time at %.0f B", size).isGreaterThanOrEqualTo(previous * (1 - 1e-12));
      previous = time;
    }
    // where the table's times do not dip it reads as before
    assertThat(c.busBandwidth(2048.0)).isCloseTo(0.08e9, within(1e-3));
  }

  @Test
  void aCurve_withUnsortedSizes_orMismatchedLengths_orOneRank_isRejected() {
    assertThatThrownBy(() -> new BusBandwidthCurve(8, List.of(2.0, 1.0), List.of(1.0, 2.0), "s"))
        .hasMessageContaining("sizes must increase");
    assertThatThrownBy(() -> new BusBandwidthCurve(8, List.of(1.0, 2.0), List.of(1.0), "s"))
        .hasMessageContaining("as many bus bandwidths as sizes");
    assertThatThrownBy(() -> new BusBandwidthCurve(1, List.of(1.0), List.of(1.0), "s"))
        .hasMessageContaining("at least 2 ranks");
    assertThatThrownBy(() -> new BusBandwidthCurve(8, List.of(1.0), List.of(0.0), "s"))
        .hasMessageContaining("must be positive");
    assertThatThrownBy(() -> new BusBandwidthCurve(8, List.of(1.0), List.of(1.0), " "))
        .hasMessageContaining("source");
  }
}
