package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.Arrays;
import java.util.List;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
import llmsim.core.software.OptimizerImpl;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.LoraTarget;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * LitGPT's module code (litgpt/model.py, litgpt/lora.py): one fused qkv Linear whose LoRA is one module with one A
 * for the enabled q/k/v and B's output zero-padded across the whole qkv width; fp32 norm and rotary; k and v expanded
 * for grouped-query attention. Expected bytes are counted here from the shapes and the code's ops.
 */
class LitGptProfileTest {
  final SoftwareProfile litgpt = SoftwareProfiles.find("lit-gpt").orElseThrow();
  final ModelSpec llama7b = Fixtures.llama7b();
  /** Llama 3 8B's shape: 32 query heads over 8 KV heads of 128. */
  final ModelSpec gqa = new ModelSpec("llama-3-8b", "Llama 3 8B", "llama", List.of(), 32, 4096, 32, 8, 128, 14336,
      FfnKind.SWIGLU, 128256, false, 8192, NormKind.RMSNORM, false, false, false, false, 2, 8030261248.0, "test");
  static final int B = 2;
  static final int S = 512;
  static final double TOKENS = B * S;
  static final int R = 8;

  private static Task lora(String targets) {
    return new Task(TaskKind.FINETUNE_LORA, Precision.BF16, WeightFormat.BF16, B, S, 1, 1, 1, false, R, 128,
        Offload.NONE).withLoraTargets(LoraTarget.parse(targets));
  }

  private Trace trace(ModelSpec m, Task t) {
    return Simulator.simulate(Fixtures.discrete(), m, t, litgpt).trace();
  }

  @Test
  void profile_isEagerPyTorchWithForeachAdamW_andSdpaFlash() {
    assertThat(SoftwareProfiles.find("litgpt")).contains(litgpt);
    assertThat(litgpt.optimizerImpl()).isEqualTo(OptimizerImpl.FOREACH);
    assertThat(litgpt.flashAttention()).isTrue();
    assertThat(litgpt.eagerOps().fusedQkv()).isTrue();
  }

  @Test
  void qvLora_isOneModuleOnTheFusedQkv_itsGemmFlopsTheSeparateAdaptersSum_itsGlueOverTheWholeQkvWidth() {
    Trace t = trace(llama7b, lora("q,v"));
    double h = 4096;
    double q = 4096;
    double kv = 4096;
    assertThat(Arrays.stream(t.ops().names()).filter(n -> n.startsWith("L0.lora_"))).containsExactly(
        "L0.lora_qkv", "L0.lora_qkv.glue", "L0.lora_qkv.bwd", "L0.lora_qkv.glue.bwd");
    // A: h -> 2r in one GEMM; B: r -> q and r -> v; as two adapters h -> q, h -> v would run
    double enabled = q + kv;
    double flops = 2 * TOKENS * (h * 2 * R + R * enabled);
    assertThat(flops).isEqualTo(2 * TOKENS * R * ((h + q) + (h + kv)));
    assertThat(t.ops().flops()[op(t, "L0.lora_qkv")]).isCloseTo(flops, withPercentage(1e-9));
    assertThat(t.ops().flops()[op(t, "L0.lora_qkv.bwd")]).isCloseTo(2 * flops, withPercentage(1e-9));
    // the input read once, A's 2r columns written and read, B's q + v output written; fp32 adapter weights
    double bytes = 4 * R * (2 * h + enabled) + TOKENS * (h + enabled + 2 * 2 * R) * 2;
    assertThat(t.ops().memBytes()[op(t, "L0.lora_qkv")]).isCloseTo(bytes, withPercentage(1e-9));
    double padded = q + 2 * kv;
    // forward: dropout on x (2 + 2 + 1-byte mask), zeros over the padded width (2), index_copy_ of q and v (2 + 2),
    // * scaling (2 + 2) and the add (2 + 2 + 2) over the padded width; one grouped conv1d (MHA): no cat
    double forward = 5 * h + 2 * padded + 4 * enabled + 4 * padded + 6 * padded;
    assertThat(t.ops().memBytes()[op(t, "L0.lora_qkv.glue")]).isCloseTo(forward * TOKENS, withPercentage(1e-9));
    // backward: the scaling (4 per padded), index_select of q and v (4), conv1d's gradient made contiguous (4),
    // dropout (5) and the input gradient's sum into the qkv Linear's (6)
    double backward = 4 * padded + 4 * enabled + 4 * enabled + 5 * h + 6 * h;
    assertThat(t.ops().memBytes()[op(t, "L0.lora_qkv.glue.bwd")]).isCloseTo(backward * TOKENS, withPercentage(1e-9));
  }

