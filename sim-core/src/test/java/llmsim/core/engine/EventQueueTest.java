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
