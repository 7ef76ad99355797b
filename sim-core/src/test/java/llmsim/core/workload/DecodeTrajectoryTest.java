package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** The critical batch size is the ridge point turned into sequences: derived here from peak, bandwidth and model. */
class DecodeTrajectoryTest {
  final ModelSpec llama7b = Fixtures.llama7b();
  final SystemSpec gpu = Fixtures.discrete();

  static Task inference(int prompt) {
    return new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, 2048, prompt, 2, 1, false, 8, 128, Offload.NONE);
  }

  @Test
  void criticalBatch_affineSteps_solvesFlopsOverBytesEqualsRidge() {
    // F(b) = 10 + 20 b FLOPs, W(b) = 100 + 0.01 b bytes, ridge 2: (10 + 20 b) = 2 (100 + 0.01 b) at b = 190 / 19.98
    var one = new DecodeTrajectory.Point(1, 30, 100.01, 1, true);
    var two = new DecodeTrajectory.Point(2, 50, 100.02, 1, true);
    assertThat(DecodeTrajectory.criticalBatch(one, two, 2)).isCloseTo(190 / 19.98, withPercentage(1e-9));
    // each sequence adding more bytes x ridge than FLOPs: never compute-bound
    assertThat(DecodeTrajectory.criticalBatch(one, new DecodeTrajectory.Point(2, 50, 120.01, 1, true), 2)).isInfinite();
  }

  @Test
  void criticalBatch_shortContext_isAboutTheRidgeBecauseF16WeightsCostTwoBytesPerTwoFlops() {
    DecodeTrajectory d = DecodeTrajectory.of(gpu, llama7b, inference(1), SimulatorPhysicsTest.IDEAL, 1024);
    double ridge = 756e12 / 2.0e12; // fp16 peak over HBM bandwidth: 378 FLOP/byte
    assertThat(d.ridgeFlopsPerByte()).isCloseTo(ridge, withPercentage(1e-9));
    // each sequence adds 2 FLOPs per GEMM weight; the f16 weights (2 bytes each) are read once per step whatever the
    // batch: the fixed bytes and the FLOPs per sequence of the fitted line are those, and with nothing else
    // intensity ~ 2 b N / (2 N) = b: decode turns compute-bound at b = ridge
    var one = d.points().get(0);
    var two = d.points().get(1);
    double flopsPerSequence = two.flops() - one.flops();
    double fixedBytes = one.bytes() - (two.bytes() - one.bytes());
    assertThat(fixedBytes).isCloseTo(2.0 * llama7b.gemmParameterCount(), withPercentage(1));
    assertThat(flopsPerSequence).isCloseTo(2.0 * llama7b.gemmParameterCount(), withPercentage(1));
    // each sequence's own activations and KV reads add bytes, so more sequences are needed than the ridge alone
    assertThat(d.criticalBatch()).isGreaterThan(ridge);
    // and the simulated steps either side of b* sit either side of the ridge
    int below = (int) Math.floor(d.criticalBatch());
    assertThat(DecodeTrajectory.step(gpu, llama7b, DecodeTrajectory.oneDecodeStep(inference(1), below),
        SimulatorPhysicsTest.IDEAL).intensity()).isLessThan(ridge);
    assertThat(DecodeTrajectory.step(gpu, llama7b, DecodeTrajectory.oneDecodeStep(inference(1), below + 1),
        SimulatorPhysicsTest.IDEAL).intensity()).isGreaterThanOrEqualTo(ridge);
  }

  @Test
  void trajectory_batch1To1024_movesRightTowardTheRidgeAndCrossesIt() {
    DecodeTrajectory d = DecodeTrajectory.of(gpu, llama7b, inference(1), SimulatorPhysicsTest.IDEAL, 1024);
    assertThat(d.points()).extracting(DecodeTrajectory.Point::batch).containsExactly(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024);
    for (int i = 1; i < d.points().size(); i++) {
      assertThat(d.points().get(i).intensity()).isGreaterThan(d.points().get(i - 1).intensity());
    }
    assertThat(d.points().get(0).intensity()).isLessThan(d.ridgeFlopsPerByte());
    assertThat(d.points().get(d.points().size() - 1).intensity()).isGreaterThan(d.ridgeFlopsPerByte());
  }

  @Test
  void criticalBatch_longContext_isInfiniteWhenEachSequencesKvReadOutweighsItsFlops() {
    int prompt = 4096;
    // per sequence: 2 N FLOPs against K and V of every layer over the whole prompt, 2 bytes each
    double kvBytesPerSequence = 2.0 * 32 * 4096 * prompt * 2;
    double ridge = 756e12 / 2.0e12;
    assertThat(ridge * kvBytesPerSequence).isGreaterThan(2.0 * llama7b.gemmParameterCount()); // the premise
    DecodeTrajectory d = DecodeTrajectory.of(gpu, llama7b, inference(prompt), SimulatorPhysicsTest.IDEAL, 8);
    assertThat(d.criticalBatch()).isInfinite();
  }
}
