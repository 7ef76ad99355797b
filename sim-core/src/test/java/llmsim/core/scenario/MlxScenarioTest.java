package llmsim.core.scenario;

import static llmsim.core.scenario.LlamaCppScenarioTest.values;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import llmsim.core.software.MlxBuild;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import org.junit.jupiter.api.Test;

/** software_date as the mlx profile takes it: the version's kernels, refused before MLX existed. */
class MlxScenarioTest {
  @Test
  void withoutADate_mlxIsTodaysProfile_unchanged() {
    SoftwareProfile sw = values(ScenarioKey.SOFTWARE, "mlx").software();
    assertThat(sw).isEqualTo(SoftwareProfiles.MLX);
    assertThat(sw.mlx()).isEqualTo(MlxBuild.LATEST);
    assertThat(sw.flashAttention()).isTrue();
    assertThat(sw.unfusedNorms()).isFalse();
    assertThat(sw.dateWarning()).isNull();
  }

  @Test
  void aDateBeforeMlx08_selectsTheSingleOpModules_andIsNotMerelyRecorded() {
    SoftwareProfile sw = values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, "2023-12").software();
    assertThat(sw.mlx().date()).isEqualTo(LocalDate.of(2023, 12, 1));
    assertThat(sw.flashAttention()).isFalse();
    assertThat(sw.causalBlockSkip()).isFalse();
    assertThat(sw.unfusedNorms()).isTrue();
    assertThat(sw.kernelsPerLayer()).isEqualTo(MlxBuild.UNFUSED_KERNELS_PER_LAYER);
    assertThat(sw.dateWarning()).isNull();
    assertThat(sw.recordedDate()).isNull();
    // the day before the fast norms is still the old MLX; their day is today's kernels
    assertThat(values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, "2024-03-20").software().flashAttention())
        .isFalse();
    SoftwareProfile fast = values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, "2024-03-21").software();
    assertThat(fast.flashAttention()).isTrue();
    assertThat(fast.unfusedNorms()).isFalse();
    // every component that shapes a step is today's profile's
    assertThat(fast.toBuilder().mlx(MlxBuild.LATEST).build()).isEqualTo(SoftwareProfiles.MLX);
  }

  @Test
  void training_runsClassicAttention_atEveryDate_withTheVjpsFifteenPassesFromMlx08_andInferenceKeepsTheFusedKernel() {
    double fp32 = 4;
    // before MLX 0.8: the single-op modules' backward, twice their forward's six passes
    for (String date : new String[] {"2023-12", "2024-03-20"}) {
      SoftwareProfile train = values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, date).software()
          .forTask(true);
      assertThat(train.flashAttention()).as(date).isFalse();
      assertThat(train.scoreBytesPerElement(fp32)).as(date).isEqualTo(6 * fp32);
      assertThat(train.backwardScoreBytesPerElement(fp32)).as(date).isEqualTo(2 * 6 * fp32);
    }
    // from MLX 0.8 (fused norms, the SDPA fallback's VJP), through "no sdpa in grad" (2025-04-08), to today:
    // backward 2 (scores @ v) + 9 (softmax) + 2 (where) + 2 (q @ k^T) passes
    for (String date : new String[] {"2024-03-21", "2025-04-07", "2025-04-08", "2026-11", null}) {
      SoftwareProfile sw = date == null ? values(ScenarioKey.SOFTWARE, "mlx").software()
          : values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, date).software();
      assertThat(sw.flashAttention()).as("inference %s", date).isTrue();
      assertThat(sw.forTask(false)).as("inference %s", date).isSameAs(sw);
      SoftwareProfile train = sw.forTask(true);
      assertThat(train.flashAttention()).as("training %s", date).isFalse();
      assertThat(train.causalBlockSkip()).as("training %s", date).isFalse();
      assertThat(train.scoreBytesPerElement(fp32)).as("training %s", date).isEqualTo(6 * fp32);
      assertThat(train.backwardScoreBytesPerElement(fp32)).as("training %s", date).isEqualTo((2 + 9 + 2 + 2) * fp32);
    }
    // other profiles train as they infer
    assertThat(SoftwareProfiles.PYTORCH.forTask(true)).isSameAs(SoftwareProfiles.PYTORCH);
  }

  @Test
  void aDateBeforeMlxsFirstRelease_isRefused_namingTheKeyAndTheEarliestVersion() {
    assertThatThrownBy(() -> values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, "2023-11").software())
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.SOFTWARE_DATE))
        .hasMessageContaining("before MLX's first release").hasMessageContaining("2023-12");
  }

  @Test
  void anMlxDateThatIsNotADate_isRefused() {
    assertThatThrownBy(() -> values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, "v0.0.6").software())
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.SOFTWARE_DATE))
        .hasMessageContaining("YYYY-MM");
  }

  @Test
  void theDatedVersion_isDescribed_andTodaysHasNoDate() {
    ScenarioValues v = values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.SOFTWARE_DATE, "2023-12-26",
        ScenarioKey.TASK, "train");
    assertThat(ScenarioValues.describe(v.task(), v.software()).get(ScenarioKey.SOFTWARE_DATE)).isEqualTo("2023-12-26");
    ScenarioValues today = values(ScenarioKey.SOFTWARE, "mlx", ScenarioKey.TASK, "train");
    assertThat(ScenarioValues.describe(today.task(), today.software()).get(ScenarioKey.SOFTWARE_DATE)).isNull();
  }
}
