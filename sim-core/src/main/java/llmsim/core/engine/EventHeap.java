package llmsim.core.engine;

import java.util.Arrays;

/**
 * A primitive 4-ary min-heap of entries (time bits, tie, payload), ordered by time bits and then tie; the
 * near end of {@link EventQueue}. Keys sit side by side ({@code keys[2i]} time bits, {@code keys[2i+1]} tie) so
 * a comparison reads one place; payloads sit in their own array.
 */
final class EventHeap {
  private long[] keys;
  private int[] payloads;
  private int size;

  EventHeap(int initialCapacity) {
    int c = Math.max(4, initialCapacity);
    keys = new long[2 * c];
    payloads = new int[c];
  }

  int size() {
    return size;
  }

  void push(long t, long tie, int payload) {
    if (size == payloads.length) {
      keys = Arrays.copyOf(keys, keys.length * 2);
      payloads = Arrays.copyOf(payloads, payloads.length * 2);
    }
    long[] k = keys;
    int i = size++;
    while (i > 0) {
      int parent = (i - 1) >>> 2;
      long pt = k[2 * parent];
      if (t > pt || t == pt && tie > k[2 * parent + 1]) {
        break;
      }
      set(i, pt, k[2 * parent + 1], payloads[parent]);
      i = parent;
    }
    set(i, t, tie, payload);
  }

  private void set(int i, long t, long tie, int payload) {
    keys[2 * i] = t;
    keys[2 * i + 1] = tie;
    payloads[i] = payload;
  }

  long peekTimeBits() {
    return keys[0];
  }

  int peekPayload() {
    return payloads[0];
  }

  int pop() {
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
      set(i, bt, bk, payloads[best]);
      i = best;
    }
    set(i, t, tie, payload);
  }

  void clear() {
    size = 0;
  }
}
