package llmsim.cli;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import llmsim.core.kernel.Kernels;
import llmsim.core.cost.JobCost;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.sweep.ChunkLayout;
import llmsim.core.sweep.ChunkedJob;
import llmsim.core.workload.Estimate;
import llmsim.core.workload.Estimator;

/**
 * A sweep as a backend moves it: the grid's axes as the user wrote them (never its points), the mode, the row format
 * and the ranking. Chunk {@code c} is points {@link #start} up to {@link #end} (chunks of {@code chunkSize}, the last
 * few smaller: {@link ChunkLayout}), each decoded from its index, so a worker in another process rebuilds the grid
 * once and computes any chunk to the same bytes.
 *
 * <p>Files named in the axes ({@code --hardware ./my-gpu.yaml}) are read by each worker, at the same path.
 */
record SweepJob(String id, EnumMap<ScenarioKey, ArrayList<String>> axes, ArrayList<String> sets,
    EnumMap<ScenarioKey, String> jobFlags, String mode, boolean jsonl, Integer top, String by, int chunkSize,
    long points, String kernel) implements ChunkedJob<SweepJob.Chunk> {
  private static final long serialVersionUID = 1L;

  /**
   * One chunk's rows, or with --top its best rows, the number of its points that do not fit memory (never ranked:
   * their times assume the memory were there) and of the others that have no value of --by to rank (ttft_s of a
   * training point; cost where the device has no price).
   */
  record Chunk(String text, List<Ranked> best, long unfit, long unranked) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  record Ranked(double value, long index, String row) implements Serializable {
    private static final long serialVersionUID = 1L;
  }

  /** Grids already built in this process, by job id (a worker serves one sweep after another; the last few stay). */
  private static final Map<String, Built> GRIDS = new LinkedHashMap<>(8, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Built> eldest) {
      return size() > 4;
    }
  };
  private static final java.util.concurrent.atomic.AtomicLong NEXT_ID = new java.util.concurrent.atomic.AtomicLong();
  private static final ThreadLocal<Estimator> ESTIMATORS = ThreadLocal.withInitial(() -> new Estimator(Kernels.get()));

  /**
   * {@code sets}: the --set overrides, applied to the catalog by each worker as here; {@code jobFlags}: the job's
   * size and prices as typed (empty without a job), from which each worker prices its rows as {@code costs} here.
   */
  static SweepJob of(Map<ScenarioKey, List<String>> axes, List<String> sets, Map<ScenarioKey, String> jobFlags,
      SweepGrid grid, SweepCosts costs, String mode, boolean jsonl, Integer top, String by, int chunkSize,
      long points) {
    EnumMap<ScenarioKey, ArrayList<String>> copy = new EnumMap<>(ScenarioKey.class);
    axes.forEach((k, v) -> copy.put(k, new ArrayList<>(v)));
    // process id and clock: unique enough to key a worker's cache, and unlike UUID.randomUUID it does not load
    // SecureRandom (about 40 classes) into every local sweep
    String id = ProcessHandle.current().pid() + "-" + System.nanoTime() + "-" + NEXT_ID.incrementAndGet();
    EnumMap<ScenarioKey, String> job = new EnumMap<>(ScenarioKey.class);
    job.putAll(jobFlags);
    SweepJob sweep = new SweepJob(id, copy, new ArrayList<>(sets), job, mode, jsonl, top, by, chunkSize, points,
        Kernels.get().name());
    synchronized (GRIDS) {
      GRIDS.put(sweep.id, new Built(grid, costs));
    }
    return sweep;
  }

  /** A grid and its job's pricing, built once per process and sweep. */
  private record Built(SweepGrid grid, SweepCosts costs) {}

  /** Whether rows carry the job's columns. */
  boolean priced() {
    return !jobFlags.isEmpty();
  }

  @Override
  public long chunks() {
    return layout().chunks();
  }

  /** The first point of chunk {@code c}. */
  long start(long c) {
    return layout().start(c);
  }

  /** One past the last point of chunk {@code c}. */
  long end(long c) {
    return layout().end(c);
  }

  private ChunkLayout layout() {
    return new ChunkLayout(points, chunkSize);
  }

  @Override
  public Chunk compute(long c) {
    String here = Kernels.get().name();
    if (!here.equals(kernel)) { // rows name the kernel, and the kernels' sums may differ in the last bits
      throw new IllegalStateException("this worker runs the " + here + " kernel where the sweep was started with "
          + kernel + ": start every worker with the same JVM options (--add-modules jdk.incubator.vector)");
    }
    Built built = built();
    SweepGrid grid = built.grid();
    SweepCosts costs = built.costs();
    Estimator est = ESTIMATORS.get();
    StringBuilder b = new StringBuilder(chunkSize * 200);
    List<Ranked> best = new ArrayList<>();
    long unfit = 0;
    long unranked = 0;
    long end = end(c);
    for (long i = start(c); i < end; i++) {
      SweepGrid.Point p = grid.point(i);
      if (p == null) {
        continue; // refused by a rule: the sweep named it before any row
      }
      Estimate e = mode.equals("analytic") ? est.analytic(p.system(), p.model(), p.task(), p.software())
          : est.simulated(p.system(), p.model(), p.task(), p.software());
      JobCost cost = costs == null ? null : costs.cost(p.system(), p.task(), e);
      if (top == null) {
        SweepRows.append(b, p, e, mode, kernel, jsonl, costs, cost);
      } else if (!e.memory().fits()) {
        unfit++; // a configuration that cannot run is no one's best, however fast its time as if it fitted
      } else {
        double v = SweepRows.metric(e, cost, by);
        if (!Double.isNaN(v)) {
          StringBuilder row = new StringBuilder(200);
          SweepRows.append(row, p, e, mode, kernel, jsonl, costs, cost);
          best.add(new Ranked(v, i, row.toString()));
          if (best.size() > 4 * top) {
            best = keepBest(best);
          }
        } else {
          unranked++;
        }
      }
    }
    return new Chunk(b.toString(), top == null ? List.of() : keepBest(best), unfit, unranked);
  }

  /** The best --top rows by --by, ties by index: the same rows in the same order however the chunks fell. */
  List<Ranked> keepBest(List<Ranked> rows) {
    Comparator<Ranked> order = Comparator.comparingDouble(Ranked::value);
    if (SweepRows.higherIsBetter(by)) {
      order = order.reversed();
    }
    order = order.thenComparingLong(Ranked::index);
    return new ArrayList<>(rows.stream().sorted(order).limit(top).toList());
  }

  /** The grid this sweep's points come from, built once per process. */
  SweepGrid grid() {
    return built().grid();
  }

  private Built built() {
    synchronized (GRIDS) {
      return GRIDS.computeIfAbsent(id, k -> {
        Map<ScenarioKey, List<String>> raw = new EnumMap<>(ScenarioKey.class);
        raw.putAll(axes);
        SweepCosts costs = jobFlags.isEmpty() ? null : SweepCosts.of(ScenarioOptions.of(jobFlags),
            axes.get(ScenarioKey.HARDWARE));
        return new Built(new SweepGrid(raw, llmsim.hw.catalog.Catalog.bundled().withOverrides(sets), costs), costs);
      });
    }
  }
}
