package llmsim.cli;

import java.util.ArrayList;
import java.util.List;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.parallel.Placement;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Task;
import llmsim.core.workload.Simulator;
import llmsim.core.workload.StepResult;

/**
 * {@code --plan auto}: every plan the model and the system allow — tp a power of two within a node, pp dividing
 * the layers (training), ZeRO 0-3 with data parallelism (training) — whose per-GPU memory fits is simulated,
 * and the fastest is kept (ties: the simpler plan). The result says which plan won and how many were tried.
 * When neither micro_batches nor global_batch is given, a pipeline plan runs {@link #MICRO_BATCHES_PER_STAGE}
 * micro-batches per stage (as {@code advise} does), not the single micro-batch that would leave each of its
 * stages idle for most of the step, and the result says so.
 */
final class PlanSearch {
  private PlanSearch() {}

  /** Plans tried at most; the search is refused beyond it rather than cut short silently. */
  static final int MAX_CANDIDATES = 256;

  /**
   * Micro-batches per pipeline stage when neither micro_batches nor global_batch is given: a 1F1B bubble of
   * (pp - 1) / (4 pp + pp - 1), under 1/5 of the step.
   */
  static final int MICRO_BATCHES_PER_STAGE = 4;

  /**
   * Every plan the model and the system allow: tp a power of two within a node, pp dividing the layers
   * (training), ZeRO 0-3 when there is data parallelism (training); not yet checked against memory.
   */
  static List<ParallelPlan> candidates(Task base, SystemSpec s, ModelSpec m) {
    return candidates(base, s, m, false);
  }

  /** As above; with {@code hybrid} (shard: hybrid given with plan auto) the ZeRO-3 candidates shard within a node. */
  static List<ParallelPlan> candidates(Task base, SystemSpec s, ModelSpec m, boolean hybrid) {
    boolean training = base.kind().training();
    int gpus = s.totalDevices();
    List<ParallelPlan> candidates = new ArrayList<>();
    for (int tp = 1; tp <= Math.min(gpus, s.deviceCount()); tp *= 2) {
      for (int pp = 1; pp <= (training ? m.layers() : 1); pp++) {
        if (m.layers() % pp != 0 || gpus % (tp * pp) != 0) {
          continue;
        }
        int dp = gpus / (tp * pp);
        for (int zero = 0; zero <= (training && dp > 1 ? 3 : 0); zero++) {
          ParallelPlan p = base.plan().withLayout(tp, pp, dp, zero).withVirtualStages(1);
          candidates.add(hybrid && zero == 3 ? p.withHybridShard() : p);
        }
      }
    }
    return candidates;
  }

  /** Whether the scenario fixes the micro-batches (given, or through the global batch). */
  static boolean microBatchesGiven(ScenarioOptions.Resolved r) {
    return r.given(ScenarioKey.MICRO_BATCHES) || r.given(ScenarioKey.GLOBAL_BATCH);
  }

  /**
   * {@code t} under plan {@code p}: a pipeline plan runs {@link #MICRO_BATCHES_PER_STAGE} micro-batches per stage
   * unless the scenario fixes them.
   */
  static Task withPlan(Task t, ParallelPlan p, boolean microBatchesGiven) {
    Task out = t.withPlan(p);
    return p.pp() > 1 && !microBatchesGiven ? out.withMicroBatches(MICRO_BATCHES_PER_STAGE * p.pp()) : out;
  }

