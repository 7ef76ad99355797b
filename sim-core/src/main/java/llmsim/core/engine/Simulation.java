package llmsim.core.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import llmsim.core.kernel.Kernels;
import llmsim.core.kernel.RooflineKernel;

/**
 * A discrete-event simulation of one step. Build it (pools, streams, cost groups, ops with their
 * dependencies), then {@link #run()} once. Single-threaded and deterministic.
 *
 * <p>Ops run in submission order within a stream and overlap across streams. An op holds its stream
 * for its launch overhead, then flows: its progress rate is {@code 1 / max(t_compute, t_memory x n_mem,
 * t_link x n_link)}, where {@code n} counts the ops flowing on the same pool at that moment, so
 * concurrent transfers on one link direction, or GPU and CPU ops on one unified-memory pool, share the
 * bandwidth fairly and are re-shared whenever one starts or ends.
 *
 * <p>A communication kernel may hold SMs of its GPU from its start to its end ({@link CostGroup#smsHeld()}: an NCCL
 * collective runs one CTA per channel, each alone on an SM). While ops hold {@code h} of the {@code S} SMs of the GPU
 * whose memory pool is {@code p}, every op flowing on {@code p} has its compute time scaled by {@code S / (S - h)}:
 * compute-bound work runs on the SMs left. Its memory time is not scaled. Ops on {@code p} are re-rated at the
 * instants a holder starts and ends, as transfers are when a link's sharers change.
 *
 * <p>Event order is (time, priority, sequence): at equal times completions (priority 0) run before
 * flow starts (priority 1), so a freed resource is seen by what starts at the same instant.
 */
public final class Simulation implements OpSink {
  private static final int COMPLETE = 0;
  private static final int FLOW = 1;

  private final List<String> poolNames = new ArrayList<>();
  private final List<String> streamNames = new ArrayList<>();
  private final List<Lane> streamLanes = new ArrayList<>();
  /** Per stream, the simulated GPU it belongs to ({@link OpSink#addStream(String, Lane, int)}). */
  private final List<Integer> streamGpus = new ArrayList<>();
  /** How many simulated GPUs the streams belong to. */
  private int gpus;
  private final List<CostGroup> groups = new ArrayList<>();
  private final RooflineKernel kernel;
  final OpTable ops;
  /** Where the table's and the run's arrays are kept between runs; null: this simulation's own. */
  private final Workspace ws;
  /** Whether peers running copies of the same ops are swept once for all ({@link BoundSweep.Shadows}). */
  private boolean shadows = true;
  /** How many GPUs the last run's sweep went through on their own (tests). */
  private int swept;

  public Simulation() {
    this(Kernels.get());
  }

  public Simulation(RooflineKernel kernel) {
    this(kernel, null);
  }

  /**
   * A simulation whose op table, costs and run use {@code ws}'s arrays (null: its own): its trace is valid until
   * the next simulation on {@code ws} runs (see {@link Workspace}).
   */
  public Simulation(RooflineKernel kernel, Workspace ws) {
    this.kernel = kernel;
    this.ws = ws;
    this.ops = ws == null ? new OpTable() : ws.table();
  }

  @Override
  public int addPool(String name) {
    poolNames.add(name);
    return poolNames.size() - 1;
  }

  /** A stream of the first stream's GPU (the first stream's own: a new one). */
  @Override
  public int addStream(String name, Lane lane) {
    return addStream(name, lane, streamNames.isEmpty() ? -1 : 0);
  }

  @Override
  public int addStream(String name, Lane lane, int owner) {
    if (owner >= streamNames.size()) {
      throw new IllegalArgumentException("stream " + name + ": its GPU's stream " + owner + " is not added yet");
    }
    streamNames.add(name);
    streamLanes.add(lane);
    streamGpus.add(owner < 0 ? gpus++ : streamGpus.get(owner));
    return streamNames.size() - 1;
  }

  @Override
  public int addGroup(CostGroup g) {
    if (g.memPool() >= poolNames.size() || g.linkPool() >= poolNames.size() || g.smPool() >= poolNames.size()) {
      throw new IllegalArgumentException("cost group " + g.name() + " names an unknown pool");
    }
    groups.add(g);
    return groups.size() - 1;
  }

