package llmsim.distributed;

import com.hazelcast.client.HazelcastClient;
import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.cluster.Member;
import com.hazelcast.config.Config;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.IExecutorService;
import com.hazelcast.core.MemberLeftException;
import com.hazelcast.spi.exception.TargetDisconnectedException;
import com.hazelcast.spi.exception.TargetNotMemberException;
import java.io.PrintWriter;
import java.io.Serializable;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import llmsim.core.sweep.ChunkSink;
import llmsim.core.sweep.ChunkedJob;
import llmsim.core.sweep.SweepBackend;

/**
 * Chunks of a sweep on the members of a Hazelcast cluster, through its executor service. The coordinator (this
 * process) hands each member at most twice as many chunk indexes as it has worker threads (as many, near the end),
 * lowest index first, so the rows the caller writes in index order keep flowing and no member idles while another
 * holds a queue. A chunk whose member leaves (killed, disconnected) before answering goes back to the front of the
 * queue and runs on another: the caller receives every chunk exactly once.
 */
final class HazelcastSweepBackend implements SweepBackend {
  /** How long a run waits for a member to (re)appear when none is left before it gives up. */
  static final long NO_MEMBER_TIMEOUT_MILLIS = 30_000;
  /**
   * Chunks queue behind a running one only while more than this many per thread of the cluster are left to hand out.
   * Points vary ~8x in cost, so a chunk may queue behind one that runs for a second; with four or more chunks per
   * thread still to come that wait does not move the end of the run. Measured with a threshold of 1: a 16-point chunk
   * waited 1.0 s behind another while the other worker ran out of work (docs/DISTRIBUTED.md, eighth run).
   */
  static final int QUEUE_WHILE_LEFT_PER_THREAD = 4;

  private final HazelcastInstance hz;
  private final boolean embedded;
  private final String description;
  private final PrintWriter log;

  private HazelcastSweepBackend(HazelcastInstance hz, boolean embedded, String description, PrintWriter log) {
    this.hz = hz;
    this.embedded = embedded;
    this.description = description;
    this.log = log;
  }

  /** One member in this process, alone in its cluster, bound to 127.0.0.1. */
  static HazelcastSweepBackend embedded(int threads, PrintWriter log) {
    Members.logLevel(Level.SEVERE);
    Config c = Members.member("127.0.0.1", Members.DEFAULT_PORT, List.of(), threads);
    c.setClusterName(Members.CLUSTER_NAME + "-embedded-" + ProcessHandle.current().pid()); // never joins a cluster
    c.setProperty("hazelcast.shutdownhook.enabled", "false");
    c.setClassLoader(HazelcastSweepBackend.class.getClassLoader());
    return new HazelcastSweepBackend(Hazelcast.newHazelcastInstance(c), true,
        "hazelcast, embedded member, " + threads + (threads == 1 ? " thread" : " threads"), log);
  }

  /** A client of the cluster at {@code addresses}. */
  static HazelcastSweepBackend client(List<String> addresses, PrintWriter log) {
    Members.logLevel(Level.SEVERE);
    ClientConfig c = Members.client(addresses);
    c.setClassLoader(HazelcastSweepBackend.class.getClassLoader());
    HazelcastInstance hz;
    try {
      hz = HazelcastClient.newHazelcastClient(c);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException("no llmsim cluster answered at " + String.join(",", addresses)
          + " within " + Members.connectTimeoutMillis() / 1000.0 + " s; start workers there with 'llmsim worker' (docs/DISTRIBUTED.md)");
    }
    return new HazelcastSweepBackend(hz, false, "hazelcast cluster at " + String.join(",", addresses), log);
  }

  @Override
  public String describe() {
    return description;
  }

  /** What came back for one chunk from one member. */
  private record Outcome<R>(long chunk, UUID member, R result, Throwable error) {}

