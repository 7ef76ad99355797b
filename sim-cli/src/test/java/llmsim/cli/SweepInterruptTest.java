package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sweep stopped by a signal (SIGTERM runs the shutdown hooks as Ctrl-C's SIGINT does) keeps whole rows only, and
 * SIGKILL leaves the old file. The child is told to stop after a known number of chunks ({@link
 * SweepCommand#PAUSE_PROPERTY}) and says so, so the signal always lands at the same row, however fast the engine is.
 */
class SweepInterruptTest {
  static final int PAUSE_AFTER_CHUNKS = 2;
  static final String OLD = "precious\n";

  @TempDir Path dir;

  Process start(Path out) throws IOException {
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-D" + SweepCommand.PAUSE_PROPERTY + "=" + PAUSE_AFTER_CHUNKS,
        "-cp", System.getProperty("java.class.path"), "llmsim.cli.Main", "sweep",
        "--hardware", "m2-ultra,13900ks-h100", "--models", "llama-7b,llama-13b", "--tasks", "inference,train",
        "--batch", "1,2,4,8,16", "--mode", "simulate", "--threads", "1", "--output", out.toString()));
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("log.txt").toFile()).start();
  }

  /** Waits for the child's "paused" line; the deadline only guards against a hang, it measures nothing. */
  void awaitPause(Process p) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (!log().contains("llmsim-test: paused after " + PAUSE_AFTER_CHUNKS + " chunks")) {
      assertThat(p.isAlive()).as("the sweep ended before pausing: %s", log()).isTrue();
      assertThat(System.nanoTime()).as("no pause within the deadline: %s", log()).isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  String log() throws IOException {
    Path f = dir.resolve("log.txt");
    return Files.exists(f) ? Files.readString(f) : "";
  }

  List<String> files() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void sigterm_keepsExactlyTheCompleteRowsWritten_andNoTemporaryFile() throws Exception {
    Path out = dir.resolve("partial.csv");
    Files.writeString(out, OLD);
    Process p = start(out);
    awaitPause(p);
    p.destroy(); // SIGTERM
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();

    int rows = PAUSE_AFTER_CHUNKS * SweepCommand.SIMULATE_CHUNK;
    List<String> lines = Files.readAllLines(out);
    assertThat(lines.get(0)).isEqualTo(String.join(",", SweepRows.COLUMNS));
    assertThat(lines).hasSize(1 + rows);
    for (int i = 1; i < lines.size(); i++) {
      assertThat(lines.get(i).split(",", -1)).as("row %d", i).hasSize(SweepRows.COLUMNS.size());
      assertThat(lines.get(i)).startsWith((i - 1) + ",");
    }
    assertThat(Files.readString(out)).endsWith("\n");
    assertThat(files()).containsExactlyInAnyOrder("partial.csv", "log.txt");
    assertThat(log()).contains("holds the " + rows + " complete rows of " + (2 * 2 * 2 * 5));
  }

  @Test
  void sigkill_leavesTheOldFileAsItWas() throws Exception {
    Path out = dir.resolve("r.csv");
    Files.writeString(out, OLD);
    Process p = start(out);
    awaitPause(p);
    p.destroyForcibly(); // SIGKILL: nothing runs, so the rows never replace the file
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(Files.readString(out)).isEqualTo(OLD);
  }
}