  /** Add an op; returns its id. {@code deps} must be ids of ops already added. */
  @Override
  public int addOp(String name, OpKind kind, int stream, int group, double flops, double memBytes, double linkBytes,
      int... deps) {
    return addCopies(null, name, kind, stream, group, flops, memBytes, linkBytes, 0, 0, 0, 1, deps);
  }

  @Override
  public int addOp(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double linkBytes, int... deps) {
    return addCopies(prefix, name, kind, stream, group, flops, memBytes, linkBytes, 0, 0, 0, 1, deps);
  }

  @Override
  public int addGemm(String name, OpKind kind, int stream, int group, double flops, double memBytes, double m,
      double n, double k, int... deps) {
    return addGemm(null, name, kind, stream, group, flops, memBytes, m, n, k, deps);
  }

  @Override
  public int addGemm(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double m, double n, double k, int... deps) {
    if (!llmsim.core.kernel.GemmTiles.validShape(m, n, k)) {
      llmsim.core.kernel.GemmTiles.checkShape(OpTable.join(prefix, name), m, n, k);
    }
    return addCopies(prefix, name, kind, stream, group, flops, memBytes, 0, m, n, k, 1, deps);
  }

  /**
   * Add an op that runs as {@code copies} identical copies, copy j on stream {@code stream + j} charged to group
   * {@code group + j} (whose pools must be the first group's plus j: {@link ReplicatedSink} makes them so); returns
   * the first copy's id, the others following it. Dependencies name first copies; see {@link OpTable} for how
   * copies depend on copies. A GEMM has {@code m > 0}.
   */
  int addCopies(String name, OpKind kind, int stream, int group, double flops, double memBytes, double linkBytes,
      double m, double n, double k, int copies, int... deps) {
    return addCopies(null, name, kind, stream, group, flops, memBytes, linkBytes, m, n, k, copies, deps);
  }

  /** As above, the op named {@code prefix + name} ({@code prefix} null for none), joined only when read. */
  int addCopies(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double linkBytes, double m, double n, double k, int copies, int... deps) {
    if (stream < 0 || stream + copies > streamNames.size()) {
      throw new IllegalArgumentException("op " + OpTable.join(prefix, name) + ": unknown stream " + stream);
    }
    if (group < 0 || group + copies > groups.size()) {
      throw new IllegalArgumentException("op " + OpTable.join(prefix, name) + ": unknown cost group " + group);
    }
    if (!(flops >= 0) || !(memBytes >= 0) || !(linkBytes >= 0)) {
      throw new IllegalArgumentException("op " + OpTable.join(prefix, name) + ": flops and bytes must be >= 0");
    }
    for (int d : deps) {
      String bad = ops.badDependency(d, copies);
      if (bad != null) {
        throw new IllegalArgumentException("op " + OpTable.join(prefix, name) + ": " + bad);
      }
    }
    return ops.add(prefix, name, kind, stream, group, flops, memBytes, linkBytes, m, n, k, copies, deps);
  }

  @Override
  public void layer(int index) {
    ops.layer(index);
  }

  /** Sweep every GPU on its own, peers in step included (tests: the shadows' sums against their own). */
  void sweepEveryGpu() {
    shadows = false;
  }

  /** How many simulated GPUs the last run swept on their own: all but those that took a peer's sums. */
  int sweptGpus() {
    return swept;
  }

  public int opCount() {
    return ops.size();
  }

  /** Run to completion and return the trace. */
  public Trace run() {
    int n = ops.size();
    ops.index();
    Costs costs = Costs.evaluate(kernel, ops, groups, ws);
    Runner r = new Runner(n, costs, shadows);
    r.start();
    double[] byBound = r.sweep.finish(r.now);
    if (byBound == null) { // peers swept as one did not run in step: run again, sweeping each
      r = null; // the first run's arrays can go before the second's are made (OpBudget counts one run's)
      r = new Runner(n, costs, false);
      r.start();
      byBound = r.sweep.finish(r.now);
    }
    swept = r.sweep.swept();
    return new Trace(List.copyOf(streamNames), List.copyOf(streamLanes), r.gpuOf, r.sweep.inStep(),
        List.copyOf(poolNames), ops, costs, n, r.start, r.end, r.now, kernel.name(), r.events, byBound);
  }

