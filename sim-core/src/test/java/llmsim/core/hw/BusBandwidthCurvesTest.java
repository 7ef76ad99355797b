package llmsim.core.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Tables at several rank counts: which one a collective reads, and against what; expectations from the tables here. */
class BusBandwidthCurvesTest {
  /** Three points of vTrain's A100 in-place tables (trace/a100/AR_GPU{2,4,8}_1M_1024M_LUT): 1 MiB, 64 MiB, 1 GiB. */
  static final List<Double> SIZES = List.of(1048576.0, 67108864.0, 1073741824.0);
  static final BusBandwidthCurve TWO = new BusBandwidthCurve(2, SIZES, List.of(23.25e9, 166.10e9, 196.89e9), "2");
  static final BusBandwidthCurve FOUR = new BusBandwidthCurve(4, SIZES, List.of(29.82e9, 186.20e9, 221.37e9), "4");
  static final BusBandwidthCurve EIGHT = new BusBandwidthCurve(8, SIZES, List.of(19.91e9, 202.61e9, 229.25e9), "8");
  /** Given out of order: they are held by rank count. */
  static final BusBandwidthCurves CURVES = new BusBandwidthCurves(List.of(EIGHT, TWO, FOUR));

  @Test
  void aCollectiveReadsTheTableMeasuredAtItsRankCount_elseTheNearest_theLargerOnATie() {
    assertThat(CURVES.tables()).extracting(BusBandwidthCurve::ranks).containsExactly(2, 4, 8);
    assertThat(CURVES.at(2)).isSameAs(TWO);
    assertThat(CURVES.at(4)).isSameAs(FOUR);
    assertThat(CURVES.at(8)).isSameAs(EIGHT);
    assertThat(CURVES.at(3)).isSameAs(FOUR); // 1 from 2 and 1 from 4: the larger
    assertThat(CURVES.at(5)).isSameAs(FOUR);
    assertThat(CURVES.at(6)).isSameAs(EIGHT); // 2 from 4 and 2 from 8: the larger
    assertThat(CURVES.at(7)).isSameAs(EIGHT);
    assertThat(CURVES.at(16)).isSameAs(EIGHT);
    assertThat(CURVES.at(1)).isSameAs(TWO);
  }

  @Test
  void everyTableIsReadAgainstTheLargestSizeOfTheTableAtTheMostRanks_soAFewerRankTablesLowerTopIsKept() {
    assertThat(CURVES.reference()).isSameAs(EIGHT);
    for (int n : new int[] {2, 4, 8}) {
      BusBandwidthCurve t = n == 2 ? TWO : n == 4 ? FOUR : EIGHT;
      for (int i = 0; i < SIZES.size(); i++) {
        assertThat(CURVES.fraction(n, SIZES.get(i))).as("%d ranks, %s B", n, SIZES.get(i))
            .isCloseTo(t.busBytesPerSecond().get(i) / 229.25e9, within(1e-12));
      }
    }
    // 2 GPUs at 1 GiB and beyond: 196.89 / 229.25 of the rate, not all of it
    assertThat(CURVES.fraction(2, 4 * 1073741824.0)).isCloseTo(196.89 / 229.25, within(1e-12));
    assertThat(CURVES.fraction(8, 4 * 1073741824.0)).isEqualTo(1.0);
  }

  @Test
  void atTheLinksRate_aCollectivesTimeIsTheTablesOwnTime_scaledByTheRateOverTheReferenceTop() {
    double rate = 234.89e9;
    // 2 GPUs, 1 MiB all-reduce: the table's row '1048576,262144,float,44210,23.72,45100,23.25' (in-place 45.1 us)
    double moved = 2.0 * (2 - 1) / 2 * 1048576.0;
    double time = moved / rate + CURVES.extraSeconds(2, 1048576.0, moved, rate);
    assertThat(time).isCloseTo(moved / 23.25e9 * 229.25e9 / rate, within(1e-15));
    assertThat(moved / 23.25e9).isCloseTo(45.1e-6, within(0.05e-6));
  }

  @Test
  void oneTable_isReadAtEveryRankCount_asTheSingleCurveReadsItself() {
    BusBandwidthCurves one = BusBandwidthCurves.of(EIGHT);
    for (int n : new int[] {2, 3, 4, 8, 16}) {
      for (double s : new double[] {1e5, 1048576.0, 3e7, 1073741824.0, 1e10}) {
        assertThat(one.fraction(n, s)).isEqualTo(EIGHT.fraction(s));
        assertThat(one.extraSeconds(n, s, 1.75 * s, 234.89e9)).isEqualTo(EIGHT.extraSeconds(s, 1.75 * s, 234.89e9));
      }
    }
  }

  @Test
  void refusesNoTables_andTwoTablesAtOneRankCount() {
    assertThatThrownBy(() -> new BusBandwidthCurves(List.of())).hasMessageContaining("at least one table");
    BusBandwidthCurve other = new BusBandwidthCurve(4, SIZES, List.of(1e9, 2e9, 3e9), "other");
    assertThatThrownBy(() -> new BusBandwidthCurves(List.of(TWO, FOUR, other)))
        .hasMessageContaining("two bus bandwidth tables measured at 4 ranks");
  }
}
