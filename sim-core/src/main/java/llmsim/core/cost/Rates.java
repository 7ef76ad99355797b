package llmsim.core.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;

/**
 * Exchange rates the user gave ({@code --rate cny=0.14usd}): one unit of {@code from} is worth {@code amount} of
 * {@code to}. Nothing is fetched; a conversion without a rate, direct or inverse, is not made.
 */
public record Rates(List<Rate> rates) {
  /** One unit of {@code from} is worth {@code amount} of {@code to}. */
  public record Rate(String from, double amount, String to) {
    public Rate {
      from = Offer.currency(from);
      to = Offer.currency(to);
      if (!(amount > 0) || Double.isInfinite(amount)) {
        throw new IllegalArgumentException("a rate must be > 0, was " + amount);
      }
      if (from.equals(to)) {
        throw new IllegalArgumentException("a rate converts between two currencies, was " + from + " to " + to);
      }
    }
  }

  public static final Rates NONE = new Rates(List.of());

  public Rates {
    rates = List.copyOf(rates);
  }

  /** Parse {@code cny=0.14usd[,eur=1.08usd...]}. */
  public static Rates parse(String text) {
    List<Rate> out = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      String p = part.strip();
      int eq = p.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException("must be CUR=AMOUNTCUR such as cny=0.14usd (one CNY is 0.14 USD), was '"
            + part.strip() + "'");
      }
      Money m = Money.parse(p.substring(eq + 1), "", "0.14usd");
      out.add(new Rate(p.substring(0, eq), m.amount(), m.currency()));
    }
    return new Rates(out);
  }

  /** {@code amount} of {@code from} in {@code to}, when the same or a rate (either way round) was given. */
  public OptionalDouble convert(double amount, String from, String to) {
    if (from.equals(to)) {
      return OptionalDouble.of(amount);
    }
    for (Rate r : rates) {
      if (r.from().equals(from) && r.to().equals(to)) {
        return OptionalDouble.of(amount * r.amount());
      }
      if (r.from().equals(to) && r.to().equals(from)) {
        return OptionalDouble.of(amount / r.amount());
      }
    }
    return OptionalDouble.empty();
  }

  /** The rate used between two currencies, for a result's note ("1 CNY = 0.14 USD"), or empty. */
  public String describe(String from, String to) {
    for (Rate r : rates) {
      if (r.from().equals(from) && r.to().equals(to) || r.from().equals(to) && r.to().equals(from)) {
        return String.format(Locale.US, "1 %s = %s %s (--rate)", r.from(), r.amount(), r.to());
      }
    }
    return "";
  }
}
