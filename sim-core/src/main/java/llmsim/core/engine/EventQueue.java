package llmsim.core.engine;

import java.util.Arrays;

/**
 * The events of a simulation, ordered by (time, priority, sequence): the lower priority value runs first at equal
 * times, and the sequence (a per-queue counter) breaks the remaining ties in insertion order, so the order is total
 * and deterministic. No boxing.
 *
 * <p>A ladder of buckets in front of a heap. Only the events due first are in the heap ({@link EventHeap}, ordered
 * by the whole key); later ones wait unsorted: those beyond the ladder's range in the top list, the rest in the
 * bucket of a rung that their time falls in. A rung splits a time range into equal buckets; when the heap runs
 * dry the next non-empty bucket of the finest rung is moved into the heap, or, when it holds more than
 * {@value #SPLIT} events at different times, spread over a finer rung of its own. A bucket holds a contiguous
 * range of times and equal times always share one, so ties are settled in the heap, by the whole key. Each event
 * is moved a few times at constant cost instead of sifted through a heap of all pending events. A queue of fewer
 * than {@value #SPLIT} events, with nothing waiting beyond, is the heap alone.
 *
 * <p>Times are non-negative, so their IEEE bits order like the values: keys compare as longs.
 */
public final class EventQueue {
  private static final int PRIORITY_SHIFT = 48;
  private static final long SEQUENCE_MASK = (1L << PRIORITY_SHIFT) - 1;
  /** The largest priority whose packed key stays positive (16 bits above the sequence, the sign bit excluded). */
  public static final int MAX_PRIORITY = (1 << (63 - PRIORITY_SHIFT)) - 1;
  /** A bucket with more events than this (at different times) is spread over a finer rung, not heaped. */
  static final int SPLIT = 32;
  private static final int MAX_RUNGS = 12;
  private static final int NONE = -1;

  private final EventHeap near;
  private int size;
  private long sequence;

  // events not in the heap: a pool of list nodes, linked through next (free ones too)
  private long[] nodeTime;
  private long[] nodeTie;
  private int[] nodePayload;
  private int[] nodeNext;
  private int nodesUsed;
  private int free = NONE;

  // the top list: times above topLimit
  private int top = NONE;
  private double topLimit = Double.NEGATIVE_INFINITY;

  // rung r: buckets[r][0..width) cover times from base[r], scale[r] buckets per second; cur[r] is the bucket in the
  // heap (finest rung) or spread over rung r + 1
  private int rungs;
  private final double[] base = new double[MAX_RUNGS];
  private final double[] scale = new double[MAX_RUNGS];
  private final int[] width = new int[MAX_RUNGS];
  private final int[] cur = new int[MAX_RUNGS];
  private final int[][] buckets = new int[MAX_RUNGS][];

