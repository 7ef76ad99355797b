package llmsim.distributed;

import java.io.PrintWriter;
import llmsim.core.sweep.SweepBackend;
import llmsim.core.sweep.SweepBackendProvider;

/** {@code sweep --backend hazelcast}: a client of a running cluster ({@code --cluster}), or one embedded member. */
public final class HazelcastBackendProvider implements SweepBackendProvider {
  @Override
  public String name() {
    return "hazelcast";
  }

  @Override
  public SweepBackend open(String cluster, Integer threads, PrintWriter log) {
    if (cluster == null) {
      return HazelcastSweepBackend.embedded(threads == null ? Runtime.getRuntime().availableProcessors() : threads, log);
    }
    return HazelcastSweepBackend.client(Members.parseAddresses(cluster, "--cluster"), log);
  }
}
