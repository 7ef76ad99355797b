package llmsim.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import llmsim.core.sweep.ChunkedJob;
import org.junit.jupiter.api.Test;

/** What a sweep's chunks cost on an embedded member besides computing them: the job's transport and the answers'. */
class HazelcastSweepBackendTest {
  static final int CHUNKS = 400;

  /** Chunk c's result is c squared; counts how often the job is read back from bytes, in this process. */
  static final class Squares implements ChunkedJob<Long> {
    private static final long serialVersionUID = 1L;
    static final AtomicInteger READS = new AtomicInteger();
    /** Some weight, as a sweep's axes have: the job's bytes are a few kilobytes. */
    final String[] axes = new String[300];

    Squares() {
      java.util.Arrays.setAll(axes, i -> "value-" + i);
    }

    @Override
    public long chunks() {
      return CHUNKS;
    }

    @Override
    public Long compute(long chunk) {
      return chunk * chunk;
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      READS.incrementAndGet();
    }
  }

  @Test
  void everyChunkOnce_theJobReadOnce_andNoThreadStartedPerAnswer() throws Exception {
    Squares.READS.set(0);
    Map<Long, Long> got = new ConcurrentHashMap<>();
    AtomicInteger twice = new AtomicInteger();
    try (HazelcastSweepBackend hz = HazelcastSweepBackend.embedded(2, new PrintWriter(new StringWriter()))) {
      long threadsBefore = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount();
      hz.run(new Squares(), (c, r) -> {
        if (got.put(c, r) != null) {
          twice.incrementAndGet();
        }
      }, () -> false);
      long started = ManagementFactory.getThreadMXBean().getTotalStartedThreadCount() - threadsBefore;
      assertThat(twice).hasValue(0);
      assertThat(got).hasSize(CHUNKS);
      got.forEach((c, r) -> assertThat(r).isEqualTo(c * c));
      // the task travels serialized even to a member in this process; its job is read once per process and job,
      // not once per chunk (400 reads, each an object stream, before)
      assertThat(Squares.READS).hasValue(1);
      // Hazelcast runs answers' callbacks on a new thread each where ForkJoinPool's common pool has parallelism 1
      // (2 cores): 400 threads for 400 chunks before Members.reuseAsyncThreads; on more cores it uses that pool, so
      // this holds there either way
      assertThat(started).as("threads started during the run").isLessThan(CHUNKS / 10);
    }
  }
}
