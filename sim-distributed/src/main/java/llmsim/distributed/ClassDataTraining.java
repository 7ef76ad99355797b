package llmsim.distributed;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;
import java.util.logging.Level;
import llmsim.cli.Main;

/**
 * The training run for the launcher's second class-data-sharing layer, the one for Hazelcast
 * ({@code -XX:ArchiveClassesAtExit} on top of llmsim.jar's archive; docs/DISTRIBUTED.md): it starts what {@code sweep
 * --backend hazelcast} and {@code llmsim worker} start, once each, so that later runs map Hazelcast's ~3,700 classes
 * and ~1,300 lambda classes instead of reading, verifying and spinning them. Not a user command: output is discarded,
 * and the exit code is 0 unless a sweep failed.
 */
public final class ClassDataTraining {
  /** The training member's first port: away from 5701, where a user's worker would be (it counts up when taken). */
  static final int PORT = 5791;

  private ClassDataTraining() {}

  public static void main(String[] args) {
    PrintWriter sink = new PrintWriter(OutputStream.nullOutputStream(), true);
    System.exit(train(sink, sink));
  }

  /** Runs the training sweeps, their rows to {@code out}; the worst exit code. */
  static int train(PrintWriter out, PrintWriter err) {
    String[] grid = {"sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--batch", "1,2", "--backend", "hazelcast"};
    int worst = 0;
    // an embedded member, analytic and event-simulated chunks
    worst = Math.max(worst, Main.execute(grid, out, err));
    worst = Math.max(worst, Main.execute(concat(grid, "--mode", "simulate", "--threads", "1"), out, err));
    // a member as 'llmsim worker' starts it, alone, and a sweep sent to it as a client
    Members.logLevel(Level.SEVERE);
    HazelcastInstance member = Hazelcast.newHazelcastInstance(Members.member("127.0.0.1", PORT, List.of(), 1));
    try {
      int port = member.getCluster().getLocalMember().getAddress().getPort();
      worst = Math.max(worst, Main.execute(concat(grid, "--cluster", "127.0.0.1:" + port), out, err));
    } finally {
      member.getLifecycleService().terminate();
    }
    return worst;
  }

  private static String[] concat(String[] a, String... b) {
    String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
