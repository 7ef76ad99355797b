package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A simulation too large to hold is refused before it is built: exit 2, one line naming the flag (or the
 * file line) that drives the op count. The cases exceed the engine's 2^30 op ids, so they are refused
 * whatever heap the test JVM has; a smaller heap only refuses sooner.
 */
class OpBudgetRefusalTest {
  @TempDir Path dir;

  /** llama3-70b's shape with a context long enough for the largest --generate-tokens the key table allows. */
  Path longContextModel() throws IOException {
    String yaml;
    try (InputStream in = getClass().getResourceAsStream("/llmsim/catalog/models/llama3-70b.yaml")) {
      yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    yaml = yaml.replace("max_context: 8192", "max_context: 16777216").replace("id: llama3-70b", "id: long-llama")
        .replaceAll("(?m)^aliases:.*$", "aliases: []");
    Path p = dir.resolve("long-llama.yaml");
    Files.writeString(p, yaml);
    return p;
  }

  static void assertRefused(CliRunner r, String flag) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.out()).isEmpty();
    assertThat(r.err().strip()).startsWith("error: " + flag + ": ").contains(" ops (").contains("sweep --mode analytic")
        .doesNotContain("Exception").doesNotContain("\tat ");
    assertThat(r.err().strip().lines()).hasSize(1);
  }

  @Test
  void simulate_decodeBeyondTheEnginesOps_isRefusedAtGenerateTokens() throws IOException {
    CliRunner r = CliRunner.run("simulate", "--model", longContextModel().toString(), "--hardware", "h100-sxm",
        "--task", "inference", "--prompt-tokens", "16", "--generate-tokens", "16000000");
    assertRefused(r, "--generate-tokens");
    assertThat(r.err()).contains("16,000,000 generated tokens (15,999,999 decode steps)");
  }

  @Test
  void simulate_trainingWithAMillionMicroBatches_isRefusedAtMicroBatches() {
    CliRunner r = CliRunner.run("simulate", "--model", "llama3-70b", "--hardware", "h100-sxm", "--task", "train",
        "--micro-batches", "1048576");
    assertRefused(r, "--micro-batches");
  }

  @Test
  void simulateWithOut_isRefusedBeforeTheReportFolderIsCreated() {
    Path out = dir.resolve("reports");
    CliRunner r = CliRunner.run("simulate", "--model", "llama3-70b", "--hardware", "h100-sxm", "--task", "train",
        "--micro-batches", "1048576", "--out", out.toString());
    assertRefused(r, "--micro-batches");
    assertThat(out).doesNotExist();
  }

  @Test
  void compare_countsEverySystemsOps() {
    CliRunner r = CliRunner.run("compare", "--model", "llama3-70b", "--hardware", "h100-sxm,m2-ultra", "--task", "train",
        "--micro-batches", "1048576");
    assertRefused(r, "--micro-batches");
    assertThat(r.err()).contains("for 2 systems at once").contains("or fewer systems");
  }

  @Test
  void simulate_scenarioFileValue_isRefusedAtItsLine() throws IOException {
    Path scenario = dir.resolve("long.yaml");
    Files.writeString(scenario, "model: " + longContextModel() + "\nhardware: [h100-sxm]\ntask: inference\n"
        + "prompt_tokens: 16\ngenerate_tokens: 16000000\n");
    CliRunner r = CliRunner.run("simulate", scenario.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(scenario + ":5:").contains("16,000,000 generated tokens");
  }

  @Test
  void sweepSimulate_refusesBeforeAnyRow_whileAnalyticCostsTheSamePoint() {
    String[] grid = {"--models", "llama3-70b", "--hardware", "h100-sxm", "--tasks", "train", "--micro-batches",
        "1,1048576", "--threads", "1"};
    CliRunner sim = CliRunner.run(concat(new String[] {"sweep", "--mode", "simulate"}, grid));
    assertRefused(sim, "--micro-batches");
    assertThat(sim.err()).contains("at point 1");
    CliRunner analytic = CliRunner.run(concat(new String[] {"sweep", "--mode", "analytic"}, grid));
    assertThat(analytic.code()).as(analytic.err()).isZero();
    assertThat(analytic.out().strip().lines()).hasSize(3); // header and two rows
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
