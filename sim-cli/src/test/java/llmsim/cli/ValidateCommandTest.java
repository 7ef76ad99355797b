package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The validate command's handling of case folders: bad files, relative paths, units, JSON. */
class ValidateCommandTest {
  @TempDir Path dir;

  static String memoryCase(String id, String hardware, String unit, double value) {
    return "kind: case\nid: " + id + "\ncategory: E-microbench\nmicrobenchmark:\n  measure: memory\n  hardware: " + hardware
        + "\nmetric: memory_bandwidth\nmeasured:\n  value: " + value + "\n  unit: \"" + unit + "\"\nsource: s\nquote: q\n"
        + "confidence: high\n";
  }

  static String scenarioCase(String id, String hardware, String model, String metric, String unit, double value) {
    return "kind: case\nid: " + id + "\ncategory: B-gpu-inference\nscenario:\n  hardware: " + hardware + "\n  model: " + model
        + "\n  task: inference\n  prompt_tokens: 128\n  generate_tokens: 8\nmetric: " + metric + "\nmeasured:\n  value: "
        + value + "\n  unit: \"" + unit + "\"\nsource: s\nquote: q\nconfidence: high\n";
  }

  Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  @Test
  void oneBadCaseFile_isReportedWithItsLine_theRestRun_andTheExitCodeIs2() throws IOException {
    write("cases/A1.yaml", memoryCase("A1", "h100-sxm", "GB/s", 2900));
    write("cases/B1.yaml", memoryCase("B1", "h100-sxm", "GB/s", 2900).replace("category: E-microbench",
        "category: E-microbench\nbogus: 1"));
    write("cases/C1.yaml", memoryCase("C1", "h100-sxn", "GB/s", 2900));
    CliRunner r = CliRunner.run("validate", dir.resolve("cases").toString(), "--format", "csv");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.out()).contains("A1,");
    assertThat(r.err()).contains("B1.yaml:4:1: unknown field 'bogus'").contains("C1.yaml:1:1: hardware: unknown hardware 'h100-sxn'")
        .doesNotContain("Exception");
  }

  @Test
  void aBadCaseFile_withOut_writesNoCharts() throws IOException {
    write("cases/A1.yaml", memoryCase("A1", "h100-sxm", "GB/s", 2900));
    write("cases/C1.yaml", memoryCase("C1", "h100-sxn", "GB/s", 2900));
    Path out = dir.resolve("charts");
    CliRunner r = CliRunner.run("validate", dir.resolve("cases").toString(), "--out", out.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(out + " not written: 1 case file has a problem")
        .contains("C1.yaml:1:1: hardware: unknown hardware 'h100-sxn'");
    assertThat(out).doesNotExist();
  }

  @Test
  void aCaseNamedTwice_orTwoFilesOfOneId_areRefused_andCountedOnce() throws IOException {
    // 'validate A07.yaml A07.yaml' ran A07 twice: 'cases run 2', worst 'A07 +1.9%, A07 +1.9%', its error weighing
    // twice in the medians and MAPE
    Path a = write("cases/A1.yaml", memoryCase("A1", "h100-sxm", "GB/s", 2900));
    write("cases/B1.yaml", memoryCase("B1", "h100-sxm", "GB/s", 2900));
    Path copy = write("other/A1-copy.yaml", memoryCase("A1", "h100-sxm", "GB/s", 2900));
    CliRunner r = CliRunner.run("validate", dir.resolve("cases").toString(), a.toString(), copy.toString(), "--format",
        "json");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(a + ": given twice: a case is run and counted once")
        .contains(copy + ":1:1: case id 'A1' is also " + a + "'s").doesNotContain("Exception");
    JsonNode cases = new ObjectMapper().readTree(r.out()).get("cases");
    assertThat(cases).hasSize(2);
    assertThat(cases.findValuesAsText("id")).containsExactly("A1", "B1");
  }

  @Test
  void anErrorThatRoundsToNothing_isUnsigned_notMinusZero() {
    // the full table read 'E21 -0.0%' and 'E10 +0.0%' for errors of -0.0009% and 0
    assertThat(ValidateCommand.signed(-8.7e-6)).isEqualTo("0.0%");
    assertThat(ValidateCommand.signed(0.0)).isEqualTo("0.0%");
    assertThat(ValidateCommand.signed(-0.0)).isEqualTo("0.0%");
    assertThat(ValidateCommand.signed(0.0004)).isEqualTo("0.0%");
    assertThat(ValidateCommand.signed(0.0123)).isEqualTo("+1.2%");
    assertThat(ValidateCommand.signed(-0.05)).isEqualTo("-5.0%");
    assertThat(ValidateCommand.signed(-0.0006)).isEqualTo("-0.1%");
  }

  @Test
  void theTable_listsSkippedCasesOnlyWhereThereAreAny() throws IOException {
    // every run without a skipped case ended in '0 case(s) skipped:', announcing a list that never came
    write("s/S1.yaml", memoryCase("S1", "h100-sxm", "GB/s", 2900));
    CliRunner none = CliRunner.run("validate", dir.resolve("s").toString());
    assertThat(none.code()).as(none.err()).isZero();
    assertThat(none.out()).doesNotContain("skipped");
    write("s/S2.yaml", "kind: case\nid: S2\ncategory: E-microbench\nskip: needs two GPUs\nmeasured:\n  value: 1\n"
        + "  unit: \"GB/s\"\nsource: s\nquote: q\nconfidence: high\n");
    CliRunner one = CliRunner.run("validate", dir.resolve("s").toString());
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(one.out()).endsWith("1 case skipped:\n  S2: needs two GPUs\n");
  }

  @Test
  void csv_marksASkippedCaseInItsErrorColumn_andSaysWhyOnStandardError() throws IOException {
    // a skipped case's row read 'S2,E-microbench,skipped,-,...': its metric column held 'skipped' (a skipped case has
    // no metric), and the reason, which the table prints below it, was nowhere in the CSV run
    write("s/S1.yaml", memoryCase("S1", "h100-sxm", "GB/s", 2900));
    write("s/S2.yaml", "kind: case\nid: S2\ncategory: E-microbench\nskip: needs two GPUs\nmeasured:\n  value: 1\n"
        + "  unit: \"GB/s\"\nsource: s\nquote: q\nconfidence: high\n");
    CliRunner r = CliRunner.run("validate", dir.resolve("s").toString(), "--format", "csv");
    assertThat(r.code()).as(r.err()).isZero();
    List<String> header = List.of(r.out().lines().findFirst().orElseThrow().split(","));
    String[] s2 = r.out().lines().filter(l -> l.startsWith("S2,")).findFirst().orElseThrow().split(",");
    assertThat(s2[header.indexOf("metric")]).isEqualTo("-"); // as predicted is, where there is none
    assertThat(s2[header.indexOf("error")]).isEqualTo("skipped");
    assertThat(r.err()).isEqualTo("validate: S2 skipped: needs two GPUs\n");
  }

  @Test
  void relativeHardwareAndModelFiles_resolveAgainstTheCaseFilesFolder() throws IOException {
    write("cases/hw/gpu.yaml", BadInputTest.DEVICE);
    write("cases/models/tiny.json", "{\"model_type\": \"llama\", \"hidden_size\": 512, \"intermediate_size\": 1024,"
        + " \"num_attention_heads\": 8, \"num_hidden_layers\": 2, \"vocab_size\": 1000}");
    write("cases/R1.yaml", scenarioCase("R1", "hw/gpu.yaml", "models/tiny.json", "decode_tokens_per_s", "tokens/s", 100));
    write("cases/R2.yaml", memoryCase("R2", "hw/gpu.yaml", "GB/s", 700));
    // run from elsewhere: the paths in the case files must not depend on the working directory
    CliRunner r = CliRunner.run("validate", dir.resolve("cases").toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("\"model\" : \"" + dir.resolve("cases/models/tiny.json") + "\"");
  }

  @Test
  void deviceFile_mayNameItsHostAndLinkByRelativeFile() throws IOException {
    Path cat = Path.of("..", "sim-hw-models", "src", "main", "resources", "llmsim", "catalog");
    write("hw/parts/host.yaml", Files.readString(cat.resolve("hosts/i9-13900ks.yaml")).replace("id: i9-13900ks", "id: my-host"));
    write("hw/parts/link.yaml", Files.readString(cat.resolve("links/pcie4-x16.yaml")).replace("id: pcie4-x16", "id: my-link"));
    Path gpu = write("hw/gpu.yaml", BadInputTest.DEVICE.replace("host: i9-13900ks", "host: parts/host.yaml")
        .replace("host_link: pcie4-x16", "host_link: parts/link.yaml"));
    CliRunner r = CliRunner.run("hardware", "show", gpu.toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("\"id\" : \"my-host\"").contains("\"id\" : \"my-link\"");
    write("hw/parts/link.yaml", "kind: link\n");
    CliRunner bad = CliRunner.run("hardware", "validate", gpu.toString());
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains(dir.resolve("hw/parts/link.yaml") + ":1:1: missing required field 'id'");
  }

  @Test
  void newUnits_convertFromSeconds_andMustFitTheMetric() throws IOException {
    // the same TTFT in ms, minutes and hours: the predictions must be in the ratio 60000 : 1 : 1/60
    write("u/T1.yaml", scenarioCase("T1", "h100-sxm", "llama-7b", "ttft_s", "ms", 10));
    write("u/T2.yaml", scenarioCase("T2", "h100-sxm", "llama-7b", "ttft_s", "minutes", 10));
    write("u/T3.yaml", scenarioCase("T3", "h100-sxm", "llama-7b", "ttft_s", "hours", 10));
    write("u/T4.yaml", scenarioCase("T4", "h100-sxm", "llama-7b", "ttft_s", "GPU-hours", 10));
    write("u/T5.yaml", scenarioCase("T5", "h100-sxm", "llama-7b", "mbu", "percent", 50));
    write("u/T6.yaml", scenarioCase("T6", "h100-sxm", "llama-7b", "mbu", "ratio", 0.5));
    CliRunner r = CliRunner.run("validate", dir.resolve("u").toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode cases = readJson(r.out()).get("cases");
    double ms = cases.get(0).get("predicted").asDouble();
    assertThat(cases.get(1).get("predicted").asDouble()).isCloseTo(ms / 60_000, org.assertj.core.data.Percentage.withPercentage(1e-9));
    assertThat(cases.get(2).get("predicted").asDouble()).isCloseTo(ms / 3_600_000, org.assertj.core.data.Percentage.withPercentage(1e-9));
    // one device: GPU-hours equal hours
    assertThat(cases.get(3).get("predicted").asDouble()).isCloseTo(ms / 3_600_000, org.assertj.core.data.Percentage.withPercentage(1e-9));
    assertThat(cases.get(4).get("predicted").asDouble()).isCloseTo(100 * cases.get(5).get("predicted").asDouble(),
        org.assertj.core.data.Percentage.withPercentage(1e-9));

    write("w/W1.yaml", scenarioCase("W1", "h100-sxm", "llama-7b", "ttft_s", "tokens/s", 10));
    CliRunner w = CliRunner.run("validate", dir.resolve("w").toString());
    assertThat(w.code()).isEqualTo(2);
    assertThat(w.err()).contains("W1.yaml:13:9: a ttft_s is measured in ms, s, minutes, hours, days, GPU-hours, not 'tokens/s'");
  }

  static String gemmCase(String id, String measure, String shape) {
    return "kind: case\nid: " + id + "\ncategory: E-microbench\nmicrobenchmark:\n  measure: " + measure
        + "\n  hardware: h100-sxm\n  precision: bf16\n  shape: " + shape + "\nmetric: gemm_flops\nmeasured:\n"
        + "  value: 100\n  unit: \"TFLOP/s\"\nsource: s\nquote: q\nconfidence: high\n";
  }

  @Test
  void shapedGemm_isTimedAsASimulatedGemm_computeBoundWithItsTileFill_orMemoryBound() throws IOException {
    // H100 SXM: 989.4 TFLOP/s bf16 x 0.803, 132 SMs, 3350 GB/s x 0.80 (catalog/devices/h100-sxm.yaml)
    write("g/G1.yaml", gemmCase("G1", "gemm", "{m: 4096, n: 4096, k: 4096}"));
    write("g/G2.yaml", gemmCase("G2", "gemm", "{m: 4096, n: 4096, k: 64}"));
    CliRunner r = CliRunner.run("validate", dir.resolve("g").toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode cases = readJson(r.out()).get("cases");
    // 4096 x 4096 in 256 x 128 tiles: 512 tiles in 4 waves of 132 SMs, 512 / 528 = 128 / 132 of them busy, and the
    // kernel's fixed time on top of the math (GemmTiles.KERNEL_FLOOR_SECONDS)
    double flops = 2.0 * 4096 * 4096 * 4096;
    double seconds = flops / (989.4e12 * 0.803 * 128 / 132) + llmsim.core.kernel.GemmTiles.KERNEL_FLOOR_SECONDS;
    assertThat(cases.get(0).get("predicted").asDouble())
        .isCloseTo(flops / seconds / 1e12, org.assertj.core.data.Percentage.withPercentage(1e-9));
    // K = 64: A, B and C in bf16 take longer to move than the math and the floor take (12.9 us against 2.8 + 5), so
    // the floor runs under the memory time; FLOP/s = 2MNK / (bytes / bandwidth)
    double bytes = (4096.0 * 64 + 64 * 4096 + 4096.0 * 4096) * 2;
    assertThat(cases.get(1).get("predicted").asDouble())
        .isCloseTo(2.0 * 4096 * 4096 * 64 / (bytes / (3350e9 * 0.80)) / 1e12,
            org.assertj.core.data.Percentage.withPercentage(1e-9));

    write("s/S1.yaml", gemmCase("S1", "memory", "{m: 1, n: 1, k: 1}").replace("metric: gemm_flops",
        "metric: memory_bandwidth").replace("TFLOP/s", "GB/s"));
    CliRunner s = CliRunner.run("validate", dir.resolve("s").toString());
    assertThat(s.code()).isEqualTo(2);
    assertThat(s.err()).contains("S1.yaml:8:10: 'shape' applies to a 'gemm' microbenchmark, not to 'memory'");
  }

  @Test
  void jobTime_isTheScenariosTokensOverTheStepsThroughput_andNeedsTokens() throws IOException {
    String training = "kind: case\nid: J%d\ncategory: C-training\nscenario:\n  hardware: h100-sxm\n  model: llama-7b\n"
        + "  task: train\n  batch: 1\n  seq_len: 2048\n%smetric: %s\nmeasured:\n  value: 1\n  unit: \"%s\"\n"
        + "source: s\nquote: q\nconfidence: high\n";
    double tokens = 2e9;
    write("j/J1.yaml", String.format(training, 1, "  tokens: 2000000000\n", "job_time_s", "days"));
    write("j/J2.yaml", String.format(training, 2, "", "tokens_per_s", "tokens/s"));
    CliRunner r = CliRunner.run("validate", dir.resolve("j").toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode cases = readJson(r.out()).get("cases");
    double tokensPerSecond = cases.get(1).get("predicted").asDouble();
    assertThat(cases.get(0).get("predicted").asDouble())
        .isCloseTo(tokens / tokensPerSecond / 86_400, org.assertj.core.data.Percentage.withPercentage(1e-9));

    write("k/K1.yaml", String.format(training, 3, "", "job_time_s", "days"));
    CliRunner k = CliRunner.run("validate", dir.resolve("k").toString());
    assertThat(k.code()).isEqualTo(2);
    assertThat(k.err()).contains("metric 'job_time_s' needs the scenario's 'tokens'");
  }

  @Test
  void json_givesEveryCaseItsContext_andEachCategoryItsSkips() throws IOException {
    write("j/J1.yaml", scenarioCase("J1", "h100-sxm", "llama-7b", "decode_tokens_per_s", "tokens/s", 50)
        .replace("  generate_tokens: 8", "  generate_tokens: 8\n  software: llama.cpp"));
    write("j/J2.yaml", "kind: case\nid: J2\ncategory: B-gpu-inference\nskip: needs two GPUs\nmeasured:\n  value: 1\n"
        + "  unit: tokens/s\nsource: s\nquote: q\nconfidence: low\n");
    CliRunner r = CliRunner.run("validate", dir.resolve("j").toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = readJson(r.out());
    JsonNode ran = j.get("cases").get(0);
    assertThat(ran.get("hardware").asText()).isEqualTo("h100-sxm");
    assertThat(ran.get("model").asText()).isEqualTo("llama-7b");
    assertThat(ran.get("software").asText()).isEqualTo("llama.cpp");
    assertThat(ran.get("skip_reason").isNull()).isTrue();
    double predicted = ran.get("predicted").asDouble();
    assertThat(ran.get("signed_error").asDouble()).isCloseTo((predicted - 50) / 50, org.assertj.core.data.Offset.offset(1e-12));
    JsonNode skipped = j.get("cases").get(1);
    assertThat(skipped.get("skip_reason").asText()).isEqualTo("needs two GPUs");
    assertThat(skipped.get("predicted").isNull()).isTrue();
    JsonNode category = j.get("summary").get(0);
    assertThat(category.get("group").asText()).isEqualTo("B-gpu-inference");
    assertThat(category.get("run").asInt()).isEqualTo(1);
    assertThat(category.get("skipped").asInt()).isEqualTo(1);
    assertThat(category.get("skip_reasons").get(0).get("reason").asText()).isEqualTo("needs two GPUs");
  }

  static String collectiveCase(String id, String measure, String hardware, String extra) {
    return "kind: case\nid: " + id + "\ncategory: E-microbench\nmicrobenchmark:\n  measure: " + measure
        + "\n  hardware: " + hardware + "\n  bytes: 1073741824\n" + extra + "metric: bus_bandwidth\nmeasured:\n"
        + "  value: 100\n  unit: \"GB/s\"\nsource: s\nquote: q\nconfidence: high\n";
  }

  @Test
  void collectiveMicrobenchmarks_allToAllRuns_treeNeedsSeveralNodes_andAlgorithmIsAnAllReducesKey() throws IOException {
    // all-to-all on 8 NVLink 4 GPUs: 7 transfers of 1 GiB / 8 at 367.61 GB/s, 2.41 us each (nvlink4's figures)
    write("a/A1.yaml", collectiveCase("A1", "all_to_all", "hgx-h100-8x", ""));
    CliRunner r = CliRunner.run("validate", dir.resolve("a").toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    double s = 1073741824.0;
    double seconds = 7 * (s / 8 / 367.61e9 + 2.41e-6);
    assertThat(readJson(r.out()).get("cases").get(0).get("predicted").asDouble())
        .isCloseTo(7.0 / 8 * s / seconds / 1e9, org.assertj.core.data.Percentage.withPercentage(1e-6));
    write("t/T1.yaml", collectiveCase("T1", "all_reduce", "hgx-h100-8x", "  algorithm: tree\n"));
    write("t/T2.yaml", collectiveCase("T2", "all_to_all", "hgx-h100-8x", "  algorithm: ring\n"));
    write("t/T3.yaml", collectiveCase("T3", "all_reduce", "h100-cluster", "  gpus: 64\n  algorithm: tree\n"));
    CliRunner t = CliRunner.run("validate", dir.resolve("t").toString(), "--format", "csv");
    assertThat(t.code()).isEqualTo(2);
    assertThat(t.err()).contains("T1.yaml:1:1: algorithm 'tree' is NCCL's double binary tree across nodes")
        .contains("T2.yaml").contains("'algorithm' applies to an 'all_reduce' microbenchmark");
    assertThat(t.out()).contains("T3,");
  }

  static JsonNode readJson(String s) throws IOException {
    return new ObjectMapper().readTree(s);
  }

  static String trainScenario(String hardware) {
    return "  hardware: " + hardware + "\n  task: train\n  precision: bf16\n  seq_len: 512\n  dp: 8\n  zero: 3\n";
  }

  /** A plain case: one model's training throughput on a system, whole-system tokens/s. */
  static String trainCase(String id, String hardware, String model, int batch) {
    return "kind: case\nid: " + id + "\ncategory: C-training\nscenario:\n" + trainScenario(hardware) + "  model: " + model
        + "\n  batch: " + batch + "\nmetric: tokens_per_s\nmeasured:\n  value: 1000\n  unit: \"tokens/s\"\nsource: s\n"
        + "quote: q\nconfidence: high\n";
  }

  static String ratioCase(String id, String ratio) {
    return "kind: case\nid: " + id + "\ncategory: C-training\nscenario:\n" + trainScenario("mi250-4x") + "baseline:\n"
        + trainScenario("dgx-a100-8x40gb") + ratio + "metric: tokens_per_s\nmeasured:\n  value: 0.8\n  unit: \"ratio\"\n"
        + "source: s\nquote: q\nconfidence: medium\n";
  }

  @Test
  void ratioCase_isTheMeanOfEachRunsPerGpuRatio_asTwoPlainCasesGiveIt() throws IOException {
    // the same four simulations as plain whole-system cases; per GPU as the source counts them: 4 MI250 packages
    // (8 GCD ranks) against 8 A100s
    write("p/M1.yaml", trainCase("M1", "mi250-4x", "gpt3-125m", 4));
    write("p/A1.yaml", trainCase("A1", "dgx-a100-8x40gb", "gpt3-125m", 4));
    write("p/M2.yaml", trainCase("M2", "mi250-4x", "llama-7b", 1));
    write("p/A2.yaml", trainCase("A2", "dgx-a100-8x40gb", "llama-7b", 1));
    write("r/R1.yaml", ratioCase("R1", "ratio:\n  runs:\n    - {model: gpt3-125m, batch: 4}\n    - {model: llama-7b, batch: 1}\n"
        + "  summary: mean\n  scenario_gpus: 4\n  baseline_gpus: 8\n"));
    CliRunner plain = CliRunner.run("validate", dir.resolve("p").toString(), "--format", "json");
    CliRunner ratio = CliRunner.run("validate", dir.resolve("r").toString(), "--format", "json");
    assertThat(plain.code()).as(plain.err()).isZero();
    assertThat(ratio.code()).as(ratio.err()).isZero();
    JsonNode p = new ObjectMapper().readTree(plain.out()).get("cases");
    double[] tps = new double[4]; // A1, A2, M1, M2 (sorted by file name)
    for (int i = 0; i < 4; i++) {
      tps[i] = p.get(i).get("predicted").asDouble();
    }
    double r1 = (tps[2] / 4) / (tps[0] / 8);
    double r2 = (tps[3] / 4) / (tps[1] / 8);
    JsonNode c = new ObjectMapper().readTree(ratio.out()).get("cases").get(0);
    assertThat(c.get("predicted").asDouble()).isCloseTo((r1 + r2) / 2, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(c.get("signed_error").asDouble()).isCloseTo(((r1 + r2) / 2 - 0.8) / 0.8,
        org.assertj.core.data.Offset.offset(1e-12));
    assertThat(c.get("ratio").get("runs").get(1).get("predicted").asDouble()).isCloseTo(r2,
        org.assertj.core.data.Offset.offset(1e-12));
    assertThat(c.get("ratio").get("baseline_hardware").asText()).isEqualTo("dgx-a100-8x40gb");
    // the per-package normalisation is what the case says: counting GCDs as GPUs would halve the ratio
    assertThat(r1).isNotCloseTo((tps[2] / 8) / (tps[0] / 8), org.assertj.core.data.Offset.offset(0.1 * r1));
    CliRunner text = CliRunner.run("validate", dir.resolve("r").toString());
    assertThat(text.out()).contains("tokens_per_s ratio").contains("R1");
  }

  @Test
  void ratioCase_withoutBaseline_orUnknownSummary_orRunsOnAPlainCase_isRefusedWithItsLine() throws IOException {
    String good = "ratio:\n  runs:\n    - {model: gpt3-125m, batch: 4}\n  summary: mean\n  scenario_gpus: 4\n"
        + "  baseline_gpus: 8\n";
    write("b/N1.yaml", ratioCase("N1", good).replace("baseline:\n" + trainScenario("dgx-a100-8x40gb"), ""));
    write("b/N2.yaml", ratioCase("N2", good.replace("summary: mean", "summary: average")));
    write("b/N3.yaml", trainCase("N3", "mi250-4x", "gpt3-125m", 4).replace("metric:", good + "metric:"));
    write("b/N4.yaml", ratioCase("N4", good.replace("scenario_gpus: 4", "scenario_gpus: 3")));
    write("b/N5.yaml", ratioCase("N5", good).replace("unit: \"ratio\"", "unit: \"tokens/s\""));
    CliRunner r = CliRunner.run("validate", dir.resolve("b").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err())
        .contains("N1.yaml:12:3: a ratio case needs 'scenario', 'baseline' and 'ratio' together (no 'baseline' to divide by)")
        .contains("N2.yaml:").contains("average")
        .contains("N3.yaml:14:3: a ratio case needs 'scenario', 'baseline' and 'ratio' together (no 'baseline' to divide by)")
        .contains("N4.yaml:1:1: ratio: scenario_gpus 3 does not divide the 8 devices the system simulates")
        .contains("N5.yaml:").contains("a ratio of tokens_per_s is measured in ratio, percent, not 'tokens/s'")
        .doesNotContain("Exception");
  }

  @Test
  void ratioSummaries_areTheMeanMedianSmallestAndLargestOfTheRuns() {
    java.util.List<Double> runs = java.util.List.of(0.9, 0.7, 1.0, 0.6);
    assertThat(ValidationRunner.summarise(runs, "mean")).isCloseTo(3.2 / 4, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(ValidationRunner.summarise(runs, "median")).isCloseTo((0.7 + 0.9) / 2, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(ValidationRunner.summarise(runs.subList(0, 3), "median")).isEqualTo(0.9);
    assertThat(ValidationRunner.summarise(runs, "min")).isEqualTo(0.6);
    assertThat(ValidationRunner.summarise(runs, "max")).isEqualTo(1.0);
  }
}
