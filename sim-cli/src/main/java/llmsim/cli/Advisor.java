package llmsim.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import llmsim.core.cost.HourlyCost;
import llmsim.core.cost.JobCost;
import llmsim.core.cost.Pareto;
import llmsim.core.hw.Precision;
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
import llmsim.core.task.WeightFormat;
import llmsim.core.workload.Estimate;
import llmsim.core.workload.Estimator;
import llmsim.core.workload.Simulator;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;

/**
 * {@code llmsim advise}'s search: systems x GPU counts x numerics x parallel plans x micro-batch. Numerics, unless
 * given: training also tries fp8 where the device runs it natively and the profile trains in it ({@link
 * llmsim.core.software.SoftwareProfile#transformerEngineFp8}), inference also
 * int8 and int4 weights (weight-only quantisation); each changes the model's numbers, so the answer names it. What
 * does not fit per-GPU
 * memory is dropped by the memory planner; the rest are ranked by the closed form (no overlap), and only the best
 * plan and batch of each system and GPU count is simulated event by event, beside at most
 * {@link #PIPELINE_SIMULATIONS} pipeline plans, which the closed form cannot rank; the faster is kept. Options are priced with the job's
 * {@link Costing}; those without a price are listed apart, never ranked.
 */
final class Advisor {
  private Advisor() {}

  /** Micro-batches tried when --batch is not given. */
  static final List<Integer> BATCHES = List.of(1, 2, 4, 8, 16);

  /**
   * Pipeline plans (pp > 1) event-simulated per system at most: the closed form cannot rank them (it sums ops as if
   * the stages did not overlap), so the fitting ones with the fewest stages are simulated, and kept if faster.
   */
  static final int PIPELINE_SIMULATIONS = 2;

  /** Which pipeline plans to simulate first: fewest stages, then the largest micro-batch, least ZeRO, least tp. */
  static final Comparator<Task> PIPELINE_ORDER = Comparator.<Task>comparingInt(t -> t.plan().pp())
      .thenComparing(Comparator.comparingInt(Task::batch).reversed()).thenComparingInt(t -> t.plan().zero())
      .thenComparingInt(t -> t.plan().tp());

  /** One simulated option: a system of some GPUs with its best plan and batch, and its job. */
  record Option(StepResult result, JobCost job, String numerics) {
    SystemSpec system() {
      return result.system();
    }

    double seconds() {
      return job.wallSeconds();
    }

    double cost() {
      return job.cost();
    }

    /** "4", or "2 x 8" with 8 micro-batches per step. */
    String batch() {
      Task t = result.task();
      return t.batch() + (t.microBatches() > 1 ? " x " + t.microBatches() : "");
    }

    /** The cost to nine significant digits: options that differ only by rounding rank by time, not by noise. */
    double rankedCost() {
      return Double.parseDouble(String.format(java.util.Locale.US, "%.9g", job.cost()));
    }
  }

  /** An option that could not be ranked, and why. */
  record Skipped(String hardware, int gpus, String why) {}

  /**
   * Everything the search found. {@code options}: priced, cheapest first; {@code candidates}: system, GPU count, plan
   * and batch combinations considered; {@code planned}: those that fit memory; {@code simulated}: event simulations.
   */
  record Result(List<Option> options, List<Option> pareto, List<Skipped> skipped, long candidates, int planned,
      int simulated) {}

