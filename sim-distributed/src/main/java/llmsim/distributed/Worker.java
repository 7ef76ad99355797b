package llmsim.distributed;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import llmsim.core.kernel.Kernels;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code llmsim worker}: one Hazelcast member that runs sweep chunks for clients ({@code sweep --backend hazelcast
 * --cluster HOST:PORT}). Start one per machine (or per process on a machine), each listing the others with
 * {@code --members}; it runs until stopped (Ctrl-C or TERM leave the cluster; a kill is survived by the sweep).
 */
@Command(name = "llmsim worker", mixinStandardHelpOptions = true, description = {
    "Run a worker for distributed sweeps: a Hazelcast member that computes chunks of the sweeps clients send "
        + "(llmsim sweep --backend hazelcast --cluster HOST:PORT). It runs until stopped. See docs/DISTRIBUTED.md.",
    "",
    "Example, two machines:",
    "  llmsim worker --host 10.0.0.1 --members 10.0.0.1,10.0.0.2   (on the first)",
    "  llmsim worker --host 10.0.0.2 --members 10.0.0.1,10.0.0.2   (on the second)",
    ""})
public final class Worker implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec; // bad input is reported on this command line's writers
  @Option(names = "--host", defaultValue = "127.0.0.1", paramLabel = "ADDR",
      description = "Address to bind and be reached at (default: ${DEFAULT-VALUE}, this machine only).")
  String host;

  @Option(names = "--port", defaultValue = "5701", paramLabel = "PORT", description = "Port (default: ${DEFAULT-VALUE}).")
  int port;

  @Option(names = "--members", split = ",", paramLabel = "HOST:PORT",
      description = "The cluster's other members, to join (a missing port is 5701). None: start a cluster others join.")
  List<String> members = new ArrayList<>();

  @Option(names = "--threads", paramLabel = "N", description = "Threads computing chunks (default: all cores).")
  Integer threads;

  private final PrintWriter out;

  Worker(PrintWriter out) {
    this.out = out;
  }

  public static void main(String[] args) {
    String[] rest = args.length > 0 && args[0].equals("worker") ? java.util.Arrays.copyOfRange(args, 1, args.length) : args;
    PrintWriter out = new PrintWriter(System.out, true);
    System.exit(commandLine(out).execute(rest));
  }

  /**
   * The worker's command line: bad input is reported as the other llmsim commands report it
   * ({@link llmsim.cli.Main#reportBadInput}: "error: ..." and where help is, exit 2), where picocli's default printed
   * the whole usage after the message.
   */
  static CommandLine commandLine(PrintWriter out) {
    CommandLine cl = new CommandLine(new Worker(out));
    cl.setParameterExceptionHandler(llmsim.cli.Main::reportBadInput);
    return cl;
  }

  @Override
  public Integer call() throws InterruptedException {
    int t = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
    if (t < 1) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--threads must be >= 1, was " + t);
    }
    if (port < 1 || port > 65535) { // else Hazelcast's IllegalArgumentException, a stack trace and exit 1
      throw new CommandLine.ParameterException(spec.commandLine(), "--port must be 1 to 65535, was " + port);
    }
    List<String> join = new ArrayList<>(List.of(host + ":" + port)); // itself too: the first one up is found
    if (!members.isEmpty()) {
      try {
        join.addAll(Members.parseAddresses(String.join(",", members), "--members"));
      } catch (IllegalArgumentException e) { // bad input: its message and exit 2, as --threads has, not a stack trace
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
    }
    Members.logLevel(Level.WARNING);
    HazelcastInstance hz = Hazelcast.newHazelcastInstance(Members.member(host, port, join, t));
    hz.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent e) {
        say("llmsim worker: " + e.getMember().getAddress() + " joined; cluster of " + e.getMembers().size() + " members");
      }

      @Override
      public void memberRemoved(MembershipEvent e) {
        say("llmsim worker: " + e.getMember().getAddress() + " left; cluster of " + e.getMembers().size() + " members");
      }
    });
    say("llmsim worker: ready at " + hz.getCluster().getLocalMember().getAddress() + ", " + t
        + (t == 1 ? " thread" : " threads") + ", " + Kernels.get().name() + " kernel; cluster of "
        + hz.getCluster().getMembers().size() + " members");
    new CountDownLatch(1).await(); // until the JVM is stopped; Hazelcast's shutdown hook leaves the cluster
    return 0;
  }

  private synchronized void say(String line) {
    out.println(line);
    out.flush();
  }
}
