package llmsim.core.sweep;

import java.io.Serializable;
import java.util.function.BooleanSupplier;

/**
 * Where the chunks of a sweep run: threads of this process ({@link LocalSweepBackend}) or the members of a cluster.
 * A backend only decides where and when each chunk is computed; what it computes, and the order rows are written
 * in, belong to the job and its caller, so the output is the same whatever the backend and however many workers.
 */
public interface SweepBackend extends AutoCloseable {
  /** One line for logs and errors, e.g. {@code local, 2 threads}. */
  String describe();

  /**
   * Computes every chunk of {@code job} and hands each result to {@code sink} exactly once (a chunk lost with a
   * worker is computed again elsewhere). Returns when all are delivered, or soon after {@code cancelled} turns
   * true; throws the first failure of a chunk.
   */
  <R extends Serializable> void run(ChunkedJob<R> job, ChunkSink<R> sink, BooleanSupplier cancelled)
      throws InterruptedException;

  /** Releases threads, connections or an embedded cluster member. */
  @Override
  void close();
}
