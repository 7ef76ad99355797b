package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.Map;
import llmsim.core.engine.CostGroup;
import llmsim.core.hw.Efficiency;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * A profile's flash attention kernels against FlashAttention-2's ({@link SoftwareProfile#flashAttentionSpeed}):
 * llm-foundry as its 2023 tables ran it (FlashAttention v1-class kernels) reaches half the device's FlashAttention-2
 * rate, forward and backward, and nothing else in the step changes.
 */
class FlashAttentionSpeedTest {
  static final double PEAK = 756e12;
  static final double FA2_FORWARD = 0.73;
  static final double FA2_BACKWARD = 0.63;

  static SystemSpec deviceWithFlashAttention2Figures() {
    return Fixtures.discrete(0, new Efficiency(0.8, "test", 0.9, "test", true, 0.7, "test", FA2_FORWARD, "test",
        FA2_BACKWARD, "test"), Map.of(Precision.FP16, PEAK, Precision.BF16, PEAK, Precision.FP32, 51e12));
  }

  static CostGroup group(SoftwareProfile sw, String name) {
    GemmKernelFloorTest.Groups g = GemmKernelFloorTest.groups(deviceWithFlashAttention2Figures(), sw);
    return g.groups.stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
  }

  @Test
  void llmFoundry2023_runsAttentionAtHalfTheDevicesFlashAttention2Rate_forwardAndBackward() {
    SoftwareProfile v1 = SoftwareProfiles.find("llm-foundry-2023").orElseThrow();
    SoftwareProfile v2 = SoftwareProfiles.find("llm-foundry").orElseThrow();
    assertThat(v1.flashAttentionSpeed()).isEqualTo(0.5);
    assertThat(group(v2, "attention").effectivePeakFlops()).isCloseTo(PEAK * FA2_FORWARD, withPercentage(1e-9));
    assertThat(group(v2, "attention (backward)").effectivePeakFlops())
        .isCloseTo(PEAK * FA2_BACKWARD, withPercentage(1e-9));
    assertThat(group(v1, "attention").effectivePeakFlops()).isCloseTo(PEAK * FA2_FORWARD * 0.5, withPercentage(1e-9));
    assertThat(group(v1, "attention (backward)").effectivePeakFlops())
        .isCloseTo(PEAK * FA2_BACKWARD * 0.5, withPercentage(1e-9));
    // the GEMMs are the same kernels in both versions
    assertThat(group(v1, "gemm").effectivePeakFlops()).isEqualTo(group(v2, "gemm").effectivePeakFlops());
    assertThat(group(v1, "gemm (backward)").effectivePeakFlops())
        .isEqualTo(group(v2, "gemm (backward)").effectivePeakFlops());
  }

  @Test
  void aSpeedOutsideZeroToOne_orOneWithoutFlashAttentionClassKernels_isRefused() {
    SoftwareProfile.Builder base = SoftwareProfiles.PYTORCH.toBuilder();
    assertThatThrownBy(() -> base.flashAttentionSpeed(0).build()).hasMessageContaining("(0, 1]");
    assertThatThrownBy(() -> base.flashAttentionSpeed(1.5).build()).hasMessageContaining("(0, 1]");
    assertThatThrownBy(() -> SoftwareProfiles.HF_EAGER.toBuilder().flashAttentionSpeed(0.5).build())
        .hasMessageContaining("FlashAttention-class kernels");
  }
}
