package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class CommandsTest {
  static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void bareCommand_printsUsage() {
    CliRunner r = CliRunner.run();
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("Usage: llmsim").contains("hardware").contains("memory");
  }

  @Test
  void memory_showsSmallStateItHolds_notAsNothing() {
    // LoRA rank 8 on q and v of LLaMA-7B's 32 layers: 2 x 32 x (4096 x 8 + 8 x 4096) fp32 adapter parameters, their
    // gradients 4 B each and AdamW's two moments 8 B each: 0.016 and 0.031 GiB, which one decimal would show as 0.0
    double adapters = 2.0 * 32 * (4096 * 8 + 8 * 4096);
    CliRunner r = CliRunner.run("memory", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "finetune-lora");
    assertThat(r.code()).isZero();
    assertThat(r.out()).containsPattern("gradients +" + String.format(java.util.Locale.US, "%.3f", adapters * 4 / (1L << 30)))
        .containsPattern("optimizer state +" + String.format(java.util.Locale.US, "%.3f", adapters * 8 / (1L << 30)))
        .containsPattern("KV cache +0\\.0\\n");
    assertThat(MemoryCommand.gib(0)).isEqualTo("0.0");
    assertThat(MemoryCommand.gib(12.6 * (1L << 30))).isEqualTo("12.6");
  }

  @Test
  void memory_underPipelineStages_givesAStagesLayers() {
    // LLaMA-7B's 32 layers over 4 stages: 8 each; over 3: 10 or 11 (the split differs by one at most)
    CliRunner r = CliRunner.run("memory", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train",
        "--pp", "4", "--dp", "2");
    assertThat(r.code()).isZero();
    assertThat(r.out()).containsPattern("layers on the GPU +8 per stage \\(32 over 4 stages\\)");
    assertThat(MemoryCommand.stageLayers(32, 3)).isEqualTo("10-11");
    assertThat(MemoryCommand.stageLayers(32, 4)).isEqualTo("8");
  }

  @Test
  void version_namesTheKernel() {
    assertThat(CliRunner.run("--version").out()).contains("roofline kernel: ");
  }

  @Test
  void hardwareList_showsTheArticlesColumns() {
    CliRunner r = CliRunner.run("hardware", "list");
    assertThat(r.code()).isZero();
    assertThat(r.out()).contains("m2-ultra ").contains("13900ks-rtx4090").contains("13900ks-a100").contains("13900ks-h100");
    // an 8-GPU server's figures are one GPU's, and the headers say so: 40 GiB beside "8x A100 40GB" is per GPU
    assertThat(r.out().lines().findFirst().orElseThrow()).contains("memory/GPU", "bandwidth/GPU", "fp16 dense/GPU");
    String dgx = r.out().lines().filter(l -> l.startsWith("dgx-a100-8x40gb ")).findFirst().orElseThrow();
    assertThat(dgx).contains("8x NVIDIA A100", " 40 GiB ", "312.0 TFLOP/s");
  }

  @Test
  void hardwareShow_printsSourcesNextToNumbers() throws Exception {
    CliRunner r = CliRunner.run("hardware", "show", "h100-sxm", "--format", "json");
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.at("/device/memory_bandwidth_bytes_per_s").asDouble()).isEqualTo(3.35e12);
    assertThat(j.at("/device/peak_dense/source").asText()).contains("datasheet");
    assertThat(j.at("/host_link/measured_source").asText()).contains("E10");
  }

  @Test
  void hardwareShow_table_givesEachNumberWithItsUnit_andNoBinaryNoise() throws Exception {
    // the JSON's SI numbers, read back and converted by hand: the table must show them in the field's unit
    JsonNode j = JSON.readTree(CliRunner.run("hardware", "show", "hgx-h100-8x", "--format", "json").out());
    CliRunner r = CliRunner.run("hardware", "show", "hgx-h100-8x");
    assertThat(r.code()).as(r.err()).isZero();
    double gib = j.at("/device/memory_capacity_bytes").asDouble() / (1024.0 * 1024 * 1024);
    double tbs = j.at("/device/memory_bandwidth_bytes_per_s").asDouble() / 1e12;
    double tflops = j.at("/device/peak_dense/bf16_flops").asDouble() / 1e12;
    double latencyUs = j.at("/device_link/latency_s").asDouble() * 1e6;
    assertThat(r.out())
        .containsPattern("device\\.memory_capacity_bytes +" + java.util.regex.Pattern.quote(trim(gib)) + " GiB\\n")
        .containsPattern("device\\.memory_bandwidth_bytes_per_s +" + java.util.regex.Pattern.quote(trim(tbs)) + " TB/s\\n")
        .containsPattern("device\\.peak_dense\\.bf16_flops +" + java.util.regex.Pattern.quote(trim(tflops)) + " TFLOP/s\\n")
        .containsPattern("device\\.power_w +" + j.at("/device/power_w").asInt() + " W\\n")
        .containsPattern("device_link\\.latency_s +" + java.util.regex.Pattern.quote(trim(latencyUs)) + " us\\n");
    // no value cell in exponent form (2.4100000000000002E-6 was printed for a 2.41 us latency)
    for (String line : r.out().split("\\n")) {
      if (!line.contains("source") && !line.contains("notes")) {
        assertThat(line).doesNotContainPattern("[0-9]E-?[0-9]");
      }
    }
    CliRunner m = CliRunner.run("models", "show", "llama-7b");
    assertThat(m.out()).containsPattern("published_parameters +6738415616\\n");
  }

  /** {@code v} as the table writes a figure quoted to a few digits: no trailing zeros. */
  private static String trim(double v) {
    return new java.math.BigDecimal(v).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
  }

  @Test
  void hardwareShow_givesEveryFigureTheSimulationUses_theNetworkFabricComputeUnitsAndEmulationToo() throws Exception {
    // a cluster's NICs (the bus bandwidth every collective between nodes is timed at), its fabric and nodes, a
    // device's SM count and emulated precisions, a link's NCCL channels and NVLS figures were shown nowhere
    var c = llmsim.hw.catalog.Catalog.bundled();
    var cluster = c.system("h100-cluster", "--hardware");
    JsonNode j = JSON.readTree(CliRunner.run("hardware", "show", "h100-cluster", "--format", "json").out());
    var net = cluster.network().orElseThrow();
    assertThat(j.at("/nodes").asInt()).isEqualTo(cluster.nodes());
    assertThat(j.at("/fabric").asText()).isEqualTo(cluster.fabric().key());
    assertThat(j.at("/network/nic/measured_bytes_per_s_per_direction").asDouble())
        .isEqualTo(net.nic().measuredBytesPerSecondPerDirection());
    assertThat(j.at("/network/nics_per_node").asInt()).isEqualTo(net.nicsPerNode());
    assertThat(j.at("/network/source").asText()).isEqualTo(net.source());
    assertThat(j.at("/device/compute_units").asInt()).isEqualTo(cluster.device().computeUnits());
    assertThat(j.at("/device/compute_units_source").asText()).isNotBlank();
    var nvlink = cluster.deviceLink().orElseThrow();
    assertThat(j.at("/device_link/nccl_channels").asInt()).isEqualTo(nvlink.ncclChannels());
    assertThat(j.at("/device_link/nvls_bytes_per_s_per_direction").asDouble())
        .isEqualTo(nvlink.nvlsBytesPerSecondPerDirection());
    var m2 = c.system("m2-ultra", "--hardware").device();
    JsonNode apple = JSON.readTree(CliRunner.run("hardware", "show", "m2-ultra", "--format", "json").out());
    assertThat(apple.at("/device/emulated_precisions/bf16/rate").asDouble())
        .isEqualTo(m2.emulated().get(llmsim.core.hw.Precision.BF16).rate());
    assertThat(apple.at("/device/emulated_precisions/bf16/source").asText()).isNotBlank();
    // the table flattens every one of them to a field and a value, none a Java list of maps
    assertThat(CliRunner.run("hardware", "show", "h100-cluster").out()).contains("network.nic.measured_source")
        .doesNotContain("[{").doesNotContain("={");
  }

  @Test
  void modelsShow_givesEveryShapeFieldItsCountIsComputedFrom() throws Exception {
    // Falcon's parallel attention and GPT's learned positions and biases change the count, and were shown nowhere
    for (String id : new String[] {"falcon-7b", "gpt3-125m"}) {
      var m = llmsim.hw.catalog.Catalog.bundled().model(id, "--model");
      JsonNode j = JSON.readTree(CliRunner.run("models", "show", id, "--format", "json").out());
      assertThat(j.get("parallel_attention").asBoolean()).as(id).isEqualTo(m.parallelAttention());
      assertThat(j.get("learned_positions").asBoolean()).as(id).isEqualTo(m.learnedPositions());
      assertThat(j.get("linear_bias").asBoolean()).as(id).isEqualTo(m.linearBias());
      assertThat(j.get("qkv_bias").asBoolean()).as(id).isEqualTo(m.qkvBias());
      assertThat(j.get("norms_per_layer").asInt()).as(id).isEqualTo(m.normsPerLayer());
    }
  }

  @Test
  void memoryJson_givesThePlanAsSimulateDoes_anObjectAScriptCanRead() throws Exception {
    // memory's plan was the text 'tp 2, pp 2, dp 2', simulate's an object: one key read two ways
    String[] scenario = {"--model", "llama-13b", "--task", "train", "--hardware", "hgx-h100-8x", "--tp", "2", "--pp",
        "2", "--zero", "1", "--format", "json"};
    JsonNode mem = JSON.readTree(CliRunner.run(CatalogOverrideTest.with(new String[] {"memory"}, scenario)).out())
        .get(0).get("plan");
    JsonNode sim = JSON.readTree(CliRunner.run(CatalogOverrideTest.with(new String[] {"simulate"}, scenario)).out())
        .get("plan");
    assertThat(mem.isObject()).isTrue();
    assertThat(mem.get("tp").asInt()).isEqualTo(2);
    assertThat(mem.get("pp").asInt()).isEqualTo(2);
    assertThat(mem.get("dp").asInt()).isEqualTo(8 / (2 * 2));
    mem.fieldNames().forEachRemaining(k -> assertThat(mem.get(k)).as(k).isEqualTo(sim.get(k)));
    assertThat(mem.has("gpus_simulated")).isFalse(); // nothing is simulated
  }

  @Test
  void hardwareSchema_printsTheShippedJsonSchema() throws Exception {
    JsonNode j = JSON.readTree(CliRunner.run("hardware", "schema", "device").out());
    assertThat(j.at("/title").asText()).isEqualTo("llmsim device");
  }

  @Test
  void modelsList_andShow() throws Exception {
    assertThat(CliRunner.run("models", "list").out()).contains("llama-65b").contains("bloom-176b").contains("chatglm2-6b");
    JsonNode j = JSON.readTree(CliRunner.run("models", "show", "llama-7b", "--format", "json").out());
    assertThat(j.at("/parameters").asLong()).isEqualTo(6738415616L);
    // the published count is a count as the computed one is: it was 6.738415616E9, a float beside an integer, which
    // a script comparing the two as text, or reading it as an integer, got wrong
    assertThat(j.at("/published_parameters").isIntegralNumber()).as(j.at("/published_parameters").toString()).isTrue();
    assertThat(j.at("/published_parameters").asLong()).isEqualTo(6738415616L);
    JsonNode list = JSON.readTree(CliRunner.run("models", "list", "--format", "json").out());
    list.forEach(m -> assertThat(m.at("/published_parameters").isIntegralNumber()).as(m.at("/id").asText()).isTrue());
  }

  @Test
  void memory_llama65bInference_fitsM2UltraNotH100_andSaysSo() throws Exception {
    CliRunner r = CliRunner.run("memory", "--model", "llama-65b", "--hardware", "m2-ultra,13900ks-h100", "--task", "inference");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("LLaMA 65B fits m2-ultra").contains("LLaMA 65B does not fit 13900ks-h100 without offload");
    JsonNode j = JSON.readTree(CliRunner.run("memory", "--model", "llama-65b", "--hardware", "m2-ultra,13900ks-h100",
        "--task", "inference", "--offload", "none", "--format", "json").out());
    double weights = j.get(0).at("/memory/weights_bytes").asDouble();
    assertThat(weights).isEqualTo(2.0 * 65285660672L); // f16: 2 bytes per parameter, ~130 GB
    assertThat(j.get(0).get("fits").asBoolean()).isTrue();
    assertThat(j.get(1).get("fits").asBoolean()).isFalse();
    assertThat(j.get(1).at("/memory/shortfall_bytes").asDouble()).isPositive();
    assertThat(j.get(1).at("/memory/host_shortfall_bytes").asDouble()).isZero();
  }

  @Test
  void memory_json_saysWhatIsMissingInHostMemory_whenOnlyTheHostIsShort() throws Exception {
    // LLaMA-65B training on one H100 streams its weights from the host and keeps the optimizer there: the GPU's
    // share fits, the host's 128 GiB does not (about 1.1 TB of fp32 state)
    JsonNode j = JSON.readTree(CliRunner.run("memory", "--model", "llama-65b", "--hardware", "13900ks-h100",
        "--task", "train", "--format", "json").out());
    JsonNode m = j.get(0).get("memory");
    assertThat(j.get(0).get("fits").asBoolean()).isFalse();
    assertThat(m.get("shortfall_bytes").asDouble()).isZero();
    assertThat(m.get("host_shortfall_bytes").asDouble())
        .isEqualTo(m.get("host_bytes").asDouble() - m.get("host_capacity_bytes").asDouble())
        .isGreaterThan(16 * 65e9 - 128 * Math.pow(2, 30));
  }

  @Test
  void memory_csv_hasOneColumnPerSystem() {
    String csv = CliRunner.run("memory", "--model", "llama-7b", "--hardware", "m2-ultra,rtx4090", "--format", "csv").out();
    assertThat(csv.lines().findFirst().orElseThrow()).isEqualTo("GiB,m2-ultra,rtx4090");
  }

  @Test
  void memory_withOffloadNoneGiven_doesNotSayNoOffloadHelps_andNamesTheLargestBatchThatFits() {
    // LLaMA-65B's 16-bit weights (about 121 GiB) on a 24 GiB card: streaming them (offload=auto) fits it, so "No
    // offload helps here" was false where the user had asked for none
    CliRunner none = CliRunner.run("memory", "--model", "llama-65b", "--hardware", "rtx4090", "--task", "inference",
        "--offload", "none");
    assertThat(none.code()).as(none.err()).isZero();
    assertThat(none.out()).doesNotContain("No offload helps").contains("As asked (offload=none), nothing is moved to"
        + " host memory (offload=auto would try it)");
    CliRunner auto = CliRunner.run("memory", "--model", "llama-65b", "--hardware", "rtx4090", "--task", "inference");
    assertThat(auto.out()).contains("With offload=weights it fits");
    // a batch too large for any offload: the sentence gives the batch the table gives
    CliRunner big = CliRunner.run("memory", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "inference",
        "--batch", "100000", "--format", "json");
    long largest = big.out().lines().filter(l -> l.contains("\"max_batch\"")).map(l -> l.replaceAll("\\D", ""))
        .mapToLong(Long::parseLong).findFirst().orElseThrow();
    assertThat(largest).isPositive();
    CliRunner text = CliRunner.run("memory", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "inference",
        "--batch", "100000");
    assertThat(text.out()).contains("No offload helps here; the largest batch that fits is " + largest + ";");
  }

  @Test
  void memory_onSeveralGpusThatDoNotFit_saysHowThePlanWouldSplitTheRest_asSimulateDoes() throws java.io.IOException {
    // LLaMA-7B's full training at 16 bytes a parameter (about 100 GiB) on each of eight 80 GiB H100s (dp 8, no ZeRO):
    // no offload helps at ZeRO-0, but a higher ZeRO stage, tp or pp would; memory said only "No offload helps here"
    String[] flags = {"--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train", "--format", "json"};
    JsonNode mem = SimulateCommandTest.json(CatalogOverrideTest.with(new String[] {"memory"}, flags)).get(0);
    JsonNode sim = SimulateCommandTest.json(CatalogOverrideTest.with(new String[] {"simulate"}, flags));
    assertThat(mem.get("fits").asBoolean()).isFalse();
    String split = "Each of the 8 GPUs holds its own share (tp 1, pp 1, dp 8): more tensor or pipeline parallelism, a"
        + " higher ZeRO stage, or --plan auto, would split the rest.";
    assertThat(mem.get("explanation").asText()).endsWith(split);
    assertThat(sim.get("explanation").asText()).contains(split);
    // one GPU has no plan to split it over
    JsonNode one = SimulateCommandTest.json("memory", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "train",
        "--offload", "none", "--format", "json").get(0);
    assertThat(one.get("explanation").asText()).doesNotContain("holds its own share");
  }

  @Test
  void inferenceThatDoesNotFitSeveralGpus_isNotToldPipelineParallelismOrZero_whichInferenceRefuses() throws Exception {
    // LLaMA-65B served by eight 24 GB RTX 4090s as eight replicas: --pp is refused for inference and ZeRO is training's
    for (String cmd : new String[] {"memory", "simulate"}) {
      JsonNode r = SimulateCommandTest.json(cmd, "--model", "llama-65b", "--task", "inference", "--hardware",
          "rtx4090-8x", "--format", "json");
      String text = (cmd.equals("memory") ? r.get(0) : r).get("explanation").asText();
      assertThat(text).as(cmd).contains("Each of the 8 GPUs holds its own share (tp 1, pp 1, dp 8): tensor parallelism"
          + " (--tp), which splits one replica over several GPUs, or --plan auto, would split the rest.")
          .doesNotContain("pipeline").doesNotContain("ZeRO");
    }
    assertThat(CliRunner.run("simulate", "--model", "llama-65b", "--task", "inference", "--hardware", "rtx4090-8x",
        "--tp", "4", "--pp", "2").err()).contains("pipeline-parallel inference is not simulated");
  }

  @Test
  void memory_onSeveralGpus_saysOffloadIsNotTriedThere_insteadOfThatNoneHelps() throws Exception {
    // LLaMA-13B with ZeRO-1 on eight H100s is 2.7 GiB short; offload=auto tries nothing on several GPUs, and
    // offload=optimizer (ZeRO-Offload) fits it: "No offload helps here" and "(offload=auto would try it)" were wrong
    String[] base = {"memory", "--model", "llama-13b", "--task", "train", "--hardware", "hgx-h100-8x", "--zero", "1",
        "--format", "json"};
    for (String offload : new String[] {"auto", "none"}) {
      JsonNode r = SimulateCommandTest.json(CatalogOverrideTest.with(base, "--offload", offload)).get(0);
      assertThat(r.get("fits").asBoolean()).isFalse();
      assertThat(r.get("explanation").asText()).as(offload).contains("Offload is not tried on several GPUs unless"
          + " asked: offload=optimizer runs ZeRO-Offload (with zero 1, 2 or 3)").doesNotContain("No offload helps")
          .doesNotContain("offload=auto would try it");
    }
    assertThat(SimulateCommandTest.json(CatalogOverrideTest.with(base, "--offload", "optimizer")).get(0).get("fits")
        .asBoolean()).isTrue();
    JsonNode inference = SimulateCommandTest.json("memory", "--model", "llama-65b", "--task", "inference", "--hardware",
        "rtx4090-8x", "--format", "json").get(0);
    assertThat(inference.get("explanation").asText()).contains("Offload is not simulated for inference on several GPUs");
  }

  @Test
  void memory_refusesAllGpus_whichChangesNoByte() {
    // every GPU of a symmetric plan holds the same bytes: --all-gpus (how many GPUs a simulation runs) changed nothing
    CliRunner all = CliRunner.run("memory", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train",
        "--tp", "2", "--all-gpus");
    assertThat(all.code()).isEqualTo(2);
    assertThat(all.err()).startsWith("error: --all-gpus: memory gives one GPU's bytes").doesNotContain("Exception");
    assertThat(all.out()).isEmpty();
  }

  @Test
  void memory_whereNoBatchOrContextFits_saysNone_notZero() {
    // LLaMA-65B's 16-bit weights alone (2 bytes x 65.3e9, about 122 GiB) exceed a 24 GiB card: "largest batch 0" and
    // "largest context (tokens) 0" read as sizes
    double weightsGib = 2 * llmsim.hw.catalog.Catalog.bundled().model("llama-65b", "--model").parameterCount()
        / (1024.0 * 1024 * 1024);
    assertThat(weightsGib).isGreaterThan(24);
    CliRunner r = CliRunner.run("memory", "--model", "llama-65b", "--hardware", "rtx4090", "--task", "inference",
        "--offload", "none", "--batch", "2");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).containsPattern("largest batch +none\\n").containsPattern(
        "largest context \\(tokens\\) +none at batch 2\\n");
  }

  @Test
  void roofline_ofARun_saysWhatSimulateSaysOfIt_aChangedPrecisionAndAShortfall(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) {
    // LLaMA-65B training needs about 1 TB; the M2 Ultra has no bf16: the chart was drawn without a word of either
    double needGib = 16 * llmsim.hw.catalog.Catalog.bundled().model("llama-65b", "--model").parameterCount()
        / (1024.0 * 1024 * 1024);
    assertThat(needGib).isGreaterThan(192);
    CliRunner r = CliRunner.run("roofline", "--hardware", "m2-ultra", "--model", "llama-65b", "--task", "train",
        "--out", dir.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("m2-ultra: warning: precision fp16: the default bf16 is not native")
        .contains("m2-ultra: warning: it does not fit (device memory short by ")
        .contains("its ops are drawn as if the memory were there");
    CliRunner fits = CliRunner.run("roofline", "--hardware", "h100-sxm", "--model", "llama-7b", "--task", "inference",
        "--out", dir.toString());
    assertThat(fits.err()).doesNotContain("warning");
  }

  @Test
  void roofline_withoutAModel_refusesTheFlagsOfARun_thatChangeNoCeiling(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) {
    // --task train --batch 8 --gpus 4 without --model drew the device's ceilings, the same as without them
    java.nio.file.Path out = dir.resolve("r");
    for (String[] flag : new String[][] {{"--task", "train"}, {"--batch", "8"}, {"--gpus", "4"}, {"--precision", "fp8"}}) {
      CliRunner r = CliRunner.run("roofline", "--hardware", "h100-sxm", flag[0], flag[1], "--out", out.toString());
      BadInputTest.assertBadInput(r, "error: " + flag[0] + ": roofline without --model draws each device's ceilings"
          + " alone");
    }
    assertThat(out).doesNotExist();
    assertThat(CliRunner.run("roofline", "--hardware", "h100-sxm", "--out", out.toString()).code()).isZero();
    assertThat(CliRunner.run("roofline", "--hardware", "h100-sxm", "--model", "llama-7b", "--task", "train", "--batch",
        "8", "--out", out.toString()).code()).isZero();
  }

  @Test
  void roofline_ofARunItRefuses_makesNoFolder(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
    // the A100 has no fp8 units and pytorch does not emulate them: refused, exit 2, but --out's folder was made first
    java.nio.file.Path out = dir.resolve("r");
    BadInputTest.assertBadInput(CliRunner.run("roofline", "--hardware", "a100", "--model", "llama-7b", "--task",
        "inference", "--precision", "fp8", "--out", out.toString()), "error: --precision: fp8 is not native on");
    BadInputTest.assertBadInput(CliRunner.run("roofline", "--hardware", "h100-sxm", "--model", "llama-7b", "--task",
        "inference", "--lora-rank", "8", "--out", out.toString()), "error: --lora-rank: does not apply to inference");
    assertThat(out).doesNotExist();
  }

  @Test
  void roofline_ofMoreSystemsThanItDraws_isNotToldToDropTheOutItRequires(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) {
    // 'drop --out' was the first advice, but roofline's --out is required: without it the run is refused again
    java.util.List<String> ids = llmsim.hw.catalog.Catalog.bundled().systems().stream().map(s -> s.id()).limit(
        ReportOutput.MAX_SYSTEMS + 1).toList();
    java.nio.file.Path out = dir.resolve("r");
    CliRunner r = CliRunner.run("roofline", "--hardware", String.join(",", ids), "--out", out.toString());
    BadInputTest.assertBadInput(r, "roofline draws at most " + ReportOutput.MAX_SYSTEMS + " systems, but --hardware"
        + " names " + (ReportOutput.MAX_SYSTEMS + 1) + "; split them over several runs");
    assertThat(r.err()).doesNotContain("drop --out");
    assertThat(out).doesNotExist();
  }

  @Test
  void explainMemory_refusesAllGpus_asMemoryDoes_whileTheTimeMetricsTakeIt() {
    // explain memory's rows are one GPU's bytes: with --all-gpus it printed them to the byte, the flag taken unsaid
    String[] plan = {"--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train", "--tp", "2", "--pp", "2",
        "--micro-batches", "4", "--all-gpus"};
    CliRunner mem = CliRunner.run(CatalogOverrideTest.with(new String[] {"explain", "memory"}, plan));
    BadInputTest.assertBadInput(mem, "error: --all-gpus: explain memory derives one GPU's bytes");
    assertThat(mem.out()).isEmpty();
    // a time metric is the simulation's: every GPU simulated, the mean over the 8 of them
    CliRunner step = CliRunner.run(CatalogOverrideTest.with(new String[] {"explain", "step_time_s"}, plan));
    assertThat(step.code()).as(step.err()).isZero();
    assertThat(step.out()).contains("the mean over the " + 2 * 2 * 2 + " simulated GPUs");
  }

  @Test
  void roofline_refusesAllGpus_asMemoryDoes_itPlacesOneGpusKernels(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) {
    // every GPU of a symmetric plan runs the same kernels against the same ceilings: --all-gpus was taken and drew the
    // same points
    java.nio.file.Path out = dir.resolve("r");
    CliRunner r = CliRunner.run("roofline", "--hardware", "hgx-h100-8x", "--model", "llama-7b", "--task", "train",
        "--tp", "2", "--all-gpus", "--out", out.toString());
    BadInputTest.assertBadInput(r, "error: --all-gpus: the roofline places one GPU's kernels");
    assertThat(r.err()).contains("all_gpus changes how many GPUs simulate, explain and compare run; leave it out");
    assertThat(out).doesNotExist();
    // without a model too: the flag is named for what it is, not sent to --model, which would be refused in turn
    CliRunner bare = CliRunner.run("roofline", "--hardware", "h100-sxm", "--all-gpus", "--out", out.toString());
    BadInputTest.assertBadInput(bare, "error: --all-gpus: the roofline places one GPU's kernels");
    assertThat(out).doesNotExist();
  }
}
