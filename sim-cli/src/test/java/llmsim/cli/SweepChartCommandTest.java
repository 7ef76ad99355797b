package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import llmsim.hw.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** sweep-chart's output forms and what it refuses rather than drawing without a word. */
class SweepChartCommandTest {
  @TempDir Path dir;

  @Test
  void formatJson_isJson_onePointPerSystemAndModel() throws Exception {
    CliRunner r = CliRunner.run("sweep-chart", "--models", "gpt3-125m,llama-7b", "--hardware", "m2-ultra,rtx4090",
        "--task", "inference", "--out", dir.resolve("c").toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = CommandsTest.JSON.readTree(r.out()); // a table here used to answer --format json
    assertThat(j.isArray()).isTrue();
    assertThat(j.size()).isEqualTo(2 * 2);
    assertThat(j.get(0).get("system").asText()).isEqualTo("m2-ultra");
    assertThat(j.get(1).get("model").asText()).isEqualTo("llama-7b");
    assertThat(j.get(1).get("parameters").asDouble())
        .isEqualTo(Catalog.bundled().model("llama-7b", "--models").parameterCount());
    assertThat(j.get(1).get("tokens_per_s").asDouble()).isPositive();
    assertThat(j.get(1).get("fits").asBoolean()).isTrue();
  }

  @Test
  void aModelFlag_isRefused_notReplacedByTheFirstOfModels() {
    // --models decides what is drawn: --model llama-65b was dropped without a word
    assertBadInput(CliRunner.run("sweep-chart", "--models", "llama-7b", "--model", "llama-65b", "--hardware",
        "m2-ultra", "--task", "inference", "--out", dir.resolve("c").toString()),
        "--model: sweep-chart draws the models of --models; add it there");
    assertThat(Files.exists(dir.resolve("c"))).isFalse();
  }

  @Test
  void anEmptyModel_isNamedAsModels_notAsModel() {
    assertBadInput(CliRunner.run("sweep-chart", "--models", "", "--hardware", "m2-ultra", "--task", "inference",
        "--out", dir.resolve("c").toString()), "error: --models: a value is empty");
    assertBadInput(CliRunner.run("sweep-chart", "--models", "llama-7b,,llama-13b", "--hardware", "m2-ultra", "--task",
        "inference", "--out", dir.resolve("c").toString()), "error: --models: a value is empty");
  }

  @Test
  void modelsWithNoValue_isRefused_notAnIndexOutOfBounds() {
    // '--models ,' splits into no values: an IndexOutOfBoundsException, exit 1, where bad input is exit 2
    assertBadInput(CliRunner.run("sweep-chart", "--models", ",", "--hardware", "m2-ultra", "--task", "inference",
        "--out", dir.resolve("c").toString()), "error: --models: a value is empty");
    assertThat(Files.exists(dir.resolve("c"))).as("bad input makes no folder").isFalse();
  }

  @Test
  void moreSystemsThanItDraws_isNotToldToDropTheOutItRequires() {
    // 'drop --out' was the first advice, but sweep-chart's --out is required
    java.util.List<String> ids = Catalog.bundled().systems().stream().map(s -> s.id()).limit(ReportOutput.MAX_SYSTEMS + 1)
        .toList();
    CliRunner r = CliRunner.run("sweep-chart", "--models", "llama-7b", "--hardware", String.join(",", ids), "--task",
        "inference", "--out", dir.resolve("c").toString());
    assertBadInput(r, "--hardware: sweep-chart draws at most " + ReportOutput.MAX_SYSTEMS + " systems");
    assertThat(r.err()).doesNotContain("drop --out");
    assertThat(Files.exists(dir.resolve("c"))).isFalse();
  }

  @Test
  void aModelOrSystemNamedTwice_isRefused_notDrawnTwice() {
    assertBadInput(CliRunner.run("sweep-chart", "--models", "llama-7b,llama-13b", "--models", "llama-7b", "--hardware",
        "m2-ultra", "--task", "inference", "--out", dir.resolve("c").toString()), "--models: llama-7b is given twice");
    assertBadInput(CliRunner.run("sweep-chart", "--models", "llama-7b,llama1-7b", "--hardware", "m2-ultra",
        "--task", "inference", "--out", dir.resolve("c").toString()),
        "--models: llama1-7b and llama-7b both name llama-7b");
    assertBadInput(CliRunner.run("sweep-chart", "--models", "llama-7b", "--hardware", "m2-ultra,rtx4090,m2-ultra",
        "--task", "inference", "--out", dir.resolve("c").toString()), "--hardware: m2-ultra is given twice");
    assertThat(Files.exists(dir.resolve("c"))).as("bad input makes no folder").isFalse();
  }

  @Test
  void whatSimulateWarnsOfARun_isSaid_oncePerSystem() {
    // training defaults to bf16, which neither the M2 Ultra nor the T4 has: both ran fp16 without a word here
    CliRunner r = CliRunner.run("sweep-chart", "--models", "gpt3-125m,llama-7b", "--hardware", "m2-ultra,t4", "--task",
        "train", "--out", dir.resolve("c").toString());
    assertThat(r.code()).as(r.err()).isZero();
    for (String id : new String[] {"m2-ultra", "t4"}) {
      String line = id + ": warning: precision fp16: the default bf16 is not native";
      assertThat(r.err().split(java.util.regex.Pattern.quote(line), -1)).as(r.err()).hasSize(2); // once, not per model
    }
  }
}