  /**
   * The event loop and run-time state. What re-rating an op reads and writes is packed per op in one cache line,
   * {@code state[8 * op + ...]}: seven doubles (as their bits) and the op's two pools. One re-share touches ops far
   * apart in id, and one cache line per op costs far less than one per field. When ops are replicated
   * ({@link OpTable}), what is the same for every copy (the three standalone times and the first copy's pools) is
   * kept once per row, {@code rows[4 * row + ...]}, and the four fields a run changes are kept per stream,
   * {@code state[4 * stream + ...]}, for the one op each stream runs at a time ({@link #streamOp}): a few thousand
   * lines that stay in cache where one per op was a line of memory each (an every-GPU cluster step runs 46 M ops).
   * The op's slot in {@link #state} and in the pools' lists is therefore the op itself when packed, else its stream.
   */
  private final class Runner {
    private static final int REMAINING = 0;
    private static final int RATE = 1;
    private static final int LAST = 2;
    private static final int DUE = 3;
    /** Offsets in an op's or a row's fixed fields (see {@link #rows}): the standalone times, and the pools. */
    private static final int T_COMPUTE = 0;
    private static final int T_MEMORY = 1;
    private static final int T_LINK = 2;
    /** The memory pool in the high 32 bits, the link pool in the low ones (-1: none); a copy's are the row's plus j. */
    private static final int POOLS = 3;

    /** The queue: equal instants coalesced when ops are replicated (their copies act together), else plain. */
    final CoalescedQueue runs;
    final EventQueue plain;
    final double[] start;
    final double[] end;
    /** The fields a run changes, per slot: an op when packed, else a stream (see the class comment). */
    final long[] state;
    /** Whether every op holds its fixed fields in its own line (no replicated rows). */
    final boolean packed;
    /** Fields per op in {@link #state}: 8 packed, else 4. */
    final int stride;
    /** Where the fixed fields are: {@link #state} when packed, else one line of 4 per row. */
    final long[] rows;
    /** Per row (see {@link Costs}). */
    final double[] launch;
    final double[] rowBound;
    final Lane[] lane;
    final int[] pendingDeps;
    final int[] dependentsStart;
    final int[] dependents;
    /**
     * Per stream: the list of rows it runs ({@link OpTable#streamRows}; ops when packed), shared by peers' streams,
     * and how far it has got.
     */
    final int[] streamClass;
    final int[][] classRows;
    /** How many rows (ops when packed) each list of {@link #classRows} holds: a kept list may be longer. */
    final int[] classLength;
    final int[] streamHead;
    final boolean[] streamBusy;
    /**
     * Per stream, when ops are replicated: the op it runs (or ran last), that op's row, its start and the start of its
     * work (after its launch).
     */
    final int[] streamOp;
    final int[] streamRow;
    final double[] streamStart;
    final double[] streamWork;
    /** Per stream: the bound ordinal of the op it runs, and the simulated GPU it belongs to. */
    final int[] streamBound;
    final int[] gpuOf;
    final int[][] poolActive;
    final int[] poolSize;
    /** Per pool: SMs its GPU's communication kernels hold now, and the SMs the GPU has (0: none held ever). */
    final int[] smsHeld;
    final int[] smsOf;
    /** Per row: the pool whose GPU's SMs its ops hold (-1: none), and how many each holds. */
    final int[] rowSmPool;
    final int[] rowSmsHeld;
    /**
     * Whether any op holds SMs: when none does, starts, ends and re-rates skip the bookkeeping; when some do, only
     * ops on a communication lane are looked up.
     */
    final boolean holders;
    final BoundSweep sweep;
    double now;
    long events;

