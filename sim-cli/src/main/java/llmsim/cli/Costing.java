package llmsim.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import llmsim.core.cost.CostBasis;
import llmsim.core.cost.HourlyCost;
import llmsim.core.cost.JobCost;
import llmsim.core.cost.Offer;
import llmsim.core.cost.PriceBook;
import llmsim.core.cost.PriceOverride;
import llmsim.core.hw.Device;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.hw.SystemSpec;
import llmsim.core.util.Suggest;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.prices.PriceCatalog;

/**
 * The prices a run's job is costed with: the bundled price catalog, the user's price files and --price overrides,
 * and how the user pays ({@link CostBasis}). Built, and every price input checked, before anything is simulated.
 */
record Costing(PriceBook book, CostBasis basis) {

  /**
   * The costing of a resolved scenario, or null when it has no job (no --tokens or --requests); a price key
   * without a job is refused, since there is nothing to price.
   */
  static Costing of(ScenarioOptions.Resolved r) {
    try {
      return of(r.jobTokens() > 0, r.costKeysGiven(), r.cost(), r.priceFiles(), ownDevices(r.catalog(), r.hardware()));
    } catch (ScenarioKeyException e) { // at the flag, or at the scenario file's line
      throw ScenarioOptions.locate(e, r.flags(), r.file());
    }
  }

  /**
   * The devices of a run's own hardware files (--hardware my-gpu.yaml) among {@code hardware}, read with
   * {@code catalog}: a --price or a price file may name them, as it names a catalog device.
   */
  static List<Device> ownDevices(Catalog catalog, List<String> hardware) {
    return hardware == null ? List.of() : hardware.stream().filter(Catalog::looksLikeFile)
        .map(h -> catalog.system(h, "--hardware").device()).toList();
  }

  /**
   * The costing of a job ({@code sized}), or null without one; {@code priced}: a price key was given; {@code own}: the
   * devices of the run's own hardware files, priceable as the catalog's are.
   */
  static Costing of(boolean sized, boolean priced, CostBasis basis, List<String> files, List<Device> own) {
    if (!sized) {
      if (priced) {
        throw new BadFlagException("--price, --pricing and the other cost flags price a job: give its size with"
            + " --tokens (training: tokens trained on) or --requests (inference)");
      }
      return null;
    }
    return of(basis, files, own);
  }

  /**
   * The bundled prices plus {@code files}, with {@code basis}; every --price device checked against the catalog and
   * {@code own}, the devices of the run's own hardware files.
   */
  static Costing of(CostBasis basis, List<String> files, List<Device> own) {
    Catalog c = Catalog.bundled();
    List<String> ids = new ArrayList<>(c.devices().stream().map(Device::id).toList());
    c.devices().forEach(d -> ids.addAll(d.aliases()));
    own.forEach(d -> ids.add(d.id()));
    for (PriceOverride o : basis.overrides()) {
      if (!ids.contains(o.device())) {
        c.systemNamedAsDevice(o.device()).ifPresent(why -> {
          throw new BadFlagException("--price: " + why);
        });
        throw new BadFlagException("--price: unknown device '" + o.device() + "' (nearest: "
            + String.join(", ", Suggest.nearest(o.device(), ids, 3)) + "); `llmsim hardware prices` lists the priced ones");
      }
      refuseUnusedKind(o, basis);
    }
    List<Offer> more = new ArrayList<>();
    for (String f : files) {
      more.addAll(PriceCatalog.read(Path.of(f), own));
    }
    PriceBook book = PriceCatalog.bundled().with(more);
    // a provider no offer names (a typo: --provider awss) would leave every job unpriced with "no offer from awss"
    List<String> providers = book.offers().stream().map(Offer::provider).distinct().sorted().toList();
    for (String p : basis.providers()) {
      if (!providers.contains(p)) {
        throw new BadFlagException("--provider: unknown provider '" + p + "' (the price catalog and price files have: "
            + String.join(", ", providers) + "); `llmsim hardware prices` lists their offers");
      }
    }
    return new Costing(book, basis);
  }

  /**
   * A purchase price where GPU-hours are rented, or a GPU-hour rate for owned hardware, prices nothing: '--price
   * h100-sxm=30000usd' (no /h) was taken and the job costed at the catalog's cheapest on-demand offer, without a word.
   */
  private static void refuseUnusedKind(PriceOverride o, CostBasis basis) {
    String given = "'price' " + o.device() + "=" + java.math.BigDecimal.valueOf(o.price().amount())
        .stripTrailingZeros().toPlainString() + o.price().currency().toLowerCase(java.util.Locale.ROOT);
    if (basis.owned() && o.kind().hourly()) {
      throw new ScenarioKeyException(ScenarioKey.PRICE, given + "/h is a GPU-hour rate, which pricing own does not"
          + " use (it costs the purchase price over amortization, plus electricity); give the purchase price, such as "
          + o.device() + "=30000usd, or rent (pricing " + o.kind().key() + ")");
    }
    if (!basis.owned() && !o.kind().hourly()) {
      throw new ScenarioKeyException(ScenarioKey.PRICE, given + " is a purchase price (no /h), which prices owned"
          + " hardware (pricing own); a rented GPU-hour is written with /h, such as " + o.device() + "=2.50usd/h");
    }
  }

  HourlyCost hourly(SystemSpec s) {
    return book.hourly(s.device(), s.totalDevices(), basis);
  }

  /** The job of {@code r} in time, GPU-hours, energy and money; null when it has no job. */
  JobCost job(StepResult r) {
    if (!(r.jobTokens() > 0)) {
      return null;
    }
    return job(r.system(), r.jobSeconds(), r.jobTokens(), hourly(r.system()));
  }

  /** A job of {@code tokens} that runs {@code seconds} on every GPU of {@code s}, at {@code hourly}. */
  static JobCost job(SystemSpec s, double seconds, double tokens, HourlyCost hourly) {
    return JobCost.of(seconds, s.totalDevices(), s.device().powerWatts(), tokens, hourly);
  }
}
