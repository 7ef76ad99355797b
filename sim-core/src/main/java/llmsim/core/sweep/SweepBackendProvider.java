package llmsim.core.sweep;

import java.io.PrintWriter;

/**
 * A named backend found with {@link java.util.ServiceLoader}, so that an engine's jars load only when a user picks
 * it ({@code sweep --backend NAME}).
 */
public interface SweepBackendProvider {
  /** The name users give to {@code --backend}. */
  String name();

  /**
   * Opens the backend.
   *
   * @param cluster where an existing cluster is ({@code host:port[,host:port...]}), or null for one embedded in this
   *     process
   * @param threads worker threads of an embedded member, or null for every core
   * @param log where to say what happens to workers (one line each: joined, left, chunks resubmitted)
   * @throws IllegalArgumentException with a one-line reason when the cluster cannot be reached or the options do
   *     not fit the backend
   */
  SweepBackend open(String cluster, Integer threads, PrintWriter log);
}
