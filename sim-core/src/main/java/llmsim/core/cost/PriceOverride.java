package llmsim.core.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A price the user gave on the command line or in a scenario ({@code --price a100-sxm-80gb=1.89usd/h}: a rental
 * per GPU-hour; {@code rtx4090=1599usd}: a purchase), which wins over the catalog's offers for that device.
 *
 * @param device the device id or alias as written (resolved against the catalog by the caller)
 */
public record PriceOverride(String device, OfferKind kind, Money price) {

  /** Entries of a {@code price} value: overrides, and price files (entries ending in .yaml or .yml). */
  public record Entries(List<PriceOverride> overrides, List<String> files) {
    public Entries {
      overrides = List.copyOf(overrides);
      files = List.copyOf(files);
    }

    public static final Entries NONE = new Entries(List.of(), List.of());
  }

  /** Parse {@code DEVICE=AMOUNTCUR/h}, {@code DEVICE=AMOUNTCUR} or {@code FILE.yaml}, comma-separated. */
  public static Entries parse(String text) {
    List<PriceOverride> out = new ArrayList<>();
    List<String> files = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String p = part.strip();
      String lower = p.toLowerCase(Locale.ROOT);
      if (lower.endsWith(".yaml") || lower.endsWith(".yml")) {
        files.add(p);
        continue;
      }
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("must be DEVICE=AMOUNTCUR/h (a rental per GPU-hour, such as"
            + " a100-sxm-80gb=1.89usd/h), DEVICE=AMOUNTCUR (a purchase, such as rtx4090=1599usd) or a prices .yaml"
            + " file, was '" + p + "'");
      }
      String value = p.substring(eq + 1).strip();
      boolean hourly = value.toLowerCase(Locale.ROOT).endsWith("/h");
      Money m = Money.parse(hourly ? value.substring(0, value.length() - 2) : value, "",
          hourly ? "1.89usd/h" : "1599usd");
      out.add(new PriceOverride(p.substring(0, eq).strip(), hourly ? OfferKind.ON_DEMAND : OfferKind.PURCHASE, m));
    }
    return new Entries(out, files);
  }
}