  /**
   * The first plan, in the search's order, that the rules let run (not yet checked against memory), resolved as
   * the search runs it; the first rule broken when none can. Sizes the search before it runs (its op count).
   */
  static Task firstRunnable(ScenarioOptions.Resolved r, SystemSpec s, ModelSpec m) {
    PrecisionSupport.Adapted a = PrecisionSupport.adapt(r.task(), s.device(), r.software(), r.precisionGiven());
    llmsim.core.hw.SoftwareSupport.checkRuns(s.device(), a.task(), r.software());
    boolean microBatchesGiven = microBatchesGiven(r);
    ScenarioKeyException first = null;
    for (ParallelPlan p : candidates(a.task(), s, m, r.hybridShard())) {
      try {
        return Placement.resolve(s, m, withPlan(a.task().withOffload(Offload.NONE), p, microBatchesGiven));
      } catch (ScenarioKeyException e) {
        first = first == null ? e : first;
      }
    }
    throw first != null ? first : new ScenarioKeyException(ScenarioKey.PLAN, "'plan' auto finds no plan for " + m.id() + " on " + s.id());
  }

  /**
   * What would let a plan fit: more GPUs, and of "a smaller batch" and "--recompute full" only what lets one of the
   * {@code runnable} plans fit on these GPUs (a lever the task pulled already, batch 1 or full recomputation, or one
   * that still leaves every plan short, sent a user to try it for nothing: LLaMA-7B training on one RTX 4090 needs
   * 16 bytes a parameter, about 100 GiB, with or without recomputation).
   */
  static String remedies(Task t, List<Task> runnable, SystemSpec s, ModelSpec m, llmsim.core.software.SoftwareProfile sw) {
    List<String> out = new ArrayList<>(List.of("more GPUs"));
    if (t.batch() > 1 && anyFits(runnable.stream().map(p -> p.withBatch(1)).toList(), s, m, sw)) {
      out.add("a smaller batch");
    }
    if (!t.recompute().recomputesLayers()
        && anyFits(runnable.stream().map(p -> p.withRecompute(llmsim.core.task.Recompute.FULL)).toList(), s, m, sw)) {
      out.add("--recompute full");
    }
    return out.size() == 1 ? out.get(0)
        : String.join(", ", out.subList(0, out.size() - 1)) + " or " + out.get(out.size() - 1);
  }

  private static boolean anyFits(List<Task> tasks, SystemSpec s, ModelSpec m, llmsim.core.software.SoftwareProfile sw) {
    return tasks.stream().anyMatch(t -> MemoryPlanner.place(s, m, t, sw, Offload.NONE).fits());
  }

  /**
   * The candidates a rule refuses (ZeRO-2/3 with pipeline stages, a global batch dp does not divide, tp not dividing
   * the heads ...), said apart from those that do not fit, with the first one's rule up to its reason: counted as
   * tried alone they read as plans too big.
   */
  private static String refusedNote(int refused, int tried, ScenarioKeyException first) {
    String rule = first.getMessage();
    int reason = rule.indexOf(": ");
    return refused + " of the " + tried + " cannot run here, the first because " + (reason > 0 ? rule.substring(0,
        reason) : rule);
  }

