package llmsim.core.engine;

import java.util.Arrays;

/**
 * A primitive 4-ary min-heap of events ordered by (time, priority, sequence). Priority and sequence
 * are packed into one long: the lower priority value runs first at equal times, and the sequence
 * (a per-queue counter) breaks the remaining ties in insertion order, so the order is total and
 * deterministic. No boxing: three parallel arrays.
 */
public final class EventQueue {
  private static final int PRIORITY_SHIFT = 48;
  private static final long SEQUENCE_MASK = (1L << PRIORITY_SHIFT) - 1;

  private double[] times;
  private long[] ties;
  private int[] payloads;
  private int size;
  private long sequence;

  public EventQueue(int initialCapacity) {
    int c = Math.max(4, initialCapacity);
    times = new double[c];
    ties = new long[c];
    payloads = new int[c];
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /**
   * Schedule {@code payload} at {@code time} with {@code priority} in [0, 32767]; lower runs first.
   */
  public void push(double time, int priority, int payload) {
    if (size == times.length) {
      int c = size * 2;
      times = Arrays.copyOf(times, c);
      ties = Arrays.copyOf(ties, c);
      payloads = Arrays.copyOf(payloads, c);
    }
    long tie = ((long) priority << PRIORITY_SHIFT) | (sequence++ & SEQUENCE_MASK);
    int i = size++;
    // sift up
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      if (!less(time, tie, times[parent], ties[parent])) {
        break;
      }
      times[i] = times[parent];
      ties[i] = ties[parent];
      payloads[i] = payloads[parent];
      i = parent;
    }
    times[i] = time;
    ties[i] = tie;
    payloads[i] = payload;
  }

  /** Time of the earliest event. */
  public double peekTime() {
    return times[0];
  }

  /** Payload of the earliest event. */
  public int peekPayload() {
    return payloads[0];
  }

  /** Remove the earliest event and return its payload. */
  public int pop() {
    int top = payloads[0];
    int last = --size;
    if (last > 0) {
      siftDown(times[last], ties[last], payloads[last], last);
    }
    return top;
  }

  private void siftDown(double t, long tie, int payload, int n) {
    int i = 0;
    while (true) {
      int first = (i << 2) + 1;
      if (first >= n) {
        break;
      }
      int best = first;
      int end = Math.min(first + 4, n);
      for (int c = first + 1; c < end; c++) {
        if (less(times[c], ties[c], times[best], ties[best])) {
          best = c;
        }
      }
      if (!less(times[best], ties[best], t, tie)) {
        break;
      }
      times[i] = times[best];
      ties[i] = ties[best];
      payloads[i] = payloads[best];
      i = best;
    }
    times[i] = t;
    ties[i] = tie;
    payloads[i] = payload;
  }

  private static boolean less(double t1, long k1, double t2, long k2) {
    return t1 < t2 || (t1 == t2 && k1 < k2);
  }

  public void clear() {
    size = 0;
    sequence = 0;
  }
}
