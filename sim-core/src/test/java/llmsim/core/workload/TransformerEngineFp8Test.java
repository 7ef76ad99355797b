package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Set;
import llmsim.core.hw.Efficiency;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
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
 * Transformer Engine's fp8 recipe under the megatron profile: bf16 activations between the GEMMs, and the cast
 * kernels around each linear, their bytes derived here from the layer's shapes (Llama-7B: hidden 4096, ffn 11008).
 */
class TransformerEngineFp8Test {
  static final int SEQ = 256;
  static final double H = 4096;
  static final double F = 11008;

  static Map<String, Double> layer(TaskKind kind, Precision precision, SoftwareProfile sw) {
    Map<Precision, Double> peaks = Map.of(Precision.BF16, 1000e12, Precision.FP16, 1000e12, Precision.FP8, 2000e12,
        Precision.FP32, 60e12);
    Efficiency e = new Efficiency(0.8, "test", 0.9, "test", true, 0.7, "test", 0.35, "test");
    SystemSpec gpu = Fixtures.discrete(0, e, peaks);
    ModelSpec m = Fixtures.llama7b();
    Task t = new Task(kind, precision, WeightFormat.BF16, 1, SEQ, 1, 1, 1, false, 8, 128, Offload.NONE);
    DecodeKvReadsTest.Recorder r = new DecodeKvReadsTest.Recorder();
    StepContext ctx = new StepContext(gpu, t, sw, r, LayerEmitter.opsPerLayer(m, true, 0));
    boolean trainsBase = !kind.frozenBase();
    LayerEmitter le = new LayerEmitter(ctx, m, precision.bytes(), precision.bytes(), false, false, true, 8, 16, 0,
        Set.of(), precision.bytes(), null, trainsBase);
    le.forward(0, "L0.", 1, SEQ, SEQ, false);
    le.backward(0, "L0.", 1, SEQ, SEQ, !trainsBase, false);
    return r.bytes;
  }

  static SoftwareProfile megatron() {
    return SoftwareProfiles.find("nemo").orElseThrow();
  }

  @Test
  void fp8Training_underMegatron_castsEachLinearsInputAndOutputGradient_withTheirTransposes() {
    Map<String, Double> b = layer(TaskKind.TRAIN, Precision.FP8, megatron());
    double tokens = SEQ;
    // te.Linear (o_proj, down_proj): bf16 read, fp8 copy and fp8 transpose written
    assertThat(b.get("L0.o_proj.fp8_cast")).isEqualTo(tokens * H * (2 + 1 + 1));
    assertThat(b.get("L0.down_proj.fp8_cast")).isEqualTo(tokens * F * (2 + 1 + 1));
    // LayerNormLinear: the norm reads bf16 and writes fp8; backward transposes that fp8 copy
    assertThat(b.get("L0.attn_norm")).isEqualTo(tokens * H * (2 + 1));
    assertThat(b.get("L0.qkv_proj.bwd.fp8_transpose")).isEqualTo(tokens * H * (1 + 1));
    assertThat(b.get("L0.gate_up_proj.bwd.fp8_transpose")).isEqualTo(tokens * H * (1 + 1));
    // backward: each output gradient (bf16) cast to fp8 with its transpose
    assertThat(b.get("L0.down_proj.bwd.fp8_cast")).isEqualTo(tokens * H * 4);
    assertThat(b.get("L0.gate_up_proj.bwd.fp8_cast")).isEqualTo(tokens * 2 * F * 4);
    assertThat(b.get("L0.o_proj.bwd.fp8_cast")).isEqualTo(tokens * H * 4);
    assertThat(b.get("L0.qkv_proj.bwd.fp8_cast")).isEqualTo(tokens * 3 * H * 4);
    // the activations between the GEMMs stay bf16: the residual add reads two and writes one, 2 B each
    assertThat(b.get("L0.residual_1")).isEqualTo(3 * tokens * H * 2);
    // a GEMM reads fp8 weights and input and writes bf16
    assertThat(b.get("L0.o_proj")).isEqualTo(H * H * 1 + tokens * (H * 1 + H * 2));
  }

