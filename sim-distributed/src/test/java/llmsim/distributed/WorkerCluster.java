package llmsim.distributed;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Worker JVMs on 127.0.0.1, each a separate process running {@link Worker} on this test's class path. {@link #close}
 * kills whatever is still running, forcibly and with a deadline, so a failing test leaves no process behind.
 */
final class WorkerCluster implements AutoCloseable {
  /** What Hazelcast asks for on JDK 9+ (without them it warns and falls back to slower paths). */
  static final List<String> HAZELCAST_OPENS = List.of("--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
      "--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED");

  final List<Process> workers = new ArrayList<>();
  final List<Path> logs = new ArrayList<>();
  final List<Integer> ports = new ArrayList<>();

  /** Starts {@code n} workers of one thread each, all listing each other, and waits until each sees all n. */
  static WorkerCluster start(int n, Path dir) throws IOException, InterruptedException {
    WorkerCluster c = new WorkerCluster();
    try {
      for (int i = 0; i < n; i++) {
        c.ports.add(freePort());
      }
      List<String> all = c.ports.stream().map(p -> "127.0.0.1:" + p).toList();
      for (int i = 0; i < n; i++) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "--add-modules", "jdk.incubator.vector", "-Xmx256m", "-XX:+UseSerialGC"));
        cmd.addAll(HAZELCAST_OPENS);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), Worker.class.getName(), "--port",
            Integer.toString(c.ports.get(i)), "--members", String.join(",", all), "--threads", "1"));
        Path log = dir.resolve("worker-" + i + ".log");
        c.logs.add(log);
        c.workers.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
      }
      for (int i = 0; i < n; i++) {
        c.awaitLine(i, "cluster of " + n + " members", 60);
      }
      return c;
    } catch (IOException | InterruptedException | RuntimeException | Error e) {
      c.close();
      throw e;
    }
  }

  String addresses() {
    return String.join(",", ports.stream().map(p -> "127.0.0.1:" + p).toList());
  }

  /** Waits until worker {@code i}'s output holds {@code text}; fails with the output after {@code seconds}. */
  void awaitLine(int i, String text, int seconds) throws IOException, InterruptedException {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (System.nanoTime() < end) {
      String out = Files.readString(logs.get(i), StandardCharsets.UTF_8);
      if (out.contains(text)) {
        return;
      }
      if (!workers.get(i).isAlive()) {
        throw new AssertionError("worker " + i + " exited with " + workers.get(i).exitValue() + ":\n" + out);
      }
      Thread.sleep(50);
    }
    throw new AssertionError("worker " + i + " did not print '" + text + "' within " + seconds + " s:\n"
        + Files.readString(logs.get(i), StandardCharsets.UTF_8));
  }

  void kill(int i) throws InterruptedException {
    workers.get(i).destroyForcibly().waitFor(10, TimeUnit.SECONDS);
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Override
  public void close() {
    for (Process p : workers) {
      p.destroyForcibly();
    }
    for (Process p : workers) {
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
