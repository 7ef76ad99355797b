package llmsim.core.workload;

import java.util.Locale;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;

/**
 * How many ops an event-simulated run holds, known before anything is built, and whether a heap can hold
 * them. The count walks the {@link WorkloadBuilder} itself through a sink that, like the closed form, runs
 * each repeated section (micro-batches, layers, decode steps) once and counts its ops n times: it is exact,
 * follows the builder when the builder changes, and costs one step's worth of ops however long the run.
 */
public final class OpBudget {
  /**
   * Heap bytes a simulated op needs through a run: its columns in the op table (and their growth copies),
   * its costs, the engine's run-time state, the frozen trace and the bound attribution. Measured: llama3-70b
   * on h100-sxm generating 2,048 tokens (1,716,225 ops) fails with -Xmx600m and runs with -Xmx650m, so
   * 370-400 B per op; the issue measured about 400 B at 16,384 tokens. Rounded up.
   */
  public static final long BYTES_PER_OP = 400;
  /**
   * Heap bytes per op when the reports are written too (simulate --out): the Chrome trace is built as one
   * string of about 160 characters per op, and the timeline and roofline charts walk every op. Measured: the
   * same 1,716,225-op run with --out fails with -Xmx1500m and runs with -Xmx2000m, so 900-1,200 B per op.
   */
  public static final long REPORT_BYTES_PER_OP = 1200;
  /**
   * Heap bytes each GPU's copy of an op takes when every GPU is simulated (--all-gpus): the copies of an op are one
   * row of the op table, with its columns, costs and name held once, and a run's changing state is kept per stream
   * (each runs one op at a time), so a copy holds only its start and end, the count of dependencies it waits for, its
   * row and its progress for the bound attribution: 25 B, and the event queue's runs. Measured on ClusterBench's
   * every-GPU step (46.1 M ops, two runs on one workspace): it runs with -Xmx1200m and fails with -Xmx1000m, so
   * 22-26 B an op; rounded up. (72 B until 2026-12-02, when each copy kept four longs of run-time state.)
   */
  public static final long COPY_BYTES_PER_OP = 32;
  /** Share of the maximum heap ops may take; the rest is for the JVM's own use, the catalog and the results. */
  public static final double HEAP_SHARE = 0.9;
  /** The engine packs an op id and a flag bit into an int event payload, so ids stay below 2^30. */
  public static final long MAX_OPS = (1L << 30) - 1;

  private OpBudget() {}

