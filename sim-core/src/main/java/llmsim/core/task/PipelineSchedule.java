package llmsim.core.task;

/** The order in which a pipeline stage runs its micro-batches' forward and backward passes. */
public enum PipelineSchedule {
  /** PipeDream-Flush / Megatron-LM 1F1B: p - s - 1 warm-up forwards, then one forward and one backward in turn. */
  ONE_F_ONE_B("1f1b"),
  /** Megatron-LM's interleaved 1F1B over several model chunks per GPU (virtual stages). */
  INTERLEAVED("interleaved"),
  /** GPipe: every micro-batch's forward, then every backward in reverse order; all activations held at once. */
  GPIPE("gpipe");

  private final String key;

  PipelineSchedule(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }

  public static PipelineSchedule fromKey(String key) {
    for (PipelineSchedule s : values()) {
      if (s.key.equals(key)) {
        return s;
      }
    }
    throw new IllegalArgumentException("unknown schedule '" + key + "' (allowed: 1f1b, interleaved, gpipe)");
  }
}
