package llmsim.core.engine;

import java.util.Arrays;

/**
 * An {@link EventQueue} whose events of equal time and priority, pushed one after another, wait as one entry: a
 * run of payloads in push order. Every GPU of a symmetric group simulated does the same thing at the same instant
 * (its copies of an op start, launch and end at bit-identical times), so the queue underneath orders one entry
 * per instant where it would order one per GPU.
 *
 * <p>The order is exactly the plain queue's, (time, priority, sequence). A push joins the latest run opened for
 * its (time, priority) if that run is still waiting, else opens a new one, pushed underneath with the next
 * sequence. Runs of one key therefore hold consecutive slices of that key's pushes, in the order they were opened,
 * and an event of another run of that key was pushed wholly before or wholly after the run, as the sequences of
 * the two runs say. Runs are found through a small direct-mapped table: when another key takes a run's slot, the
 * run takes no more pushes and the next push of its key opens a new run, which still comes after it.
 */
final class CoalescedQueue {
  private static final int SLOTS = 1 << 12;
  private static final int NONE = -1;

  private final EventQueue queue;
  /** Per run: its payloads, how many, how many popped, and its key. */
  private int[][] payloads = new int[64][];
  private int[] length = new int[64];
  private int[] read = new int[64];
  private long[] time = new long[64];
  private int[] priority = new int[64];
  private int[] slotOf = new int[64];
  private int runs;
  private int free = NONE;
  /** The run last opened for a key hashing to each slot, or NONE. */
  private final int[] slot = new int[SLOTS];
  private int size;

  CoalescedQueue(int initialCapacity) {
    queue = new EventQueue(initialCapacity);
    Arrays.fill(slot, NONE);
  }

  boolean isEmpty() {
    return size == 0;
  }

  void push(double t, int prio, int payload) {
    long bits = Double.doubleToRawLongBits(t + 0.0);
    int h = ((int) ((bits ^ bits >>> 29) * 0x9E3779B97F4A7C15L >>> 52) ^ prio) & (SLOTS - 1);
    int r = slot[h];
    if (r == NONE || time[r] != bits || priority[r] != prio) {
      r = open(bits, prio, h);
      queue.push(t, prio, r);
    }
    int n = length[r];
    if (n == payloads[r].length) {
      payloads[r] = Arrays.copyOf(payloads[r], 2 * n);
    }
    payloads[r][n] = payload;
    length[r] = n + 1;
    size++;
  }

  double peekTime() {
    return queue.peekTime();
  }

  int pop() {
    int r = queue.peek();
    int p = payloads[r][read[r]++];
    size--;
    if (read[r] == length[r]) {
      queue.pop();
      close(r);
    }
    return p;
  }

  private int open(long bits, int prio, int h) {
    int r = free;
    if (r != NONE) {
      free = length[r];
    } else {
      if (runs == payloads.length) {
        int c = 2 * runs;
        payloads = Arrays.copyOf(payloads, c);
        length = Arrays.copyOf(length, c);
        read = Arrays.copyOf(read, c);
        time = Arrays.copyOf(time, c);
        priority = Arrays.copyOf(priority, c);
        slotOf = Arrays.copyOf(slotOf, c);
      }
      r = runs++;
      payloads[r] = new int[4];
    }
    length[r] = 0;
    read[r] = 0;
    time[r] = bits;
    priority[r] = prio;
    slotOf[r] = h;
    slot[h] = r;
    return r;
  }

  /** A run all popped: it takes no more pushes (a later push of its key opens a new run) and is reused. */
  private void close(int r) {
    if (slot[slotOf[r]] == r) {
      slot[slotOf[r]] = NONE;
    }
    length[r] = free;
    free = r;
  }
}