    Runner(int n, Costs c, boolean shadows) {
      runs = ops.replicated() ? new CoalescedQueue(Math.max(16, streamNames.size() * 4)) : null;
      plain = runs == null ? new EventQueue(Math.max(16, streamNames.size() * 4)) : null;
      packed = !ops.replicated();
      stride = packed ? 8 : 4;
      // with a workspace, its arrays: start and end are written for every op by the end of a run (one left
      // unstarted is a deadlock, thrown), a row's fixed fields here, a slot's remaining work and rate when its op
      // starts, its last update when the op's work begins and its due time when it is re-rated, before any is read
      if (ws == null) {
        start = new double[n];
        end = new double[n];
        state = new long[packed ? stride * n : stride * streamNames.size()];
        rows = packed ? state : new long[4 * ops.rows()];
      } else {
        start = ws.start = Workspace.doubles(ws.start, n);
        end = ws.end = Workspace.doubles(ws.end, n);
        state = ws.state = Workspace.longs(ws.state, packed ? stride * n : stride * streamNames.size());
        rows = packed ? state : (ws.rows = Workspace.longs(ws.rows, 4 * ops.rows()));
      }
      for (int row = 0; row < ops.rows(); row++) {
        int f = packed ? 8 * row + 4 : 4 * row;
        rows[f + T_COMPUTE] = Double.doubleToRawLongBits(c.tCompute[row]);
        rows[f + T_MEMORY] = Double.doubleToRawLongBits(c.tMemory[row]);
        rows[f + T_LINK] = Double.doubleToRawLongBits(c.tLink[row]);
        rows[f + POOLS] = (long) c.memPool(row) << 32 | (c.linkPool(row) & 0xffffffffL);
      }
      launch = c.launch;
      rowBound = c.bound;
      lane = streamLanes.toArray(new Lane[0]);
      if (ws == null) {
        pendingDeps = ops.depCounts(new int[n]);
        dependentsStart = new int[ops.rows() + 1];
        dependents = ops.dependents(dependentsStart, new int[0]);
      } else {
        pendingDeps = ops.depCounts(ws.pendingDeps = Workspace.ints(ws.pendingDeps, n));
        dependentsStart = ws.dependentsStart = Workspace.ints(ws.dependentsStart, ops.rows() + 1);
        Arrays.fill(dependentsStart, 0, ops.rows() + 1, 0);
        dependents = ws.dependents = ops.dependents(dependentsStart, ws.dependents);
      }
      streamClass = new int[streamNames.size()];
      if (packed) {
        classLength = new int[streamNames.size()];
        classRows = ops.streamQueues(streamNames.size(), ws == null ? null : ws.queues, classLength);
        if (ws != null) {
          if (ws.queues.length < classRows.length) {
            ws.queues = Arrays.copyOf(ws.queues, classRows.length);
          }
          System.arraycopy(classRows, 0, ws.queues, 0, classRows.length);
        }
        Arrays.setAll(streamClass, s -> s);
      } else {
        classRows = ops.streamRows(streamNames.size(), streamClass);
        classLength = new int[classRows.length];
        Arrays.setAll(classLength, k -> classRows[k].length);
      }
      streamHead = new int[streamNames.size()];
      streamBusy = new boolean[streamNames.size()];
      streamOp = packed ? null : new int[streamNames.size()];
      streamRow = packed ? null : new int[streamNames.size()];
      streamStart = packed ? null : new double[streamNames.size()];
      streamWork = packed ? null : new double[streamNames.size()];
      poolActive = new int[poolNames.size()][4];
      poolSize = new int[poolNames.size()];
      smsHeld = new int[poolNames.size()];
      smsOf = new int[poolNames.size()];
      rowSmPool = c.smPool;
      rowSmsHeld = c.smsHeld;
      boolean any = false;
      for (int row = 0; row < ops.rows(); row++) {
        if (c.smsHeld[row] > 0) {
          any = true;
          if (!streamLanes.get(ops.stream(ops.first(row))).communication()) {
            throw new IllegalArgumentException("op " + ops.name(ops.first(row)) + " holds SMs but runs on stream "
                + streamNames.get(ops.stream(ops.first(row))) + ", not an intra-node link or network one");
          }
          for (int j = 0; j < ops.copies(row); j++) {
            int pool = c.smPool[row] + j;
            if (smsOf[pool] != 0 && smsOf[pool] != c.smsOfDevice[row]) {
              throw new IllegalArgumentException("pool " + poolNames.get(pool) + ": its GPU has " + smsOf[pool]
                  + " SMs by one cost group and " + c.smsOfDevice[row] + " by another");
            }
            smsOf[pool] = c.smsOfDevice[row];
          }
        }
      }
      holders = any;
      // each op's bound worked out when it starts, where its row is at hand, and kept with its interval
      gpuOf = streamGpus.stream().mapToInt(Integer::intValue).toArray();
      sweep = new BoundSweep(phase(n), gpuOf, gpus,
          shadows && !packed && gpus > 1 ? BoundSweep.Shadows.of(gpuOf, streamClass, gpus) : null, ws);
      streamBound = new int[streamNames.size()];
    }

