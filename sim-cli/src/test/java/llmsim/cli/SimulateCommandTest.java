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

class SimulateCommandTest {
  static final ObjectMapper JSON = new ObjectMapper();
  static final List<String> KEYS = List.of("step_time_s", "tokens_per_s", "prefill_tokens_per_s", "decode_tokens_per_s",
      "ttft_s", "tpot_s", "mfu", "mbu", "fits", "offload", "memory", "time_by_bound_s", "bound", "explanation", "kernel");

  @TempDir Path dir;

  static JsonNode json(String... args) throws IOException {
    CliRunner r = CliRunner.run(args);
    assertThat(r.code()).as(r.err()).isZero();
    return JSON.readTree(r.out());
  }

  @Test
  void plan_saysWhichGpusWereSimulated_andHowManyRanInStepWithAnother() throws IOException {
    // tp 2 x pp 2 x dp 2 on eight H100s: one GPU per stage stands for its three peers, or every GPU is simulated,
    // where the peers of a stage do the same work and so run in step (the first of them also runs their
    // synchronisations: at most 2 GPUs a stage are drawn)
    String[] plan = {"simulate", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train", "--seq-len",
        "512", "--tp", "2", "--pp", "2", "--format", "json"};
    JsonNode one = json(plan).get("plan");
    assertThat(one.get("all_gpus").asBoolean()).isFalse();
    assertThat(one.get("gpus_simulated").asInt()).isEqualTo(2);
    assertThat(one.get("gpus_in_step_with_another").asInt()).isZero();
    JsonNode all = json(CatalogOverrideTest.with(plan, "--all-gpus")).get("plan");
    assertThat(all.get("all_gpus").asBoolean()).isTrue();
    assertThat(all.get("gpus_simulated").asInt()).isEqualTo(8);
    int inStep = all.get("gpus_in_step_with_another").asInt();
    assertThat(inStep).isBetween(8 - 2 * 2, 8 - 2);
    CliRunner text = CliRunner.run(CatalogOverrideTest.with(java.util.Arrays.copyOf(plan, plan.length - 2),
        "--all-gpus"));
    assertThat(text.out()).contains("tp 2, pp 2, dp 2 on 8 GPUs, every GPU simulated (" + inStep
        + " in step with another)");
  }

