package llmsim.core.engine;

import java.util.Arrays;

/**
 * The time by bound of a run ({@link Trace#timeByBound()}), summed while the run goes instead of from a log of
 * every start and end kept to the end. Each simulated GPU is swept on its own, over its own streams (its compute
 * queue, copy engines, CPU and communication queues): the run reports each op's start, the start of its work after
 * the launch and its end, in time order; between two consecutive instants where something of a GPU's starts or ends
 * nothing of its changes, so when its clock moves past an instant the span since its previous one is charged to the
 * bound that holds there at the span's midpoint: the latest-starting interval of its compute queue covering it (an
 * op's launch, then its work), else its latest transfer, else a CPU op (host), else nothing of its own runs: with
 * one GPU, overhead; with several, the GPU waits on another (a pipeline stage on its neighbours: the bubble). (Between
 * two adjacent doubles the midpoint can round to the later one, where what starts then already counts and what ends
 * then no longer does, as in the sort.) Intervals of a kind are stacked by (start, name), the name being {@code op << 1
 * | piece} (piece 0: a GPU op's launch or a whole transfer or CPU op, 1: a GPU op's work); one that has ended is
 * dropped when it reaches the top. Each GPU's spans add up to the makespan, and the sums are their mean over the GPUs:
 * the step's time as the GPUs spend it (every simulated GPU stands for as many as every other). With one GPU the sums
 * are those of sorting every instant and interval after the run.
 */
final class BoundSweep {
  private static final byte STARTED = 1;
  private static final byte WORKING = 2;
  private static final byte ENDED = 3;

  private final Bounds bounds;
  private final double[] sum = new double[Bound.values().length];
  /** Per op: how far it has got. */
  private final byte[] phase;
  /** Per stream: the GPU it belongs to. */
  private final int[] gpuOf;
  /** Per GPU: its compute queue's, transfers' and CPU's intervals. */
  private final Stack[] gpu;
  private final Stack[] link;
  private final Stack[] cpu;
  /** Where the stacks' arrays are kept for the next run; null: none. */
  private final Workspace ws;
  /** Per GPU: the last instant its clock reached. */
  private final double[] last;
  /** Per GPU: a span from {@code deferredFrom} to {@code last} not yet charged (see {@link #reach}). */
  private final boolean[] deferred;
  private final double[] deferredFrom;
  /** What a GPU with nothing of its own running is charged to. */
  private final int idle;

  /** The bound of an op's work: its lane's for a transfer or CPU op, its roofline bound for a GPU op. */
  interface Bounds {
    Bound bound(int op);
  }

  /**
   * @param phase one entry per op, all 0 (not started)
   * @param gpuOf per stream, the GPU it belongs to (0 to {@code gpus - 1})
   * @param ws where the stacks' arrays are taken from and handed back by {@link #finish}; null: their own
   */
  BoundSweep(byte[] phase, int[] gpuOf, int gpus, Bounds bounds, Workspace ws) {
    this.bounds = bounds;
    this.phase = phase;
    this.gpuOf = gpuOf;
    this.ws = ws;
    int n = Math.max(1, gpus);
    gpu = new Stack[n];
    link = new Stack[n];
    cpu = new Stack[n];
    if (ws != null) {
      ws.stacks(3 * n);
    }
    for (int g = 0; g < n; g++) {
      gpu[g] = new Stack(true, ws, 3 * g);
      link[g] = new Stack(false, ws, 3 * g + 1);
      cpu[g] = new Stack(false, ws, 3 * g + 2);
    }
    last = new double[n];
    deferred = new boolean[n];
    deferredFrom = new double[n];
    idle = (n > 1 ? Bound.PIPELINE_BUBBLE : Bound.OVERHEAD).ordinal();
  }

  /**
   * GPU {@code g}'s clock reaches {@code t}, where something of its starts or ends: the span since its last such
   * instant is charged to what held at its midpoint. When the span is so short that its midpoint rounds to {@code t}
   * itself, what holds there is known only once the events at {@code t} are in, so that span is charged at the next
   * instant.
   */
  private void reach(int g, double t) {
    if (t > last[g]) {
      settle(g);
      if (0.5 * (last[g] + t) < t) {
        sum[holding(g)] += t - last[g];
      } else {
        deferredFrom[g] = last[g];
        deferred[g] = true;
      }
      last[g] = t;
    }
  }

  /** Charge GPU {@code g}'s span whose midpoint is its end, now that the events at its end are in. */
  private void settle(int g) {
    if (deferred[g]) {
      sum[holding(g)] += last[g] - deferredFrom[g];
      deferred[g] = false;
    }
  }

