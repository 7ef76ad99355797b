package llmsim.bench;

import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import llmsim.core.engine.EventQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The classic hold model: with {@code pending} events queued, pop the earliest and push one later by an
 * exponential increment. llmsim's event queue (a ladder of time buckets in front of a small primitive heap) vs
 * java.util.PriorityQueue of event objects.
 *
 * <p>Run: {@code bench/run EventQueueBench}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xmx4g"})
public class EventQueueBench {
  static final int HOLDS = 100_000;

  @Param({"1000", "10000", "100000", "1000000"})
  int pending;

  EventQueue queue;
  PriorityQueue<Event> pq;
  double[] increments;
  int k;

  record Event(double time, long seq, int payload) implements Comparable<Event> {
    @Override
    public int compareTo(Event o) {
      int c = Double.compare(time, o.time);
      return c != 0 ? c : Long.compare(seq, o.seq);
    }
  }

  long seq;

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom r = new SplittableRandom(7);
    increments = new double[1 << 16];
    for (int i = 0; i < increments.length; i++) {
      increments[i] = -Math.log(1 - r.nextDouble());
    }
    queue = new EventQueue(pending + 1);
    pq = new PriorityQueue<>(pending + 1);
    for (int i = 0; i < pending; i++) {
      double t = increments[i & 0xffff] * 10;
      queue.push(t, 0, i);
      pq.add(new Event(t, seq++, i));
    }
  }

  @Benchmark
  @OperationsPerInvocation(HOLDS)
  public int eventQueueHold() {
    int sum = 0;
    for (int i = 0; i < HOLDS; i++) {
      double now = queue.peekTime();
      int p = queue.pop();
      queue.push(now + increments[k++ & 0xffff], 0, p);
      sum += p;
    }
    return sum;
  }

  @Benchmark
  @OperationsPerInvocation(HOLDS)
  public int priorityQueueHold() {
    int sum = 0;
    for (int i = 0; i < HOLDS; i++) {
      Event e = pq.poll();
      pq.add(new Event(e.time() + increments[k++ & 0xffff], seq++, e.payload()));
      sum += e.payload();
    }
    return sum;
  }
}