  public EventQueue(int initialCapacity) {
    int c = Math.max(4, initialCapacity);
    near = new EventHeap(Math.min(c, 1024));
    nodeTime = new long[c];
    nodeTie = new long[c];
    nodePayload = new int[c];
    nodeNext = new int[c];
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /**
   * Schedule {@code payload} at {@code time} with {@code priority} in [0, {@value #MAX_PRIORITY}]; lower runs first.
   * A priority outside that range would not fit its bits in the packed key (32768 would sort before 0), so it is
   * refused rather than misordered.
   */
  public void push(double time, int priority, int payload) {
    if (!(time >= 0)) {
      throw new IllegalArgumentException("cannot schedule at " + time + " s: times are >= 0");
    }
    if (priority < 0 || priority > MAX_PRIORITY) {
      throw new IllegalArgumentException("priority must be in [0, " + MAX_PRIORITY + "], was " + priority);
    }
    double t = time + 0.0;
    long bits = Double.doubleToRawLongBits(t);
    long tie = ((long) priority << PRIORITY_SHIFT) | (sequence++ & SEQUENCE_MASK);
    size++;
    if (t > topLimit) {
      if (rungs == 0 && top == NONE && near.size() < SPLIT) {
        // a short queue is the heap alone: the heap holds everything, up to the new latest time
        topLimit = t;
        near.push(bits, tie, payload);
      } else {
        top = link(bits, tie, payload, top);
      }
      return;
    }
    for (int r = 0; r < rungs; r++) {
      int b = bucket(r, t);
      if (b > cur[r]) {
        buckets[r][b] = link(bits, tie, payload, buckets[r][b]);
        return;
      }
      if (b < cur[r]) {
        break;
      }
    }
    near.push(bits, tie, payload);
  }

  /** Time of the earliest event. */
  public double peekTime() {
    refill();
    return Double.longBitsToDouble(near.peekTimeBits());
  }

  /** The earliest event's payload, left in the queue. */
  public int peek() {
    refill();
    return near.peekPayload();
  }

  /** Remove the earliest event and return its payload. */
  public int pop() {
    refill();
    size--;
    return near.pop();
  }

  public void clear() {
    near.clear();
    size = 0;
    sequence = 0;
    nodesUsed = 0;
    free = NONE;
    top = NONE;
    topLimit = Double.NEGATIVE_INFINITY;
    rungs = 0;
  }

  /** Bucket of time {@code t} on rung {@code r}: non-decreasing in {@code t}, so equal times share one. */
  private int bucket(int r, double t) {
    double x = (t - base[r]) * scale[r];
    return x <= 0 ? 0 : x >= width[r] - 1 ? width[r] - 1 : (int) x;
  }

  /** Until the heap holds the earliest events (or nothing is left), move the next bucket down. */
  private void refill() {
    while (near.size() == 0 && size > 0) {
      if (rungs == 0) {
        int list = top;
        top = NONE;
        topLimit = spread(list, 0);
        continue;
      }
      int r = rungs - 1;
      int[] bs = buckets[r];
      int b = cur[r] + 1;
      while (b < width[r] && bs[b] == NONE) {
        b++;
      }
      if (b == width[r]) {
        rungs--;
        continue;
      }
      cur[r] = b;
      int list = bs[b];
      bs[b] = NONE;
      spread(list, rungs);
    }
  }

  /**
   * Move the events of {@code list} into the heap, or, when they are many at different times and a rung is left,
   * over a new rung {@code r} spanning their times; returns the latest time.
   */
  private double spread(int list, int r) {
    int n = 0;
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (int i = list; i != NONE; i = nodeNext[i]) {
      double t = Double.longBitsToDouble(nodeTime[i]);
      min = Math.min(min, t);
      max = Math.max(max, t);
      n++;
    }
    double s = n / (max - min);
    if (n <= SPLIT || r == MAX_RUNGS || !(s > 0 && s < Double.POSITIVE_INFINITY)) {
      for (int i = list; i != NONE;) {
        int next = nodeNext[i];
        near.push(nodeTime[i], nodeTie[i], nodePayload[i]);
        release(i);
        i = next;
      }
      return max;
    }
    base[r] = min;
    scale[r] = s;
    width[r] = n;
    cur[r] = -1;
    if (buckets[r] == null || buckets[r].length < n) {
      buckets[r] = new int[Math.max(n, buckets[r] == null ? 0 : 2 * buckets[r].length)];
    }
    int[] bs = buckets[r];
    Arrays.fill(bs, 0, n, NONE);
    rungs = r + 1;
    for (int i = list; i != NONE;) {
      int next = nodeNext[i];
      int b = bucket(r, Double.longBitsToDouble(nodeTime[i]));
      nodeNext[i] = bs[b];
      bs[b] = i;
      i = next;
    }
    return max;
  }

  /** A node holding the event, put in front of {@code next}. */
  private int link(long time, long tie, int payload, int next) {
    int i = free;
    if (i != NONE) {
      free = nodeNext[i];
    } else {
      if (nodesUsed == nodeNext.length) {
        int c = 2 * nodesUsed;
        nodeTime = Arrays.copyOf(nodeTime, c);
        nodeTie = Arrays.copyOf(nodeTie, c);
        nodePayload = Arrays.copyOf(nodePayload, c);
        nodeNext = Arrays.copyOf(nodeNext, c);
      }
      i = nodesUsed++;
    }
    nodeTime[i] = time;
    nodeTie[i] = tie;
    nodePayload[i] = payload;
    nodeNext[i] = next;
    return i;
  }

  private void release(int i) {
    nodeNext[i] = free;
    free = i;
  }
}