    /** The sweep's per-op phases: the workspace's, cleared, or new. */
    private byte[] phase(int n) {
      if (ws == null) {
        return new byte[n];
      }
      if (ws.phase.length < n) {
        ws.phase = new byte[n];
      } else {
        Arrays.fill(ws.phase, 0, n, (byte) 0);
      }
      return ws.phase;
    }

    private double get(int o, int field) {
      return Double.longBitsToDouble(state[o + field]);
    }

    private void put(int o, int field, double v) {
      state[o + field] = Double.doubleToRawLongBits(v);
    }

    private double fixedTime(int f, int field) {
      return Double.longBitsToDouble(rows[f + field]);
    }

    /** Where the fixed fields of the op in {@code slot} are in {@link #rows}: its own line when packed, else its row's. */
    private int fixed(int slot) {
      return packed ? 8 * slot + 4 : 4 * streamRow[slot];
    }

    /** The pools of the op in {@code slot}, packed as in {@link #POOLS}: its row's, plus its copy. */
    private long pools(int slot) {
      if (packed) {
        return state[8 * slot + 4 + POOLS];
      }
      int r = streamRow[slot];
      return ofCopy(rows[4 * r + POOLS], streamOp[slot] - ops.first(r));
    }

    private static long ofCopy(long pools, int j) {
      int mp = (int) (pools >> 32);
      int lp = (int) pools;
      return (long) (mp < 0 ? mp : mp + j) << 32 | ((lp < 0 ? lp : lp + j) & 0xffffffffL);
    }

    void start() {
      for (int s = 0; s < streamNames.size(); s++) {
        tryStart(s);
      }
      while (runs != null ? !runs.isEmpty() : !plain.isEmpty()) {
        double t = runs != null ? runs.peekTime() : plain.peekTime();
        int payload = runs != null ? runs.pop() : plain.pop();
        events++;
        int op = payload >>> 1;
        // a completion superseded by a re-rating is dropped without moving the clock: the makespan is the last
        // real event's time, not a stale one's
        if ((payload & 1) == FLOW) {
          now = t;
          beginFlow(op, ops.stream(op));
        } else if (packed) {
          if (get(8 * op, DUE) == t) {
            now = t;
            complete(op, ops.stream(op));
          }
        } else {
          // a stream's slot holds the op it runs: an event of an op it has finished names another op, or finds
          // the due time cleared
          int s = ops.stream(op);
          if (streamOp[s] == op && get(4 * s, DUE) == t) {
            now = t;
            complete(op, s);
          }
        }
      }
      for (int s = 0; s < streamClass.length; s++) {
        int[] q = classRows[streamClass[s]];
        if (streamHead[s] < classLength[streamClass[s]]) {
          int r = q[streamHead[s]];
          throw new IllegalStateException("deadlock: stream " + streamNames.get(s) + " stuck at op "
              + ops.name(packed ? r : ops.first(r) + s - ops.rowStream(r))
              + " (a dependency is queued behind it on the same stream?)");
        }
      }
    }

    private void push(double t, int priority, int payload) {
      if (runs != null) {
        runs.push(t, priority, payload);
      } else {
        plain.push(t, priority, payload);
      }
    }

    void tryStart(int s) {
      if (streamBusy[s]) {
        return;
      }
      int c = streamClass[s];
      int[] q = classRows[c];
      int h = streamHead[s];
      if (h >= classLength[c]) {
        return;
      }
      int r = q[h];
      int op = packed ? r : ops.first(r) + s - ops.rowStream(r);
      if (pendingDeps[op] > 0) {
        return;
      }
      streamBusy[s] = true;
      start[op] = now;
      int slot = op;
      if (!packed) {
        slot = s;
        streamOp[s] = op;
        streamRow[s] = r;
        streamStart[s] = now;
      }
      put(stride * slot, REMAINING, 1.0);
      put(stride * slot, RATE, 0); // as a new array has it: the first re-rate reads it (times no time elapsed)
      if (holders && lane[s].communication()) {
        holdSms(slot, 1, -1, -1);
      }
      double l = launch[r];
      int bound = Trace.opBound(lane[s], rowBound[r]).ordinal();
      streamBound[s] = bound;
      sweep.start(op, s, lane[s], now, now + l, bound);
      if (l > 0) {
        push(now + l, FLOW, (op << 1) | FLOW);
      } else {
        beginFlow(op, s);
      }
    }

