package llmsim.core.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import llmsim.core.hw.Precision;
import org.junit.jupiter.api.Test;

/** int8 GEMMs are simulated for inference only: a training task at the int8 peak is refused at its key. */
class TrainingPrecisionScenarioTest {
  @Test
  void int8Compute_isRefusedForEveryTrainingTask_andRunsForInference() {
    for (String task : new String[] {"train", "finetune-full", "finetune-lora", "ptuning-v2"}) {
      assertThatThrownBy(() -> LlamaCppScenarioTest.values(ScenarioKey.TASK, task, ScenarioKey.PRECISION, "int8").task())
          .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.PRECISION))
          .hasMessageContaining("int8 is not simulated for " + task);
    }
    assertThat(LlamaCppScenarioTest.values(ScenarioKey.TASK, "inference", ScenarioKey.PRECISION, "int8").task()
        .precision()).isEqualTo(Precision.INT8);
    // an 8-bit base under LoRA is a weight format, not int8 compute
    assertThat(LlamaCppScenarioTest.values(ScenarioKey.TASK, "finetune-lora", ScenarioKey.WEIGHTS, "int8").task()
        .precision()).isNotEqualTo(Precision.INT8);
  }
}
