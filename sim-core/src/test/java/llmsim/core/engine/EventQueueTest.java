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
}
