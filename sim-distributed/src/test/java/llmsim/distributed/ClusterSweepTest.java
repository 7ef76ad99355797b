package llmsim.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real cluster: two worker JVMs on 127.0.0.1, a sweep sent to them from this JVM as a client, compared with the local
 * backend byte for byte; then the same sweep while one worker is killed part way through.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClusterSweepTest {
  @TempDir Path dir;

  /**
   * 2 x 2 x 2 x 48 = 384 event-simulated points: 24 chunks of 16, a few seconds on two one-thread workers. Large enough
   * that rows written in a burst (the chunk a slow worker held coming in after a dozen others, or this JVM's poll of
   * the rows starved of a core for a second) still leave chunks to run when the kill lands: with 192 points a JDK 25
   * run saw 176 rows by the time it looked.
   */
  static final String[] GRID = {"sweep", "--hardware", "m2-ultra,13900ks-rtx4090", "--models", "llama-7b,llama-13b",
      "--tasks", "inference,train", "--batch", batches(48), "--seq-len", "512", "--prompt-tokens", "128",
      "--generate-tokens", "32", "--mode", "simulate"};
  static final int POINTS = 2 * 2 * 2 * 48;

  static String batches(int n) {
    return java.util.stream.IntStream.rangeClosed(1, n).mapToObj(Integer::toString)
        .collect(java.util.stream.Collectors.joining(","));
  }

  @Test
  void twoWorkers_writeTheLocalBytes_andAKilledWorkerLosesNoRow() throws Exception {
    Cli local = Cli.run(Cli.concat(GRID, "--threads", "1"));
    assertThat(local.code).as(local.err.toString()).isZero();
    List<String> expected = local.out.toString().lines().toList();
    assertThat(expected).hasSize(1 + POINTS);

    ExecutorService client = Executors.newSingleThreadExecutor();
    try (WorkerCluster cluster = WorkerCluster.start(2, dir)) {
      String[] remote = Cli.concat(GRID, "--backend", "hazelcast", "--cluster", cluster.addresses());
      Cli whole = Cli.run(remote);
      assertThat(whole.code).as(whole.err.toString()).isZero();
      assertThat(whole.out.toString()).isEqualTo(local.out.toString());

      Cli cut = new Cli();
      Future<Integer> run = client.submit(() -> llmsim.cli.Main.execute(remote, new java.io.PrintWriter(cut.out),
          new java.io.PrintWriter(cut.err)));
      long rowsAtKill = awaitRows(cut, 2 * 16, run); // each worker holds two chunks while four or more remain
      cluster.kill(1);
      int code = run.get(2, TimeUnit.MINUTES);
      assertThat(code).as(cut.err.toString()).isZero();
      assertThat(rowsAtKill).as("the worker was killed mid-sweep").isLessThan(POINTS - 2 * 16);
      assertThat(cut.err.toString()).contains("left during the sweep").contains("chunks resubmitted");
      assertThat(cut.out.toString()).isEqualTo(local.out.toString()); // every index once, in order, same bytes
    } finally {
      client.shutdownNow();
      client.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  /** Waits until the sweep has written {@code rows} rows (or ended), returns how many it had. */
  private static long awaitRows(Cli cli, long rows, Future<Integer> run) throws InterruptedException {
    long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
    while (System.nanoTime() < end && !run.isDone()) {
      long n = cli.out.toString().lines().count() - 1;
      if (n >= rows) {
        return n;
      }
      Thread.sleep(5);
    }
    return cli.out.toString().lines().count() - 1;
  }
}
