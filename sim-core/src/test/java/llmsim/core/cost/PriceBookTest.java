package llmsim.core.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import llmsim.core.hw.Device;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

class PriceBookTest {
  /** On-demand GPU-hours from {@code providers}, reported in {@code currency}, no power price, no overrides. */
  static CostBasis onDemand(List<String> providers, String currency, Rates rates) {
    return new CostBasis(OfferKind.ON_DEMAND, providers, currency, rates, null, CostBasis.DEFAULT_AMORTISATION_SECONDS,
        List.of());
  }

  /** The fixture's 24 GB card: id gpu24, 450 W. */
  final Device card = Fixtures.discrete24GiB().device();

  static Offer offer(String provider, OfferKind kind, double amount, String currency, int minGpus) {
    return new Offer("gpu24", provider, kind, amount, currency, minGpus, "2026-09", "https://example.test/" + provider,
        "");
  }

  final PriceBook book = new PriceBook(List.of(
      offer("cheap-eight", OfferKind.ON_DEMAND, 0.50, "USD", 8),
      offer("dear", OfferKind.ON_DEMAND, 0.90, "USD", 1),
      offer("mid", OfferKind.ON_DEMAND, 0.70, "USD", 1),
      offer("yuan", OfferKind.ON_DEMAND, 4.00, "CNY", 1),
      offer("spotty", OfferKind.SPOT, 0.30, "USD", 1),
      offer("shop", OfferKind.PURCHASE, 1800, "USD", 1)));

  @Test
  void rent_oneGpu_takesTheCheapestOfferThatSellsOneGpu_inTheReportCurrency() {
    HourlyCost h = book.hourly(card, 1, CostBasis.DEFAULT);
    // 0.50 needs an 8-GPU instance, 4 CNY has no rate: 0.70 (mid) beats 0.90 (dear)
    assertThat(h.perGpuHour()).isEqualTo(0.70);
    assertThat(h.source()).contains("mid on-demand, 2026-09", "https://example.test/mid");
  }

  @Test
  void rent_eightGpus_mayUseTheEightGpuInstance() {
    assertThat(book.hourly(card, 8, CostBasis.DEFAULT).perGpuHour()).isEqualTo(0.50);
  }

  @Test
  void anOfferSoldOnlyAsALargerInstance_isNamedWithItsSize_notSaidToBeMissing() {
    // '--provider aws' on one H100 said "no on-demand offer for h100-sxm from aws", and '--pricing reserved' on one
    // A100 40GB "no reserved offer ... in the price catalog", while `hardware prices` listed each, sold as 8 GPUs
    CostBasis eight = onDemand(List.of("cheap-eight"), "USD", Rates.NONE);
    HourlyCost one = book.hourly(card, 1, eight);
    assertThat(one.known()).isFalse();
    assertThat(one.missing()).contains("the on-demand offers for gpu24 from cheap-eight are sold as instances of at"
        + " least 8 GPUs, and this system has 1").doesNotContain("no on-demand offer");
    assertThat(book.hourly(card, 8, eight).perGpuHour()).isEqualTo(0.50);
    CostBasis noProvider = onDemand(List.of("nobody"), "USD", Rates.NONE);
    assertThat(book.hourly(card, 1, noProvider).missing()).contains("no on-demand offer for gpu24 from nobody");
  }

  @Test
  void aRateTheUserGives_convertsEitherWayRound() {
    CostBasis cny = onDemand(List.of("yuan"), "USD", Rates.parse("cny=0.14usd"));
    assertThat(book.hourly(card, 1, cny).perGpuHour()).isCloseTo(4.00 * 0.14, within(1e-12));
    CostBasis inverse = onDemand(List.of("mid"), "CNY", Rates.parse("cny=0.14usd"));
    assertThat(book.hourly(card, 1, inverse).perGpuHour()).isCloseTo(0.70 / 0.14, within(1e-12));
  }