  private int holding(int g) {
    int op = gpu[g].top(phase);
    if (op >= 0) {
      return (op & 1) == 0 ? Bound.OVERHEAD.ordinal() : bounds.bound(op >>> 1).ordinal();
    }
    op = link[g].top(phase);
    if (op >= 0) {
      return bounds.bound(op >>> 1).ordinal();
    }
    return cpu[g].top(phase) >= 0 ? Bound.HOST.ordinal() : idle;
  }

  /**
   * Op {@code op}, on stream {@code stream} of {@code lane}, starts at {@code t}; a GPU op whose work starts later
   * ({@code workStart > t}) is in its launch.
   */
  void start(int op, int stream, Lane lane, double t, double workStart) {
    int g = gpuOf[stream];
    reach(g, t);
    phase[op] = STARTED;
    if (lane == Lane.CPU) {
      cpu[g].push(op << 1, t);
    } else if (lane != Lane.COMPUTE) {
      link[g].push(op << 1, t);
    } else if (workStart > t) {
      gpu[g].push(op << 1, t);
    }
  }

  /** Op {@code op}'s work starts at {@code t} (after its launch, or with its start when it has none). */
  void work(int op, int stream, Lane lane, double t, boolean launched) {
    if (lane == Lane.COMPUTE) {
      int g = gpuOf[stream];
      if (launched) {
        reach(g, t);
      }
      gpu[g].push(op << 1 | 1, t);
    }
    phase[op] = WORKING;
  }

  void end(int op, int stream, double t) {
    reach(gpuOf[stream], t);
    phase[op] = ENDED;
  }

  /** The sums, by bound ordinal, once the run has ended at {@code makespan}: the mean of the GPUs'. */
  double[] finish(double makespan) {
    int n = gpu.length;
    for (int g = 0; g < n; g++) {
      reach(g, makespan);
      settle(g);
      if (ws != null) {
        gpu[g].keep(ws, 3 * g);
        link[g].keep(ws, 3 * g + 1);
        cpu[g].keep(ws, 3 * g + 2);
      }
    }
    if (n > 1) {
      for (int b = 0; b < sum.length; b++) {
        sum[b] /= n;
      }
    }
    return sum;
  }

  /** Open intervals by (start, name), ended ones among them until they surface. */
  private static final class Stack {
    /** Whether piece 0 is a GPU op's launch (over when its work starts) rather than a whole op. */
    private final boolean launches;
    /** Entries {@code 0..top) are held; those above are not read (a kept array's are an earlier run's). */
    private int[] name;
    private double[] from;
    private int top;
    /** Whether the intervals that started last are not yet in name order. */
    private boolean unsorted;

    Stack(boolean launches, Workspace ws, int i) {
      this.launches = launches;
      boolean kept = ws != null && ws.stackNames[i] != null;
      name = kept ? ws.stackNames[i] : new int[64];
      from = kept ? ws.stackFrom[i] : new double[64];
    }

    /** Hand this stack's arrays, grown as the run needed, to {@code ws} for the next run. */
    void keep(Workspace ws, int i) {
      ws.stackNames[i] = name;
      ws.stackFrom[i] = from;
    }

    /**
     * Push an interval starting now, at or after every one held. Those starting together are ordered by name when
     * the next instant's are pushed or the top is asked for, in one sort (copies of an op on many GPUs start
     * together, not always in the order of their names).
     */
    void push(int interval, double t) {
      if (top > 0 && from[top - 1] != t && unsorted) {
        sortLast();
      }
      if (top == name.length) {
        name = Arrays.copyOf(name, 2 * top);
        from = Arrays.copyOf(from, 2 * top);
      }
      if (top > 0 && from[top - 1] == t && name[top - 1] > interval) {
        unsorted = true;
      }
      name[top] = interval;
      from[top++] = t;
    }

    /** Sort by name the intervals that started last, together. */
    private void sortLast() {
      int i = top - 1;
      while (i > 0 && from[i - 1] == from[top - 1]) {
        i--;
      }
      Arrays.sort(name, i, top);
      unsorted = false;
    }

    /** The latest interval still open, or -1: a GPU op's launch is over once its work started, anything at its end. */
    int top(byte[] phase) {
      if (unsorted) {
        sortLast();
      }
      while (top > 0) {
        int n = name[top - 1];
        byte p = phase[n >>> 1];
        if (launches && (n & 1) == 0 ? p == STARTED : p < ENDED) {
          return n;
        }
        top--;
      }
      return -1;
    }
  }
}
