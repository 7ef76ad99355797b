package llmsim.core.cost;

import java.util.regex.Pattern;
import llmsim.core.util.Checks;

/**
 * One published price for one device: a rate per GPU-hour from a provider, or a purchase price.
 *
 * @param deviceId the catalog device it is for
 * @param provider who sells it (aws, lambda, tencent, retail, ...)
 * @param kind on-demand, spot, reserved (per GPU-hour) or purchase (per device)
 * @param amount per GPU-hour for a rental, per device for a purchase, in {@code currency}
 * @param currency ISO 4217 code, upper case (USD, CNY)
 * @param date when the price was read: YYYY-MM or YYYY-MM-DD
 * @param source where it was read (a URL or a document), never empty
 * @param minGpus the offer is an instance of this many GPUs: it prices systems of at least as many
 * @param note what was bought: the instance and how a per-GPU figure was derived from it
 */
public record Offer(String deviceId, String provider, OfferKind kind, double amount, String currency, int minGpus,
    String date, String source, String note) {
  static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");
  static final Pattern DATE = Pattern.compile("(19|20)\\d\\d-(0[1-9]|1[0-2])(-(0[1-9]|[12]\\d|3[01]))?");

  public Offer {
    Checks.notBlank("offer device", deviceId);
    Checks.notBlank("offer provider", provider);
    Checks.notNull("offer kind", kind);
    Checks.positive("offer amount", amount);
    currency = currency(currency);
    if (date == null || !DATE.matcher(date).matches()) {
      throw new IllegalArgumentException("offer date must be YYYY-MM or YYYY-MM-DD, was '" + date + "'");
    }
    Checks.positive("offer min GPUs", minGpus);
    Checks.notBlank("offer source", source);
    note = note == null ? "" : note;
  }

  /** A currency code checked and upper-cased: three letters. */
  public static String currency(String code) {
    String c = code == null ? "" : code.strip().toUpperCase(java.util.Locale.ROOT);
    if (!CURRENCY.matcher(c).matches()) {
      throw new IllegalArgumentException("a currency is a three-letter ISO code such as USD or CNY, was '" + code + "'");
    }
    return c;
  }

  /** "lambda on-demand, 2026-09-25": who, how and when, for a result line. */
  public String describe() {
    return provider + " " + kind.key() + ", " + date;
  }
}
