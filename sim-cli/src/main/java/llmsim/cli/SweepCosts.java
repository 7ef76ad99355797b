package llmsim.cli;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import llmsim.core.cost.HourlyCost;
import llmsim.core.cost.JobCost;
import llmsim.core.hw.SystemSpec;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.scenario.ScenarioValues;
import llmsim.core.task.Task;
import llmsim.core.workload.Estimate;

/**
 * A sweep's job: its size (--tokens, --epochs x --dataset-tokens or --requests) and how it is paid for, one value
 * each as in simulate, the same at every point. Each point's row gains the job's wall time, GPU-hours, energy and
 * cost at the point's throughput; prices are looked up once per device and GPU count.
 */
final class SweepCosts {
  private final ScenarioValues values;
  private final Costing costing;
  private final Map<String, HourlyCost> prices = new ConcurrentHashMap<>();

  private SweepCosts(ScenarioValues values, Costing costing) {
    this.values = values;
    this.costing = costing;
  }

  /**
   * The job the flags give, or null when they give no size; a price flag without a size is refused. {@code hardware}:
   * the grid's hardware values, whose own files' devices a price may name.
   */
  static SweepCosts of(ScenarioOptions flags, java.util.List<String> hardware) {
    ScenarioValues v = flags.values();
    try {
      long tokens = v.tokens();
      Costing c = Costing.of(tokens > 0 || v.has(llmsim.core.scenario.ScenarioKey.REQUESTS), v.pricesGiven(),
          v.costBasis(), v.priceEntries().files(), Costing.ownDevices(llmsim.hw.catalog.Catalog.bundled(), hardware));
      return c == null ? null : new SweepCosts(v, c);
    } catch (ScenarioKeyException e) {
      throw ScenarioOptions.locate(e, flags.flags(), null);
    }
  }

  /** A --price for a device no system of the grid has is refused, as simulate refuses it: it would price nothing. */
  void refuseUnusedPrices(llmsim.hw.catalog.Catalog c, java.util.List<SystemSpec> systems) {
    java.util.List<String> devices = systems.stream().map(s -> s.device().id()).distinct().toList();
    for (llmsim.core.cost.PriceOverride o : costing.basis().overrides()) {
      if (!devices.contains(c.canonical(o.device()))) {
        throw new BadFlagException("--price: " + o.device() + " is no device of this run (" + String.join(", ", devices)
            + "), so its price would price nothing; price a device the run uses");
      }
    }
  }

  /**
   * The job's tokens for a point's task: --tokens, epochs x dataset_tokens (training only), or --requests x its
   * generated tokens (inference only).
   */
  long tokens(Task t) {
    return values.jobTokens(t);
  }

  /** The job at one point, or null where its configuration does not fit memory (it cannot run). */
  JobCost cost(SystemSpec s, Task t, Estimate e) {
    if (!e.memory().fits()) {
      return null;
    }
    double n = tokens(t);
    HourlyCost price = prices.computeIfAbsent(s.device().id() + "x" + s.totalDevices(), k -> costing.hourly(s));
    // a job shorter than a step still runs one (Task.jobSteps)
    return Costing.job(s, t.jobSteps(n) * t.tokensPerStep() / e.tokensPerSecond(), n, price);
  }
}
