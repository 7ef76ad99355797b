package llmsim.distributed;

import com.hazelcast.client.config.ClientConfig;
import com.hazelcast.config.Config;
import com.hazelcast.config.JoinConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.logging.Level;
import java.util.logging.Logger;

/** Hazelcast configuration for llmsim's members and clients: one place for names, ports, joining and logging. */
final class Members {
  static final String CLUSTER_NAME = "llmsim";
  static final String EXECUTOR = "llmsim-sweep";
  /** Member attribute: the worker threads of the member's executor, so a client keeps each one busy, no busier. */
  static final String THREADS_ATTRIBUTE = "llmsim.threads";
  static final int DEFAULT_PORT = 5701;
  /** Held so the level set on it stays (java.util.logging keeps loggers weakly). */
  private static final Logger HAZELCAST_LOG = Logger.getLogger("com.hazelcast");

  /** Hazelcast's async completions, where its own default would start a thread for each ({@link #reuseAsyncThreads}). */
  private static final Executor ASYNC = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "llmsim-hazelcast-async");
    t.setDaemon(true);
    return t;
  });

  private Members() {}

  /**
   * Hazelcast completes its futures' callbacks (a sweep's ExecutionCallback: one per chunk answered) on its default
   * async executor, ForkJoinPool's common pool, or, where that pool's parallelism is 1 (a 2-core machine), on a new
   * thread per callback (com.hazelcast.internal.util.ConcurrencyUtil): 25,066 threads started by an embedded member's
   * 50,000-point simulate sweep, 2.7-3.8 s of system time. There, a cached pool of reused daemon threads instead.
   */
  private static void reuseAsyncThreads() {
    if (ForkJoinPool.getCommonPoolParallelism() <= 1) {
      com.hazelcast.internal.util.ConcurrencyUtil.setDefaultAsyncExecutor(ASYNC);
    }
  }

  /**
   * A member on {@code host:port} that joins {@code members} over TCP (no multicast, no cloud discovery), or stays
   * alone when the list is empty. Binds to {@code host} only.
   */
  static Config member(String host, int port, List<String> members, int threads) {
    reuseAsyncThreads();
    Config c = new Config();
    c.setClusterName(CLUSTER_NAME);
    common(c.getProperties());
    c.setProperty("hazelcast.local.localAddress", host);
    c.setProperty("hazelcast.socket.bind.any", "false");
    c.setProperty("hazelcast.wait.seconds.before.join", "0"); // default 5 s: the whole of a short sweep
    c.setProperty("hazelcast.shutdownhook.policy", "GRACEFUL");
    c.getNetworkConfig().setPort(port).setPortAutoIncrement(members.isEmpty());
    JoinConfig join = c.getNetworkConfig().getJoin();
    join.getMulticastConfig().setEnabled(false);
    join.getAutoDetectionConfig().setEnabled(false);
    join.getTcpIpConfig().setEnabled(!members.isEmpty()).setMembers(new ArrayList<>(members));
    // no metrics collection: it serves Hazelcast's Management Center, which llmsim does not use, and registering
    // its probes is ~10% of a member's start (docs/DISTRIBUTED.md)
    c.getMetricsConfig().setEnabled(false);
    c.getExecutorConfig(EXECUTOR).setPoolSize(threads);
    c.getMemberAttributeConfig().setAttribute(THREADS_ATTRIBUTE, Integer.toString(threads));
    return c;
  }

  /** How long a client tries to reach the cluster (tests shorten it). */
  static long connectTimeoutMillis() {
    return Long.getLong("llmsim.hazelcast.connectTimeoutMillis", 10_000);
  }

  /** A client of the cluster at {@code addresses}; gives up connecting after {@link #connectTimeoutMillis()}. */
  static ClientConfig client(List<String> addresses) {
    reuseAsyncThreads();
    ClientConfig c = new ClientConfig();
    c.setClusterName(CLUSTER_NAME);
    common(c.getProperties());
    c.getNetworkConfig().setAddresses(new ArrayList<>(addresses));
    c.getConnectionStrategyConfig().getConnectionRetryConfig().setClusterConnectTimeoutMillis(connectTimeoutMillis());
    // no metrics: a client collects its own and sends them to the cluster for Management Center (as a member's, off in
    // member() above), on threads that share the machine with the workers (docs/DISTRIBUTED.md, eighth run)
    c.getMetricsConfig().setEnabled(false);
    return c;
  }

  private static void common(java.util.Properties p) {
    p.setProperty("hazelcast.phone.home.enabled", "false");
    p.setProperty("hazelcast.logging.type", "jdk");
  }

  /** Hazelcast's own log at {@code level} and above (INFO lists every member and partition event). */
  static void logLevel(Level level) {
    HAZELCAST_LOG.setLevel(level);
  }

  /** {@code host:port[,host:port...]}; a missing port is 5701. */
  static List<String> parseAddresses(String list, String flag) {
    List<String> out = new ArrayList<>();
    for (String a : list.split(",")) {
      String s = a.strip();
      if (s.isEmpty()) {
        continue;
      }
      int colon = s.lastIndexOf(':');
      if (colon < 0) {
        s = s + ":" + DEFAULT_PORT;
      } else {
        try {
          int port = Integer.parseInt(s.substring(colon + 1));
          if (port < 1 || port > 65535) {
            throw new NumberFormatException();
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(flag + ": '" + a.strip() + "' is not HOST:PORT (port 1-65535)");
        }
      }
      out.add(s);
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException(flag + ": give at least one HOST:PORT");
    }
    return out;
  }
}