  /** Ops a simulation of (system, model, task, software) would add, counted without building them. */
  public static long ops(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw) {
    Counter c = new Counter();
    new WorkloadBuilder(s, m, t, sw, MemoryPlanner.choose(s, m, t, sw), c).build();
    // with every GPU simulated each op is added once per peer, and each transfer gets a synchronisation op
    double count = c.count * (t.plan().allGpus() ? t.plan().peersPerStage() + 1 : 1);
    return count >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) count;
  }

  /**
   * Heap bytes per op of a run of {@code t}: {@link #REPORT_BYTES_PER_OP} with reports (they list every op), else
   * {@link #BYTES_PER_OP}; with every GPU simulated {@link #COPY_BYTES_PER_OP} plus each op's share of its row
   * (one row per op of one GPU, at most as many again for the synchronisations, over {@link #ops}'s peers + 1 per
   * op of one GPU), and with reports each op's share of the ops they list ({@link #reportedShare}).
   */
  public static long bytesPerOp(Task t, boolean reports) {
    int peers = t.plan().allGpus() ? t.plan().peersPerStage() : 1;
    if (peers <= 1) {
      return reports ? REPORT_BYTES_PER_OP : BYTES_PER_OP;
    }
    long copy = COPY_BYTES_PER_OP + (2 * BYTES_PER_OP + peers) / (peers + 1);
    return reports ? copy + (long) Math.ceil(REPORT_BYTES_PER_OP * reportedShare(peers)) : copy;
  }

  /**
   * The share of an every-GPU run's ops (of {@code peers} per stage) its reports list when the peers run in step:
   * those of the GPUs no other ran in step with, each stage's first peer (which also runs the peers'
   * synchronisations, one op per transfer) and one peer the others repeat, at most 3 ops of every {@code peers + 1}
   * a GPU's op becomes. Where the peers fall out of step the reports list more, which {@link #checkReported} refuses
   * after the run where the heap cannot hold it.
   */
  static double reportedShare(int peers) {
    return Math.min(1, 3.0 / (peers + 1));
  }

  /**
   * Refuses reports that would list {@code ops} ops one by one at {@link #REPORT_BYTES_PER_OP} each, more than a heap
   * of {@code maxHeapBytes} holds: an every-GPU run whose peers did not run in step, so that each is drawn.
   *
   * @throws IllegalStateException saying so, before any report is written
   */
  public static void checkReported(long ops, long maxHeapBytes) {
    long limit = limit(maxHeapBytes, REPORT_BYTES_PER_OP);
    if (ops > limit) {
      throw new IllegalStateException(String.format(Locale.US, "the simulated GPUs did not all run in step with a"
          + " peer, so the reports would draw %,d ops one by one, more than the %.0f%% of this JVM's %.1f GiB heap"
          + " they may take (about %,d ops at %,d B each); no report was written; the results above stand; run"
          + " without --out, or with a larger heap (java -Xmx)", ops, HEAP_SHARE * 100, maxHeapBytes / GIB, limit,
          REPORT_BYTES_PER_OP));
    }
  }

  /** The most ops of {@code bytesPerOp} each a heap of {@code maxHeapBytes} holds at once, within {@link #MAX_OPS}. */
  public static long limit(long maxHeapBytes, long bytesPerOp) {
    return Math.min(MAX_OPS, (long) (maxHeapBytes * HEAP_SHARE / bytesPerOp));
  }

  /**
   * Refuses {@code ops} ops of {@code bytesPerOp} each ({@link #BYTES_PER_OP}, or {@link #REPORT_BYTES_PER_OP}
   * with reports) in total, from {@code runs} simulations of {@code t} held at once (one per system
   * of a comparison, or one per sweep thread; {@code runsAre} names them: "systems", "sweep threads"), that a
   * heap of {@code maxHeapBytes} cannot hold. The message names the key that drives the size: the generated
   * tokens (one decode step each), the micro-batches, or else the model (its layers).
   *
   * @throws ScenarioKeyException naming the key, the op count, the bytes and the heap
   */
  public static void check(long ops, long bytesPerOp, int runs, String runsAre, Task t, long maxHeapBytes) {
    long limit = limit(maxHeapBytes, bytesPerOp);
    if (ops <= limit) {
      return;
    }
    ScenarioKey key;
    String what;
    if (!t.kind().training() && t.generateTokens() > 1) {
      key = ScenarioKey.GENERATE_TOKENS;
      what = String.format(Locale.US, "%,d generated tokens (%,d decode steps)", t.generateTokens(), t.generateTokens() - 1);
    } else if (t.kind().training() && t.microBatches() > 1) {
      key = ScenarioKey.MICRO_BATCHES;
      what = String.format(Locale.US, "%,d micro-batches", t.microBatches());
    } else {
      key = ScenarioKey.MODEL;
      what = "this model's layers";
    }
    String on = runs > 1 ? String.format(Locale.US, " for %d %s at once", runs, runsAre) : "";
    String why = ops > MAX_OPS
        ? String.format(Locale.US, "more than the engine's %,d op ids", MAX_OPS)
        : String.format(Locale.US, "more than the %.0f%% of this JVM's %.1f GiB heap they may take (about %,d ops"
            + " at %,d B each)", HEAP_SHARE * 100, maxHeapBytes / GIB, limit, bytesPerOp);
    String fewer = key == ScenarioKey.GENERATE_TOKENS ? "fewer tokens" : key == ScenarioKey.MICRO_BATCHES
        ? "fewer micro-batches" : "a smaller model";
    throw new ScenarioKeyException(key, String.format(Locale.US,
        "%s%s would need about %,d ops (%.1f GiB) to simulate event by event, %s; use %s%s,%s or sweep --mode"
            + " analytic, which costs the same ops in closed form",
        what, on, ops, (double) ops * bytesPerOp / GIB, why, fewer, runs > 1 ? " or fewer " + runsAre : "",
        ops > MAX_OPS ? "" : " a larger heap (java -Xmx),"));
  }

  private static final double GIB = 1024.0 * 1024 * 1024;

  /** Counts ops; a repeated section is walked once and weighted by its count, as {@link RooflineSum} does. */
  private static final class Counter extends ClosedFormSink {
    private int resources;
    double count;

    @Override
    public int addPool(String name) {
      return resources++;
    }

    @Override
    public int addStream(String name, Lane lane) {
      return resources++;
    }

    @Override
    public int addGroup(CostGroup g) {
      return resources++;
    }

    @Override
    public int addOp(String name, OpKind kind, int stream, int group, double flops, double memBytes, double linkBytes,
        int... deps) {
      count += weight();
      return -1;
    }
  }
}