  static StepResult best(ScenarioOptions.Resolved r, SystemSpec s, ModelSpec m) {
    PrecisionSupport.Adapted a = PrecisionSupport.adapt(r.task(), s.device(), r.software(), r.precisionGiven());
    llmsim.core.hw.SoftwareSupport.check(s.device(), a.task(), r.software());
    Task base = a.task();
    int gpus = s.totalDevices();
    List<ParallelPlan> candidates = candidates(base, s, m, r.hybridShard());
    if (candidates.size() > MAX_CANDIDATES) {
      throw new ScenarioKeyException(ScenarioKey.PLAN, "'plan' auto would try " + candidates.size() + " plans on " + gpus + " GPUs, more than"
          + " " + MAX_CANDIDATES + "; give the plan itself (tp, pp, zero) with plan: given, or list the plans to try as"
          + " sweep axes (sweep --mode simulate --tp ... --pp ...)");
    }
    boolean microBatchesGiven = microBatchesGiven(r);
    StepResult best = null;
    int fit = 0;
    int runnable = 0;
    ScenarioKeyException firstRefusal = null;
    ScenarioKeyException hybridRefusal = null;
    int hybridRunnable = 0;
    List<Task> runnableTasks = new ArrayList<>();
    for (ParallelPlan p : candidates) {
      Task t = withPlan(base.withOffload(Offload.NONE), p, microBatchesGiven);
      try {
        t = Placement.resolve(s, m, t);
      } catch (ScenarioKeyException e) {
        firstRefusal = firstRefusal == null ? e : firstRefusal;
        hybridRefusal = hybridRefusal == null && p.hybridShard() ? e : hybridRefusal;
        continue; // a plan this model cannot run (tp not dividing the heads, ...)
      }
      runnable++;
      runnableTasks.add(t);
      hybridRunnable += p.hybridShard() ? 1 : 0;
      MemoryPlan mem = MemoryPlanner.place(s, m, t, r.software(), Offload.NONE);
      if (!mem.fits()) {
        continue;
      }
      fit++;
      StepResult res = Simulator.simulate(s, m, t, r.software());
      if (best == null || res.tokensPerSecond() > best.tokensPerSecond() * (1 + 1e-9)) {
        best = res;
      }
    }
    if (runnable == 0 && firstRefusal != null) {
      throw firstRefusal; // no plan can run at all: the rule, not memory, is the reason
    }
    if (r.hybridShard() && hybridRunnable == 0) {
      // shard: hybrid asked for and no hybrid plan can run here (one node, ...): the search would drop it unsaid
      throw hybridRefusal != null ? hybridRefusal : new ScenarioKeyException(ScenarioKey.SHARD, "'shard: hybrid' needs"
          + " a ZeRO-3 plan with several data-parallel replicas, and plan auto has none for " + m.id() + " on "
          + s.id());
    }
    int refused = candidates.size() - runnable;
    if (best == null) {
      throw new ScenarioKeyException(ScenarioKey.PLAN, "'plan' auto: " + (runnable == 1 ? "the one plan"
          : "none of the " + runnable + " plans") + (refused > 0 ? " that can run" : "") + " for " + m.id() + " on "
          + gpus + (gpus == 1 ? " GPU of " : " GPUs of ") + s.id() + (runnable == 1 ? " does not fit" : " fits")
          + " per-GPU memory at this batch"
          + (refused > 0 ? " (" + refusedNote(refused, candidates.size(), firstRefusal) + ")" : "")
          + "; " + remedies(base, runnableTasks, s, m, r.software()) + " would help");
    }
    Task won = best.task();
    String pipelineBatches = won.plan().pp() > 1 && !microBatchesGiven
        ? "; its pipeline runs " + MICRO_BATCHES_PER_STAGE + " micro-batches per stage (" + won.microBatches()
            + ", global batch " + (long) won.batch() * won.microBatches() * won.plan().dp() + " sequences), as"
            + " neither --micro-batches nor --global-batch was given"
        : "";
    if (candidates.size() == 1) {
      // one GPU: the one plan there, nothing to choose between ('the fastest of 1 plans that fit (1 tried)')
      StepResult one = best.withJobTokens(r.jobTokens()).withWarning("plan auto: " + won.plan().describe()
          + " is the one plan on one GPU, and it fits without offload");
      return a.note() == null ? one : one.withWarning(a.note());
    }
    StepResult out = best.withJobTokens(r.jobTokens()).withWarning("plan auto: " + won.plan().describe()
        + (fit == 1 ? " was the one plan that fits" : " was the fastest of " + fit + " plans that fit") + " ("
        + candidates.size() + " tried"
        + (runnable > fit ? "; " + (runnable - fit) + (runnable - fit == 1 ? " does" : " do") + " not fit per-GPU memory"
            : "")
        + (refused > 0 ? "; " + refusedNote(refused, candidates.size(), firstRefusal) : "") + ")" + pipelineBatches
        + (r.hybridShard() && won.plan().zero() != 3 ? "; shard hybrid applies to its ZeRO-3 plans, and none of them"
            + " was the fastest" : ""));
    return a.note() == null ? out : out.withWarning(a.note());
  }
}
