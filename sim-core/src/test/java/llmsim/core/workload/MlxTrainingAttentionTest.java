package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.List;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.MlxBuild;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * Today's MLX trains through its SDPA fallback's single ops (docs/CALIBRATION.md#mlx): under gradient tracing Metal's
 * {@code ScaledDotProductAttention::use_fallback} is true (ml-explore/mlx#2054) and its fused VJP is not implemented,
 * so the scores are materialised forward and the VJP of matmul, where, softmax and matmul moves them backward.
 */
class MlxTrainingAttentionTest {
  static final int B = 2;
  static final int S = 1024;

  static StepResult train(Precision p, SoftwareProfile sw) {
    Task t = new Task(TaskKind.TRAIN, p, p == Precision.FP32 ? WeightFormat.F32 : WeightFormat.F16, B, S, 1, 1, 1,
        false, 8, 128, Offload.NONE);
    return Simulator.simulate(Fixtures.discrete(), Fixtures.llama7b(), t, sw);
  }

  /** Bytes of the attention backward besides the scores: q, k, v, o and their gradients, each read and written. */
  static double qkvoGrads(ModelSpec m, double act) {
    double tokens = (double) B * S;
    return 2 * (2 * tokens * m.qDim() * act + 2 * tokens * m.kvDim() * act);
  }

  @Test
  void todaysTraining_materialisesTheScores_sixPassesForward_fifteenBackward_inTheActivationDtype() {
    ModelSpec m = Fixtures.llama7b();
    double scores = (double) B * m.heads() * S * S; // batch x heads x queries x keys
    // the VJP of the fallback's ops, one score element per pass: scores @ v writes dP and reads P (2); softmax's
    // s * g (3), sum (1), s * sum (2), subtraction (3); where's cotangent (2); q @ k^T's dQ and dK read dS (2)
    int vjpPasses = 2 + (3 + 1 + 2 + 3) + 2 + 2;
    // QK^T writes (1), where reads and writes (2), softmax reads and writes (2), attention x V reads (1)
    int forwardPasses = 1 + 2 + 2 + 1;
    for (Precision p : List.of(Precision.FP32, Precision.BF16)) {
      double act = p.bytes();
      Trace tr = train(p, SoftwareProfiles.MLX).trace();
      assertThat(List.of(tr.ops().names())).doesNotContain("L0.attention").contains("L0.softmax");
      double tokens = (double) B * S;
      double forward = tr.ops().memBytes()[op(tr, "L0.attn_scores")] + tr.ops().memBytes()[op(tr, "L0.softmax")]
          + tr.ops().memBytes()[op(tr, "L0.attn_v")];
      // both matmuls read q (or write the output) and read k or v
      double qkv = 2 * tokens * m.qDim() * act + 2 * tokens * m.kvDim() * act;
      assertThat(forward).as(p.name()).isCloseTo(qkv + forwardPasses * act * scores, withPercentage(1e-9));
      assertThat(tr.ops().memBytes()[op(tr, "L0.attention.bwd")]).as(p.name())
          .isCloseTo(qkvoGrads(m, act) + vjpPasses * act * scores, withPercentage(1e-9));
    }
  }

  @Test
  void todaysInference_keepsTheFusedKernel_inPrefillAndDecode() {
    Task t = new Task(TaskKind.INFERENCE, Precision.BF16, WeightFormat.F16, 1, 2048, 512, 4, 1, false, 8, 128,
        Offload.NONE);
    List<String> names = List.of(Simulator.simulate(Fixtures.discrete(), Fixtures.llama7b(), t, SoftwareProfiles.MLX)
        .trace().ops().names());
    assertThat(names).anyMatch(n -> n.endsWith(".attention")).noneMatch(n -> n.endsWith(".softmax"));
  }

  @Test
  void trainingFromMlx08_hasTheFifteenPassBackward_andBeforeItTwiceTheForwardChain() {
    ModelSpec m = Fixtures.llama7b();
    double act = 4;
    double scores = (double) B * m.heads() * S * S;
    Trace old = train(Precision.FP32, SoftwareProfiles.MLX.atBuild(MlxBuild.parse("2024-03-20"))).trace();
    StepResult fast = train(Precision.FP32, SoftwareProfiles.MLX.atBuild(MlxBuild.parse("2024-03-21")));
    assertThat(old.ops().memBytes()[op(old, "L0.attention.bwd")])
        .isCloseTo(qkvoGrads(m, act) + 2 * 6 * act * scores, withPercentage(1e-9));
    assertThat(fast.trace().ops().memBytes()[op(fast.trace(), "L0.attention.bwd")])
        .isCloseTo(qkvoGrads(m, act) + 15 * act * scores, withPercentage(1e-9));
    // MLX 0.8's training step is today's (no dated change to training attention since)
    assertThat(fast.stepTimeSeconds()).isEqualTo(train(Precision.FP32, SoftwareProfiles.MLX).stepTimeSeconds());
  }
}
