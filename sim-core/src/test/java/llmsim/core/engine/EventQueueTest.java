package llmsim.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class EventQueueTest {
  record Ev(double time, int priority, long seq, int payload) {}

  @Test
  void popsInTimePrioritySequenceOrder_likeAReferenceQueue() {
    SplittableRandom rnd = new SplittableRandom(42);
    EventQueue q = new EventQueue(4);
    PriorityQueue<Ev> ref = new PriorityQueue<>(Comparator.comparingDouble(Ev::time)
        .thenComparingInt(Ev::priority).thenComparingLong(Ev::seq));
    long seq = 0;
    List<Integer> got = new ArrayList<>();
    List<Integer> want = new ArrayList<>();
    for (int i = 0; i < 20000; i++) {
      if (ref.isEmpty() || rnd.nextInt(3) > 0) {
        double t = rnd.nextInt(50);   // many equal times
        int p = rnd.nextInt(3);
        q.push(t, p, i);
        ref.add(new Ev(t, p, seq++, i));
      } else {
        got.add(q.pop());
        want.add(ref.poll().payload());
      }
    }
    while (!ref.isEmpty()) {
      got.add(q.pop());
      want.add(ref.poll().payload());
    }
    assertThat(got).isEqualTo(want);
    assertThat(q.isEmpty()).isTrue();
  }

  /**
   * A simulation's pattern, at sizes that make the queue build rungs: pop the earliest, push a few at or after its
   * time (the same instant at a lower priority, a launch later, spread-out completions, far outliers, bursts of
   * equal times), against a reference queue.
   */
  @Test
  void aSimulationsPattern_popsLikeAReferenceQueue() {
    for (long seed = 0; seed < 8; seed++) {
      SplittableRandom rnd = new SplittableRandom(seed);
      EventQueue q = new EventQueue(4);
      PriorityQueue<Ev> ref = new PriorityQueue<>(Comparator.comparingDouble(Ev::time)
          .thenComparingInt(Ev::priority).thenComparingLong(Ev::seq));
      long seq = 0;
      int id = 0;
      for (int i = 0; i < 5000; i++) {
        double t = i % 1000 == 0 ? 1e-6 : rnd.nextDouble() * 1e-3; // bursts at one instant
        q.push(t, 1, id);
        ref.add(new Ev(t, 1, seq++, id++));
      }
      for (int step = 0; step < 60000 && !ref.isEmpty(); step++) {
        double now = q.peekTime();
        assertThat(now).isEqualTo(ref.peek().time());
        assertThat(q.pop()).as("seed %d step %d", seed, step).isEqualTo(ref.poll().payload());
        int pushes = step < 40000 ? rnd.nextInt(3) : rnd.nextInt(2);
        for (int k = 0; k < pushes; k++) {
          double t = switch (rnd.nextInt(6)) {
            case 0 -> now;
            case 1 -> now + 1e-6;
            case 2 -> now + rnd.nextDouble() * 1e-4;
            case 3 -> Double.isInfinite(now) ? now : now + Math.ulp(now) * rnd.nextInt(3);
            case 4 -> rnd.nextInt(50) == 0 ? now + 1e3 : now + rnd.nextExponential() * 1e-5;
            default -> rnd.nextInt(200) == 0 ? Double.POSITIVE_INFINITY : now + rnd.nextDouble() * 1e-2;
          };
          int p = rnd.nextInt(2);
          q.push(t, p, id);
          ref.add(new Ev(t, p, seq++, id++));
        }
        assertThat(q.size()).isEqualTo(ref.size());
      }
      while (!ref.isEmpty()) {
        assertThat(q.pop()).isEqualTo(ref.poll().payload());
      }
      assertThat(q.isEmpty()).isTrue();
    }
  }

  @Test
  void clear_startsAfreshWithTheSequence() {
    EventQueue q = new EventQueue(4);
    for (int i = 0; i < 1000; i++) {
      q.push(i * 1e-3, 0, i);
    }
    q.pop();
    q.clear();
    assertThat(q.isEmpty()).isTrue();
    q.push(2.0, 0, 7);
    q.push(1.0, 0, 8);
    q.push(1.0, 0, 9);
    assertThat(List.of(q.pop(), q.pop(), q.pop())).containsExactly(8, 9, 7);
    assertThat(q.isEmpty()).isTrue();
  }

  @Test
  void theWholePriorityRange_ordersLowestFirst() {
    EventQueue q = new EventQueue(4);
    q.push(1.0, EventQueue.MAX_PRIORITY, 1);
    q.push(1.0, 0, 2);
    q.push(1.0, EventQueue.MAX_PRIORITY - 1, 3);
    assertThat(List.of(q.pop(), q.pop(), q.pop())).containsExactly(2, 3, 1);
    assertThat(EventQueue.MAX_PRIORITY).isEqualTo(32767); // 64 bits: 1 sign, 15 priority, 48 sequence
  }

  @Test
  void aPriorityOutsideTheRange_isRefusedNamingTheRange() {
    EventQueue q = new EventQueue(4);
    for (int p : new int[] {-1, EventQueue.MAX_PRIORITY + 1, Integer.MAX_VALUE, Integer.MIN_VALUE}) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> q.push(0.0, p, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("priority must be in [0, 32767], was " + p);
    }
    assertThat(q.isEmpty()).isTrue();
  }
}