  @Override
  public <R extends Serializable> void run(ChunkedJob<R> job, ChunkSink<R> sink, BooleanSupplier cancelled)
      throws InterruptedException {
    IExecutorService executor = hz.getExecutorService(Members.EXECUTOR);
    long chunks = job.chunks();
    long next = 0;
    long delivered = 0;
    int running = 0;
    long resubmitted = 0;
    PriorityQueue<Long> again = new PriorityQueue<>();
    Map<UUID, Integer> inFlight = new HashMap<>();
    Set<UUID> left = new HashSet<>();
    BlockingQueue<Outcome<R>> outcomes = new LinkedBlockingQueue<>();
    long alone = -1; // when the cluster was last seen with no member to run on
    while (delivered < chunks && !cancelled.getAsBoolean()) {
      Set<Member> members = hz.getCluster().getMembers();
      int threads = 0;
      for (Member m : members) {
        threads += threads(m);
      }
      for (Member m : members) {
        UUID id = m.getUuid();
        while ((!again.isEmpty() || next < chunks) && inFlight.getOrDefault(id, 0)
            < capacity(m, again.size() + chunks - next > (long) QUEUE_WHILE_LEFT_PER_THREAD * threads)) {
          long c = again.isEmpty() ? next++ : again.poll();
          executor.submitToMember(new ChunkTask<>(job, c), m, new ExecutionCallback<R>() {
            @Override
            public void onResponse(R r) {
              outcomes.add(new Outcome<>(c, id, r, null));
            }

            @Override
            public void onFailure(Throwable t) {
              outcomes.add(new Outcome<>(c, id, null, t));
            }
          });
          inFlight.merge(id, 1, Integer::sum);
          running++;
        }
      }
      if (running == 0) {
        long now = System.nanoTime();
        alone = alone < 0 ? now : alone;
        if (now - alone > TimeUnit.MILLISECONDS.toNanos(NO_MEMBER_TIMEOUT_MILLIS)) {
          throw new IllegalStateException("no hazelcast member left to run the sweep on; " + (chunks - delivered)
              + " of " + chunks + " chunks not done");
        }
      } else {
        alone = -1;
      }
      Outcome<R> o = outcomes.poll(100, TimeUnit.MILLISECONDS);
      if (o == null) {
        continue;
      }
      running--;
      inFlight.merge(o.member(), -1, Integer::sum);
      if (o.error() == null) {
        sink.accept(o.chunk(), o.result());
        delivered++;
      } else if (lostWithMember(o.error(), o.member())) {
        again.add(o.chunk());
        resubmitted++;
        if (left.add(o.member())) {
          say("llmsim: hazelcast member " + o.member() + " left during the sweep; its chunks in progress run again on"
              + " the others");
        }
      } else {
        throw failure(o.error());
      }
    }
    if (resubmitted > 0) {
      say("llmsim: " + resubmitted + " chunks resubmitted after members left; every row was written once");
    }
  }

  /**
   * Chunks a member may hold: twice its worker threads (one running, one queued behind it while the answer travels,
   * a few milliseconds of idling saved per chunk) while more than {@link #QUEUE_WHILE_LEFT_PER_THREAD} chunks per
   * thread of the cluster are left to hand out; then one a thread, so that the last chunks go to whichever thread frees
   * first instead of waiting behind a long chunk in a busy member's queue while the others idle.
   */
  private static int capacity(Member m, boolean plenty) {
    return (plenty ? 2 : 1) * threads(m);
  }

  /** The member's worker threads, as it announces them. */
  private static int threads(Member m) {
    String t = m.getAttribute(Members.THREADS_ATTRIBUTE);
    try {
      return Math.max(1, t == null ? 1 : Integer.parseInt(t));
    } catch (NumberFormatException e) {
      return 1;
    }
  }

  /** Whether the chunk failed because its member went away, not because computing it failed. */
  private boolean lostWithMember(Throwable error, UUID member) {
    for (Throwable t = error; t != null; t = t.getCause()) {
      if (t instanceof MemberLeftException || t instanceof TargetDisconnectedException
          || t instanceof TargetNotMemberException || t instanceof HazelcastInstanceNotActiveException) {
        return true;
      }
    }
    return hz.getCluster().getMembers().stream().noneMatch(m -> m.getUuid().equals(member));
  }

  /** The chunk's own exception when a member sends it back (its message is the user's), else the transport's. */
  private static RuntimeException failure(Throwable error) {
    Throwable t = error;
    while ((t instanceof java.util.concurrent.ExecutionException || t instanceof java.util.concurrent.CompletionException)
        && t.getCause() != null) {
      t = t.getCause();
    }
    return t instanceof RuntimeException re ? re : new IllegalStateException(t.getMessage(), t);
  }

  private void say(String line) {
    synchronized (log) {
      log.println(line);
      log.flush();
    }
  }

  @Override
  public void close() {
    if (embedded) {
      hz.getLifecycleService().terminate(); // one member holding no data: nothing to hand over
    } else {
      hz.shutdown();
    }
  }
}
