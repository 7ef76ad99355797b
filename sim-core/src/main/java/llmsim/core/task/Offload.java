package llmsim.core.task;

import java.util.Locale;

/** Where state lives when the device is too small. */
public enum Offload {
  /** Pick the least offload that fits. */
  AUTO,
  /** Everything on the device; report a shortfall if it does not fit. */
  NONE,
  /** ZeRO-Offload: optimizer state and the optimizer step on the CPU. */
  OPTIMIZER,
  /** Weights stream over the link layer by layer (and optimizer on the CPU when training). */
  WEIGHTS;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Offload fromKey(String key) {
    for (Offload o : values()) {
      if (o.key().equals(key)) {
        return o;
      }
    }
    throw new IllegalArgumentException("unknown offload '" + key + "' (allowed: auto, none, optimizer, weights)");
  }
}
