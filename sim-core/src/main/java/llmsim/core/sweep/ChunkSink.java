package llmsim.core.sweep;

/** Receives the chunks of a run as they finish: from any thread, in any order, each index once. */
@FunctionalInterface
public interface ChunkSink<R> {
  void accept(long chunk, R result);
}
