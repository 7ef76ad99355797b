package llmsim.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class CoalescedQueueTest {
  record Ev(double time, int priority, long seq, int payload) {}

  private static PriorityQueue<Ev> reference() {
    return new PriorityQueue<>(Comparator.comparingDouble(Ev::time).thenComparingInt(Ev::priority)
        .thenComparingLong(Ev::seq));
  }

  /**
   * The pattern of many GPUs acting together: bursts of pushes at one instant and priority (a run), interleaved
   * with pushes at other instants and at the same instant with the other priority, pops in between that empty
   * runs and reopen their key, and so many distinct instants at once that runs lose their slot to others: the
   * order is (time, priority, push order), as a plain priority queue gives.
   */
  @Test
  void popsInTimePriorityPushOrder_likeAReferenceQueue() {
    for (long seed = 0; seed < 20; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      CoalescedQueue q = new CoalescedQueue(4);
      PriorityQueue<Ev> ref = reference();
      long seq = 0;
      int id = 0;
      int distinct = seed % 2 == 0 ? 40 : 20_000; // few instants (long runs), or more than the slots
      for (int step = 0; step < 40_000; step++) {
        if (ref.isEmpty() || rnd.nextInt(5) < 3) {
          double t = rnd.nextInt(distinct) * 0.125 + (ref.isEmpty() ? 0 : ref.peek().time());
          int p = rnd.nextInt(2);
          int burst = rnd.nextInt(4) == 0 ? 1 + rnd.nextInt(64) : 1;
          for (int k = 0; k < burst; k++) {
            q.push(t, p, id);
            ref.add(new Ev(t, p, seq++, id++));
          }
        } else {
          assertThat(q.peekTime()).isEqualTo(ref.peek().time());
          assertThat(q.pop()).as("seed %d step %d", seed, step).isEqualTo(ref.poll().payload());
        }
      }
      while (!ref.isEmpty()) {
        assertThat(q.pop()).as("seed %d", seed).isEqualTo(ref.poll().payload());
      }
      assertThat(q.isEmpty()).isTrue();
    }
  }

  /** Pushes at the instant being popped join its run, behind what it holds, as a later sequence would put them. */
  @Test
  void aPushAtTheInstantBeingPopped_comesAfterWhatWasPushedBefore() {
    CoalescedQueue q = new CoalescedQueue(4);
    q.push(1.0, 0, 10);
    q.push(1.0, 0, 11);
    q.push(1.0, 1, 20);
    assertThat(q.pop()).isEqualTo(10);
    q.push(1.0, 0, 12);
    q.push(0.5, 1, 5);
    assertThat(q.pop()).isEqualTo(5);
    assertThat(q.pop()).isEqualTo(11);
    assertThat(q.pop()).isEqualTo(12);
    assertThat(q.pop()).isEqualTo(20);
    assertThat(q.isEmpty()).isTrue();
  }
}