  @Test
  void plan_isShown_withTheGpusItRunsOn_dpFillingWhatTpLeaves() throws IOException {
    JsonNode j = json("simulate", "--model", "llama-7b", "--hardware", "dgx-a100-8x80gb", "--tp", "2", "--format", "json");
    assertThat(j.at("/plan/gpus").asInt()).isEqualTo(8);
    assertThat(j.at("/plan/tp").asInt()).isEqualTo(2);
    assertThat(j.at("/plan/dp").asInt()).isEqualTo(8 / 2);
    assertThat(j.at("/plan/pp").asInt()).isEqualTo(1);
    CliRunner text = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "dgx-a100-8x80gb", "--tp", "2");
    assertThat(text.out()).contains("tp 2, pp 1, dp 4 on 8 GPUs").contains("memory per GPU");
  }

  @Test
  void llama65bTraining_needsOffloadOnH100_andCrossesNoLinkOnM2Ultra() throws IOException {
    JsonNode j = json("compare", "--model", "llama-65b", "--task", "train", "--hardware", "m2-ultra,13900ks-h100",
        "--recompute", "full", "--format", "json");
    JsonNode mac = j.get(0);
    JsonNode h100 = j.get(1);
    assertThat(mac.get("hardware").asText()).isEqualTo("m2-ultra");
    assertThat(mac.get("link_bytes").asDouble()).isZero();
    assertThat(mac.at("/time_by_bound_s/host_link").asDouble()).isZero();
    assertThat(mac.get("explanation").asText()).contains("Nothing crosses a link");
    assertThat(h100.get("offload").asText()).isNotEqualTo("none");
    // weights stream in for forward and backward (2 x 2 bytes x params) and bf16 gradients go out (2 bytes x params)
    double params = 65285660672.0;
    double layerParams = params - 2 * 32000.0 * 8192 - 8192;
    assertThat(h100.get("link_bytes").asDouble()).isGreaterThan(3 * 2 * layerParams);
    assertThat(h100.at("/time_by_bound_s/host_link").asDouble() + h100.at("/time_by_bound_s/host").asDouble())
        .as("the offload path (link and host CPU) dominates").isGreaterThan(0.5 * h100.get("step_time_s").asDouble());
    assertThat(h100.get("explanation").asText()).containsAnyOf("PCIe 5.0", "host");
  }

  @Test
  void llama65bLoraFineTune_onH100_isBoundByTheHostLink() throws IOException {
    JsonNode h100 = json("simulate", "--model", "llama-65b", "--task", "finetune-lora", "--hardware", "13900ks-h100",
        "--format", "json");
    assertThat(h100.get("offload").asText()).isEqualTo("weights");
    assertThat(h100.get("bound").asText()).isEqualTo("host_link");
    assertThat(h100.get("explanation").asText()).startsWith("Bound by the PCIe 5.0 x16 link");
  }

  @Test
  void jsonHasTheDocumentedKeys() throws IOException {
    JsonNode r = json("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--format", "json");
    for (String k : KEYS) {
      assertThat(r.has(k)).as(k).isTrue();
    }
    assertThat(r.get("memory").has("kv_cache_bytes")).isTrue();
    assertThat(r.get("time_by_bound_s").has("device_memory")).isTrue();
  }

  @Test
  void sameScenarioTwice_givesByteIdenticalJson() {
    String[] args = {"compare", "--model", "llama-13b", "--hardware", "m2-ultra,13900ks-rtx4090", "--task", "inference",
        "--format", "json"};
    assertThat(CliRunner.run(args).out()).isEqualTo(CliRunner.run(args).out());
  }

  @Test
  void scenarioFile_isReadAndFlagsOverrideIt() throws IOException {
    Path f = dir.resolve("s.yaml");
    Files.writeString(f, "kind: scenario\nhardware: m2-ultra\nmodel: llama-7b\ntask: inference\nbatch: 2\n");
    JsonNode r = json("simulate", f.toString(), "--batch", "4", "--format", "json");
    assertThat(r.get("batch").asInt()).isEqualTo(4);
    assertThat(r.get("hardware").asText()).isEqualTo("m2-ultra");
  }

  @Test
  void scenarioFile_withUnknownKey_isABadInput() throws IOException {
    Path f = dir.resolve("s.yaml");
    Files.writeString(f, "kind: scenario\nhardware: m2-ultra\nmodel: llama-7b\nbatch_size: 2\n");
    CliRunner r = CliRunner.run("simulate", f.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("s.yaml:4:1: unknown field 'batch_size' (did you mean 'batch'?)");
  }

  @Test
  void loraTargets_unknownName_isRefusedWithTheList() throws IOException {
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "a100-sxm-80gb", "--task",
        "finetune-lora", "--lora-targets", "q,qq");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--lora-targets: 'qq' is not a LoRA target: give all, or a comma-separated list of q, k,"
        + " v, o, gate, up, down");
    CliRunner empty = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "a100-sxm-80gb", "--task",
        "finetune-lora", "--lora-targets", ",");
    assertThat(empty.code()).isEqualTo(2);
    assertThat(empty.err()).contains("--lora-targets: names no layer");
  }

  @Test
  void loraTargets_aLayerNamedTwice_orAllWithOthers_isRefused() {
    for (String twice : List.of("q,v,q", "q,q_proj")) {
      CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "a100-sxm-80gb", "--task",
          "finetune-lora", "--lora-targets", twice);
      assertThat(r.code()).as(twice).isEqualTo(2);
      assertThat(r.err()).as(twice).isEqualTo("error: --lora-targets: names q twice; name each layer once\n");
    }
    CliRunner all = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "a100-sxm-80gb", "--task",
        "finetune-lora", "--lora-targets", "all,q");
    assertThat(all.code()).isEqualTo(2);
    // it said "'all' is not a LoRA target: give all, ...": the advice was what had been given
    assertThat(all.err()).contains("--lora-targets: 'all' is every layer and goes alone");
  }

  @Test
  void loraTargets_gateOnAModelWithoutAGatedMlp_isRefused() throws IOException {
    // gpt3-125m's MLP is a plain GELU one (fc1 = up, fc2 = down): a gate adapter has no layer to go on, and LoRA on
    // gate alone trained nothing (0 bytes of gradients and optimizer state) without a word
    assertThat(llmsim.hw.catalog.Catalog.bundled().model("gpt3-125m", "--model").ffnKind())
        .isEqualTo(llmsim.core.model.FfnKind.GELU_MLP);
    for (String targets : List.of("gate", "q,gate")) {
      CliRunner r = CliRunner.run("memory", "--model", "gpt3-125m", "--hardware", "rtx4090", "--task", "finetune-qlora",
          "--lora-targets", targets);
      assertThat(r.code()).as(targets).isEqualTo(2);
      assertThat(r.err()).as(targets).contains("--lora-targets: names gate, which gpt3-125m does not have: its MLP is"
          + " gelu-mlp (up and down)");
    }
    Path f = dir.resolve("gate.yaml");
    Files.writeString(f, "kind: scenario\nhardware: rtx4090\nmodel: gpt3-125m\ntask: finetune-lora\nlora_targets: gate\n");
    CliRunner file = CliRunner.run("simulate", f.toString());
    assertThat(file.code()).isEqualTo(2);
    assertThat(file.err()).contains("gate.yaml:5:").contains("'lora_targets' names gate, which gpt3-125m does not have");
    // all takes the layers a model has; on a SwiGLU model gate is one of them
    for (String[] ok : new String[][] {{"gpt3-125m", "all"}, {"llama-7b", "gate"}}) {
      CliRunner r = CliRunner.run("memory", "--model", ok[0], "--hardware", "rtx4090", "--task", "finetune-lora",
          "--lora-targets", ok[1]);
      assertThat(r.code()).as(r.err()).isZero();
    }
  }

  @Test
  void inferenceBoundByTensorParallelAllReduces_isNotToldToAccumulateGradients() throws IOException {
    // eight RTX 4090s without peer-to-peer: tp 8's all-reduces go through the host, and they bound a prefill
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "rtx4090-8x",
        "--tp", "8", "--generate-tokens", "0", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("bound").asText()).isEqualTo("intra_node_link");
    // inference has no micro-batches (refused there) and no gradients: its lever is the batch, and it is a run
    assertThat(j.get("explanation").asText()).contains("More fabric bandwidth, a smaller tp or a larger batch would"
        + " move it").doesNotContain("gradient accumulation").doesNotContain("micro-batches");
    assertThat(CliRunner.run("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "rtx4090-8x",
        "--tp", "8", "--micro-batches", "4").err()).contains("--micro-batches: does not apply to inference");
  }

  @Test
  void zero3WithoutTensorParallelism_boundByTheFabric_isToldTheZeroStage_notASmallerTp() throws IOException {
    // eight RTX 4090s through the host, tp 1, dp 8, ZeRO-3: the weight all-gathers and gradient reduce-scatters
    // bound the step; it was told "a smaller tp" at tp 1
    JsonNode j = json("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "rtx4090-8x", "--zero", "3",
        "--seq-len", "256", "--format", "json");
    assertThat(j.get("plan").get("tp").asInt()).isEqualTo(1);
    assertThat(j.get("bound").asText()).isEqualTo("intra_node_link");
    assertThat(j.get("explanation").asText()).contains("ZeRO-3 weight all-gathers")
        .contains("More fabric bandwidth, a lower ZeRO stage where memory allows, larger micro-batches or more"
            + " gradient accumulation would move it").doesNotContain("smaller tp");
  }

  @Test
  void compareWithPlanAuto_whereTheSystemsRunDifferentMicroBatches_saysEachSystems_notTheFirstsForAll() {
    // LLaMA-13B training: on 8 H100s plan auto picks a pipeline (4 micro-batches a stage), on 8 MI250 GCDs ZeRO-3
    // without one (1 micro-batch); the first line read 'seq_len 2048 x 8 micro-batch(es)' for both
    CliRunner r = CliRunner.run("compare", "--model", "llama-13b", "--task", "train", "--hardware",
        "hgx-h100-8x,mi250-4x", "--plan", "auto");
    assertThat(r.code()).as(r.err()).isZero();
    String first = r.out().lines().findFirst().orElseThrow();
    assertThat(first).contains("seq_len 2048, micro-batches per system below").doesNotContain("x 8 micro-batch");
    String row = r.out().lines().filter(l -> l.startsWith("micro-batches ")).findFirst().orElseThrow();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("tp (\\d+), pp (\\d+), dp (\\d+)").matcher(r.out());
    List<Integer> dp = new java.util.ArrayList<>();
    List<Integer> pp = new java.util.ArrayList<>();
    while (m.find() && dp.size() < 2) {
      pp.add(Integer.parseInt(m.group(2)));
      dp.add(Integer.parseInt(m.group(3)));
    }
    // a pipeline plan's micro-batches are 4 a stage; without one, 1; the global batch is 1 x micro-batches x dp
    int h100 = pp.get(0) > 1 ? 4 * pp.get(0) : 1;
    int mi250 = pp.get(1) > 1 ? 4 * pp.get(1) : 1;
    assertThat(h100).isNotEqualTo(mi250);
    assertThat(row).matches("micro-batches +" + h100 + " \\(global batch " + h100 * dp.get(0) + " sequences\\) +" + mi250
        + " \\(global batch " + mi250 * dp.get(1) + " sequences\\) *");
    // one system, or systems that agree: the first line says them, and no row repeats it
    CliRunner one = CliRunner.run("compare", "--model", "llama-13b", "--task", "train", "--hardware",
        "hgx-h100-8x,dgx-a100-8x80gb", "--tp", "2", "--micro-batches", "2");
    assertThat(one.out()).startsWith("LLaMA 13B, train, batch 1, seq_len 2048 x 2 micro-batch(es), ")
        .doesNotContain("\nmicro-batches ");
  }

  @Test
  void inferenceReplicas_exchangeNothing_soNoNoteOnHowCollectivesAreCosted() throws IOException {
    // eight RTX 4090s serving eight replicas: no collective runs, yet the result said "collectives on
    // pcie4-host-no-p2p are not taken to slow compute"
    JsonNode dp = json("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "rtx4090-8x", "--format",
        "json");
    assertThat(dp.get("plan").get("dp").asInt()).isEqualTo(8);
    assertThat(dp.get("time_by_bound_s").get("intra_node_link").asDouble()).isZero();
    assertThat(dp.get("warnings").toString()).doesNotContain("collectives");
    // tp 8 all-reduces, and training's gradient reductions over the replicas, do cross it
    assertThat(json("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "rtx4090-8x", "--tp", "8",
        "--format", "json").get("warnings").toString()).contains("collectives on pcie4-host-no-p2p");
    assertThat(json("simulate", "--model", "gpt3-125m", "--task", "train", "--hardware", "rtx4090-8x", "--format",
        "json").get("warnings").toString()).contains("collectives on pcie4-host-no-p2p");
  }

  @Test
  void recomputeSelective_underFlashAttention_isSaidToDoNothing_whereItChangesNothing() throws IOException {
    // selective recomputation drops the attention scores, which flash attention never keeps: under pytorch the step
    // and the bytes are those without it, and it was taken without a word; under megatron-classic (no flash) it acts
    for (String sw : new String[] {"pytorch", "megatron-classic"}) {
      String[] base = {"simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-sxm", "--offload",
          "none", "--software", sw, "--format", "json"};
      JsonNode none = json(base);
      JsonNode selective = json(CatalogOverrideTest.with(base, "--recompute", "selective"));
      boolean same = none.get("step_time_s").asDouble() == selective.get("step_time_s").asDouble()
          && none.get("memory").get("total_bytes").asDouble() == selective.get("memory").get("total_bytes").asDouble();
      assertThat(same).as(sw).isEqualTo(sw.equals("pytorch"));
      assertThat(selective.get("warnings").toString().contains("recompute selective has no effect under " + sw))
          .as(sw).isEqualTo(same);
    }
    JsonNode mem = json("memory", "--model", "llama-7b", "--task", "train", "--hardware", "h100-sxm", "--recompute",
        "selective", "--format", "json").get(0);
    assertThat(mem.get("warnings").toString()).contains("recompute selective has no effect under pytorch");
  }

  @Test
  void bytesOverTheHostLink_areOneGpus_withPipelineStagesToo() throws IOException {
    // ZeRO-Offload on eight H100s: each GPU moves its shard of P / (pp x dp) parameters over its own PCIe link, the
    // same shard at pp 1 x dp 8 as at pp 2 x dp 4; with two stages the result gave the two stages' bytes summed
    String[] base = {"simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x", "--zero", "1",
        "--offload", "optimizer", "--micro-batches", "4", "--format", "json"};
    double flat = json(CatalogOverrideTest.with(base, "--pp", "1")).get("link_bytes").asDouble();
    double piped = json(CatalogOverrideTest.with(base, "--pp", "2")).get("link_bytes").asDouble();
    assertThat(flat).isPositive();
    // the stages differ by the embedding and head only, a few of the 6.7B parameters
    assertThat(piped).isCloseTo(flat, org.assertj.core.data.Percentage.withPercentage(2));
  }

  @Test
  void scenarioFile_withARenamedKey_namesItsNewName() throws IOException {
    Path f = dir.resolve("r.yaml");
    Files.writeString(f, "kind: scenario\nhardware: m2-ultra\nmodel: llama-7b\ntask: train\nactivation_checkpointing: true\n");
    CliRunner r = CliRunner.run("simulate", f.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("r.yaml:5:1: 'activation_checkpointing' was renamed: write recompute: full");
  }

  @Test
  void scenarioFile_withImpossibleValue_isABadInput() throws IOException {
    Path f = dir.resolve("s.yaml");
    Files.writeString(f, "kind: scenario\nhardware: m2-ultra\nmodel: llama-7b\ntask: trian\nbatch: 0\n");
    CliRunner r = CliRunner.run("simulate", f.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("s.yaml:4:7: 'task' must be one of").contains("(did you mean 'train'?)")
        .contains("s.yaml:5:8: 'batch' must be >= 1, was 0");
  }

  @Test
  void bundledExamples_run() {
    for (String f : List.of("../examples/llama65b-train.yaml", "../examples/llama7b-decode.yaml")) {
      CliRunner r = CliRunner.run("simulate", f);
      assertThat(r.code()).as(f + ": " + r.err()).isZero();
    }
  }

  @Test
  void offloadOptimizerForInference_isRefused() {
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--offload", "optimizer");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--offload: optimizer applies to training only");
  }

  @Test
  void offloadOnSeveralGpus_runsAsZeroOffloadOrZero3ParameterOffload_andWhatIsNotSimulatedIsRefused() {
    String[] base = {"simulate", "--model", "llama-13b", "--task", "train", "--hardware", "dgx-a100-8x80gb"};
    CliRunner ok = CliRunner.run(concat(base, "--zero", "2", "--offload", "optimizer", "--format", "json"));
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(ok.out()).contains("\"offload\" : \"optimizer\"").contains("link of its own");
    CliRunner params = CliRunner.run(concat(base, "--zero", "3", "--offload", "weights", "--format", "json"));
    assertThat(params.code()).as(params.err()).isZero();
    assertThat(params.out()).contains("\"offload\" : \"weights\"").contains("link of its own");
    CliRunner weights = CliRunner.run(concat(base, "--zero", "2", "--offload", "weights"));
    assertThat(weights.code()).isEqualTo(2);
    assertThat(weights.err()).contains("--offload: 'offload: weights' on 8 GPUs").contains("set zero: 3");
    CliRunner noZero = CliRunner.run(concat(base, "--offload", "optimizer"));
    assertThat(noZero.code()).isEqualTo(2);
    assertThat(noZero.err()).contains("'offload: optimizer' with dp 8 shards the optimizer state")
        .contains("set zero: 1, 2 or 3");
    CliRunner zero3 = CliRunner.run(concat(base, "--zero", "3", "--offload", "optimizer"));
    assertThat(zero3.code()).as(zero3.err()).isZero();
  }

  @Test
  void memoryUnderZeroOffload_reportsEachGpusShareAndTheNodesHostTogether() throws Exception {
    CliRunner r = CliRunner.run("memory", "--model", "llama-13b", "--task", "train", "--hardware", "dgx-a100-8x80gb",
        "--zero", "2", "--offload", "optimizer", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    var row = JSON.readTree(r.out()).get(0);
    double perGpu = row.get("memory").get("host_bytes").asDouble();
    assertThat(perGpu).isPositive();
    // the node's 8 GPUs keep their shards in its one host memory (DGX A100: 2 TB, 8 GPUs a node)
    assertThat(row.get("host_per_node").get("gpus_per_node").asInt()).isEqualTo(8);
    assertThat(row.get("host_per_node").get("host_bytes").asDouble()).isEqualTo(8 * perGpu);
    assertThat(row.get("host_per_node").get("host_capacity_bytes").asDouble()).isEqualTo(2048.0 * (1L << 30));
    assertThat(row.get("memory").get("host_capacity_bytes").asDouble()).isEqualTo(2048.0 * (1L << 30) / 8);
  }

  private static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void aPrecisionTheDeviceLacks_isRefused_andTheDefaultAdaptsWithAWarning() {
    CliRunner asked = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "train", "--hardware", "t4",
        "--precision", "bf16");
    assertThat(asked.code()).isEqualTo(2);
    assertThat(asked.err()).contains("--precision: bf16 is not native on NVIDIA T4").contains("it runs fp32, fp16, int8");
    CliRunner dflt = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "train", "--hardware", "t4",
        "--format", "json");
    assertThat(dflt.code()).as(dflt.err()).isZero();
    assertThat(dflt.out()).contains("\"precision\" : \"fp16\"").contains("the default bf16 is not native");
    CliRunner fp8 = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "a100-sxm-80gb", "--precision", "fp8");
    assertThat(fp8.code()).isEqualTo(2);
  }

  @Test
  void aMultiGpuServer_isSimulatedPerGpuWithItsCollectives_neverPooled() {
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--zero", "3", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    // one GPU's 80 GiB, not eight pooled; ZeRO-3 shards the 16 bytes/parameter over the 8 replicas
    assertThat(r.out()).contains("\"capacity_bytes\" : 8.589934592E10").contains("\"intra_node_link\"");
  }

  @Test
  void aPlanThatCannotRun_isRefusedWithTheReason() {
    CliRunner heads = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--tp", "3");
    assertThat(heads.code()).isEqualTo(2);
    assertThat(heads.err()).contains("--tp:").contains("does not divide the 8 GPUs").doesNotContain("size it");
    // more than a cluster template's one node: it said 'does not divide the 8 GPUs of h100-cluster', not that
    // --gpus or --nodes sizes the template (its dp message did); a server without a network cannot be sized
    CliRunner wide = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--tp", "16");
    BadInputTest.assertBadInput(wide, "--tp: tp x pp = 16 does not divide the 8 GPUs of h100-cluster (size it with --gpus or"
        + " --nodes)");
    assertThat(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--tp", "16", "--gpus", "16").code()).isZero();
    assertThat(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "rtx4090-8x",
        "--tp", "16").err()).contains("does not divide the 8 GPUs of rtx4090-8x").doesNotContain("size it");
    // tp 16 splits none of LLaMA-13B's 40 heads evenly: on 16 GPUs it would be refused for that; it was told to size
    CliRunner heads16 = CliRunner.run("simulate", "--model", "llama-13b", "--task", "train", "--hardware",
        "h100-cluster", "--tp", "16");
    BadInputTest.assertBadInput(heads16, "--tp: 16 does not divide the 40 attention heads of llama-13b");
    assertThat(heads16.err()).doesNotContain("size it");
    // more stages than LLaMA-7B's 32 layers runs on no number of GPUs: that, not sizing, is the reason
    CliRunner deep = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--pp", "33");
    BadInputTest.assertBadInput(deep, "--pp: 33 is more stages than the 32 layers of llama-7b");
    assertThat(deep.err()).doesNotContain("size it");
    CliRunner dp = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--tp", "2", "--dp", "2");
    assertThat(dp.code()).isEqualTo(2);
    assertThat(dp.err()).contains("--dp: tp x pp x dp = 2 x 1 x 2 = 4, but hgx-h100-8x has 8 GPUs");
    CliRunner pp = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--pp", "2");
    assertThat(pp.code()).isEqualTo(2);
    assertThat(pp.err()).contains("pipeline-parallel inference is not simulated yet");
    CliRunner ppLayers = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--pp", "8", "--tp", "1", "--dp", "1");
    assertThat(ppLayers.code()).as(ppLayers.err()).isZero();
    CliRunner ppOdd = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--gpus", "24", "--pp", "3", "--tp", "8", "--dp", "1");
    assertThat(ppOdd.code()).as(ppOdd.err()).isZero(); // uneven stages: 10, 11 and 11 layers
    CliRunner ppMany = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--gpus", "64", "--pp", "64", "--tp", "1", "--dp", "1");
    assertThat(ppMany.code()).isEqualTo(2);
    assertThat(ppMany.err()).contains("--pp: 64 is more stages than the 32 layers of llama-7b");
    CliRunner nodes = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--nodes", "4");
    assertThat(nodes.code()).isEqualTo(2);
    assertThat(nodes.err()).contains("--nodes: h100-sxm has no network between nodes");
    // a single GPU asked for two: told it is one GPU a node, and where more GPUs of its device are
    CliRunner two = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--gpus", "2");
    assertThat(two.code()).isEqualTo(2);
    assertThat(two.err()).contains("--gpus: rtx4090 has no network between nodes and 1 GPU per node, so 2 GPUs cannot"
        + " be laid out on it; use a system with more GPUs of rtx4090 a node");
  }

  @Test
  void hybridShard_runsOnSeveralNodes_showsItsPerGpuMemory_andIsRefusedWhereItCannotRun() {
    CliRunner mem = CliRunner.run("memory", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--gpus", "32", "--zero", "3", "--shard", "hybrid");
    assertThat(mem.code()).as(mem.err()).isZero();
    assertThat(mem.out()).contains("GiB per GPU").contains("ZeRO-3 hybrid shard (within each node) on 32 GPUs");
    CliRunner sim = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--gpus", "16", "--zero", "3", "--shard", "hybrid", "--format", "json");
    assertThat(sim.code()).as(sim.err()).isZero();
    assertThat(sim.out()).contains("\"shard\" : \"hybrid\"");
    CliRunner oneNode = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--zero", "3", "--shard", "hybrid");
    assertThat(oneNode.code()).isEqualTo(2);
    assertThat(oneNode.err()).contains("--shard:").contains("one node");
    CliRunner zero1 = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--gpus", "16", "--zero", "1", "--shard", "hybrid");
    assertThat(zero1.code()).isEqualTo(2);
    assertThat(zero1.err()).contains("--shard:").contains("needs zero 3, was zero 1");
    // 'full' is ZeRO-3's default scope: with ZeRO-1 it would do nothing, so it is refused rather than accepted
    CliRunner fullAtZero1 = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware",
        "hgx-h100-8x", "--zero", "1", "--shard", "full");
    assertThat(fullAtZero1.code()).isEqualTo(2);
    assertThat(fullAtZero1.err()).contains("--shard:").contains("applies with zero 3").contains("was zero 1");
    CliRunner fullAtZero3 = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware",
        "hgx-h100-8x", "--zero", "3", "--shard", "full");
    assertThat(fullAtZero3.code()).as(fullAtZero3.err()).isZero();
  }

  @Test
  void aShortJobsGpuHoursAndEnergy_keepTheirDigits_ratherThanReadingZero() throws Exception {
    // 100,000 tokens on 8 H100: a few steps, 0.0036 GPU-hours, which the table read '0.00' beside a cost of 0.0087 USD
    String[] args = {"simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x", "--zero", "3",
        "--tokens", "100000"};
    JsonNode job = json(CatalogOverrideTest.with(args, "--format", "json")).get("job");
    double hours = job.get("gpu_hours").asDouble();
    double kwh = job.get("energy_kwh").asDouble();
    assertThat(hours).isGreaterThan(0).isLessThan(0.01);
    CliRunner r = CliRunner.run(args);
    assertThat(r.out()).containsPattern("job GPU-hours +" + java.util.regex.Pattern.quote(threeDigits(hours)) + "\\n")
        .containsPattern("job energy \\(at TDP\\) +" + java.util.regex.Pattern.quote(threeDigits(kwh)) + " kWh\\n")
        .doesNotContainPattern("job GPU-hours +0\\.00\\n");
  }

  private static String threeDigits(double v) {
    return new java.math.BigDecimal(v).round(new java.math.MathContext(3)).stripTrailingZeros().toPlainString();
  }

  @Test
  void tokens_turnAStepIntoTheJobsWallTimeAndGpuHours() throws Exception {
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--zero", "3", "--tokens", "1.5B", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    var j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    double tokensPerSecond = j.get("tokens_per_s").asDouble();
    var job = j.get("job");
    assertThat(job.get("tokens").asDouble()).isEqualTo(1.5e9);
    assertThat(job.get("wall_time_s").asDouble()).isCloseTo(1.5e9 / tokensPerSecond, org.assertj.core.data.Percentage.withPercentage(1e-9));
    assertThat(job.get("gpu_hours").asDouble()).isCloseTo(1.5e9 / tokensPerSecond * 8 / 3600,
        org.assertj.core.data.Percentage.withPercentage(1e-9));
    CliRunner bad = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--tokens", "1.4X");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("--tokens: must be a whole number such as 1400000000000 or 1.4T, was '1.4X'");
  }

  @Test
  void globalBatch_isMicroBatchTimesDpTimesMicroBatches() throws Exception {
    // 8 GPUs, dp 8 (ZeRO-3), micro-batch 2: a global batch of 64 sequences is 64 / (2 x 8) = 4 micro-batches
    int global = 64;
    int microBatch = 2;
    int dp = 8;
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    CliRunner g = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--zero", "3", "--seq-len", "1024", "--micro-batch", String.valueOf(microBatch), "--global-batch",
        String.valueOf(global), "--tokens", "1B", "--format", "json");
    CliRunner m = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--zero", "3", "--seq-len", "1024", "--batch", String.valueOf(microBatch), "--micro-batches",
        String.valueOf(global / (microBatch * dp)), "--format", "json");
    assertThat(g.code()).as(g.err()).isZero();
    assertThat(m.code()).as(m.err()).isZero();
    var a = json.readTree(g.out());
    assertThat(a.get("step_time_s").asDouble()).isEqualTo(json.readTree(m.out()).get("step_time_s").asDouble());
    // each optimizer step trains global x seq_len tokens
    assertThat(a.get("job").get("steps").asDouble()).isCloseTo(1e9 / (global * 1024.0),
        org.assertj.core.data.Percentage.withPercentage(1e-9));
  }

  @Test
  void epochsOverADataset_areThatManyTokens() throws Exception {
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--zero", "3", "--epochs", "3", "--dataset-tokens", "500M", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    var job = json.readTree(r.out()).get("job");
    assertThat(job.get("tokens").asDouble()).isEqualTo(3 * 500e6);
    assertThat(job.get("wall_time_s").asDouble()).isCloseTo(3 * 500e6 / json.readTree(r.out()).get("tokens_per_s")
        .asDouble(), org.assertj.core.data.Percentage.withPercentage(1e-9));
  }

  /**
   * A flag that sizes the job replaces the file's way of sizing it, as flags win over a file's keys: --tokens over a
   * file's epochs x dataset_tokens was refused at the file's line ("'epochs' cannot go with tokens"), which no flag
   * can unset, and so were --epochs with --dataset-tokens over its tokens and --requests over an inference file's tokens.
   */
  @Test
  void aJobSizeFlag_replacesTheFilesJobSize() throws Exception {
    var json = new com.fasterxml.jackson.databind.ObjectMapper();
    String head = "kind: scenario\nhardware: hgx-h100-8x\nmodel: llama-7b\ntask: train\ntp: 8\n";
    java.nio.file.Path epochs = java.nio.file.Files.writeString(dir.resolve("epochs.yaml"), head
        + "epochs: 3\ndataset_tokens: 50B\n");
    java.nio.file.Path tokens = java.nio.file.Files.writeString(dir.resolve("tokens.yaml"), head + "tokens: 1T\n");
    java.nio.file.Path infer = java.nio.file.Files.writeString(dir.resolve("infer.yaml"), head.replace("train",
        "inference") + "generate_tokens: 100\ntokens: 1M\n");
    Object[][] cases = {{epochs, new String[] {"--tokens", "1T"}, 1e12}, {tokens, new String[] {"--epochs", "2",
        "--dataset-tokens", "10B"}, 2 * 10e9}, {epochs, new String[] {"--dataset-tokens", "10B"}, 3 * 10e9},
        {infer, new String[] {"--requests", "7"}, 7 * 100.0}};
    for (Object[] c : cases) {
      String[] args = CatalogOverrideTest.with(new String[] {"simulate", c[0].toString()}, CatalogOverrideTest.with(
          (String[]) c[1], "--format", "json"));
      CliRunner r = CliRunner.run(args);
      assertThat(r.code()).as(String.join(" ", args) + ": " + r.err()).isZero();
      assertThat(json.readTree(r.out()).get("job").get("tokens").asDouble()).as(String.join(" ", args))
          .isEqualTo((double) c[2]);
    }
    // flags that size the job two ways are still refused
    BadInputTest.assertBadInput(CliRunner.run("simulate", epochs.toString(), "--tokens", "1T", "--epochs", "2"),
        "--epochs: cannot go with tokens");
  }

  @Test
  void planAuto_saysThePlansThatCannotRun_apartFromThoseThatDoNotFit() throws Exception {
    // LLaMA-13B (40 layers, 40 heads) on 8 GPUs: tp 1, 2, 4, 8 (powers of two in a node), pp dividing the 40 layers
    // and the 8 / tp GPUs, ZeRO 0-3 where dp > 1; ZeRO-2/3 with pipeline stages is refused by rule, not by memory
    int tried = 0;
    int refused = 0;
    int oneReplica = 0;
    for (int tp = 1; tp <= 8; tp *= 2) {
      for (int pp = 1; pp <= 8 / tp; pp++) {
        if (40 % pp != 0 || (8 / tp) % pp != 0) {
          continue;
        }
        int dp = 8 / (tp * pp);
        oneReplica += dp == 1 ? 1 : 0;
        for (int zero = 0; zero <= (dp > 1 ? 3 : 0); zero++) {
          tried++;
          refused += pp > 1 && zero >= 2 ? 1 : 0;
        }
      }
    }
    String[] base = {"simulate", "--model", "llama-13b", "--task", "train", "--hardware", "hgx-h100-8x", "--batch", "1",
        "--plan", "auto", "--format", "json"};
    java.util.regex.Matcher w = java.util.regex.Pattern.compile("fastest of (\\d+) plans that fit \\((\\d+) tried(?:; (\\d+)"
        + " do not fit per-GPU memory)?; (\\d+) of the (\\d+) cannot run here, the first because 'zero' 2 with pipeline"
        + " stages").matcher(json(base).get("warnings").toString());
    // it read 'the fastest of 18 plans that fit (28 tried)': ten plans too big, where six of them were never run
    assertThat(w.find()).isTrue();
    int fit = Integer.parseInt(w.group(1));
    int tooBig = w.group(3) == null ? 0 : Integer.parseInt(w.group(3));
    assertThat(Integer.parseInt(w.group(2))).isEqualTo(tried);
    assertThat(Integer.parseInt(w.group(4))).isEqualTo(refused);
    assertThat(fit + tooBig + refused).isEqualTo(tried);
    // a global batch of 3 sequences: only the plans of one replica divide it; the rest are refused by that rule
    String g = json(CatalogOverrideTest.with(base, "--global-batch", "3")).get("warnings").toString();
    assertThat(g).contains("(" + tried + " tried; " + (tried - oneReplica) + " of the " + tried + " cannot run here, the"
        + " first because 'global_batch' 3 is not a multiple of micro_batch 1 x dp 8");
    // LLaMA-65B inference on 8 x 80 GB: tp 1 (8 replicas) cannot hold its 2 x 65.3e9 bytes; one plan, said as one
    double weightsGib = 2 * llmsim.hw.catalog.Catalog.bundled().model("llama-65b", "--model").parameterCount()
        / Math.pow(2, 30);
    assertThat(weightsGib).isGreaterThan(80).isLessThan(2 * 80); // tp 2 holds half a copy a GPU
    assertThat(json("simulate", "--model", "llama-65b", "--task", "inference", "--hardware", "hgx-h100-8x", "--plan",
        "auto", "--format", "json").get("warnings").toString()).contains("(4 tried; 1 does not fit per-GPU memory)");
    // one GPU has one plan: it read 'the fastest of 1 plans that fit (1 tried)'
    String one = json("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "h100-sxm", "--plan",
        "auto", "--format", "json").get("warnings").toString();
    assertThat(one).contains("plan auto: tp 1, pp 1, dp 1 is the one plan on one GPU, and it fits without offload")
        .doesNotContain("1 plans");
    // and where one plan of several fits, it is that one, not 'the fastest of 1 plans' (Falcon-40B training on
    // 8 GPUs at a global batch of 2: 16 bytes x 41.3e9 = 661 GB of state, 77 GiB a GPU at dp 1, which tp 8 holds in
    // 81 GiB with its activations and workspace, and no pipeline plan does: its first stage also holds the 0.53e9
    // embedding parameters)
    assertThat(json("simulate", "--model", "falcon-40b", "--task", "train", "--hardware", "hgx-h100-8x", "--plan",
        "auto", "--global-batch", "2", "--recompute", "full", "--set", "h100-sxm.memory.capacity_gib=81", "--format",
        "json").get("warnings").toString())
        .contains("tp 8, pp 1, dp 1 was the one plan that fits (").doesNotContain("of 1 plans");
  }

  @Test
  void planAuto_runsTheFastestPlanThatFits_andSaysWhichAndOfHowMany() throws Exception {
    // LLaMA-13B training on 8 H100: plain data parallelism needs 208 GB of state per GPU; only sharded or split
    // plans fit (LLaMA-65B fits no plan on 8 x 80 GB at all: 16 bytes x 65e9 / 8 = 130 GB per GPU)
    CliRunner r = CliRunner.run("simulate", "--model", "llama-13b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--plan", "auto", "--recompute", "full", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    var j = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out());
    assertThat(j.get("fits").asBoolean()).isTrue();
    assertThat(j.get("warnings").toString()).contains("plan auto: tp ").contains("plans that fit");
    assertThat(j.get("memory").get("total_bytes").asDouble()).isLessThanOrEqualTo(80 * Math.pow(2, 30));
    CliRunner none = CliRunner.run("simulate", "--model", "llama-65b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--plan", "auto", "--recompute", "full");
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("--plan: auto: none of the").contains("fits per-GPU memory");
    // at batch 1 with --recompute full given, neither is a lever left (it said "a smaller batch or --recompute full")
    assertThat(none.err()).contains("at this batch").endsWith("; more GPUs would help\n")
        .doesNotContain("smaller batch").doesNotContain("--recompute full would");
    CliRunner one = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "rtx4090",
        "--plan", "auto");
    // full recomputation frees activations, not the 16 bytes a parameter of weights, gradients and AdamW state
    // (16 x 6.74e9 = 108 GB > 24 GiB): it is not offered where it would not make the plan fit (it was)
    assertThat(one.err()).contains("--plan: auto: the one plan for llama-7b on 1 GPU of rtx4090 does not fit")
        .endsWith("; more GPUs would help\n");
    // where it would: LLaMA-33B on 8 MI250 GCDs of 64 GiB, tp 4 x pp 2, holds 16 x 32.5e9 / 8 = 65 GB (60.6 GiB)
    // of weights, gradients and AdamW state a GPU, and fits only with its activations checkpointed
    CliRunner mi = CliRunner.run("simulate", "--model", "llama-33b", "--task", "train", "--hardware", "mi250-4x",
        "--plan", "auto");
    assertThat(mi.code()).isEqualTo(2);
    assertThat(mi.err()).endsWith("; more GPUs or --recompute full would help\n");
    assertThat(CliRunner.run("simulate", "--model", "llama-33b", "--task", "train", "--hardware", "mi250-4x",
        "--plan", "auto", "--recompute", "full").code()).isZero();
    // plan: auto in a scenario file is refused at its line there, not at a --plan flag never given
    Path f = dir.resolve("auto.yaml");
    Files.writeString(f, "kind: scenario\nhardware: hgx-h100-8x\nmodel: llama-65b\ntask: train\nplan: auto\n"
        + "recompute: full\n");
    CliRunner file = CliRunner.run("simulate", f.toString());
    assertThat(file.code()).isEqualTo(2);
    assertThat(file.err()).startsWith("error: " + f + ":5:").contains("'plan' auto: none of the")
        .doesNotContain("--plan");
  }

  @Test
  void allGpus_onOneGpu_isSaidToDoNothing_andChangesNothing() throws IOException {
    // --all-gpus on one H100 ran without a word: there are no peers to simulate apart
    JsonNode all = json("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "finetune-lora",
        "--all-gpus", "--format", "json");
    JsonNode plain = json("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "finetune-lora",
        "--format", "json");
    assertThat(all.get("warnings").toString()).contains("all_gpus has no effect on one GPU");
    assertThat(plain.get("warnings").toString()).doesNotContain("all_gpus");
    assertThat(all.get("step_time_s").asDouble()).isEqualTo(plain.get("step_time_s").asDouble());
    JsonNode eight = json("simulate", "--model", "llama-7b", "--hardware", "dgx-a100-8x80gb", "--task", "finetune-lora",
        "--all-gpus", "--format", "json");
    assertThat(eight.get("warnings").toString()).doesNotContain("all_gpus");
  }

  @Test
  void inferenceWithOffloadWeights_whereEveryLayerFits_saysNoneIsOffloaded() throws IOException {
    // LLaMA-7B's f16 weights (2 bytes a parameter) fit an RTX 4090's 24 GiB: 'offload weights' read beside 32 of 32
    // layers on the GPU and 0 bytes in host memory without a word (gpu_layers auto keeps as many as fit)
    var m = llmsim.hw.catalog.Catalog.bundled().model("llama-7b", "--model");
    var d = llmsim.hw.catalog.Catalog.bundled().system("rtx4090", "--hardware").device();
    assertThat(2.0 * m.parameterCount()).isLessThan(d.memoryCapacityBytes());
    String note = "offload weights has no effect here: all " + m.layers() + " layers fit on the GPU";
    JsonNode r = json("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "inference", "--offload",
        "weights", "--format", "json");
    assertThat(r.get("memory").get("host_bytes").asDouble()).isZero();
    assertThat(r.get("warnings").toString()).contains(note);
    assertThat(json("memory", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "inference", "--offload",
        "weights", "--format", "json").toString()).contains(note);
    // with the layers on the GPU given, or a model that does not fit (LLaMA-13B: 26 GB of f16 weights), no note
    assertThat(json("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "inference", "--offload",
        "weights", "--gpu-layers", "16", "--format", "json").get("warnings").toString()).doesNotContain(note);
    assertThat(json("simulate", "--model", "llama-13b", "--hardware", "rtx4090", "--task", "inference", "--offload",
        "weights", "--format", "json").get("warnings").toString()).doesNotContain("offload weights has no effect");
  }

  @Test
  void everyJsonKey_isInReadmesTable_andTheTableNamesEveryTopLevelKey() throws IOException {
    // 'hfu' was printed by every simulate --format json and documented nowhere
    String readme = Files.readString(Path.of("..", "README.md"));
    String section = readme.substring(readme.indexOf("## JSON output"), readme.indexOf("## How accurate is it?"));
    java.util.Map<String, String> rows = new java.util.LinkedHashMap<>(); // each key of a row's first column: its row
    for (String line : section.lines().filter(l -> l.startsWith("| `")).toList()) {
      String[] cells = line.split("\\|");
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("`([a-z_0-9]+)`").matcher(cells[1]);
      while (m.find()) {
        rows.put(m.group(1), cells[2]);
      }
    }
    JsonNode r = json("simulate", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train", "--tokens",
        "1M", "--format", "json");
    List<String> top = new java.util.ArrayList<>();
    r.fieldNames().forEachRemaining(top::add);
    assertThat(rows.keySet()).containsExactlyInAnyOrderElementsOf(top);
    for (String nested : List.of("plan", "memory", "time_by_bound_s", "job")) {
      r.get(nested).fieldNames().forEachRemaining(k -> assertThat(rows.get(nested)).as(nested).contains("`" + k + "`"));
    }
  }
}