  @Test
  void fusedQkvLinear_sumsNoSeparateInputGradients_andTheNormAndRotaryRunInFp32() {
    Trace t = trace(llama7b, lora("q,v"));
    double h = 4096;
    // RMSNorm: x.float() 2+4, x*x 4+4, mean 4, x*rsqrt 4+4, *weight.float() 4+4, .to 4+2
    assertThat(t.ops().memBytes()[op(t, "L0.attn_norm")]).isCloseTo(40 * TOKENS * h, withPercentage(1e-9));
    // frozen norm backward 96 B; q, k, v one Linear: no sum before the norm; fc_1, fc_2: one 6 B sum
    assertThat(t.ops().memBytes()[op(t, "L0.attn_norm.bwd")]).isCloseTo(96 * TOKENS * h, withPercentage(1e-9));
    assertThat(t.ops().memBytes()[op(t, "L0.mlp_norm.bwd")]).isCloseTo((96 + 6) * TOKENS * h, withPercentage(1e-9));
    // apply_rope with an fp32 cos/sin cache on q and k (MHA: no k/v expansion): 40 B forward, 70 backward
    assertThat(t.ops().memBytes()[op(t, "L0.rope")]).isCloseTo(40 * TOKENS * 2 * h, withPercentage(1e-9));
    assertThat(t.ops().memBytes()[op(t, "L0.rope.bwd")]).isCloseTo(70 * TOKENS * 2 * h, withPercentage(1e-9));
  }

  @Test
  void groupedQueryAttention_joinsBsPartsWithACat_andExpandsKAndVToEveryQueryHead() {
    double h = 4096;
    double q = 4096;
    double kv = 1024;
    double padded = q + 2 * kv;
    Trace qv = trace(gqa, lora("q,v"));
    double enabled = q + kv;
    double forward = 5 * h + 4 * enabled + 2 * padded + 4 * enabled + 10 * padded;
    assertThat(qv.ops().memBytes()[op(qv, "L0.lora_qkv.glue")]).isCloseTo(forward * TOKENS, withPercentage(1e-9));
    // all three enabled: nothing to zero-pad, B's three parts still joined by the cat
    Trace qkv = trace(gqa, lora("q,k,v"));
    double all = 5 * h + 4 * padded + 10 * padded;
    assertThat(qkv.ops().memBytes()[op(qkv, "L0.lora_qkv.glue")]).isCloseTo(all * TOKENS, withPercentage(1e-9));
    assertThat(qkv.ops().flops()[op(qkv, "L0.lora_qkv")])
        .isCloseTo(2 * TOKENS * R * (3 * h + padded), withPercentage(1e-9));
    // rotary on q and k (40 B per element) plus repeat_interleave of k and v: each read at kv's width, written at q's
    double rope = 40 * TOKENS * (q + kv) + 2 * TOKENS * (q + kv) * 2;
    assertThat(qv.ops().memBytes()[op(qv, "L0.rope")]).isCloseTo(rope, withPercentage(1e-9));
  }

  @Test
  void aForwardLayer_launchesTheProfiles42Kernels_plusTheQkvModulesNine() {
    Trace t = trace(llama7b, lora("q,v"));
    double forward = java.util.stream.IntStream.range(0, t.size())
        .filter(i -> t.ops().names()[i].startsWith("L0.") && !t.ops().names()[i].contains("bwd")
            && !t.ops().names()[i].contains("recompute"))
        .mapToDouble(i -> t.costs().launch[i]).sum();
    // dropout, A, B, scaling, add (5) and the fused module's second conv, cat or layout copy, zeros, index_copy_ (4)
    assertThat(forward).isCloseTo(litgpt.launchSeconds() * (42 + 5 + 4), withPercentage(1e-9));
  }
}
