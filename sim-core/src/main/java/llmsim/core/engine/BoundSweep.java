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
 * dropped at once where it is among the latest few of its stack, else marked and dropped when it reaches the top.
 * Each GPU's spans add up to the makespan, summed per GPU, and the sums are their mean over the GPUs: the step's time
 * as the GPUs spend it (every simulated GPU stands for as many as every other). With one GPU the sums are those of
 * sorting every instant and interval after the run.
 *
 * <p>Peers that run copies of the same ops ({@link Shadows}) are swept once: a shadow GPU only adds up a digest of
 * the ops it ran (each one's start, work start, end and bound, once it ends), and when the run is over takes its
 * leader's sums if its digest and count are the leader's (the same ops, offset by its copy, at the same instants with
 * the same bounds: the same sweep). Where one differs
 * (its peers did not run in step) {@link #finish} returns null and the run is simulated again with every GPU swept.
 */
final class BoundSweep {
  /** An op's marks, set only where its interval could not be dropped at once ({@link #remove}): its launch is over. */
  private static final byte LAUNCH_OVER = 1;
  /** ... the op (a GPU op's work, or a transfer or CPU op) is over. */
  private static final byte OVER = 2;
  private static final int OVERHEAD = Bound.OVERHEAD.ordinal();
  private static final int HOST = Bound.HOST.ordinal();
  /** A GPU's three stacks: its compute queue's intervals, its transfers', its CPU's. */
  private static final int GPU = 0;
  private static final int LINK = 1;
  private static final int CPU = 2;

  static {
    if (Bound.values().length > 8) {
      throw new IllegalStateException("a stack entry keeps a bound's ordinal in 3 bits");
    }
  }

  private static final int BOUNDS = Bound.values().length;
  /** Per GPU {@code g}, from {@code BOUNDS g}: its seconds by bound ordinal. */
  private final double[] sum;
  /**
   * Per GPU {@code g}, at {@code 2 g} its leader whose sweep it takes ({@link Shadows}: itself where it is swept, -1
   * for none) and at {@code 2 g + 1} its ops' offset from the leader's; null: every GPU swept.
   */
  private final int[] leader;
  /** Per GPU with a leader or shadows: at {@code 2 g} a digest of the ops it ran, at {@code 2 g + 1} how many; side
   * by side, as each op's end reads both. */
  private final long[] digest;
  /** Per op: which of its intervals are over though still held ({@link #LAUNCH_OVER}, {@link #OVER}). */
  private final byte[] phase;
  /** Per stream: the GPU it belongs to. */
  private final int[] gpuOf;
  /**
   * Open intervals by (start, name), ended ones among them until they surface, in stacks: stack {@code 3 g + kind}
   * of GPU {@code g} holds entries {@code [i cap, i cap + meta[3 * i])} of {@code entry} and {@code from}, one array for
   * every GPU's so that a GPU's are near each other. An entry is {@code name << 3 | bound}: the interval's name
   * ({@code op << 1 | piece}, piece 0 a GPU op's launch or a whole transfer or CPU op, 1 a GPU op's work) and the
   * ordinal of the bound it is charged to, so that entries sort as their names do.
   */
  private long[] entry;
  private double[] from;
  private int cap;
  /** Per stack {@code i}: at {@code 3 i} how many entries it holds, at {@code 3 i + 1} how many of them are stale
   * (ended, or a launch given way to its work, and dropped when they surface), at {@code 3 i + 2} 1 where the
   * intervals that started last are not yet in name order; side by side, so that a stack's are read together. */
  private final int[] meta;
  /** Where the stacks' arrays are kept for the next run; null: none. */
  private final Workspace ws;
  /**
   * Per GPU {@code g}: at {@code 2 g} the last instant its clock reached; at {@code 2 g + 1} the start of a span up to
   * it not yet charged (see {@link #reach}), or NaN for none.
   */
  private final double[] clock;
  /** What a GPU with nothing of its own running is charged to. */
  private final int idle;

  /**
   * @param phase one entry per op, all 0 (no interval over)
   * @param gpuOf per stream, the GPU it belongs to (0 to {@code gpus - 1})
   * @param shadows the GPUs swept once for their peers, or null: every GPU swept
   * @param ws where the stacks' arrays are taken from and handed back by {@link #finish}; null: their own
   */
  BoundSweep(byte[] phase, int[] gpuOf, int gpus, Shadows shadows, Workspace ws) {
    this.phase = phase;
    this.gpuOf = gpuOf;
    this.ws = ws;
    int n = Math.max(1, gpus);
    sum = new double[BOUNDS * n];
    if (shadows != null) {
      leader = new int[2 * n];
      for (int g = 0; g < n; g++) {
        leader[2 * g] = shadows.leader[g];
        leader[2 * g + 1] = shadows.shift[g];
      }
      digest = new long[2 * n];
    } else {
      leader = null;
      digest = null;
    }
    meta = new int[9 * n];
    // a GPU's own streams hold a few intervals at a time; the arrays grow where one holds more
    cap = 4;
    if (ws != null && ws.stackEntries.length >= 3 * n * cap) {
      cap = ws.stackEntries.length / (3 * n);
      entry = ws.stackEntries;
      from = ws.stackFrom;
    } else {
      entry = new long[3 * n * cap];
      from = new double[3 * n * cap];
    }
    clock = new double[2 * n];
    for (int g = 0; g < n; g++) {
      clock[2 * g + 1] = Double.NaN;
    }
    idle = (n > 1 ? Bound.PIPELINE_BUBBLE : Bound.OVERHEAD).ordinal();
  }

  /**
   * GPU {@code g}'s clock reaches {@code t}, where something of its starts or ends: the span since its last such
   * instant is charged to what held at its midpoint. When the span is so short that its midpoint rounds to {@code t}
   * itself, what holds there is known only once the events at {@code t} are in, so that span is charged at the next
   * instant.
   */
  private void reach(int g, double t) {
    double last = clock[2 * g];
    if (t > last) {
      settle(g);
      if (0.5 * (last + t) < t) {
        sum[BOUNDS * g + holding(g)] += t - last;
      } else {
        clock[2 * g + 1] = last;
      }
      clock[2 * g] = t;
    }
  }

  /** Charge GPU {@code g}'s span whose midpoint is its end, now that the events at its end are in. */
  private void settle(int g) {
    double from = clock[2 * g + 1];
    if (from == from) { // not NaN: a span is deferred
      sum[BOUNDS * g + holding(g)] += clock[2 * g] - from;
      clock[2 * g + 1] = Double.NaN;
    }
  }

  private int holding(int g) {
    int i = 3 * g;
    long e = top(i + GPU);
    if (e >= 0 || (e = top(i + LINK)) >= 0) {
      return (int) (e & 7);
    }
    return top(i + CPU) >= 0 ? HOST : idle;
  }

  /**
   * Op {@code op}, on stream {@code stream} of {@code lane}, starts at {@code t}; a GPU op whose work starts later
   * ({@code workStart > t}) is in its launch (overhead). {@code bound}: the ordinal of the op's bound ({@link
   * Trace#opBound}), kept with its interval so that what holds a span is read off the stacks' tops.
   */
  void start(int op, int stream, Lane lane, double t, double workStart, int bound) {
    int g = gpuOf[stream];
    if (leader != null && shadow(g)) {
      return;
    }
    reach(g, t);
    if (lane == Lane.CPU) {
      push(3 * g + CPU, op << 1, t, bound);
    } else if (lane != Lane.COMPUTE) {
      push(3 * g + LINK, op << 1, t, bound);
    } else if (workStart > t) {
      push(3 * g + GPU, op << 1, t, OVERHEAD);
    }
  }

  /** Op {@code op}'s work starts at {@code t} (after its launch, or with its start when it has none). */
  void work(int op, int stream, Lane lane, double t, boolean launched, int bound) {
    if (lane == Lane.COMPUTE) {
      int g = gpuOf[stream];
      if (leader != null && shadow(g)) {
        return;
      }
      if (launched) {
        reach(g, t); // the span up to now, with the launch still held
        remove(3 * g + GPU, op << 1);
      }
      push(3 * g + GPU, op << 1 | 1, t, bound);
    }
  }

  /**
   * Op {@code op} ends at {@code t}, having started at {@code start} and its work at {@code work}, charged to bound
   * {@code bound}: where its GPU has a leader or shadows, the op's intervals go into the GPU's digest ({@link
   * #note}), and a shadow's go nowhere else.
   */
  void end(int op, int stream, Lane lane, double t, double start, double work, int bound) {
    int g = gpuOf[stream];
    if (leader != null && leader[2 * g] >= 0) {
      note(g, op, start, work, t, bound);
      if (shadow(g)) {
        return;
      }
    }
    reach(g, t);
    if (lane == Lane.CPU) {
      remove(3 * g + CPU, op << 1);
    } else if (lane != Lane.COMPUTE) {
      remove(3 * g + LINK, op << 1);
    } else {
      remove(3 * g + GPU, op << 1 | 1);
    }
  }

  /**
   * Per GPU, once {@link #finish} has returned sums: the GPU it ran in step with (its leader, whose sums it took), or
   * itself.
   */
  int[] inStep() {
    int n = clock.length / 2;
    int[] in = new int[n];
    for (int g = 0; g < n; g++) {
      in[g] = leader == null || leader[2 * g] < 0 ? g : leader[2 * g];
    }
    return in;
  }

  /** How many GPUs are swept on their own: all but the shadows. */
  int swept() {
    int n = clock.length / 2;
    if (leader == null) {
      return n;
    }
    int swept = 0;
    for (int g = 0; g < n; g++) {
      swept += leader[2 * g] < 0 || leader[2 * g] == g ? 1 : 0;
    }
    return swept;
  }

  /** Whether GPU {@code g} takes its leader's sweep (is not swept itself). */
  private boolean shadow(int g) {
    int l = leader[2 * g];
    return l >= 0 && l != g;
  }

  /**
   * Add op {@code op}'s intervals (start, work start, end, bound) to GPU {@code g}'s digest: all its sweep reads of
   * the op. The op is named as its leader's copy, so that peers in step add the same values; the digest is a sum, as
   * the order in which a GPU's ops end within an instant is not its leader's.
   */
  private void note(int g, int op, double start, double work, double end, int bound) {
    long x = ((long) (op - leader[2 * g + 1]) << 3 | bound) * 0x9E3779B97F4A7C15L;
    x = Long.rotateLeft(x ^ Double.doubleToRawLongBits(start) * 0xC2B2AE3D27D4EB4FL, 23);
    x = Long.rotateLeft(x ^ Double.doubleToRawLongBits(work) * 0x165667B19E3779F9L, 29);
    x ^= Double.doubleToRawLongBits(end) * 0xD6E8FEB86659FD93L;
    x = (x ^ x >>> 31) * 0xBF58476D1CE4E5B9L;
    digest[2 * g] += x ^ x >>> 29;
    digest[2 * g + 1]++;
  }

  /**
   * The sums, by bound ordinal, once the run has ended at {@code makespan}: the mean of the GPUs'; null where a
   * shadow GPU did not run as its leader did (its sweep is not its leader's: sweep every GPU).
   */
  double[] finish(double makespan) {
    int n = clock.length / 2;
    for (int g = 0; g < n; g++) {
      if (leader == null || leader[2 * g] < 0 || leader[2 * g] == g) {
        reach(g, makespan);
        settle(g);
      }
    }
    if (ws != null) {
      ws.stackEntries = entry;
      ws.stackFrom = from;
    }
    for (int g = 0; leader != null && g < n; g++) {
      int l = leader[2 * g];
      if (l >= 0 && l != g) {
        if (digest[2 * g] != digest[2 * l] || digest[2 * g + 1] != digest[2 * l + 1]) {
          return null;
        }
        System.arraycopy(sum, BOUNDS * l, sum, BOUNDS * g, BOUNDS);
      }
    }
    double[] mean = Arrays.copyOf(sum, BOUNDS);
    for (int g = 1; g < n; g++) {
      for (int b = 0; b < BOUNDS; b++) {
        mean[b] += sum[BOUNDS * g + b];
      }
    }
    if (n > 1) {
      for (int b = 0; b < BOUNDS; b++) {
        mean[b] /= n;
      }
    }
    return mean;
  }

  /**
   * Which simulated GPUs are swept for others: GPU {@code g} is a shadow of {@code leader[g]} when its streams are,
   * in order, its leader's shifted by one offset {@code shift[g]} and each runs the ops of its leader's
   * counterpart (the same list of rows, {@link OpTable#streamRows}), so that its ops are the leader's ids plus that
   * offset. {@code leader[g]} is -1 for a GPU that has no peer (swept, no digest), {@code g} for a leader.
   */
  static final class Shadows {
    final int[] leader;
    final int[] shift;

    private Shadows(int[] leader, int[] shift) {
      this.leader = leader;
      this.shift = shift;
    }

    /**
     * The shadows of a run whose stream {@code s} belongs to GPU {@code gpuOf[s]} and runs the list of rows
     * {@code classOf[s]}; null for none.
     */
    static Shadows of(int[] gpuOf, int[] classOf, int gpus) {
      int[][] streams = new int[gpus][];
      int[] count = new int[gpus];
      for (int g : gpuOf) {
        count[g]++;
      }
      for (int g = 0; g < gpus; g++) {
        streams[g] = new int[count[g]];
        count[g] = 0;
      }
      for (int s = 0; s < gpuOf.length; s++) {
        streams[gpuOf[s]][count[gpuOf[s]]++] = s;
      }
      int[] leader = new int[gpus];
      int[] shift = new int[gpus];
      Arrays.fill(leader, -1);
      java.util.Map<java.util.List<Integer>, Integer> first = new java.util.HashMap<>();
      boolean any = false;
      for (int g = 0; g < gpus; g++) {
        if (streams[g].length == 0) {
          continue;
        }
        java.util.List<Integer> key = new java.util.ArrayList<>(streams[g].length);
        for (int s : streams[g]) {
          key.add(classOf[s]);
        }
        Integer l = first.putIfAbsent(key, g);
        if (l == null) {
          continue;
        }
        int d = streams[g][0] - streams[l][0];
        boolean aligned = true;
        for (int i = 1; i < streams[g].length && aligned; i++) {
          aligned = streams[g][i] - streams[l][i] == d;
        }
        if (aligned) {
          leader[l] = l;
          leader[g] = l;
          shift[g] = d;
          any = true;
        }
      }
      return any ? new Shadows(leader, shift) : null;
    }
  }

  /**
   * Push onto stack {@code i} an interval starting now, at or after every one held, charged to bound {@code bound}.
   * Those starting together are ordered by name when the next instant's are pushed or the top is asked for, in one
   * sort (copies of an op on many streams start together, not always in the order of their names).
   */
  private void push(int i, int interval, double t, int bound) {
    int n = meta[3 * i];
    if (n == cap) {
      grow();
    }
    int base = i * cap;
    if (n > 0 && from[base + n - 1] != t && meta[3 * i + 2] != 0) {
      sortLast(i);
    }
    long e = (long) interval << 3 | bound;
    if (n > 0 && from[base + n - 1] == t && entry[base + n - 1] > e) {
      meta[3 * i + 2] = 1;
    }
    entry[base + n] = e;
    from[base + n] = t;
    meta[3 * i] = n + 1;
  }

  /** Twice the room for every stack, each keeping its place. */
  private void grow() {
    int stacks = meta.length / 3;
    long[] e = new long[2 * cap * stacks];
    double[] f = new double[2 * cap * stacks];
    for (int i = 0; i < stacks; i++) {
      System.arraycopy(entry, i * cap, e, 2 * i * cap, meta[3 * i]);
      System.arraycopy(from, i * cap, f, 2 * i * cap, meta[3 * i]);
    }
    entry = e;
    from = f;
    cap *= 2;
  }

  /** Sort by name the intervals of stack {@code i} that started last, together. */
  private void sortLast(int i) {
    int base = i * cap;
    int hi = base + meta[3 * i];
    int lo = hi - 1;
    while (lo > base && from[lo - 1] == from[hi - 1]) {
      lo--;
    }
    Arrays.sort(entry, lo, hi);
    meta[3 * i + 2] = 0;
  }

  /**
   * Interval {@code name} of stack {@code i} is over: dropped at once where it is among the latest few of a few held
   * (a GPU's own streams hold a few at a time), else marked over, counted stale and dropped when it surfaces.
   */
  private void remove(int i, int name) {
    int base = i * cap;
    int n = meta[3 * i];
    if (n > 0 && (int) (entry[base + n - 1] >>> 3) == name) {
      meta[3 * i] = n - 1; // the latest: most often
      return;
    }
    // a GPU's own streams hold a few intervals at a time; where one stack holds many (streams without a GPU of their
    // own, all in one), marking beats searching
    for (int j = n - 2; j >= Math.max(0, n - 4) && n <= 8; j--) {
      if ((int) (entry[base + j] >>> 3) == name) {
        System.arraycopy(entry, base + j + 1, entry, base + j, n - 1 - j);
        System.arraycopy(from, base + j + 1, from, base + j, n - 1 - j);
        meta[3 * i] = n - 1;
        return;
      }
    }
    phase[name >>> 1] |= i % 3 == GPU && (name & 1) == 0 ? LAUNCH_OVER : OVER;
    meta[3 * i + 1]++;
  }

  /**
   * The latest entry of stack {@code i} still open, or -1: a GPU op's launch is over once its work started, anything
   * at its end.
   */
  private long top(int i) {
    int m = 3 * i;
    if (meta[m + 2] != 0) {
      sortLast(i);
    }
    int base = i * cap;
    if (meta[m + 1] == 0) {
      return meta[m] > 0 ? entry[base + meta[m] - 1] : -1;
    }
    boolean launches = i % 3 == GPU;
    while (meta[m] > 0) {
      long e = entry[base + meta[m] - 1];
      int n = (int) (e >>> 3);
      if ((phase[n >>> 1] & (launches && (n & 1) == 0 ? LAUNCH_OVER : OVER)) == 0) {
        return e;
      }
      meta[m]--;
      meta[m + 1]--;
    }
    return -1;
  }
}
