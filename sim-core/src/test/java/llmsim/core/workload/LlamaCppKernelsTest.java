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

  /** llama.cpp's behaviour at {@code date} with no launch cost, so that only the kernels differ. */
  static SoftwareProfile build(LocalDate date) {
    return new SoftwareProfile("ggml-test", "test", List.of(), 1, 1, 0, 1, false, 16, 0, 1, false, 0, "test", 2,
        false, new LlamaCppBuild(date, false));
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
}
