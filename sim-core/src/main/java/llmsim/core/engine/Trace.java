package llmsim.core.engine;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.kernel.RooflineKernel;

/**
 * What a run did: every op's stream, start, end, FLOPs, bytes and standalone bound. Utilisation and
 * the time attributed to each bound are derived from it.
 *
 * <p>The op columns and costs are held per row of the op table (once for all copies of a replicated op);
 * {@link #ops()} and {@link #costs()} spread them over every op when asked, the per-op accessors read the row.
 */
public final class Trace {
  private static final Bound[] BOUNDS = Bound.values();
  private final List<String> streams;
  private final List<Lane> lanes;
  private final List<String> pools;
  private final OpTable table;
  private final Costs rowCosts;
  private final double[] start;
  private final double[] end;
  private final double makespan;
  private final String kernel;
  private final long events;
  private final double[] byBound;
  /** Per stream, the simulated GPU it belongs to. */
  private final int[] streamGpus;
  /** Per GPU, the GPU it ran in step with, or itself ({@link #inStepWith}). */
  private final int[] inStep;
  /** Per GPU, {@link #standsFor}, made on first use. */
  private int[] standsFor;
  private final int size;
  private OpTable.Ops ops;
  private Costs costs;

  /**
   * @param makespan time from the first op's start (0) to the last op's end
   * @param byBound seconds attributed to each bound (by ordinal), as {@link BoundSweep} summed them during the run
   */
  Trace(List<String> streams, List<Lane> lanes, int[] streamGpus, int[] inStep, List<String> pools, OpTable table,
      Costs rowCosts, int size, double[] start, double[] end, double makespan, String kernel, long events,
      double[] byBound) {
    this.streams = streams;
    this.lanes = lanes;
    this.streamGpus = streamGpus;
    this.inStep = inStep;
    this.pools = pools;
    this.table = table;
    this.rowCosts = rowCosts;
    this.size = size;
    this.start = start;
    this.end = end;
    this.makespan = makespan;
    this.kernel = kernel;
    this.events = events;
    this.byBound = byBound;
  }

  public List<String> streams() {
    return streams;
  }

  public List<Lane> lanes() {
    return lanes;
  }

  /** The simulated GPU stream {@code stream} belongs to (0 to {@link #gpus()} - 1). */
  public int gpuOf(int stream) {
    return streamGpus[stream];
  }

  /** How many GPUs the run simulated, each with its own streams (at least one). */
  public int gpus() {
    return inStep.length;
  }

  /**
   * The GPU whose every op GPU {@code gpu} ran in step with: the same ops (its copies of them) starting and ending
   * at the same instants, so that its timeline is that GPU's; or {@code gpu} itself. With every GPU simulated, the
   * peers of a symmetric plan are found in step with one of them (checked op by op, {@link BoundSweep}).
   */
  public int inStepWith(int gpu) {
    return inStep[gpu];
  }

  /** How many other GPUs ran in step with GPU {@code gpu} ({@link #inStepWith}). */
  public int peersInStep(int gpu) {
    return Math.max(0, standsFor(gpu) - 1);
  }

  /**
   * How many GPUs GPU {@code gpu}'s ops stand for: itself and those that ran in step with it; 0 for a GPU that ran in
   * step with another (its ops are that GPU's again). Sums over the GPUs that stand for any, each op weighted so, are
   * sums over every GPU.
   */
  public synchronized int standsFor(int gpu) {
    if (standsFor == null) {
      int[] n = new int[inStep.length];
      for (int g = 0; g < inStep.length; g++) {
        n[inStep[g]]++;
      }
      standsFor = n;
    }
    return standsFor[gpu];
  }

  /** The stream op {@code op} ran on (without spreading the op columns over every copy, as {@link #ops} does). */
  public int stream(int op) {
    return table.stream(op);
  }

  /** Op {@code op}'s name, kind and FLOPs, read from its row. */
  public String name(int op) {
    return table.name(op);
  }

  public OpKind kind(int op) {
    return table.kind(op);
  }

  public double flops(int op) {
    return table.flops(op);
  }

  /** The layer the builder tagged op {@code op} with (-1: none). */
  public int layer(int op) {
    return table.layerOf(op);
  }

  /** Op {@code op}'s launch (dispatch) seconds and standalone seconds, read from its row's costs. */
  public double launchSeconds(int op) {
    return rowCosts.launch[table.row(op)];
  }

  public double standaloneSeconds(int op) {
    return rowCosts.time[table.row(op)];
  }

  public List<String> pools() {
    return pools;
  }

  /** Every op's columns, one entry per op (for a replicated run, built on the first call). */
  public synchronized OpTable.Ops ops() {
    if (ops == null) {
      ops = table.freeze();
    }
    return ops;
  }

  /** Every op's costs, one entry per op (for a replicated run, built on the first call). */
  public synchronized Costs costs() {
    if (costs == null) {
      costs = rowCosts.perOp(table);
    }
    return costs;
  }

  /** Each op's start, the first {@link #size()} entries (a workspace's array may be longer: see {@link Workspace}). */
  public double[] start() {
    return start;
  }

  /** Each op's end, the first {@link #size()} entries (as {@link #start()}). */
  public double[] end() {
    return end;
  }

  public double makespan() {
    return makespan;
  }

  public String kernel() {
    return kernel;
  }

  /** Events popped from the queue, superseded completions included. */
  public long events() {
    return events;
  }

  public int size() {
    return size;
  }

  public double duration(int op) {
    return end[op] - start[op];
  }

  /** The lane of op {@code op}'s stream. */
  public Lane lane(int op) {
    return lanes.get(table.stream(op));
  }

  public double memBytes(int op) {
    return table.memBytes(op);
  }

  public double linkBytes(int op) {
    return table.linkBytes(op);
  }

  /** Busy seconds of each stream (its ops never overlap, so this is a plain sum). */
  public double[] busySeconds() {
    double[] busy = new double[streams.size()];
    for (int i = 0; i < size(); i++) {
      busy[table.stream(i)] += duration(i);
    }
    return busy;
  }

  public Bound opBound(int op) {
    return opBound(lane(op), rowCosts.bound[table.row(op)]);
  }

  static Bound opBound(Lane lane, double b) {
    if (lane == Lane.CPU) {
      return Bound.HOST;
    }
    Bound transfer = Bound.ofTransferLane(lane);
    if (transfer != null) {
      return transfer;
    }
    if (b == RooflineKernel.LINK) {
      return Bound.HOST_LINK;
    }
    return b == RooflineKernel.COMPUTE ? Bound.COMPUTE : Bound.DEVICE_MEMORY;
  }

  /**
   * Wall-clock time attributed to each bound, summing to the makespan. At each instant: the bound of
   * the GPU op running, if any, where the first {@code launch} seconds of each GPU op are overhead (dispatch
   * before the work); else the host link if a transfer runs; else the host if a CPU op runs (the GPU waits on
   * them); else overhead (the GPU idles between launches). Where several intervals of a kind cover an instant,
   * the one starting last counts, and of those starting together the one of the larger op id (its work rather
   * than its launch). The sums are made during the run, span by span between consecutive instants where
   * something starts or ends, in time order ({@link BoundSweep}).
   */
  public Map<Bound, Double> timeByBound() {
    Map<Bound, Double> out = new EnumMap<>(Bound.class);
    for (Bound b : BOUNDS) {
      out.put(b, byBound[b.ordinal()]);
    }
    return out;
  }
}