  @Test
  void noRate_meansNoPrice_andSaysWhichFlagToGive() {
    CostBasis onlyYuan = onDemand(List.of("yuan"), "USD", Rates.NONE);
    HourlyCost h = book.hourly(card, 1, onlyYuan);
    assertThat(h.known()).isFalse();
    assertThat(h.missing()).contains("in CNY", "--rate cny=AMOUNTusd", "--currency cny");
  }

  @Test
  void theUsersPrice_winsOverEveryOffer() {
    CostBasis b = new CostBasis(OfferKind.ON_DEMAND, List.of(), "USD", Rates.NONE, null,
        CostBasis.DEFAULT_AMORTISATION_SECONDS, PriceOverride.parse("gpu24=2.5usd/h").overrides());
    HourlyCost h = book.hourly(card, 1, b);
    assertThat(h.perGpuHour()).isEqualTo(2.5);
    assertThat(h.source()).startsWith("--price gpu24=");
  }

  @Test
  void spot_usesSpotOffersOnly() {
    assertThat(book.hourly(card, 1, CostBasis.DEFAULT.withKind(OfferKind.SPOT)).perGpuHour()).isEqualTo(0.30);
    assertThat(book.hourly(card, 1, CostBasis.DEFAULT.withKind(OfferKind.RESERVED)).missing())
        .contains("no reserved offer for gpu24");
  }

  @Test
  void owned_isThePurchaseOverTheAmortisationPlusElectricityAtTdp() {
    CostBasis own = new CostBasis(OfferKind.PURCHASE, List.of(), "USD", Rates.NONE, Money.parse("0.20usd/kwh", "/kwh",
        ""), Durations.seconds("2y"), List.of());
    // 1800 USD over 2 x 365 x 24 = 17,520 h, plus 0.450 kW x 0.20 USD/kWh
    assertThat(book.hourly(card, 1, own).perGpuHour()).isCloseTo(1800.0 / 17_520 + 0.450 * 0.20, within(1e-12));
  }

  @Test
  void owned_withoutAnElectricityPrice_hasNoPrice() {
    assertThat(book.hourly(card, 1, CostBasis.DEFAULT.withKind(OfferKind.PURCHASE)).missing())
        .contains("--electricity");
  }

  @Test
  void jobCost_isGpuHoursTimesTheRate_andEnergyIsTdpTimesGpusTimesTime() {
    HourlyCost h = new HourlyCost(2.0, "USD", "test", "");
    JobCost c = JobCost.of(36_000, 4, 400, 2e9, h);
    assertThat(c.gpuHours()).isEqualTo(40.0); // 10 h x 4 GPUs
    assertThat(c.cost()).isEqualTo(80.0);
    assertThat(c.energyKwh()).isCloseTo(0.4 * 4 * 10, within(1e-12)); // 0.4 kW x 4 x 10 h
    assertThat(c.costPerMillionTokens()).isCloseTo(80.0 / 2000, within(1e-12));
  }

  @Test
  void badInputs_areRefusedWithTheRule() {
    assertThatThrownBy(() -> offer("x", OfferKind.ON_DEMAND, -1, "USD", 1)).hasMessageContaining("must be > 0");
    assertThatThrownBy(() -> new Offer("g", "p", OfferKind.SPOT, 1, "USD", 1, "2026-13", "s", ""))
        .hasMessageContaining("YYYY-MM");
    assertThatThrownBy(() -> Rates.parse("cny=0.14")).hasMessageContaining("three-letter currency");
    assertThatThrownBy(() -> Rates.parse("usd=1usd")).hasMessageContaining("two currencies");
    assertThatThrownBy(() -> PriceOverride.parse("gpu24")).hasMessageContaining("DEVICE=AMOUNTCUR/h");
    assertThatThrownBy(() -> Durations.seconds("3 years")).hasMessageContaining("s, min, h, d, w, y");
    assertThat(Durations.seconds("36h")).isEqualTo(36 * 3600.0);
    // a negative span is a number and a unit: the rule it breaks is the sign
    assertThatThrownBy(() -> Durations.seconds("-1d")).hasMessage("must be > 0, was '-1d'");
    assertThat(Durations.seconds("+2h")).isEqualTo(2 * 3600.0);
  }
}
