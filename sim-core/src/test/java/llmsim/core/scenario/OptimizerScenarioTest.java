package llmsim.core.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import llmsim.core.task.Task;
import llmsim.core.task.TrainingOptimizer;
import org.junit.jupiter.api.Test;

/** optimizer, master_weights and optimizer_in_backward as scenario keys, and where they are refused. */
class OptimizerScenarioTest {
  static ScenarioValues values(Object... kv) {
    return LlamaCppScenarioTest.values(kv);
  }

  @Test
  void theKeys_makeTheTasksOptimizer_andDefaultToMixedPrecisionAdamW() {
    Task t = values(ScenarioKey.TASK, "finetune-full", ScenarioKey.OPTIMIZER, "paged-adamw-8bit",
        ScenarioKey.MASTER_WEIGHTS, false, ScenarioKey.OPTIMIZER_IN_BACKWARD, true).task();
    assertThat(t.optimizer()).isEqualTo(new TrainingOptimizer(TrainingOptimizer.Kind.PAGED_ADAMW_8BIT, false, true));
    assertThat(values(ScenarioKey.TASK, "train").task().optimizer()).isEqualTo(TrainingOptimizer.DEFAULT);
  }

  @Test
  void inference_refusesOptimizerKeys() {
    assertThatThrownBy(() -> values(ScenarioKey.OPTIMIZER, "adamw-8bit").task())
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.OPTIMIZER));
  }

  @Test
  void inTheBackward_refusesGradientAccumulationAndParallelPlans() {
    assertThatThrownBy(() -> values(ScenarioKey.TASK, "train", ScenarioKey.OPTIMIZER_IN_BACKWARD, true,
        ScenarioKey.MICRO_BATCHES, 2).task())
        .isInstanceOfSatisfying(ScenarioKeyException.class,
            e -> assertThat(e.key()).isEqualTo(ScenarioKey.OPTIMIZER_IN_BACKWARD))
        .hasMessageContaining("micro_batches 2");
    assertThatThrownBy(() -> values(ScenarioKey.TASK, "train", ScenarioKey.OPTIMIZER_IN_BACKWARD, true,
        ScenarioKey.TP, 2).task())
        .isInstanceOfSatisfying(ScenarioKeyException.class,
            e -> assertThat(e.key()).isEqualTo(ScenarioKey.OPTIMIZER_IN_BACKWARD));
  }

  @Test
  void masterWeights_applyToFullTrainingOnly() {
    assertThatThrownBy(() -> values(ScenarioKey.TASK, "finetune-lora", ScenarioKey.MASTER_WEIGHTS, false).task())
        .isInstanceOfSatisfying(ScenarioKeyException.class,
            e -> assertThat(e.key()).isEqualTo(ScenarioKey.MASTER_WEIGHTS));
  }

  @Test
  void anUnknownOptimizer_namesTheKey() {
    assertThatThrownBy(() -> values(ScenarioKey.TASK, "train", ScenarioKey.OPTIMIZER, "sgd").task())
        .isInstanceOf(RuntimeException.class).hasMessageContaining("sgd");
  }
}
