package llmsim.core.software;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import java.time.LocalDate;
import llmsim.core.software.LlamaCppBuild.Backend;
import llmsim.core.task.WeightFormat;
import org.junit.jupiter.api.Test;

/** The build's figures recomputed from the published measurements they come from (docs/CALIBRATION.md#llamacpp). */
class LlamaCppBuildTest {
  /** LLaMA-7B's 32 layers of weight GEMMs: q, k, v, o (4096 x 4096) and gate, up, down (4096 x 11008). */
  static final double LAYER_WEIGHTS = 32.0 * (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008);

  /** KQ and KQV of LLaMA-7B at pp512: 32 layers x 2 matmuls x 2 x 512 x 512 x 4096. */
  static final double KQ_KQV_FLOPS = 32.0 * 2 * 2 * 512 * 512 * 4096;

  static double seconds(double tokensPerSecond) {
    return 512 / tokensPerSecond;
  }

  @Test
  void dequantisation_isTheExtraTimeOfEachFormatIn3084sM2UltraTable_perWeightFlop() {
    double flops = 2 * 512 * LAYER_WEIGHTS;
    double peak = 27.2e12; // 76-core M2 Ultra
    double f16 = seconds(1265.30);
    LlamaCppBuild b = LlamaCppBuild.LATEST;
    assertThat(b.dequantPerFlop(Backend.METAL, WeightFormat.Q8_0))
        .isCloseTo((seconds(1142.84) - f16) * peak / flops, withPercentage(0.1));
    assertThat(b.dequantPerFlop(Backend.METAL, WeightFormat.Q4_0))
        .isCloseTo((seconds(1164.00) - f16) * peak / flops, withPercentage(0.1));
    assertThat(b.dequantPerFlop(Backend.METAL, WeightFormat.Q4_K))
        .isCloseTo((seconds(1028.20) - f16) * peak / flops, withPercentage(0.1));
    assertThat(b.dequantPerFlop(Backend.METAL, WeightFormat.F16)).isZero();
    assertThat(b.dequantPerFlop(Backend.CUDA, WeightFormat.Q4_0)).isZero();
  }

  @Test
  void metalAttentionKernel_ratesComeFrom3123sAblationAnd3084sTable_onTheM2Max() {
    double peak = 10.7e12; // 30-core M2 Max
    double after3084 = (1 - 1 / 1.17) * seconds(486.91); // the share a no-op f16 x f32 kernel removes
    double before3084 = after3084 + seconds(445.27) - seconds(486.91);
    LlamaCppBuild afterBuild = new LlamaCppBuild(LocalDate.of(2023, 9, 12), false);
    LlamaCppBuild beforeBuild = new LlamaCppBuild(LocalDate.of(2023, 9, 1), false);
    assertThat(afterBuild.attentionPeakFraction(Backend.METAL))
        .isCloseTo(KQ_KQV_FLOPS / after3084 / peak, withPercentage(0.2));
    assertThat(beforeBuild.attentionPeakFraction(Backend.METAL))
        .isCloseTo(KQ_KQV_FLOPS / before3084 / peak, withPercentage(0.2));
  }

  @Test
  void metalAttentionKernel_isTheMatmulKernelFrom3168_andWithFlashAttention_andOffMetal() {
    assertThat(new LlamaCppBuild(LlamaCppBuild.METAL_KQ_ON_MATMUL_KERNEL, false).attentionPeakFraction(Backend.METAL))
        .isEqualTo(-1);
    assertThat(new LlamaCppBuild(LocalDate.of(2023, 9, 1), false).attentionPeakFraction(Backend.CUDA)).isEqualTo(-1);
    assertThat(LlamaCppBuild.LATEST.attentionPeakFraction(Backend.METAL)).isEqualTo(-1);
  }

  @Test
  void cudaGraphs_takeTheLaunchGapOffOnNvidiaOnly_fromTheirMergeDate() {
    LlamaCppBuild before = new LlamaCppBuild(LlamaCppBuild.CUDA_GRAPHS.minusDays(1), false);
    LlamaCppBuild after = new LlamaCppBuild(LlamaCppBuild.CUDA_GRAPHS, false);
    assertThat(before.launchSeconds(Backend.CUDA)).isEqualTo(4e-6);
    // llama.cpp#6763: 1/143.35 - 1/163.83 s per token over about 800 kernels
    assertThat(before.launchSeconds(Backend.CUDA) - after.launchSeconds(Backend.CUDA))
        .isCloseTo((1 / 143.35 - 1 / 163.83) / 800, withPercentage(5));
    assertThat(after.launchSeconds(Backend.METAL)).isEqualTo(before.launchSeconds(Backend.METAL));
  }

  @Test
  void backend_followsTheVendor() {
    assertThat(Backend.of("Apple")).isEqualTo(Backend.METAL);
    assertThat(Backend.of("NVIDIA")).isEqualTo(Backend.CUDA);
    assertThat(Backend.of("AMD")).isEqualTo(Backend.OTHER);
  }

  @Test
  void dates_parseAsMonthsOrDays_andAnythingElseNamesTheKey() {
    assertThat(LlamaCppBuild.parseDate("2023-09")).isEqualTo(LocalDate.of(2023, 9, 1));
    assertThat(LlamaCppBuild.parseDate("2023-09-14")).isEqualTo(LocalDate.of(2023, 9, 14));
    assertThatThrownBy(() -> LlamaCppBuild.parseDate("b1234")).hasMessageContaining("software_date");
  }
}
