package llmsim.core.cost;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalDouble;
import llmsim.core.hw.Device;

/**
 * The offers known for each device (the bundled price catalog, price files the user names, purchase prices from
 * device files) and the choice among them: the user's own price for the device first, else the cheapest offer of
 * the asked kind from the asked providers that converts to the report currency at a rate the user gave.
 */
public final class PriceBook {
  private final List<Offer> offers;

  public PriceBook(List<Offer> offers) {
    this.offers = List.copyOf(offers);
  }

  public List<Offer> offers() {
    return offers;
  }

  /** This book with {@code more} offers (a user's price file). */
  public PriceBook with(List<Offer> more) {
    List<Offer> all = new ArrayList<>(offers);
    all.addAll(more);
    return new PriceBook(all);
  }

  /** What one GPU of {@code d} in a system of {@code gpus} costs per hour under {@code b}, or why that is unknown. */
  public HourlyCost hourly(Device d, int gpus, CostBasis b) {
    return b.owned() ? owned(d, b) : rented(d, gpus, b);
  }

  private HourlyCost rented(Device d, int gpus, CostBasis b) {
    for (PriceOverride o : b.overrides()) {
      if (o.kind().hourly() && names(d, o.device())) {
        return converted(o.price().amount(), o.price().currency(), b, "--price " + o.device() + "="
            + Money.format(o.price().amount(), o.price().currency()) + "/h", "--price " + o.device());
      }
    }
    return cheapest(d, gpus, b, b.kind(), "--price " + d.id() + "=AMOUNTCUR/h (such as 1.89usd/h)");
  }

  private HourlyCost owned(Device d, CostBasis b) {
    HourlyCost purchase = null;
    for (PriceOverride o : b.overrides()) {
      if (o.kind() == OfferKind.PURCHASE && names(d, o.device())) {
        purchase = converted(o.price().amount(), o.price().currency(), b, "--price " + o.device() + "="
            + Money.format(o.price().amount(), o.price().currency()), "--price " + o.device());
      }
    }
    if (purchase == null) {
      purchase = cheapest(d, 1, b, OfferKind.PURCHASE, "--price " + d.id() + "=AMOUNTCUR (such as 1599usd)");
    }
    if (!purchase.known()) {
      return purchase;
    }
    if (b.electricityPerKwh() == null) {
      return HourlyCost.unknown(b.currency(), "owned " + d.id() + ": give --electricity (such as 0.15usd/kwh) to add"
          + " the power it draws to its amortised purchase price");
    }
    OptionalDouble kwh = b.rates().convert(b.electricityPerKwh().amount(), b.electricityPerKwh().currency(),
        b.currency());
    if (kwh.isEmpty()) {
      return HourlyCost.unknown(b.currency(), noRate(b.electricityPerKwh().currency(), b.currency()));
    }
    double amortHours = b.amortisationSeconds() / 3600;
    double perHour = purchase.perGpuHour() / amortHours + d.powerWatts() / 1000 * kwh.getAsDouble();
    String source = String.format(Locale.US, "owned: %s over %.0f h, plus %.0f W (TDP) at %s/kWh", purchase.source(),
        amortHours, d.powerWatts(), Money.format(kwh.getAsDouble(), b.currency()));
    return new HourlyCost(perHour, b.currency(), source, "");
  }

  private HourlyCost cheapest(Device d, int gpus, CostBasis b, OfferKind kind, String hint) {
    List<Offer> ofDevice = offers.stream().filter(o -> o.deviceId().equals(d.id()) && o.kind() == kind
        && o.minGpus() <= gpus).toList();
    List<Offer> fromProviders = ofDevice.stream()
        .filter(o -> b.providers().isEmpty() || b.providers().contains(o.provider())).toList();
    Offer best = null;
    double bestAmount = Double.POSITIVE_INFINITY;
    for (Offer o : fromProviders.stream().sorted(Comparator.comparing(Offer::provider)).toList()) {
      OptionalDouble v = b.rates().convert(o.amount(), o.currency(), b.currency());
      if (v.isPresent() && v.getAsDouble() < bestAmount) {
        best = o;
        bestAmount = v.getAsDouble();
      }
    }
    String what = kind == OfferKind.PURCHASE ? "purchase price" : kind.key() + " offer";
    if (best == null) {
      if (!fromProviders.isEmpty()) {
        return HourlyCost.unknown(b.currency(), "the " + what + "s for " + d.id() + " are in "
            + String.join(", ", fromProviders.stream().map(Offer::currency).distinct().sorted().toList())
            + ": give " + noRate(fromProviders.get(0).currency(), b.currency()).replaceFirst("^no rate; give ", ""));
      }
      List<Offer> larger = offers.stream().filter(o -> o.deviceId().equals(d.id()) && o.kind() == kind
          && o.minGpus() > gpus && (b.providers().isEmpty() || b.providers().contains(o.provider()))).toList();
      if (!larger.isEmpty()) {
        // they were passed over as if there were none: "no reserved offer ... in the price catalog" beside a
        // `hardware prices` that lists one, sold as an 8-GPU instance
        return HourlyCost.unknown(b.currency(), "the " + what + "s for " + d.id() + " from "
            + String.join(", ", larger.stream().map(Offer::provider).distinct().sorted().toList())
            + " are sold as instances of at least " + larger.stream().mapToInt(Offer::minGpus).min().getAsInt()
            + " GPUs, and this system has " + gpus + "; give " + hint);
      }
      return HourlyCost.unknown(b.currency(), "no " + what + " for " + d.id() + (gpus > 1 ? " x " + gpus : "")
          + (ofDevice.isEmpty() ? " in the price catalog" : " from " + String.join(", ", b.providers()))
          + "; give " + hint);
    }
    return converted(best.amount(), best.currency(), b, best.describe() + " (" + best.source() + ")", best.provider());
  }

  private static HourlyCost converted(double amount, String currency, CostBasis b, String source, String who) {
    OptionalDouble v = b.rates().convert(amount, currency, b.currency());
    if (v.isEmpty()) {
      return HourlyCost.unknown(b.currency(), who + " is in " + currency + ": " + noRate(currency, b.currency()));
    }
    String rate = b.rates().describe(currency, b.currency());
    return new HourlyCost(v.getAsDouble(), b.currency(), rate.isEmpty() ? source : source + ", at " + rate, "");
  }

  private static String noRate(String from, String to) {
    return "no rate; give --rate " + from.toLowerCase(Locale.ROOT) + "=AMOUNT" + to.toLowerCase(Locale.ROOT)
        + " or --currency " + from.toLowerCase(Locale.ROOT);
  }

  private static boolean names(Device d, String name) {
    return d.id().equals(name) || d.aliases().contains(name);
  }
}
