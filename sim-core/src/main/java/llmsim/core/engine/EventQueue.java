package llmsim.core.engine;

import java.util.Arrays;

/**
 * A primitive 4-ary min-heap of events ordered by (time, priority, sequence). Priority and sequence
 * are packed into one long: the lower priority value runs first at equal times, and the sequence
 * (a per-queue counter) breaks the remaining ties in insertion order, so the order is total and
 * deterministic. No boxing. Times are non-negative, so their IEEE bits order like the values and the
 * comparison is two long compares on keys stored side by side ({@code keys[2i]} time bits,
 * {@code keys[2i+1]} priority and sequence) for locality; payloads sit in their own array.
 */
public final class EventQueue {
  private static final int PRIORITY_SHIFT = 48;
  private static final long SEQUENCE_MASK = (1L << PRIORITY_SHIFT) - 1;
  /** The largest priority whose packed key stays positive (16 bits above the sequence, the sign bit excluded). */
  public static final int MAX_PRIORITY = (1 << (63 - PRIORITY_SHIFT)) - 1;

  private long[] keys;
  private int[] payloads;
  private int size;
  private long sequence;

  public EventQueue(int initialCapacity) {
    int c = Math.max(4, initialCapacity);
    keys = new long[2 * c];
    payloads = new int[c];
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
    if (size == payloads.length) {
      keys = Arrays.copyOf(keys, keys.length * 2);
      payloads = Arrays.copyOf(payloads, payloads.length * 2);
    }
    long t = Double.doubleToRawLongBits(time + 0.0);
    long tie = ((long) priority << PRIORITY_SHIFT) | (sequence++ & SEQUENCE_MASK);
    long[] k = keys;
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      long pt = k[2 * parent];
      if (t > pt || t == pt && tie > k[2 * parent + 1]) {
        break;
      }
      k[2 * i] = pt;
      k[2 * i + 1] = k[2 * parent + 1];
      payloads[i] = payloads[parent];
      i = parent;
    }
    k[2 * i] = t;
    k[2 * i + 1] = tie;
    payloads[i] = payload;
  }

  /** Time of the earliest event. */
  public double peekTime() {
    return Double.longBitsToDouble(keys[0]);
  }

  /** Remove the earliest event and return its payload. */
  public int pop() {
    int top = payloads[0];
    int last = --size;
    if (last > 0) {
      siftDown(keys[2 * last], keys[2 * last + 1], payloads[last], last);
    }
    return top;
  }

  private void siftDown(long t, long tie, int payload, int n) {
    long[] k = keys;
    int i = 0;
    while (true) {
      int first = (i << 2) + 1;
      if (first >= n) {
        break;
      }
      int best = first;
      long bt = k[2 * first];
      long bk = k[2 * first + 1];
      int end = Math.min(first + 4, n);
      for (int c = first + 1; c < end; c++) {
        long ct = k[2 * c];
        if (ct < bt || ct == bt && k[2 * c + 1] < bk) {
          best = c;
          bt = ct;
          bk = k[2 * c + 1];
        }
      }
      if (bt > t || bt == t && bk > tie) {
        break;
      }
      k[2 * i] = bt;
      k[2 * i + 1] = bk;
      payloads[i] = payloads[best];
      i = best;
    }
    k[2 * i] = t;
    k[2 * i + 1] = tie;
    payloads[i] = payload;
  }

  public void clear() {
    size = 0;
    sequence = 0;
  }
}
