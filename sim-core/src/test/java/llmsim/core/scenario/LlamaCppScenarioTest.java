package llmsim.core.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.util.EnumMap;
import java.util.Map;
import llmsim.core.software.LlamaCppBuild;
import llmsim.core.software.SoftwareProfile;
import org.junit.jupiter.api.Test;

/** software_date and flash_attention as the llama.cpp profile takes them, and as other profiles refuse them. */
class LlamaCppScenarioTest {
  static ScenarioValues values(Object... kv) {
    Map<ScenarioKey, Object> m = new EnumMap<>(ScenarioKey.class);
    for (int i = 0; i < kv.length; i += 2) {
      m.put((ScenarioKey) kv[i], kv[i + 1]);
    }
    return new ScenarioValues(m);
  }

  @Test
  void withoutADate_llamaCppIsTheLatestBuild_withoutFlashAttention() {
    SoftwareProfile sw = values(ScenarioKey.SOFTWARE, "llama.cpp").software();
    assertThat(sw.llamaCpp()).isEqualTo(LlamaCppBuild.LATEST);
    assertThat(sw.flashAttention()).isFalse();
  }

  @Test
  void theDateSelectsTheBuild() {
    SoftwareProfile sw = values(ScenarioKey.SOFTWARE, "llama.cpp", ScenarioKey.SOFTWARE_DATE, "2023-09-09").software();
    assertThat(sw.llamaCpp().date()).isEqualTo(LocalDate.of(2023, 9, 9));
  }

  @Test
  void aDateBeforeLlamaCppsFirstRelease_isRefused_asMlxsIs() {
    // llama.cpp was first published in March 2023: a 2022 or 1999 build was costed as the earliest modelled one
    for (String date : new String[] {"2023-02", "2023-02-28", "1999-01"}) {
      assertThatThrownBy(() -> values(ScenarioKey.SOFTWARE, "llama.cpp", ScenarioKey.SOFTWARE_DATE, date).software())
          .as(date).isInstanceOfSatisfying(ScenarioKeyException.class,
              e -> assertThat(e.key()).isEqualTo(ScenarioKey.SOFTWARE_DATE))
          .hasMessageContaining("'software_date' " + date + " is before llama.cpp's first release (March 2023)");
    }
    // the first month itself is a build (a validation case runs one of 2023-03)
    assertThat(values(ScenarioKey.SOFTWARE, "llama.cpp", ScenarioKey.SOFTWARE_DATE, "2023-03").software().llamaCpp()
        .date()).isEqualTo(LocalDate.of(2023, 3, 1));
  }

  @Test
  void flashAttention_isTheFusedKernel_fromItsMergeDate() {
    SoftwareProfile sw = values(ScenarioKey.SOFTWARE, "llama.cpp", ScenarioKey.SOFTWARE_DATE, "2024-06",
        ScenarioKey.FLASH_ATTENTION, true).software();
    assertThat(sw.flashAttention()).isTrue();
    assertThat(sw.llamaCpp().flashAttention()).isTrue();
    assertThatThrownBy(() -> values(ScenarioKey.SOFTWARE, "llama.cpp", ScenarioKey.SOFTWARE_DATE, "2024-04",
        ScenarioKey.FLASH_ATTENTION, true).software())
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.FLASH_ATTENTION))
        .hasMessageContaining("2024-04-30");
  }

  @Test
  void otherProfiles_refuseFlashAttention_andKeepAnySoftwareDate() {
    assertThatThrownBy(() -> values(ScenarioKey.SOFTWARE, "pytorch", ScenarioKey.FLASH_ATTENTION, true).software())
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.FLASH_ATTENTION));
    assertThat(values(ScenarioKey.SOFTWARE, "tensorrt-llm", ScenarioKey.SOFTWARE_DATE, "v0.5").software().llamaCpp())
        .isNull();
  }

  @Test
  void aDateOnAProfileWithOneVersion_isRecorded_andTheWarningSaysItChangesNothing() {
    SoftwareProfile dated = values(ScenarioKey.SOFTWARE, "hf", ScenarioKey.SOFTWARE_DATE, "2023-12").software();
    SoftwareProfile undated = values(ScenarioKey.SOFTWARE, "hf").software();
    assertThat(undated.dateWarning()).isNull();
    assertThat(dated.dateWarning()).contains("software_date 2023-12", "not modelled", "'hf'");
    // every component that shapes a step is the undated profile's
    assertThat(dated.toBuilder().recordedDate(null).build()).isEqualTo(undated);
  }

  @Test
  void llamaCppsDate_isModelled_soItCarriesNoRecordedDateWarning() {
    SoftwareProfile sw = values(ScenarioKey.SOFTWARE, "llama.cpp", ScenarioKey.SOFTWARE_DATE, "2023-09-09").software();
    assertThat(sw.dateWarning()).isNull();
  }

  @Test
  void aLlamaCppDateThatIsNotADate_namesTheKey() {
    assertThatThrownBy(() -> values(ScenarioKey.SOFTWARE, "llama.cpp", ScenarioKey.SOFTWARE_DATE, "b1234").software())
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.SOFTWARE_DATE));
  }
}
