package llmsim.core.cost;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import llmsim.core.util.Checks;

/** An amount of a currency: {@code 500usd}, {@code 0.15usd} (per kWh where a flag says so). */
public record Money(double amount, String currency) {
  /** The sign is matched so that "-5usd" is told it must be above zero, not that it is not an amount. */
  private static final Pattern TEXT = Pattern.compile("([-+]?[0-9]+(?:\\.[0-9]+)?)\\s*([A-Za-z]{3})");

  public Money {
    Checks.nonNegative("amount", amount);
    currency = Offer.currency(currency);
  }

  /**
   * Parse {@code AMOUNT CUR} ({@code 500usd}, {@code 1.89 USD}); {@code suffix} (such as {@code /kwh}) must follow
   * when not empty.
   */
  public static Money parse(String text, String suffix, String example) {
    String v = text == null ? "" : text.strip().replace("_", "");
    String lower = v.toLowerCase(Locale.ROOT);
    if (!suffix.isEmpty()) {
      if (!lower.endsWith(suffix)) {
        throw new IllegalArgumentException("must be an amount, a currency and " + suffix + " such as " + example
            + ", was '" + text + "'");
      }
      v = v.substring(0, v.length() - suffix.length()).strip();
    }
    Matcher m = TEXT.matcher(v);
    if (!m.matches()) {
      throw new IllegalArgumentException("must be an amount and a three-letter currency such as " + example
          + ", was '" + text + "'");
    }
    double amount = Double.parseDouble(m.group(1));
    if (!(amount > 0)) {
      throw new IllegalArgumentException("must be > 0, was '" + text + "'");
    }
    return new Money(amount, m.group(2));
  }

  /** "190.00 USD": two decimals, or three significant digits below one unit. */
  public String format() {
    return format(amount, currency);
  }

  public static String format(double amount, String currency) {
    if (Double.isNaN(amount)) {
      return "-";
    }
    return (amount != 0 && Math.abs(amount) < 1 ? String.format(Locale.US, "%.3g", amount)
        : String.format(Locale.US, "%,.2f", amount)) + " " + currency;
  }
}