    /** Op {@code op}, on stream {@code s}, has launched: its work starts, sharing its pools. */
    void beginFlow(int op, int s) {
      int slot = packed ? op : s;
      put(stride * slot, LAST, now);
      sweep.work(op, s, lane[s], now, now > (packed ? start[op] : streamStart[s]), streamBound[s]);
      if (!packed) {
        streamWork[s] = now;
      }
      long p = pools(slot);
      int mp = (int) (p >> 32);
      int lp = (int) p;
      if (mp >= 0) {
        join(mp, slot);
      }
      if (lp >= 0) {
        join(lp, slot);
      }
      reshare(slot, mp, lp);
    }

    /** Op {@code op}, on stream {@code s}, ends. */
    void complete(int op, int s) {
      int slot = packed ? op : s;
      put(stride * slot, REMAINING, 0);
      put(stride * slot, DUE, Double.NaN);
      end[op] = now;
      sweep.end(op, s, lane[s], now, packed ? 0 : streamStart[s], packed ? 0 : streamWork[s], streamBound[s]);
      long p = pools(slot);
      int mp = (int) (p >> 32);
      int lp = (int) p;
      if (mp >= 0) {
        leave(mp, slot);
      }
      if (lp >= 0) {
        leave(lp, slot);
      }
      // SMs handed back before the re-share, so that an op on these pools and on the GPU's is re-rated once
      if (holders && lane[s].communication()) {
        holdSms(slot, -1, mp, lp);
      }
      reshare(-1, mp, lp);
      streamBusy[s] = false;
      streamHead[s]++;
      // copy j of a row reaches copy j of a dependent of as many copies, the one copy of a dependent of one, and
      // every copy of a dependent when it is the one copy of its row (OpTable): in id order
      if (packed) {
        for (int k = dependentsStart[op]; k < dependentsStart[op + 1]; k++) {
          release(dependents[k]);
        }
        tryStart(s);
        return;
      }
      int row = streamRow[s];
      int copy = op - ops.first(row);
      boolean single = ops.copies(row) == 1;
      for (int k = dependentsStart[row]; k < dependentsStart[row + 1]; k++) {
        int dr = dependents[k];
        int d = ops.first(dr);
        int copies = ops.copies(dr);
        // copy j of a row runs on its first copy's stream + j: no lookup of the row an op id belongs to
        int ds = ops.rowStream(dr);
        if (copies == 1) {
          release(d, ds);
        } else if (single) {
          for (int j = 0; j < copies; j++) {
            release(d + j, ds + j);
          }
        } else {
          release(d + copy, ds + copy);
        }
      }
      tryStart(s);
    }

    private void release(int d) {
      release(d, ops.stream(d));
    }

    /** One dependency of op {@code d}, which runs on stream {@code stream}, has completed. */
    private void release(int d, int stream) {
      if (--pendingDeps[d] == 0) {
        tryStart(stream);
      }
    }

    /**
     * The op in {@code slot} takes ({@code sign} 1) or hands back (-1) the SMs it holds, if any, and every op flowing
     * on that GPU's memory pool is re-rated, except those on {@code mp} or {@code lp}, which the caller re-rates next.
     */
    private void holdSms(int slot, int sign, int mp, int lp) {
      int row = packed ? slot : streamRow[slot];
      int op = packed ? slot : streamOp[slot];
      int held = rowSmsHeld[row];
      if (held == 0) {
        return;
      }
      int pool = rowSmPool[row] + (op - ops.first(row));
      smsHeld[pool] += sign * held;
      if (pool == mp || pool == lp) {
        return;
      }
      int[] active = poolActive[pool];
      for (int i = 0; i < poolSize[pool]; i++) {
        int o = active[i];
        if (o != slot && (mp < 0 || !onPool(o, mp)) && (lp < 0 || !onPool(o, lp)) && !listedBefore(active, i)) {
          rerateIfChanged(o);
        }
      }
    }

