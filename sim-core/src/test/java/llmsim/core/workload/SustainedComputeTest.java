package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.Map;
import llmsim.core.engine.Bound;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Efficiency;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.task.ParallelPlan;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * A workload runs at the GEMM rate the device sustains at its power limit where one is measured (mamf-finder's MSMF),
 * not at a burst's (its MAMF): every compute-bound kernel slows by their ratio, memory-bound ones not at all.
 */
class SustainedComputeTest {
  static final Map<Precision, Double> PEAKS = Map.of(Precision.FP16, 756e12, Precision.BF16, 756e12,
      Precision.FP32, 51e12);

  /** Burst fractions 0.8 (16-bit) and 0.7 (fp8); the sustained ones {@code held} and {@code heldFp8}. */
  static Efficiency efficiency(double held, double heldFp8) {
    return new Efficiency(0.8, "burst", 0.9, "stream", true, 0.7, "fp8 burst", 0.8, "burst", 0.8, "burst", held,
        heldFp8, "sustained");
  }

  @Test
  void sustainedScale_isTheSustainedFractionOverTheBurstOne_atEachPrecision() {
    Efficiency e = efficiency(0.6, 0.35);
    assertThat(e.sustainedScale(Precision.BF16)).isCloseTo(0.6 / 0.8, withPercentage(1e-12));
    assertThat(e.sustainedScale(Precision.FP8)).isCloseTo(0.35 / 0.7, withPercentage(1e-12));
    // without a sustained figure the device holds its burst rate
    assertThat(new Efficiency(0.8, "burst", 0.9, "stream", true).sustainedScale(Precision.BF16)).isEqualTo(1.0);
  }

  @Test
  void sustainedAboveBurst_isRefused() {
    assertThatThrownBy(() -> efficiency(0.9, 0.5)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not exceed the burst one");
  }

  @Test
  void trainingStep_computeBoundKernelsRunAtTheSustainedRate_memoryBoundOnesUnchanged() {
    ModelSpec m = Fixtures.llama7b();
    // no SM count: no tile fill or kernel floor, so a compute-bound op's rate is the group's peak alone
    SystemSpec burst = Fixtures.discrete(0, efficiency(0.8, 0.7), PEAKS);
    SystemSpec held = Fixtures.discrete(0, efficiency(0.4, 0.35), PEAKS);
    Trace a = CollectivesTest.step(burst, m, CollectivesTest.training(ParallelPlan.SINGLE, 4));
    Trace b = CollectivesTest.step(held, m, CollectivesTest.training(ParallelPlan.SINGLE, 4));
    assertThat(b.size()).isEqualTo(a.size());
    int compute = 0;
    int memory = 0;
    for (int op = 0; op < a.size(); op++) {
      if (a.opBound(op) == Bound.COMPUTE && b.opBound(op) == Bound.COMPUTE) {
        // half the sustained fraction: half the FLOP/s attained, whatever the op (GEMM, attention, element-wise)
        assertThat(b.costs().attained[op]).as(a.ops().names()[op])
            .isCloseTo(a.costs().attained[op] * 0.4 / 0.8, withPercentage(1e-9));
        compute++;
      } else if (a.opBound(op) == Bound.DEVICE_MEMORY && b.opBound(op) == Bound.DEVICE_MEMORY) {
        assertThat(b.costs().time[op]).as(a.ops().names()[op]).isCloseTo(a.costs().time[op], withPercentage(1e-9));
        memory++;
      }
    }
    assertThat(compute).as("compute-bound ops").isGreaterThan(100);
    assertThat(memory).as("memory-bound ops").isGreaterThan(10);
    assertThat(b.makespan()).isGreaterThan(1.5 * a.makespan());
  }
}
