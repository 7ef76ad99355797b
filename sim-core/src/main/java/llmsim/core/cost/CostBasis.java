package llmsim.core.cost;

import java.util.List;
import llmsim.core.util.Checks;

/**
 * How the user pays, from the scenario's cost keys: rent (on-demand, spot or reserved GPU-hours, from the given
 * providers) or own (the purchase price over an amortisation period, plus electricity at the device's TDP); the
 * currency results are reported in and the exchange rates to reach it; prices that win over the catalog.
 *
 * @param kind the offers to use; {@link OfferKind#PURCHASE} means owned hardware
 * @param providers offers only from these providers; empty for any
 * @param electricityPerKwh price of a kWh for owned hardware, or null when not given
 * @param amortisationSeconds the period a purchase is spread over
 */
public record CostBasis(OfferKind kind, List<String> providers, String currency, Rates rates, Money electricityPerKwh,
    double amortisationSeconds, List<PriceOverride> overrides) {

  /** The default amortisation period: three years, a common straight-line depreciation period for IT hardware. */
  public static final double DEFAULT_AMORTISATION_SECONDS = 3 * 365 * 86400.0;

  public static final CostBasis DEFAULT = new CostBasis(OfferKind.ON_DEMAND, List.of(), "USD", Rates.NONE, null,
      DEFAULT_AMORTISATION_SECONDS, List.of());

  public CostBasis {
    Checks.notNull("pricing", kind);
    providers = List.copyOf(providers);
    currency = Offer.currency(currency);
    Checks.notNull("rates", rates);
    Checks.positive("amortisation period (s)", amortisationSeconds);
    overrides = List.copyOf(overrides);
  }

  public boolean owned() {
    return kind == OfferKind.PURCHASE;
  }

  public CostBasis withKind(OfferKind k) {
    return new CostBasis(k, providers, currency, rates, electricityPerKwh, amortisationSeconds, overrides);
  }
}
