package llmsim.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LocalSweepBackendTest {
  /** Chunk c is c squared; chunk {@code failAt} throws. */
  record Squares(long chunks, long failAt) implements ChunkedJob<Long> {
    @Override
    public Long compute(long c) {
      if (c == failAt) {
        throw new IllegalArgumentException("chunk " + c + " is bad");
      }
      return c * c;
    }
  }

  @Test
  void everyChunkIsDeliveredOnce_withItsOwnResult_oneThreadOrThree() throws InterruptedException {
    for (int threads : new int[] {1, 3}) {
      Map<Long, Long> got = new ConcurrentHashMap<>();
      AtomicInteger calls = new AtomicInteger();
      new LocalSweepBackend(threads).run(new Squares(1000, -1), (c, r) -> {
        calls.incrementAndGet();
        got.put(c, r);
      }, () -> false);
      assertThat(calls.get()).isEqualTo(1000);
      assertThat(got).hasSize(1000);
      got.forEach((c, r) -> assertThat(r).isEqualTo(c * c));
    }
  }

  @Test
  void aFailingChunk_failsTheRunWithItsMessage() {
    assertThatThrownBy(() -> new LocalSweepBackend(2).run(new Squares(100, 37), (c, r) -> {}, () -> false))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("chunk 37 is bad");
  }

  @Test
  void cancelling_stopsHandingOutChunks() throws InterruptedException {
    AtomicInteger calls = new AtomicInteger();
    new LocalSweepBackend(1).run(new Squares(1_000_000, -1), (c, r) -> calls.incrementAndGet(), () -> calls.get() >= 10);
    assertThat(calls.get()).isBetween(10, 11);
  }

  @Test
  void moreThreadsThanChunks_startsOneThreadPerChunk() throws InterruptedException {
    // 'sweep --threads 100000' over a one-chunk grid started 100,000 threads for one chunk: 53 s of pthread_create
    // failures on stderr before the row; a thread beyond the chunks finds no chunk to take
    java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
    long before = mx.getTotalStartedThreadCount();
    Map<Long, Long> got = new ConcurrentHashMap<>();
    new LocalSweepBackend(5_000).run(new Squares(3, -1), got::put, () -> false);
    long started = mx.getTotalStartedThreadCount() - before;
    assertThat(got).containsOnlyKeys(0L, 1L, 2L);
    assertThat(started).as("threads started for 3 chunks").isLessThanOrEqualTo(3 + 5); // 5: room for the JVM's own
  }

  @Test
  void threadsBelowOne_areRefused() {
    assertThatThrownBy(() -> new LocalSweepBackend(0)).hasMessage("threads must be >= 1, was 0");
  }
}
