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
  FULL,
  /**
   * As {@link #FULL}, with each layer's input kept in host memory: copied out before the layer's forward and back
   * before its recomputed forward, each copy in the compute stream's order (Unsloth's offloaded gradient
   * checkpointing, {@code use_gradient_checkpointing="unsloth"}, April 2024: {@code hidden_states.to("cpu",
   * non_blocking = True)} in the forward, {@code .to("cuda", non_blocking = True)} in the backward).
   */
  FULL_OFFLOAD;

  /** Whether each layer's forward runs again before its backward. */
  public boolean recomputesLayers() {
    return this == FULL || this == FULL_OFFLOAD;
  }

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Recompute fromKey(String key) {
    for (Recompute r : values()) {
      if (r.key().equals(key)) {
        return r;
      }
    }
    throw new IllegalArgumentException("unknown recompute '" + key + "' (allowed: none, selective, full, full_offload)");
  }
}
