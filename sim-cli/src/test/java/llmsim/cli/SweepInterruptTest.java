package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A sweep stopped by a signal (SIGTERM, as Ctrl-C's SIGINT, runs the shutdown hooks) leaves whole rows only. */
class SweepInterruptTest {
  @TempDir Path dir;

  @Test
  void interruptedSweep_leavesAValidFileOfCompleteRows() throws Exception {
    Path out = dir.resolve("partial.csv");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), "llmsim.cli.Main", "sweep",
        "--hardware", "m2-ultra,13900ks-h100,13900ks-rtx4090", "--models", "llama-7b,llama-13b,llama-33b",
        "--tasks", "inference,train", "--batch", "1,2,4,8,16,32,64,128", "--prompt-tokens", "64,128,256,512,1024",
        "--generate-tokens", "16,32,64", "--mode", "simulate", "--threads", "1", "--output", out.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve("log.txt").toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (System.nanoTime() < deadline && p.isAlive() && (!Files.exists(out) || Files.readAllLines(out).size() < 20)) {
      Thread.sleep(100);
    }
    assertThat(p.isAlive()).as("the sweep should still be running when interrupted").isTrue();
    p.destroy();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines.get(0)).startsWith("index,hardware,");
    assertThat(Files.readString(out)).endsWith("\n");
    int columns = SweepRows.COLUMNS.size();
    for (int i = 1; i < lines.size(); i++) {
      assertThat(lines.get(i).split(",", -1)).as("row %d", i).hasSize(columns);
      assertThat(lines.get(i)).startsWith((i - 1) + ",");
    }
    assertThat(lines.size()).isGreaterThanOrEqualTo(20).isLessThan(1 + 3 * 3 * 2 * 8 * 5 * 3);
    assertThat(new File(out.toString()).length()).isPositive();
  }
}
