package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * A FlashAttention-2-style kernel under a causal mask computes only the key blocks up to each query block's diagonal
 * (the diagonal blocks in full), and its backward recomputes the scores: 5 matmuls over those pairs. Classic attention
 * computes every pair.
 */
class CausalAttentionTest {
  final ModelSpec llama7b = Fixtures.llama7b();

  @Test
  void squareCausal_visitsTheLowerTriangleOfBlocks_withTheDiagonalInFull() {
    // 2048 queries over 2048 keys, 128-row query blocks over 64-column key blocks: block m sees (m + 1) x 128 keys
    double expected = 0;
    for (int m = 0; m < 16; m++) {
      expected += 128.0 * (m + 1) * 128;
    }
    assertThat(LayerEmitter.causalPairsForward(2048, 2048, 128, 64)).isEqualTo(expected);
    // backward, 128-column key blocks over 64-row query blocks: key block n sees queries from n x 128 on
    double backward = 0;
    for (int n = 0; n < 16; n++) {
      backward += 128.0 * (2048 - n * 128);
    }
    assertThat(LayerEmitter.causalPairsBackward(2048, 2048, 64, 128)).isEqualTo(backward);
    // above half the matrix by the diagonal blocks: n(n + 1) / 2 of n^2 blocks of 128 x 128
    assertThat(expected / (2048.0 * 2048)).isCloseTo(17.0 / 32, withPercentage(1e-9));
  }

  @Test
  void longSequences_approachHalfTheMatrix_andShortOnesTheWholeOfIt() {
    double s = 32768;
    assertThat(LayerEmitter.causalPairsForward(32768, 32768, 128, 64) / (s * s)).isCloseTo(0.5, withPercentage(0.5));
    // one query block: every key up to the diagonal's block, here all of them
    assertThat(LayerEmitter.causalPairsForward(100, 100, 128, 64)).isEqualTo(100.0 * 100);
    assertThat(LayerEmitter.causalPairsBackward(100, 100, 64, 128)).isEqualTo(100.0 * 100);
  }

  @Test
  void queriesAfterAPrefix_seeThePrefixInFull() {
    // 256 queries, the last of 1280 keys (a 1024-token prefix): query block m sees 1024 + (m + 1) x 128 keys
    assertThat(LayerEmitter.causalPairsForward(256, 1280, 128, 64)).isEqualTo(128.0 * 1152 + 128.0 * 1280);
    // backward: key blocks of the prefix see every query; key block 8 (keys 1024-1151) queries from 0, block 9 from 128
    double expected = 8 * 128.0 * 256 + 128.0 * 256 + 128.0 * 128;
    assertThat(LayerEmitter.causalPairsBackward(256, 1280, 64, 128)).isEqualTo(expected);
  }

  @Test
  void flashProfiles_chargeTheVisitedBlocks_andFiveMatmulsBackward_whileModelFlopsCountTheWholeMatrix() {
    int s = 4096;
    Task task = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, s, 1, 1, 1, false, 8, 128,
        Offload.NONE);
    double q = 4096; // LLaMA-7B's heads x head dim
    SoftwareProfile hf = SoftwareProfiles.HF;
    assertThat(hf.causalBlockSkip()).isTrue();
    StepResult r = Simulator.simulate(Fixtures.discrete(), llama7b, task, hf);
    Trace t = r.trace();
    int blocks = s / 128;
    double pairs = 128.0 * 128 * blocks * (blocks + 1) / 2;
    assertThat(t.ops().flops()[op(t, "L0.attention")]).isCloseTo(4 * q * pairs, withPercentage(1e-9));
    assertThat(t.ops().flops()[op(t, "L0.attention.bwd")]).isCloseTo(2.5 * 4 * q * pairs, withPercentage(1e-9));
    // classic attention computes every pair, its backward four matmuls
    StepResult c = Simulator.simulate(Fixtures.discrete(), llama7b, task, SoftwareProfiles.HF_EAGER);
    Trace ct = c.trace();
    double full = 4 * q * s * (double) s;
    assertThat(ct.ops().flops()[op(ct, "L0.attn_scores")] + ct.ops().flops()[op(ct, "L0.attn_v")])
        .isCloseTo(full, withPercentage(1e-9));
    // model FLOPs (MFU) count the whole matrix under both, as MFU conventions do
    assertThat(r.modelFlops()).isCloseTo(c.modelFlops(), withPercentage(1e-9));
  }

  @Test
  void fa2sBackward_runsAtItsOwnFraction_whereTheDeviceHasOne() {
    java.util.Map<Precision, Double> peaks = java.util.Map.of(Precision.BF16, 1000e12, Precision.FP16, 1000e12,
        Precision.FP32, 60e12);
    llmsim.core.hw.Efficiency e = new llmsim.core.hw.Efficiency(0.8, "test", 0.9, "test", true, 0.8, "test", 0.5,
        "test", 0.4, "test");
    int s = 8192; // compute-bound
    Task task = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, s, 1, 1, 1, false, 8, 128,
        Offload.NONE);
    // FlashAttention-2's kernels without launch costs
    SoftwareProfile fa2 = SoftwareProfile.builder("fa2", "test").launchSeconds(0).kernelsPerLayer(1)
        .flashAttention(true).flashAttention2(true).workspaceBytes(0).source("test").build();
    Trace t = Simulator.simulate(Fixtures.discrete(0, e, peaks), llama7b, task, fa2).trace();
    int blocks = s / 128;
    double pairs = 128.0 * 128 * blocks * (blocks + 1) / 2;
    double q = 4096;
    assertThat(t.costs().time[op(t, "L0.attention")]).isCloseTo(4 * q * pairs / (1000e12 * 0.5), withPercentage(1e-6));
    assertThat(t.costs().time[op(t, "L0.attention.bwd")])
        .isCloseTo(2.5 * 4 * q * pairs / (1000e12 * 0.4), withPercentage(1e-6));
  }

  @Test
  void megatronsFusedAttentionSkips_llamaCppAndMlxAreNotAssumedTo() {
    assertThat(SoftwareProfiles.MEGATRON.causalBlockSkip()).isTrue();
    assertThat(SoftwareProfiles.LLAMA_CPP.causalBlockSkip()).isFalse();
    assertThat(SoftwareProfiles.MLX.causalBlockSkip()).isFalse();
    assertThat(SoftwareProfiles.MEGATRON_CLASSIC.causalBlockSkip()).isFalse();
    SoftwareProfile classic = SoftwareProfile.builder("c", "test").launchSeconds(0).kernelsPerLayer(1)
        .flashAttention(false).workspaceBytes(0).source("t").build();
    org.assertj.core.api.Assertions.assertThatThrownBy(classic::withCausalBlockSkip)
        .isInstanceOf(IllegalStateException.class);
  }

}
