package llmsim.core.hw;

import llmsim.core.util.Checks;

/**
 * A public price: a purchase price or a cloud rate per hour.
 *
 * @param amount the amount in {@code currency}
 * @param currency ISO code (USD, CNY)
 * @param perHour true for a cloud rate per hour, false for a purchase price
 * @param date when the price was observed (YYYY-MM or YYYY-MM-DD)
 */
public record Price(double amount, String currency, boolean perHour, String date, String source) {
  public Price {
    Checks.positive("price amount", amount);
    Checks.notBlank("price currency", currency);
    Checks.notBlank("price source", source);
  }
}
