package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import llmsim.core.hw.Device;
import llmsim.core.hw.Efficiency;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.LlamaCppBuild;
import llmsim.core.software.LlamaCppBuild.Backend;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import llmsim.core.util.Units;
import org.junit.jupiter.api.Test;

/**
 * llama.cpp's build-dependent kernels in a simulated prefill: each difference between two runs is derived from the
 * FLOPs it concerns and the rates the build gives, not from the program's output.
 */
class LlamaCppKernelsTest {
  static final double PEAK = 27.2e12;
  static final double GEMM_FRACTION = 0.75;
  final ModelSpec llama7b = Fixtures.llama7b();

  /** The unified test SoC, made by Apple (so llama.cpp runs its Metal backend there). */
  static SystemSpec appleSoc() {
    SystemSpec s = Fixtures.unified();
    Device d = s.device();
    Device apple = new Device(d.id(), d.name(), "Apple", List.of(), Map.of(Precision.FP16, PEAK, Precision.FP32, PEAK),
        "test", 192 * Units.GIB, 800e9, "LPDDR5", "test", 96 * Units.MIB, "test", 370, "test", 1, Optional.empty(),
        new Efficiency(GEMM_FRACTION, "test", 0.775, "test", true));
    return new SystemSpec(s.id(), s.name(), List.of(), s.host(), apple, 1, s.hostLink(), Optional.empty(), 0.75, "test",
        Optional.empty());
  }

  /** {@link Fixtures#discrete()} (2 TB/s at a streaming fraction of 0.9, no tile model) made by NVIDIA: CUDA. */
  static SystemSpec nvidiaGpu() {
    SystemSpec s = Fixtures.discrete();
    Device d = s.device();
    Device nvidia = new Device(d.id(), d.name(), "NVIDIA", List.of(), d.peakFlopsDense(), "test",
        d.memoryCapacityBytes(), d.memoryBandwidthBytesPerSecond(), "HBM", "test", d.cacheBytes(), "test", 350, "test",
        1, Optional.empty(), d.efficiency());
    return new SystemSpec(s.id(), s.name(), List.of(), s.host(), nvidia, 1, s.hostLink(), Optional.empty(), 1.0, "test",
        Optional.empty());
  }

  /** llama.cpp's behaviour at {@code date} with no launch cost, so that only the kernels differ. */
  static SoftwareProfile build(LocalDate date) {
    return SoftwareProfile.builder("ggml-test", "test").launchSeconds(0).kernelsPerLayer(1).flashAttention(false)
        .scoreBytesPerElement(16).llamaCpp(new LlamaCppBuild(date, false)).workspaceBytes(0).source("test").build();
  }

  static Task prefill(WeightFormat w, int prompt) {
    return new Task(TaskKind.INFERENCE, Precision.FP16, w, 1, 2048, prompt, 1, 1, false, 8, 128, Offload.NONE);
  }

  @Test
  void quantisedPrefill_addsTheDequantisationWorkOfEveryWeightGemmFlop() {
    SoftwareProfile sw = build(LlamaCppBuild.LATEST.date());
    int prompt = 512;
    double f16 = Simulator.simulate(appleSoc(), llama7b, prefill(WeightFormat.F16, prompt), sw).ttftSeconds();
    double q4 = Simulator.simulate(appleSoc(), llama7b, prefill(WeightFormat.Q4_0, prompt), sw).ttftSeconds();
    // the layers' GEMMs are compute-bound at 512 tokens in both formats; the LM head runs on the last token only
    double layerGemmFlops = 2.0 * prompt * (llama7b.gemmParameterCount() - 32000.0 * 4096);
    double d = LlamaCppBuild.LATEST.dequantPerFlop(Backend.METAL, WeightFormat.Q4_0);
    assertThat(q4 - f16).isCloseTo(layerGemmFlops * d / PEAK, withPercentage(1));
  }

  @Test
  void metalBuildsBeforeTheEarliestModelled_sayTheirPrefillIsOptimistic() {
    StepResult early = Simulator.simulate(appleSoc(), llama7b, prefill(WeightFormat.F16, 512),
        build(LlamaCppBuild.EARLIEST_METAL.minusDays(1)));
    StepResult modelled = Simulator.simulate(appleSoc(), llama7b, prefill(WeightFormat.F16, 512),
        build(LlamaCppBuild.EARLIEST_METAL));
    assertThat(early.warnings()).anySatisfy(w -> assertThat(w).contains("not modelled"));
    assertThat(modelled.warnings()).isEmpty();
  }

  @Test
  void metalBuildsBefore3168_runKqAndKqvOnTheSlowerKernel() {
    int prompt = 512;
    double before = Simulator.simulate(appleSoc(), llama7b, prefill(WeightFormat.F16, prompt),
        build(LocalDate.of(2023, 9, 12))).ttftSeconds();
    double after = Simulator.simulate(appleSoc(), llama7b, prefill(WeightFormat.F16, prompt),
        build(LlamaCppBuild.METAL_KQ_ON_MATMUL_KERNEL)).ttftSeconds();
    double attentionFlops = 32.0 * 4 * prompt * prompt * 4096; // KQ and KQV over the whole prompt, 32 layers
    double slow = new LlamaCppBuild(LocalDate.of(2023, 9, 12), false).attentionPeakFraction(Backend.METAL);
    double expected = attentionFlops / (PEAK * slow) - attentionFlops / (PEAK * GEMM_FRACTION);
    assertThat(before - after).isCloseTo(expected, withPercentage(1));
  }