    /**
     * What compute on pool {@code mp}'s GPU takes against standalone while kernels hold some of its SMs: its SMs over
     * those left (at least one).
     */
    private double computeScale(int mp) {
      int held = smsHeld[mp];
      int of = smsOf[mp];
      return (double) of / Math.max(1, of - held);
    }

    /**
     * Recompute the rate of the op in {@code slot} (none: -1) and of every op flowing on the pools it touched, each
     * once, in the order {@code slot}, those on {@code mp}, those on {@code lp}. An op is on a pool's list (by its
     * slot) once per pool of its own that is that pool: one on {@code mp}'s list has {@code mp} as its memory or link
     * pool, and one listed twice has it as both.
     */
    void reshare(int slot, int mp, int lp) {
      if (slot >= 0) {
        rerate(slot);
      }
      if (mp >= 0) {
        int[] active = poolActive[mp];
        for (int i = 0; i < poolSize[mp]; i++) {
          int o = active[i];
          if (o != slot && !listedBefore(active, i)) {
            rerate(o);
          }
        }
      }
      if (lp >= 0) {
        int[] active = poolActive[lp];
        for (int i = 0; i < poolSize[lp]; i++) {
          int o = active[i];
          if (o != slot && (mp < 0 || !onPool(o, mp)) && !listedBefore(active, i)) {
            rerate(o);
          }
        }
      }
    }

    /** Whether {@code active[i]}, if its memory and link pool are one, is listed before {@code i} too. */
    private boolean listedBefore(int[] active, int i) {
      int o = active[i];
      long p = pools(o);
      if ((int) (p >> 32) != (int) p) {
        return false;
      }
      for (int j = 0; j < i; j++) {
        if (active[j] == o) {
          return true;
        }
      }
      return false;
    }

    /** Whether {@code pool} is the memory or link pool of the op in slot {@code o}. */
    private boolean onPool(int o, int pool) {
      long p = pools(o);
      return (int) (p >> 32) == pool || (int) p == pool;
    }

    /** Re-rate the op in {@code slot} at its current share and push its completion at that rate. */
    void rerate(int slot) {
      int o = stride * slot;
      int f = fixed(slot);
      long p = pools(slot);
      int op = packed ? slot : streamOp[slot];
      double remaining = Math.max(0, get(o, REMAINING) - get(o, RATE) * (now - get(o, LAST)));
      put(o, REMAINING, remaining);
      put(o, LAST, now);
      double t = serviceTime(f, p);
      double when;
      if (t <= 0) {
        put(o, RATE, 0);
        when = now;
      } else {
        put(o, RATE, 1.0 / t);
        when = now + remaining * t;
      }
      put(o, DUE, when);
      push(when, COMPLETE, (op << 1) | COMPLETE);
    }

    /** An op's time at its current share of its pools and of its GPU's SMs; {@code f}, {@code p}: as in rerate. */
    private double serviceTime(int f, long p) {
      int mp = (int) (p >> 32);
      int lp = (int) p;
      double compute = fixedTime(f, T_COMPUTE);
      if (holders && mp >= 0 && smsHeld[mp] > 0) {
        compute *= computeScale(mp);
      }
      return Math.max(compute, Math.max(
          fixedTime(f, T_MEMORY) * (mp >= 0 ? poolSize[mp] : 1), fixedTime(f, T_LINK) * (lp >= 0 ? poolSize[lp] : 1)));
    }

    /**
     * Re-rate the op in {@code slot} when the SMs held on its GPU changed its rate; an op bound by memory or a link
     * either side of the change keeps its rate and its completion event.
     */
    private void rerateIfChanged(int slot) {
      double t = serviceTime(fixed(slot), pools(slot));
      double rate = t <= 0 ? 0 : 1.0 / t;
      if (rate != get(stride * slot, RATE)) {
        rerate(slot);
      }
    }

    void join(int pool, int op) {
      if (poolSize[pool] == poolActive[pool].length) {
        poolActive[pool] = Arrays.copyOf(poolActive[pool], poolSize[pool] * 2);
      }
      poolActive[pool][poolSize[pool]++] = op;
    }

    void leave(int pool, int op) {
      int[] a = poolActive[pool];
      for (int i = 0; i < poolSize[pool]; i++) {
        if (a[i] == op) {
          System.arraycopy(a, i + 1, a, i, poolSize[pool] - i - 1);
          poolSize[pool]--;
          return;
        }
      }
    }
  }
}
