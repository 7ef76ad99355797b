package llmsim.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import llmsim.core.cost.HourlyCost;
import llmsim.core.cost.JobCost;
import llmsim.core.cost.Pareto;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.Kernels;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.parallel.Placement;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Task;
import llmsim.core.workload.Estimate;
import llmsim.core.workload.Estimator;
import llmsim.core.workload.Simulator;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;

/**
 * {@code llmsim advise}'s search: systems x GPU counts x parallel plans x micro-batch. What does not fit per-GPU
 * memory is dropped by the memory planner; the rest are ranked by the closed form (no overlap), and only the best
 * plan and batch of each system and GPU count is simulated event by event. Options are priced with the job's
 * {@link Costing}; those without a price are listed apart, never ranked.
 */
final class Advisor {
  private Advisor() {}

  /** Micro-batches tried when --batch is not given. */
  static final List<Integer> BATCHES = List.of(1, 2, 4, 8, 16);

  /** One simulated option: a system of some GPUs with its best plan and batch, and its job. */
  record Option(StepResult result, JobCost job) {
    SystemSpec system() {
      return result.system();
    }

    double seconds() {
      return job.wallSeconds();
    }

    double cost() {
      return job.cost();
    }

    /** The cost to nine significant digits: options that differ only by rounding rank by time, not by noise. */
    double rankedCost() {
      return Double.parseDouble(String.format(java.util.Locale.US, "%.9g", job.cost()));
    }
  }

  /** An option that could not be ranked, and why. */
  record Skipped(String hardware, int gpus, String why) {}

  /** Everything the search found. {@code options}: priced, cheapest first. */
  record Result(List<Option> options, List<Option> pareto, List<Skipped> skipped, int planned, int simulated) {}

  /**
   * The systems to try: the --hardware ones at every power-of-two GPU count up to {@code maxGpus} they allow, or
   * every catalog system (single-GPU systems alone, multi-GPU ones from two GPUs), one per device and GPU count.
   */
  static List<SystemSpec> systems(Catalog c, List<String> hardware, int maxGpus) {
    boolean given = !hardware.isEmpty();
    List<SystemSpec> base = given ? hardware.stream().map(h -> c.system(h, "--hardware")).toList() : c.systems();
    List<SystemSpec> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (SystemSpec s : base) {
      boolean single = s.totalDevices() == 1;
      for (int n = single || given ? 1 : 2; n <= maxGpus && (n == 1 || !single); n *= 2) {
        SystemSpec sized;
        try {
          sized = n == s.totalDevices() ? s : Placement.size(s, 0, n);
        } catch (ScenarioKeyException e) {
          continue; // a size this system does not come in
        }
        if (seen.add(sized.device().id() + "x" + n)) {
          out.add(sized);
        }
      }
    }
    return out;
  }

  static Result search(ScenarioOptions.Resolved r, ModelSpec m, List<SystemSpec> systems, Costing costing) {
    boolean batchGiven = r.flags().containsKey(ScenarioKey.BATCH)
        || r.file().node(ScenarioKey.BATCH).isPresent();
    Estimator closedForm = new Estimator(Kernels.get());
    List<Option> options = new ArrayList<>();
    List<Skipped> skipped = new ArrayList<>();
    int planned = 0;
    for (SystemSpec s : systems) {
      HourlyCost price = costing.hourly(s);
      if (!price.known()) {
        skipped.add(new Skipped(s.id(), s.totalDevices(), "no price: " + price.missing()));
        continue;
      }
      Task base;
      try {
        base = PrecisionSupport.adapt(r.task(), s.device(), r.software(), r.precisionGiven()).task();
        PrecisionSupport.resolve(s.device(), base.precision(), r.software());
        MemoryPlanner.checkOffload(s, base);
      } catch (IllegalArgumentException e) { // a ScenarioKeyException too
        skipped.add(new Skipped(s.id(), s.totalDevices(), "cannot run it: " + e.getMessage()));
        continue;
      }
      Task best = null;
      double bestRate = 0;
      for (int b : batchGiven ? List.of(base.batch()) : BATCHES) {
        for (ParallelPlan p : s.totalDevices() == 1 ? List.of(base.plan()) : PlanSearch.candidates(base, s, m)) {
          if (p.pp() > 1) {
            continue; // the closed form cannot rank pipelines (their stages overlap by design)
          }
          Task t = fitting(s, m, base.withBatch(b).withPlan(p), r);
          if (t == null) {
            continue;
          }
          planned++;
          Estimate e = closedForm.analytic(s, m, t, r.software());
          if (e.tokensPerSecond() > bestRate * (1 + 1e-9)) {
            best = t;
            bestRate = e.tokensPerSecond();
          }
        }
      }
      if (best == null) {
        skipped.add(new Skipped(s.id(), s.totalDevices(), "does not fit per-GPU memory at any plan and batch tried"));
        continue;
      }
      StepResult res = Simulator.simulate(s, m, best, r.software()).withJobTokens(r.jobTokens());
      options.add(new Option(res, costing.job(res)));
    }
    options.sort(Comparator.comparingDouble(Option::rankedCost).thenComparingDouble(Option::seconds)
        .thenComparing(o -> o.system().id()));
    return new Result(List.copyOf(options), Pareto.front(options, Option::seconds, Option::rankedCost), skipped,
        planned, options.size());
  }

  /** {@code t} resolved on {@code s} when it fits memory (one GPU may offload; several may not), else null. */
  private static Task fitting(SystemSpec s, ModelSpec m, Task t, ScenarioOptions.Resolved r) {
    try {
      Task resolved = Placement.resolve(s, m, s.totalDevices() > 1 ? t.withOffload(Offload.NONE) : t);
      MemoryPlan mem = s.totalDevices() > 1 ? MemoryPlanner.place(s, m, resolved, r.software(), Offload.NONE)
          : MemoryPlanner.choose(s, m, resolved, r.software());
      return mem.fits() ? resolved : null;
    } catch (ScenarioKeyException e) {
      return null; // a plan this model cannot run (tp not dividing the heads, ...)
    }
  }
}
