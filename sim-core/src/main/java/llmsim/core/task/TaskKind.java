package llmsim.core.task;

import java.util.Arrays;
import java.util.stream.Collectors;

/** What is being done with the model. */
public enum TaskKind {
  TRAIN("train", true),
  FINETUNE_FULL("finetune-full", true),
  FINETUNE_LORA("finetune-lora", true),
  FINETUNE_QLORA("finetune-qlora", true),
  PTUNING_V2("ptuning-v2", true),
  INFERENCE("inference", false);

  private final String key;
  private final boolean training;

  TaskKind(String key, boolean training) {
    this.key = key;
    this.training = training;
  }

  public String key() {
    return key;
  }

  /** Whether a step has a backward pass and an optimizer step. */
  public boolean training() {
    return training;
  }

  /** Whether the base weights are frozen (only adapters or prefixes train). */
  public boolean frozenBase() {
    return this == FINETUNE_LORA || this == FINETUNE_QLORA || this == PTUNING_V2;
  }

  public static String allowed() {
    return Arrays.stream(values()).map(TaskKind::key).collect(Collectors.joining(", "));
  }

  public static TaskKind fromKey(String key) {
    for (TaskKind k : values()) {
      if (k.key.equals(key)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown task '" + key + "' (allowed: " + allowed() + ")");
  }
}
