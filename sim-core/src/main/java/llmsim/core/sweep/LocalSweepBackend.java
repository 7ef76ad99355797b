package llmsim.core.sweep;

import java.io.Serializable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

/**
 * The default backend: a fixed pool of daemon threads in this process (as many as asked, at most one per chunk), each
 * taking the next chunk index.
 */
public final class LocalSweepBackend implements SweepBackend {
  private final int threads;

  public LocalSweepBackend(int threads) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, was " + threads);
    }
    this.threads = threads;
  }

  @Override
  public String describe() {
    return "local, " + threads + (threads == 1 ? " thread" : " threads");
  }

  @Override
  public <R extends Serializable> void run(ChunkedJob<R> job, ChunkSink<R> sink, BooleanSupplier cancelled)
      throws InterruptedException {
    long chunks = job.chunks();
    // a thread beyond the chunks would find none to take: --threads 100000 on a one-chunk grid started them all
    int workers = (int) Math.max(1, Math.min(threads, chunks));
    ExecutorService pool = Executors.newFixedThreadPool(workers, r -> {
      Thread t = new Thread(r, "llmsim-sweep");
      t.setDaemon(true);
      return t;
    });
    AtomicLong next = new AtomicLong();
    AtomicReference<RuntimeException> failure = new AtomicReference<>();
    for (int i = 0; i < workers; i++) {
      pool.execute(() -> {
        long c;
        try {
          while (failure.get() == null && !cancelled.getAsBoolean() && (c = next.getAndIncrement()) < chunks) {
            sink.accept(c, job.compute(c));
          }
        } catch (RuntimeException | Error e) {
          failure.compareAndSet(null, e instanceof RuntimeException re ? re : new IllegalStateException(e));
        }
      });
    }
    pool.shutdown();
    try {
      while (!pool.awaitTermination(50, TimeUnit.MILLISECONDS)) {
        if (cancelled.getAsBoolean() || failure.get() != null) {
          break; // a chunk in progress ends on its own (daemon) thread; the caller has stopped reading by then
        }
      }
    } finally {
      pool.shutdownNow();
    }
    if (failure.get() != null) {
      throw failure.get();
    }
  }

  @Override
  public void close() {
    // the pool lives for one run
  }
}