  @Test
  void frozenWeights_castWithoutTransposes() {
    Map<String, Double> b = layer(TaskKind.FINETUNE_LORA, Precision.FP8, megatron());
    double tokens = SEQ;
    assertThat(b.get("L0.o_proj.fp8_cast")).isEqualTo(tokens * H * (2 + 1));
    assertThat(b.get("L0.qkv_proj.bwd.fp8_cast")).isEqualTo(tokens * 3 * H * (2 + 1));
    assertThat(b).doesNotContainKey("L0.qkv_proj.bwd.fp8_transpose");
  }

  @Test
  void bf16Training_andOtherProfiles_addNoCasts() {
    assertThat(layer(TaskKind.TRAIN, Precision.BF16, megatron()).keySet()).noneMatch(n -> n.contains("fp8"));
    Map<String, Double> other = layer(TaskKind.TRAIN, Precision.FP8, SimulatorPhysicsTest.IDEAL);
    assertThat(other.keySet()).noneMatch(n -> n.contains("fp8"));
    assertThat(other.get("L0.residual_1")).as("unchanged outside TE: activations at the precision's width")
        .isEqualTo(3.0 * SEQ * H * 1);
  }

  @Test
  void outputHead_underTheFp8Recipe_runsInBf16AtTheBf16GemmFraction() {
    Map<Precision, Double> peaks = Map.of(Precision.BF16, 1000e12, Precision.FP16, 1000e12, Precision.FP8, 2000e12,
        Precision.FP32, 60e12);
    Efficiency e = new Efficiency(0.8, "test", 0.9, "test", true, 0.7, "test", 0.35, "test");
    SystemSpec gpu = Fixtures.discrete(0, e, peaks);
    int seq = 4096; // long enough that the head is compute-bound and one launch is under 1% of it
    Task t = new Task(TaskKind.TRAIN, Precision.FP8, WeightFormat.BF16, 1, seq, 1, 1, 1, false, 8, 128, Offload.NONE);
    llmsim.core.engine.Trace tr = Simulator.simulate(gpu, Fixtures.llama7b(), t, megatron()).trace();
    String[] names = tr.ops().names();
    int head = java.util.stream.IntStream.range(0, names.length).filter(i -> names[i].endsWith("lm_head")).findFirst()
        .orElseThrow();
    double flops = 2.0 * seq * H * Fixtures.llama7b().vocab();
    assertThat(tr.costs().time[head]).isCloseTo(flops / (1000e12 * 0.8),
        org.assertj.core.data.Percentage.withPercentage(1));
  }

  static String recipeWarning(TaskKind kind, Precision precision, SoftwareProfile sw) {
    Map<Precision, Double> peaks = Map.of(Precision.BF16, 1000e12, Precision.FP16, 1000e12, Precision.FP8, 2000e12,
        Precision.FP32, 60e12);
    SystemSpec gpu = Fixtures.discrete(0, new Efficiency(0.8, "test", 0.9, "test", true), peaks);
    Task t = new Task(kind, precision, WeightFormat.BF16, 1, SEQ, 1, 1, 1, false, 8, 128, Offload.NONE);
    return new StepContext(gpu, t, sw, new DecodeKvReadsTest.Recorder(), 1).fp8RecipeWarning;
  }

  @Test
  void fp8Training_withoutAModelledRecipe_saysItsCastsAreNotCosted() {
    SoftwareProfile pytorch = SoftwareProfiles.find("pytorch").orElseThrow();
    assertThat(recipeWarning(TaskKind.TRAIN, Precision.FP8, pytorch)).contains("software pytorch")
        .contains("not costed");
    assertThat(recipeWarning(TaskKind.TRAIN, Precision.FP8, megatron())).isNull();
    assertThat(recipeWarning(TaskKind.TRAIN, Precision.BF16, pytorch)).isNull();
    assertThat(recipeWarning(TaskKind.INFERENCE, Precision.FP8, pytorch)).isNull();
  }
}
