package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.List;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
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
 * MLX before its mx.fast kernels (docs/CALIBRATION.md#mlx): the score chain and the norms of a training step in fp32,
 * MLX's default dtype, counted pass by pass from nn.MultiHeadAttention's and nn.LayerNorm's code of December 2023.
 */
class MlxVersionOpsTest {
  static final int B = 2;
  static final int S = 1024;
  static final double FP32 = 4;

  /** LLaMA-7B's shapes with nn.LayerNorm (weight and bias) for norms, as mlx-examples' transformer_lm. */
  static ModelSpec layerNormModel() {
    ModelSpec m = Fixtures.llama7b();
    return new ModelSpec(m.id(), m.name(), m.family(), m.aliases(), m.layers(), m.hidden(), m.heads(), m.kvHeads(),
        m.headDim(), m.ffnHidden(), m.ffnKind(), m.vocab(), m.tiedEmbeddings(), m.maxContext(), NormKind.LAYERNORM,
        m.linearBias(), m.qkvBias(), m.learnedPositions(), m.parallelAttention(), m.normsPerLayer(),
        m.publishedParameters(), m.publishedSource());
  }

  static Trace trace(SoftwareProfile sw) {
    Task t = new Task(TaskKind.TRAIN, Precision.FP32, WeightFormat.F32, B, S, 1, 1, 1, false, 8, 128, Offload.NONE);
    return Simulator.simulate(Fixtures.discrete(), layerNormModel(), t, sw).trace();
  }

  static final SoftwareProfile DEC_2023 = SoftwareProfiles.MLX.atBuild(MlxBuild.parse("2023-12"));

  @Test
  void december2023_materialisesTheScores_sixFp32PassesForward_twiceThatBackward() {
    Trace old = trace(DEC_2023);
    double h = 4096;
    double tokens = (double) B * S;
    double scores = (double) B * 32 * S * S; // batch x heads x queries x keys
    // QK^T writes (4 B), + mask reads and writes (8), softmax reads and writes (8), attention x V reads (4)
    double chain = (4 + 8 + 8 + 4) * scores;
    // both matmuls read q (or write the output) and read k or v, 4 B each
    double qkvTraffic = 2 * tokens * h * FP32 + 2 * tokens * h * FP32;
    double forward = old.ops().memBytes()[op(old, "L0.attn_scores")] + old.ops().memBytes()[op(old, "L0.softmax")]
        + old.ops().memBytes()[op(old, "L0.attn_v")];
    assertThat(forward).isCloseTo(qkvTraffic + chain, withPercentage(1e-9));
    assertThat(List.of(old.ops().names())).doesNotContain("L0.attention");
    // the backward moves the chain twice on top of q, k, v, o and their gradients (4 B each, read and written)
    double qkvoGrads = 2 * (2 * tokens * h * FP32 + 2 * tokens * h * FP32);
    assertThat(old.ops().memBytes()[op(old, "L0.attention.bwd")]).isCloseTo(qkvoGrads + 2 * chain,
        withPercentage(1e-9));
  }

  @Test
  void december2023_layerNorm_isTwelvePassesForward_andTwentyFourBackward_whereTodaysIsTwoAndFour() {
    Trace old = trace(DEC_2023);
    Trace today = trace(SoftwareProfiles.MLX);
    double activations = (double) B * S * 4096 * FP32;
    // mean (1), var: square and mean (3), x - means (2), * rsqrt (2), weight (2), bias (2)
    assertThat(old.ops().memBytes()[op(old, "L0.attn_norm")]).isCloseTo(12 * activations, withPercentage(1e-9));
    assertThat(old.ops().memBytes()[op(old, "L0.mlp_norm.bwd")]).isCloseTo(24 * activations, withPercentage(1e-9));
    assertThat(today.ops().memBytes()[op(today, "L0.attn_norm")]).isCloseTo(2 * activations, withPercentage(1e-9));
    assertThat(today.ops().memBytes()[op(today, "L0.mlp_norm.bwd")]).isCloseTo(4 * activations, withPercentage(1e-9));
  }

  @Test
  void theOldVersion_takesLongerPerStep_andTodaysIsUnchangedByTheVersionRecord() {
    double old = Simulator.simulate(Fixtures.discrete(), layerNormModel(),
        new Task(TaskKind.TRAIN, Precision.FP32, WeightFormat.F32, B, S, 1, 1, 1, false, 8, 128, Offload.NONE),
        DEC_2023).stepTimeSeconds();
    double today = Simulator.simulate(Fixtures.discrete(), layerNormModel(),
        new Task(TaskKind.TRAIN, Precision.FP32, WeightFormat.F32, B, S, 1, 1, 1, false, 8, 128, Offload.NONE),
        SoftwareProfiles.MLX.atBuild(MlxBuild.parse("2024-06"))).stepTimeSeconds();
    assertThat(old).isGreaterThan(today);
    assertThat(SoftwareProfiles.MLX.atBuild(MlxBuild.parse("2024-06")).toBuilder().mlx(MlxBuild.LATEST).build())
        .isEqualTo(SoftwareProfiles.MLX);
  }
}
