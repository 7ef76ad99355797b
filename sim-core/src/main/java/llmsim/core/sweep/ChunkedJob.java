package llmsim.core.sweep;

import java.io.Serializable;

/**
 * Work cut into chunks by index: chunk {@code c}'s result is a pure function of the job's fields and {@code c}, so
 * any thread or process holding the job can compute it, and computing it twice gives equal results. A backend
 * moves the job (a few hundred bytes: the grid's axes, never its points) and chunk indexes, not the points.
 *
 * @param <R> one chunk's result; serializable so that it can come back from another process
 */
public interface ChunkedJob<R extends Serializable> extends Serializable {
  /** How many chunks: indexes 0 to chunks() - 1. */
  long chunks();

  /** Computes chunk {@code c}; a {@link RuntimeException} fails the whole run with its message. */
  R compute(long chunk);
}
