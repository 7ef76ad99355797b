package llmsim.core.cost;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/** How a device is paid for: rented by the GPU-hour (on demand, spot, reserved) or bought. */
public enum OfferKind {
  ON_DEMAND("on-demand"),
  SPOT("spot"),
  RESERVED("reserved"),
  PURCHASE("purchase");

  private final String key;

  OfferKind(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }

  /** Whether the amount is per GPU-hour (a rental) rather than per device (a purchase). */
  public boolean hourly() {
    return this != PURCHASE;
  }

  public static List<String> keys() {
    return Arrays.stream(values()).map(OfferKind::key).toList();
  }

  public static OfferKind fromKey(String key) {
    for (OfferKind k : values()) {
      if (k.key.equals(key.toLowerCase(Locale.ROOT))) {
        return k;
      }
    }
    throw new IllegalArgumentException("pricing must be one of " + String.join(", ", keys()) + ", was '" + key + "'");
  }
}
