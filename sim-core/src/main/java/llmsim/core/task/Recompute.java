package llmsim.core.task;

import java.util.Locale;

/**
 * Which activations a training step recomputes in the backward pass instead of keeping from the forward
 * (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer Models", arXiv:2205.05198).
 */
public enum Recompute {
  /** Every activation the backward needs is kept. */
  NONE,
  /**
   * Only the attention core (QK^T, softmax, dropout, attention x V) is recomputed, so its s^2 scores are never
   * kept; with FlashAttention they never were, and nothing changes.
   */
  SELECTIVE,
  /** Each layer keeps its input only; its whole forward runs again before its backward (activation checkpointing). */
  FULL;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Recompute fromKey(String key) {
    for (Recompute r : values()) {
      if (r.key().equals(key)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown recompute '" + key + "' (allowed: none, selective, full)");
  }
}