  /**
   * The systems to try: the --hardware ones at every power-of-two GPU count up to {@code maxGpus} they allow, or
   * every catalog system (single-GPU systems alone, multi-GPU ones from two GPUs), one per device and GPU count (the
   * ones named: each one).
   */
  static List<SystemSpec> systems(Catalog c, List<String> hardware, int maxGpus) {
    boolean given = !hardware.isEmpty();
    List<SystemSpec> base = given ? hardware.stream().map(h -> c.system(h, "--hardware")).toList() : c.systems();
    if (given) { // an alias or a file of a catalog id was dropped as the same system without a word
      SweepGrid.refuseRepeats("--hardware", hardware, base.stream().map(SystemSpec::id).toList());
    }
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
        // the catalog's systems are tried once per device and count; the ones named are each tried, since two systems
        // of one device differ in their host and links (13900ks-h100 dropped h100-pcie, on a host 4x faster for it)
        if (seen.add((given ? s.id() : sized.device().id()) + "x" + n)) {
          out.add(sized);
        }
      }
    }
    return out;
  }

  /** One system's part of the search: its option or why it has none, and what it tried. */
  private record Searched(Option option, Skipped skipped, long candidates, int planned, int simulated) {}

  /** The search over every system, one system per task on every core; the answer does not depend on the order. */
  static Result search(ScenarioOptions.Resolved r, ModelSpec m, List<SystemSpec> systems, Costing costing) {
    return search(r, m, systems, costing, done -> { });
  }

  /** As above; {@code progress} hears how many systems are done after each (from the searching threads). */
  static Result search(ScenarioOptions.Resolved r, ModelSpec m, List<SystemSpec> systems, Costing costing,
      java.util.function.LongConsumer progress) {
    java.util.concurrent.atomic.AtomicLong done = new java.util.concurrent.atomic.AtomicLong();
    List<Searched> all = systems.parallelStream().map(s -> {
      Searched one = search(r, m, s, costing);
      progress.accept(done.incrementAndGet());
      return one;
    }).toList();
    List<Option> options = new ArrayList<>(all.stream().map(Searched::option).filter(o -> o != null).toList());
    options.sort(Comparator.comparingDouble(Option::rankedCost).thenComparingDouble(Option::seconds)
        .thenComparing(o -> o.system().id()));
    return new Result(List.copyOf(options), Pareto.front(options, Option::seconds, Option::rankedCost),
        all.stream().map(Searched::skipped).filter(k -> k != null).toList(),
        all.stream().mapToLong(Searched::candidates).sum(), all.stream().mapToInt(Searched::planned).sum(),
        all.stream().mapToInt(Searched::simulated).sum());
  }

  /**
   * The scenario's task as {@code s} runs it (its precision adapted to the device), or an IllegalArgumentException (a
   * ScenarioKeyException where a key is to blame) where it cannot run it at all: a precision its device lacks, a
   * software it cannot run, a placement it refuses.
   */
  static Task runnable(ScenarioOptions.Resolved r, ModelSpec m, SystemSpec s) {
    Task base = PrecisionSupport.adapt(r.task(), s.device(), r.software(), r.precisionGiven()).task();
    llmsim.core.hw.SoftwareSupport.checkRuns(s.device(), base, r.software());
    MemoryPlanner.checkPlacement(s, m, base);
    return base;
  }

  private static Searched search(ScenarioOptions.Resolved r, ModelSpec m, SystemSpec s, Costing costing) {
    Task base;
    try {
      base = runnable(r, m, s);
    } catch (IllegalArgumentException e) { // a ScenarioKeyException too
      return new Searched(null, new Skipped(s.id(), s.totalDevices(), "cannot run it: " + e.getMessage()), 0, 0, 0);
    }
    // the price is asked for only where it would rank something: a system that cannot run the job, or fits at no
    // plan, is told so rather than to give a price; one plan that fits is enough to know a price is what it lacks
    HourlyCost price = costing.hourly(s);
    boolean microBatchesGiven = PlanSearch.microBatchesGiven(r);
    List<Task> numerics = numerics(r, base, s);
    Estimator closedForm = new Estimator(Kernels.get());
    long candidates = 0;
    int planned = 0;
    Task best = null;
    double bestRate = 0;
    List<Task> pipelines = new ArrayList<>();
    for (Task v : numerics) {
    for (int b : r.given(ScenarioKey.BATCH) ? List.of(base.batch()) : BATCHES) {
      for (ParallelPlan p : s.totalDevices() == 1 ? List.of(base.plan()) : PlanSearch.candidates(base, s, m)) {
        candidates++;
        Task t = fitting(s, m, PlanSearch.withPlan(v.withBatch(b), p, microBatchesGiven), r);
        if (t == null) {
          continue;
        }
        planned++;
        if (!price.known()) {
          return new Searched(null, new Skipped(s.id(), s.totalDevices(), "no price: " + price.missing()), candidates,
              planned, 0);
        }
        if (p.pp() > 1) {
          pipelines.add(t); // simulated below, the few with the fewest stages
          continue;
        }
        Estimate e = closedForm.analytic(s, m, t, r.software());
        if (e.tokensPerSecond() > bestRate * (1 + 1e-9)) {
          best = t;
          bestRate = e.tokensPerSecond();
        }
      }
    }
    }
    List<Task> toSimulate = new ArrayList<>();
    if (best != null) {
      toSimulate.add(best);
    }
    pipelines.stream().sorted(PIPELINE_ORDER).limit(PIPELINE_SIMULATIONS).forEach(toSimulate::add);
    if (toSimulate.isEmpty()) {
      return new Searched(null, new Skipped(s.id(), s.totalDevices(), "does not fit per-GPU memory at any plan and"
          + " batch tried"), candidates, planned, 0);
    }
    StepResult fastest = null;
    for (Task t : toSimulate) {
      StepResult res = Simulator.simulate(s, m, t, r.software());
      if (fastest == null || res.tokensPerSecond() > fastest.tokensPerSecond() * (1 + 1e-9)) {
        fastest = res;
      }
    }
    StepResult res = fastest.withJobTokens(r.jobTokens());
    return new Searched(new Option(res, costing.job(res), numericsNote(r.task(), res.task())), null, candidates, planned,
        toSimulate.size());
  }

  /**
   * The numerics tried on {@code s}: the task's own, then, where neither is given, fp8 for training on a device that
   * runs it natively and int8 and int4 weights for inference (q8_0 and q4_0 under llama.cpp).
   */
  static List<Task> numerics(ScenarioOptions.Resolved r, Task base, SystemSpec s) {
    List<Task> out = new ArrayList<>(List.of(base));
    if (base.kind().training() && !r.precisionGiven() && base.precision() != Precision.FP8
        && r.software().transformerEngineFp8() && s.device().hasPeak(Precision.FP8)
        && PrecisionSupport.resolve(s.device(), Precision.FP8, r.software()).warning() == null) {
      out.add(base.withPrecision(Precision.FP8));
    }
    if (!base.kind().training() && !r.given(ScenarioKey.WEIGHTS)) {
      // llama.cpp's 8- and 4-bit weights are ggml's block types: it has no kernels for int8 or int4
      for (WeightFormat w : r.software().llamaCpp() != null ? List.of(WeightFormat.Q8_0, WeightFormat.Q4_0)
          : List.of(WeightFormat.INT8, WeightFormat.INT4)) {
        if (w != base.weights()) {
          out.add(base.withWeights(w));
        }
      }
    }
    return out;
  }

  /** ", fp8" or ", weights int4" where an option's numerics differ from the task as asked; "" where they do not. */
  static String numericsNote(Task asked, Task chosen) {
    return (chosen.precision() != asked.precision() ? ", " + chosen.precision().key() : "")
        + (chosen.weights() != asked.weights() ? ", weights " + chosen.weights().key() : "");
  }

  /** Whether the user set {@code k}, by flag or in the scenario file. */
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