  /** A CUDA build between #3776 and #8075 (ggerganov's RTX 4090 table in #4766 is from 2024-01-10). */
  static final LocalDate CUBLAS_ERA = LocalDate.of(2024, 1, 10);

  /**
   * The day before #3776: mul_mat_q for every batch, costed like the MMQ of later builds (d = 0) and, like
   * {@link #CUBLAS_ERA}, before CUDA graphs, so that the two builds' launch costs are the same.
   */
  static final LocalDate BEFORE_3776 = LlamaCppBuild.CUDA_DEQUANT_CUBLAS.minusDays(1);

  @Test
  void cudaBuildsBefore8075_dequantiseEachWeightMatrixToF16BeforeItsGemm_aboveMmqsBatchLimit() {
    int prompt = 512;
    for (WeightFormat w : List.of(WeightFormat.Q8_0, WeightFormat.Q4_0, WeightFormat.Q4_K)) {
      double mmq = Simulator.simulate(nvidiaGpu(), llama7b, prefill(w, prompt), build(BEFORE_3776)).ttftSeconds();
      double cublas = Simulator.simulate(nvidiaGpu(), llama7b, prefill(w, prompt), build(CUBLAS_ERA)).ttftSeconds();
      // every layer weight is read at its format's bits and written as 2 B of f16 at the streaming bandwidth; the
      // GEMMs are compute-bound at 512 tokens either way, at the same fraction (no tile model on this device); one
      // more op per weight GEMM (4 a layer: qkv, o, gate_up, down) pays the build's launch spread over a layer's ops
      double layerWeights = llama7b.gemmParameterCount() - 32000.0 * 4096;
      double bytes = layerWeights * (w.bitsPerWeight() / 8 + 2);
      double launchPerOp = new LlamaCppBuild(CUBLAS_ERA, false).launchSeconds(Backend.CUDA)
          / LayerEmitter.opsPerLayer(llama7b, false, 0);
      double expected = bytes / (2.0e12 * 0.9) + 4 * 32 * launchPerOp;
      assertThat(cublas - mmq).as(w.key()).isCloseTo(expected, withPercentage(1));
    }
  }

  @Test
  void cudaDequantisation_needsMoreThan32Rows_quantisedWeights_andACudaBuildOf3776To8075() {
    LlamaCppBuild era = new LlamaCppBuild(CUBLAS_ERA, false);
    assertThat(era.dequantisesToF16(Backend.CUDA, WeightFormat.Q4_0, 33)).isTrue();
    assertThat(era.dequantisesToF16(Backend.CUDA, WeightFormat.Q4_0, 32)).isFalse(); // mul_mat_q up to 32 rows
    assertThat(era.dequantisesToF16(Backend.CUDA, WeightFormat.F16, 512)).isFalse();
    assertThat(era.dequantisesToF16(Backend.METAL, WeightFormat.Q4_0, 512)).isFalse();
    assertThat(new LlamaCppBuild(LlamaCppBuild.CUDA_MMQ_DEFAULT.minusDays(1), false)
        .dequantisesToF16(Backend.CUDA, WeightFormat.Q8_0, 512)).isTrue();
    assertThat(LlamaCppBuild.LATEST.dequantisesToF16(Backend.CUDA, WeightFormat.Q8_0, 512)).isFalse();
    assertThat(new LlamaCppBuild(LlamaCppBuild.CUDA_DEQUANT_CUBLAS.minusDays(1), false)
        .dequantisesToF16(Backend.CUDA, WeightFormat.Q8_0, 512)).isFalse();
    // a 32-token prompt stays on mul_mat_q, so the build makes no difference to it
    double mmq = Simulator.simulate(nvidiaGpu(), llama7b, prefill(WeightFormat.Q4_0, 32), build(BEFORE_3776))
        .ttftSeconds();
    double cublas = Simulator.simulate(nvidiaGpu(), llama7b, prefill(WeightFormat.Q4_0, 32), build(CUBLAS_ERA))
        .ttftSeconds();
    assertThat(cublas).isEqualTo(mmq);
  }

  @Test
  void cudaQuantisedBuildsBefore3776_sayTheirMulMatQRateIsNotModelled() {
    StepResult early = Simulator.simulate(nvidiaGpu(), llama7b, prefill(WeightFormat.Q4_0, 512),
        build(LlamaCppBuild.CUDA_DEQUANT_CUBLAS.minusDays(1)));
    StepResult f16 = Simulator.simulate(nvidiaGpu(), llama7b, prefill(WeightFormat.F16, 512),
        build(LlamaCppBuild.CUDA_DEQUANT_CUBLAS.minusDays(1)));
    assertThat(early.warnings()).anySatisfy(w -> assertThat(w).contains("not modelled"));
    assertThat(f16.warnings()).isEmpty();
  }
}
