package llmsim.core.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.util.Units;
import org.junit.jupiter.api.Test;

class PrecisionSupportTest {
  /** A T4-like card: fp32, fp16 and int8 units, no bf16, tf32 or fp8. */
  static final Device T4 = new Device("t4", "T4", "test", List.of(),
      Map.of(Precision.FP32, 8.1e12, Precision.FP16, 65e12, Precision.INT8, 130e12), "test", 16 * Units.GIB, 320e9,
      "GDDR6", "test", 4 * Units.MIB, "test", 70, "test", 1, Optional.empty(), new Efficiency(0.75, "t", 0.8, "t", false));
  /** An Apple-GPU-like device: fp16 at the fp32 rate, bf16 emulated by MLX at 0.58 of fp16. */
  static final Device APPLE = new Device("m2", "M2", "test", List.of(),
      Map.of(Precision.FP32, 27.2e12, Precision.FP16, 27.2e12), "test", 192 * Units.GIB, 800e9, "LPDDR5", "test",
      96 * Units.MIB, "test", 370, "test", 1, Optional.empty(), new Efficiency(0.75, "t", 0.8, "t", false),
      Map.of(Precision.BF16, new Emulation(Precision.FP16, 0.58, List.of("mlx"), "measured")));

  @Test
  void nativePrecision_runsAtItsOwnPeak_withoutAWarning() {
    PrecisionSupport.Resolved r = PrecisionSupport.resolve(T4, Precision.FP16, SoftwareProfiles.PYTORCH);
    assertThat(r.peakFlops()).isEqualTo(65e12);
    assertThat(r.warning()).isNull();
  }

  @Test
  void missingPrecision_isRefused_namingWhatTheDeviceRuns() {
    assertThatThrownBy(() -> PrecisionSupport.resolve(T4, Precision.BF16, SoftwareProfiles.PYTORCH))
        .isInstanceOf(ScenarioKeyException.class).hasMessageContaining("bf16 is not native on T4")
        .hasMessageContaining("it runs fp32, fp16, int8");
    assertThatThrownBy(() -> PrecisionSupport.resolve(T4, Precision.FP8, SoftwareProfiles.TENSORRT_LLM))
        .hasMessageContaining("fp8 is not native");
  }

  @Test
  void emulatedPrecision_runsAtTheStatedRate_onlyUnderTheSoftwareThatEmulatesIt() {
    PrecisionSupport.Resolved r = PrecisionSupport.resolve(APPLE, Precision.BF16, SoftwareProfiles.MLX);
    assertThat(r.peakFlops()).isEqualTo(0.58 * 27.2e12);
    assertThat(r.gemmPrecision()).isEqualTo(Precision.FP16);
    assertThat(r.warning()).contains("mlx emulates it at 0.58x the fp16 rate");
    assertThatThrownBy(() -> PrecisionSupport.resolve(APPLE, Precision.BF16, SoftwareProfiles.PYTORCH))
        .hasMessageContaining("only mlx emulates it there");
  }

  @Test
  void tf32WithoutTf32Units_runsAtTheFp32Rate_withAWarning() {
    PrecisionSupport.Resolved r = PrecisionSupport.resolve(T4, Precision.TF32, SoftwareProfiles.PYTORCH);
    assertThat(r.peakFlops()).isEqualTo(8.1e12);
    assertThat(r.warning()).contains("fp32 at the fp32 rate");
  }

  @Test
  void defaultPrecision_becomesOneTheDeviceRuns_butAnAskedOneStays() {
    Task train = Task.defaults(TaskKind.TRAIN);
    assertThat(train.precision()).isEqualTo(Precision.BF16);
    PrecisionSupport.Adapted a = PrecisionSupport.adapt(train, T4, SoftwareProfiles.PYTORCH, false);
    assertThat(a.task().precision()).isEqualTo(Precision.FP16);
    assertThat(a.note()).contains("the default bf16 is not native on T4");
    PrecisionSupport.Adapted asked = PrecisionSupport.adapt(train, T4, SoftwareProfiles.PYTORCH, true);
    assertThat(asked.task().precision()).isEqualTo(Precision.BF16);
    assertThat(asked.note()).isNull();
    // MLX emulates bf16 on the Apple GPU: the default stays, and the emulation's warning comes with the result
    assertThat(PrecisionSupport.adapt(train, APPLE, SoftwareProfiles.MLX, false).task().precision()).isEqualTo(Precision.BF16);
  }

  @Test
  void aDevice_hasNoPeak_forAPrecisionItLacks() {
    assertThatThrownBy(() -> T4.peakFlops(Precision.BF16)).hasMessageContaining("has no native bf16");
  }
}
