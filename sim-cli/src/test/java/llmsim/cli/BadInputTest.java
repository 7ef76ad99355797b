package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One test per bad-input case: the message names file, line and rule; exit code 2; no stack trace. */
class BadInputTest {
  @TempDir Path dir;

  static final String DEVICE = String.join("\n",
      "kind: device",
      "id: my-gpu",
      "name: My GPU",
      "vendor: Me",
      "peak_dense_tflops:",
      "  fp16: 100",
      "  source: my datasheet",
      "memory:",
      "  capacity_gib: 48",
      "  bandwidth_gb_per_s: 900",
      "  type: GDDR6",
      "  source: my datasheet",
      "cache:",
      "  on_chip_mib: 6",
      "  source: my datasheet",
      "power:",
      "  tdp_w: 300",
      "  source: my datasheet",
      "default_system:",
      "  host: i9-13900ks",
      "  host_link: pcie4-x16",
      "");

  Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    Files.writeString(p, text);
    return p;
  }

  CliRunner validate(String text) throws IOException {
    return CliRunner.run("hardware", "validate", write("gpu.yaml", text).toString());
  }

  static void assertBadInput(CliRunner r, String... fragments) {
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    for (String f : fragments) {
      assertThat(r.err()).contains(f);
    }
    assertThat(r.err()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Test
  void aTabInAFile_isNamedAsATab_atItsLine() throws IOException {
    assertBadInput(CliRunner.run("hardware", "validate", write("tab.yaml", DEVICE.replace("  fp16: 100", "  fp16:\t100"))
        .toString()), "tab.yaml:6:", "a tab character");
  }

  @Test
  void aSparsePeak_isRefusedAsNoPeak_notSentToTheDenseFieldOfItsName() throws IOException {
    // 'fp16_sparse: 200' was told "unknown field (did you mean 'fp16'?)": the sparse figure, twice the dense one,
    // written as the dense peak would double every compute-bound time's speed
    Path out = dir.resolve("out");
    CliRunner r = CliRunner.run("simulate", "--model", "gpt3-125m", "--hardware", write("sparse.yaml",
        DEVICE.replace("  fp16: 100", "  fp16_sparse: 200")).toString(), "--out", out.toString());
    assertBadInput(r, "sparse.yaml:6:3: 'peak_dense_tflops.fp16_sparse': sparse figures are not peaks");
    assertThat(r.err()).doesNotContain("did you mean").hasLineCount(1);
    assertThat(out).doesNotExist();
    assertBadInput(validate(DEVICE.replace("  fp16: 100", "  fp16: 100\n  bf16_Sparse: 200")), "'peak_dense_tflops"
        + ".bf16_Sparse': sparse figures are not peaks");
  }

  @Test
  void aPriceDateThatIsNoDate_isRefusedAtItsLine_inADeviceFileAsInAPricesFile() throws IOException {
    String price = String.join("\n", "price:", "  amount: 1599", "  currency: USD", "  per: purchase",
        "  date: \"2022-13\"", "  source: my receipt", "");
    assertBadInput(CliRunner.run("hardware", "validate", write("gpu.yaml", DEVICE + price).toString()),
        "gpu.yaml:26:9:", "be a date YYYY-MM or YYYY-MM-DD");
    assertThat(CliRunner.run("hardware", "validate", write("ok.yaml", DEVICE + price.replace("2022-13", "2022-12"))
        .toString()).code()).isZero();
  }

  @Test
  void goodUserDevice_validatesAndWorksWherever_anIdDoes() throws IOException {
    Path p = write("gpu.yaml", DEVICE);
    CliRunner r = CliRunner.run("hardware", "validate", p.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("ok (device my-gpu)");
    CliRunner m = CliRunner.run("memory", "--model", "llama-7b", "--hardware", p.toString(), "--format", "json");
    assertThat(m.code()).as(m.err()).isZero();
    assertThat(m.out()).contains("\"hardware\" : \"my-gpu\"");
  }

  @Test
  void misspeltKey_saysDidYouMean() throws IOException {
    assertBadInput(validate(DEVICE.replace("  tdp_w: 300", "  tdp_watts: 300")),
        "gpu.yaml:17:3: unknown field 'power.tdp_watts' (did you mean 'tdp_w'?)");
  }

  @Test
  void missingField_isNamed() throws IOException {
    assertBadInput(validate(DEVICE.replace("vendor: Me\n", "")), "gpu.yaml:1:1: missing required field 'vendor'");
  }

  @Test
  void zeroBandwidth_isImpossible() throws IOException {
    assertBadInput(validate(DEVICE.replace("bandwidth_gb_per_s: 900", "bandwidth_gb_per_s: 0")),
        "gpu.yaml:10:23: 'memory.bandwidth_gb_per_s' must be > 0, was 0");
  }

  @Test
  void negativeBandwidth_isImpossible() throws IOException {
    assertBadInput(validate(DEVICE.replace("bandwidth_gb_per_s: 900", "bandwidth_gb_per_s: -900")),
        "gpu.yaml:10:23: 'memory.bandwidth_gb_per_s' must be > 0, was -900");
  }

  @Test
  void stringWhereNumberBelongs_isAnError_notCoerced() throws IOException {
    assertBadInput(validate(DEVICE.replace("bandwidth_gb_per_s: 900", "bandwidth_gb_per_s: 900 GB/s")),
        "gpu.yaml:10:23: 'memory.bandwidth_gb_per_s' must be a number, was a string \"900 GB/s\"");
  }

  @Test
  void duplicateKey_isAnError() throws IOException {
    assertBadInput(validate(DEVICE + "vendor: Other\n"), "gpu.yaml:22:1: duplicate key 'vendor' (first at line 4)");
  }

  @Test
  void yamlThatDoesNotParse_givesItsPosition() throws IOException {
    assertBadInput(validate(DEVICE.replace("  fp16: 100", "  fp16: [100")), "gpu.yaml:", "does not parse");
  }

  @Test
  void yamlThatDoesNotParse_saysWhatWasExpectedAndFound_notOnlyWhereTheParserWas() throws IOException {
    // the message was SnakeYAML's first line alone, "while parsing a flow sequence", which says nothing of the problem
    assertBadInput(validate("kind: device\nid: [1, 2\n"), "gpu.yaml:2:10: does not parse: while parsing a flow"
        + " sequence: expected ',' or ']', but got the end of the file");
    assertBadInput(validate("kind: device\nid: \"my-gpu\n"), "does not parse: while scanning a quoted scalar: found"
        + " unexpected end of stream");
  }

  @Test
  void unknownHostInAUserFile_namesTheNearest() throws IOException {
    assertBadInput(validate(DEVICE.replace("host: i9-13900ks", "host: i9-13900k")),
        "gpu.yaml:20:9: unknown host 'i9-13900k' (nearest: i9-13900ks");
  }

  @Test
  void everyErrorAtOnce() throws IOException {
    CliRunner r = validate(DEVICE.replace("bandwidth_gb_per_s: 900", "bandwidth_gb_per_s: 0").replace("tdp_w: 300", "tdp_w: \"300\""));
    assertBadInput(r, "gpu.yaml:10:23:", "gpu.yaml:17:10:");
  }

  @Test
  void unknownHardwareId_namesTheNearestIds() {
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "h100-sxn"),
        "--hardware: unknown hardware 'h100-sxn' (nearest: h100-sxm");
  }

  @Test
  void unknownIds_areOfferedDistinctEntriesOfTheirOwnKind() {
    // 'h100-sx' was offered 'h100-sxm, h100, h100-sxm5' (one device and two of its aliases), 'lama-7b' as hardware
    // the model alias llama1-7b, and 'hardware show i9-13900k' three systems where it shows the host i9-13900ks
    java.util.function.Function<CliRunner, List<String>> nearest = r -> List.of(r.err()
        .substring(r.err().indexOf("(nearest: ") + 10, r.err().indexOf(")")).split(", "));
    llmsim.hw.catalog.Catalog c = llmsim.hw.catalog.Catalog.bundled();
    List<String> devices = nearest.apply(CliRunner.run("simulate", "--model", "gpt3-125m", "--hardware", "h100-sx"));
    assertThat(devices).hasSize(3).startsWith("h100-sxm");
    assertThat(devices.stream().map(c::canonical).distinct()).hasSize(devices.size());
    List<String> models = nearest.apply(CliRunner.run("models", "show", "lama-7b"));
    assertThat(models.stream().map(c::canonical).distinct()).hasSize(models.size());
    List<String> hardware = nearest.apply(CliRunner.run("simulate", "--model", "gpt3-125m", "--hardware", "lama-7b"));
    assertThat(hardware).noneMatch(h -> c.models().stream().anyMatch(m -> m.id().equals(c.canonical(h))));
    assertThat(nearest.apply(CliRunner.run("hardware", "show", "i9-13900k"))).startsWith("i9-13900ks");
  }

  @Test
  void aHostOrLinkGivenAsHardware_isSaidToBeOne_withTheSystemsThatHaveIt() {
    // 'compare --hardware m2-ultra,rtx4090,i9-13900ks' (a CPU beside the GPUs) was told "unknown hardware
    // 'i9-13900ks' (nearest: 8x-4090, 8x-a800, 8x-h100)", an id the catalog knows
    llmsim.hw.catalog.Catalog c = llmsim.hw.catalog.Catalog.bundled();
    CliRunner host = CliRunner.run("compare", "--model", "gpt3-125m", "--hardware", "m2-ultra,rtx4090,i9-13900ks");
    assertBadInput(host, "--hardware: 'i9-13900ks' is a host (the CPU and memory beside the GPUs), not a system or"
        + " device");
    String listed = host.err().substring(host.err().indexOf("systems with it: ") + 17, host.err().indexOf("; `llmsim"));
    assertThat(listed.split(", ")).isNotEmpty()
        .allSatisfy(id -> assertThat(c.system(id, "test").host().id()).isEqualTo("i9-13900ks"));
    assertBadInput(CliRunner.run("simulate", "--model", "gpt3-125m", "--hardware", "nvlink4"),
        "--hardware: 'nvlink4' is a link, not a system or device", "hgx-h100-8x");
  }

  @Test
  void aModelGivenAsHardware_orHardwareAsAModel_isSaidToBeOne() {
    // '--model h100-sxm --hardware llama-7b' (the two values swapped) was told 'unknown hardware' with three systems
    assertBadInput(CliRunner.run("simulate", "--model", "gpt3-125m", "--hardware", "llama-7b"),
        "--hardware: 'llama-7b' is a model (`llmsim models show llama-7b`), not hardware");
    assertBadInput(CliRunner.run("simulate", "--model", "h100", "--hardware", "m2-ultra"),
        "--model: 'h100' is hardware (`llmsim hardware show h100-sxm`), not a model");
  }

  @Test
  void oneSystemNamedTwice_byAnAliasOrByAFileOfItsId_isRefused_andWritesNothing() throws IOException {
    // 'compare --hardware h100-sxm,h100' printed two identical h100-sxm columns (memory too; advise dropped one), and
    // with --out a device file of a catalog id failed on its charts: "timeline-h100-sxm.png is written twice"
    Path out = dir.resolve("out");
    assertBadInput(CliRunner.run("compare", "--model", "gpt3-125m", "--hardware", "h100-sxm,h100", "--out",
        out.toString()), "--hardware: h100 and h100-sxm both name h100-sxm; name each once");
    Path copy = write("copy.yaml", DEVICE.replace("id: my-gpu", "id: rtx4090"));
    CliRunner file = CliRunner.run("compare", "--model", "gpt3-125m", "--hardware", "rtx4090," + copy, "--out",
        out.toString());
    assertBadInput(file, "--hardware: " + copy + " and rtx4090 both name rtx4090", "give the file an id of its own");
    assertThat(out).doesNotExist();
    for (String[] cmd : new String[][] {{"memory", "--model", "gpt3-125m"}, {"roofline", "--out", out.toString()},
        {"advise", "--model", "gpt3-125m", "--tokens", "1M"}}) {
      String[] args = java.util.Arrays.copyOf(cmd, cmd.length + 2);
      args[cmd.length] = "--hardware";
      args[cmd.length + 1] = "h100-sxm,h100";
      assertBadInput(CliRunner.run(args), "--hardware: h100 and h100-sxm both name h100-sxm");
    }
    assertThat(out).doesNotExist();
  }

  @Test
  void unknownModelId_namesTheNearestIds() {
    assertBadInput(CliRunner.run("memory", "--model", "lama-7b", "--hardware", "m2-ultra"),
        "--model: unknown model 'lama-7b' (nearest: llama-7b");
  }

  @Test
  void badFlagValue_namesTheFlagAndTheAllowedValues() {
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--weights", "q5_k"),
        "--weights: must be one of f32, f16, bf16, fp8, int8, int4, q8_0, q4_0, q4_k, nf4, was 'q5_k'");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--format", "xml"),
        "--format", "table, json, csv");
  }

  @Test
  void nonsensicalNumber_isRefused() {
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--batch", "0"),
        "--batch: must be >= 1, was 0");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--batch", "two"),
        "--batch: must be a whole number, was 'two'");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--batch", "3000000000"),
        "--batch: must be <= 1048576, was 3000000000");
  }

  @Test
  void recomputeMode_isOneOfTheThree() {
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "train",
        "--recompute", "partial"), "--recompute: must be one of none, selective, full, full_offload, was 'partial'");
  }

  @Test
  void recomputeFullOffload_isRefusedOnUnifiedMemory() {
    // on unified memory the host and the GPU share one memory: keeping layer inputs "in host memory" frees nothing
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task",
        "finetune-lora", "--recompute", "full_offload"), "--recompute: 'recompute: full_offload' keeps each layer's"
        + " input in host memory, but m2-ultra has unified memory");
    // the same run on a discrete GPU is a scenario it models
    assertThat(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "13900ks-h100", "--task",
        "finetune-lora", "--recompute", "full_offload").code()).isZero();
  }

  @Test
  void globalBatch_mustBeWholeMicroBatchesOverTheReplicas() throws IOException {
    // 8 GPUs, dp derived as 8: 4 x 8 = 32 sequences per round of micro-batches
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train",
        "--micro-batch", "4", "--global-batch", "100"), "--global-batch: 100 is not a multiple of micro_batch 4 x dp 8 = 32");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train",
        "--micro-batch", "4", "--global-batch", "64", "--micro-batches", "3"),
        "--micro-batches: 3 disagrees with global_batch 64 / (micro_batch 4 x dp 8) = 2; give one of them");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "h100-sxm", "--global-batch", "8"),
        "--global-batch: applies to training");
    Path s = write("s.yaml", "kind: scenario\nhardware: hgx-h100-8x\nmodel: llama-7b\ntask: train\nbatch: 4\n"
        + "global_batch: 100\n");
    assertBadInput(CliRunner.run("simulate", s.toString()),
        "s.yaml:6:15: 'global_batch' 100 is not a multiple of micro_batch 4 x dp 8 = 32");
  }

  @Test
  void schedule_interleavedGoesWithVirtualStagesAndOnlyWithThem() {
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train",
        "--pp", "4", "--schedule", "interleaved"), "--schedule: interleaved needs virtual_stages > 1");
    // with plan auto, which refuses --virtual-stages, the message sent the user from one refusal to the other
    String[] auto = {"simulate", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train", "--plan", "auto",
        "--schedule", "interleaved"};
    assertBadInput(CliRunner.run(auto), "--schedule: interleaved needs virtual_stages > 1", "which plan: auto does not"
        + " choose", "use plan: given with pp and virtual_stages");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(auto, "--virtual-stages", "2")),
        "--virtual-stages: cannot go with plan: auto");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train",
        "--pp", "4", "--virtual-stages", "2", "--schedule", "gpipe"),
        "--schedule: gpipe runs one model chunk per GPU, but virtual_stages is 2");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train",
        "--schedule", "pipedream"), "--schedule: must be one of 1f1b, interleaved, gpipe, was 'pipedream'");
  }

  @Test
  void epochs_needDatasetTokens_andExcludeTokens() {
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "train",
        "--epochs", "3"), "--epochs: needs dataset_tokens");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "train",
        "--epochs", "3", "--dataset-tokens", "1B", "--tokens", "3B"), "--epochs: cannot go with tokens, which also sizes the job");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "train",
        "--epochs", "0", "--dataset-tokens", "1B"), "--epochs: must be >= 1, was 0");
  }

  @Test
  void epochsAndDatasetTokens_sizeATrainingJob_andAreRefusedForInference() throws IOException {
    // an inference job is its generated tokens: epochs x dataset_tokens were taken as 150B tokens generated
    Path out = dir.resolve("epochs-inference");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "a100", "--task", "inference",
        "--epochs", "3", "--dataset-tokens", "50B", "--out", out.toString()),
        "--epochs: applies to training (passes over the tokens trained on); the job of inference is --requests");
    assertThat(out).doesNotExist();
    assertBadInput(CliRunner.run("advise", "--model", "llama-7b", "--hardware", "a100", "--task", "inference",
        "--dataset-tokens", "5M"), "--dataset-tokens: applies to training");
    Path f = write("infer-epochs.yaml", "kind: scenario\nhardware: a100\nmodel: llama-7b\ntask: inference\n"
        + "dataset_tokens: 50B\n");
    assertBadInput(CliRunner.run("simulate", f.toString()), "infer-epochs.yaml:5:", "'dataset_tokens' applies to training");
    // a sweep skips the inference points and keeps the training ones
    CliRunner sweep = CliRunner.run("sweep", "--models", "gpt3-125m", "--tasks", "inference,train", "--hardware", "a100",
        "--epochs", "2", "--dataset-tokens", "1M", "--seq-len", "512");
    assertThat(sweep.code()).as(sweep.err()).isZero();
    assertThat(sweep.err()).contains("skipped 1 row at tasks=inference: --epochs: applies to training");
    assertThat(sweep.out().lines().skip(1).toList()).singleElement().asString().contains(",train,");
  }

  @Test
  void promptAndGeneratedTokensPastTheContext_areRefusedAtTheOneGiven() throws IOException {
    // llama2-7b's window is 4,096 tokens; 4,000 prompt tokens and the default 128 generated pass it: the refusal named
    // --generate-tokens, a flag never given (and on the serve page one with no slider)
    int max = llmsim.hw.catalog.Catalog.bundled().model("llama2-7b", "--model").maxContext();
    int prompt = max - 96;
    assertBadInput(CliRunner.run("simulate", "--model", "llama2-7b", "--hardware", "rtx4090", "--prompt-tokens",
        String.valueOf(prompt)), "error: --prompt-tokens: prompt + generated tokens (" + prompt + " + 128) exceed");
    Path f = write("long-prompt.yaml", "kind: scenario\nhardware: rtx4090\nmodel: llama2-7b\nprompt_tokens: " + prompt
        + "\n");
    assertBadInput(CliRunner.run("simulate", f.toString()), "long-prompt.yaml:4:", "prompt + generated tokens");
    // the generated tokens given alone, or both given: the generated ones, as before
    assertBadInput(CliRunner.run("simulate", "--model", "llama2-7b", "--hardware", "rtx4090", "--generate-tokens",
        String.valueOf(prompt)), "error: --generate-tokens: prompt + generated tokens (512 + " + prompt + ")");
    assertBadInput(CliRunner.run("simulate", f.toString(), "--generate-tokens", "200"), "error: --generate-tokens:");
  }

  @Test
  void oneOptionUnderTwoNames_givenOnceEach_isSaidToBeOneOption() {
    // --batch and --micro-batch are one option: "--batch 2 --micro-batch 4" was told "option '--micro-batch' (N)
    // should be specified only once", a flag typed once
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-sxm",
        "--batch", "2", "--micro-batch", "4"), "error: --micro-batch and --batch name one option, given more than once");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--tp", "2", "--tp", "4"),
        "error: option '--tp' (N) should be specified only once");
    // one name of a two-named option typed twice is that name's: it was told "-H and --hardware name one option"
    CliRunner twice = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--hardware",
        "m2-ultra");
    assertBadInput(twice, "error: option '--hardware' (ID[,ID...]) should be specified only once");
    assertThat(twice.err()).doesNotContain("-H and");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "-H", "h100-sxm", "--hardware=m2-ultra"),
        "error: -H and --hardware name one option");
  }

  @Test
  void dpNotMatchingTheGpus_pointsToSizingOnlyWhereTheSystemCanBeSized() {
    // one M2 Ultra has no network: '--dp 2' was told "size it with --gpus or --nodes", both refused there
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "m2-ultra", "--dp",
        "2"), "--dp: tp x pp x dp = 1 x 1 x 2 = 2, but m2-ultra has 1 GPU and no network between nodes");
    assertThat(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "m2-ultra", "--gpus",
        "2").err()).contains("no network between nodes");
    // eight GPUs with a network: sizing is the way
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--dp", "16"), "but hgx-h100-8x has 8 GPUs (size it with --gpus or --nodes)");
  }

  @Test
  void unknownOption_suggestsTheNearest() {
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardwre", "m2-ultra"), "--hardwre", "--hardware");
  }

  @Test
  void emptyValue_namesTheFlag_folderSaysItIsOne() {
    assertBadInput(CliRunner.run("memory", "--model", "", "--hardware", "m2-ultra"),
        "error: --model: the value is empty; give a model id, a .yaml file or a config.json");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", " "),
        "error: --hardware: the value is empty; give a hardware id or a .yaml file");
    assertBadInput(CliRunner.run("models", "show", dir.toString() + "/"), dir + ": is a directory, expected a file");
  }

  @Test
  void systemFile_mayNameItsDeviceByRelativeFile() throws IOException {
    write("gpus/gpu.yaml", "");
    Path gpu = dir.resolve("gpus/gpu.yaml");
    java.nio.file.Files.writeString(gpu, DEVICE);
    Path sys = write("sys.yaml", "kind: system\nid: my-box\nname: My box\nhost: i9-13900ks\ndevice: gpus/gpu.yaml\n"
        + "device_count: 2\nhost_link: pcie4-x16\ndevice_link: pcie4-x16\nfabric: pcie-host\n");
    CliRunner r = CliRunner.run("hardware", "validate", sys.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("ok (system my-box)");
  }

  @Test
  void badKernelProperty_isOneLineNamingThePropertyAndTheChoices() throws Exception {
    // the kernel is picked once per JVM, so this runs in a child JVM of its own
    Process p = new ProcessBuilder(java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Dllmsim.kernel=bogus", "-cp", System.getProperty("java.class.path"), "llmsim.cli.Main", "models", "list")
        .start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    String err = new String(p.getErrorStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor()).as(err).isEqualTo(2);
    assertThat(out).isEmpty();
    assertThat(err.lines().filter(l -> !l.startsWith("WARNING: Using incubator modules")).toList())
        .containsExactly("error: -Dllmsim.kernel=bogus is not allowed (allowed: auto, scalar, panama)");
  }

  @Test
  void systemFile_aLinkInARoleItsKindCannotPlay_isAnErrorAtItsKey() throws IOException {
    String box = "kind: system\nid: my-box\nname: My box\nhost: epyc-7742-2s\ndevice: a100-sxm-80gb\n"
        + "device_count: 8\nhost_link: pcie4-x16\ndevice_link: nvlink3\nfabric: switch\nnodes: 2\n"
        + "network: {nic: ib-hdr-200, nics_per_node: 8, source: s}\n";
    Path ok = write("ok.yaml", box);
    CliRunner r = CliRunner.run("hardware", "validate", ok.toString());
    assertThat(r.code()).as(r.err()).isZero();
    // an InfiniBand NIC as the host link (line 7), PCIe as the network between nodes (line 11)
    Path bad = write("bad.yaml", box.replace("host_link: pcie4-x16", "host_link: ib-hdr-200")
        .replace("nic: ib-hdr-200", "nic: pcie4-x16"));
    CliRunner b = CliRunner.run("hardware", "validate", bad.toString());
    assertThat(b.code()).isEqualTo(2);
    assertThat(b.err()).contains(bad + ":7:12: 'host_link' ib-hdr-200 is of kind infiniband: a host link joins a GPU")
        .contains(bad + ":11:16: 'nic' pcie4-x16 is of kind pcie: a network joins nodes");
  }

  @Test
  void aFileNamedInAFile_thatCannotBeRead_isSaidAtTheKeyThatNamesIt() throws IOException {
    // was "nest/nohost.yaml: no such file", without the file and line that named it
    Path sys = write("nest/sys.yaml", "kind: system\nid: nest-sys\nname: nested\nhost: ./nohost.yaml\n"
        + "device: h100-sxm\ndevice_count: 1\nhost_link: pcie4-x16\n");
    assertBadInput(CliRunner.run("hardware", "validate", sys.toString()), sys + ":4:7: 'host' "
        + dir.resolve("nest/nohost.yaml") + ": no such file");
    Path scenario = write("nest/job.yaml", "kind: scenario\nhardware: h100-sxm\nmodel: ./missing.yaml\n"
        + "task: inference\n");
    Path out = dir.resolve("out");
    assertBadInput(CliRunner.run("simulate", scenario.toString(), "--out", out.toString()), scenario + ":3:8: 'model' "
        + dir.resolve("nest/missing.yaml") + ": no such file");
    assertThat(out).doesNotExist();
  }

  @Test
  void aHuggingFaceModelFolder_givenAsTheModel_isPointedToItsConfigJson() throws IOException {
    // '--model ./Llama-2-7b-hf' (the folder a download makes) was "is a directory, expected a file", nothing more
    Path folder = dir.resolve("Llama-2-7b-hf");
    Files.createDirectories(folder);
    Files.writeString(folder.resolve("config.json"), "{\"model_type\": \"llama\"}\n");
    Path out = dir.resolve("out");
    assertBadInput(CliRunner.run("memory", "--model", folder.toString(), "--hardware", "h100-sxm"), folder
        + ": is a directory, expected a file; a Hugging Face model folder's shape is its config.json: give "
        + folder.resolve("config.json"));
    assertBadInput(CliRunner.run("simulate", "--model", folder.toString(), "--hardware", "h100-sxm", "--out",
        out.toString()), "give " + folder.resolve("config.json"));
    assertThat(out).doesNotExist();
    CliRunner empty = CliRunner.run("models", "show", dir.toString());
    assertBadInput(empty, dir + ": is a directory, expected a file");
    assertThat(empty.err()).doesNotContain("config.json");
  }

  @Test
  void aLinkMeasuredFasterThanItsNominalRate_isRefusedAtTheFigure_inTheFilesUnits() throws IOException {
    // was "link.yaml:2:1: link my-link: measured bandwidth 1.0E11 B/s exceeds nominal 3.15E10 B/s"
    String link = "kind: link\nid: my-link\nname: My link\ntype: pcie\nnominal_gb_per_s_per_direction: 31.5\n"
        + "nominal_source: spec\nmeasured_gb_per_s_per_direction: 100\nmeasured_source: my benchmark\n"
        + "latency_us: 1.0\nlatency_source: paper\n";
    Path f = write("link.yaml", link);
    CliRunner r = CliRunner.run("hardware", "validate", f.toString());
    assertBadInput(r, f + ":7:34: 'measured_gb_per_s_per_direction' must be <= nominal_gb_per_s_per_direction (31.5),"
        + " was 100");
    assertThat(r.err()).doesNotContain("B/s").hasLineCount(1);
    assertThat(CliRunner.run("hardware", "validate", write("ok.yaml", link.replace("per_direction: 100",
        "per_direction: 31.5")).toString()).code()).isZero();
  }

  @Test
  void systemFile_anAppleGpuBehindPcie_orADiscreteGpuOnUnifiedMemory_isRefusedAtItsHostLink() throws IOException {
    // an M2 Ultra's GPU behind PCIe was simulated with 192 GiB of memory of its own beside the host's 192 GiB, and its
    // weights copied over a PCIe link the chip does not have; an H100 'on unified memory' copied nothing
    String apple = "kind: system\nid: my-mac\nname: My Mac\nhost: i9-13900ks\ndevice: m2-ultra-76\n"
        + "device_count: 1\nhost_link: pcie4-x16\n";
    Path out = dir.resolve("out");
    Path mac = write("mac.yaml", apple);
    assertBadInput(CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "inference", "--hardware",
        mac.toString(), "--out", out.toString()), mac + ":7:12: 'host_link' pcie4-x16 is of kind pcie, but device"
        + " m2-ultra-76 shares its host's memory (its own system's host link is unified-m2-ultra, unified)");
    assertThat(out).doesNotExist();
    Path h100 = write("h100.yaml", "kind: system\nid: my-box\nname: My box\nhost: m2-ultra-cpu\ndevice: h100-sxm\n"
        + "device_count: 1\nhost_link: unified-m2-ultra\n");
    assertBadInput(CliRunner.run("hardware", "validate", h100.toString()), h100 + ":7:12: 'host_link'"
        + " unified-m2-ultra is of kind unified, but device h100-sxm has memory of its own (its own system's host link"
        + " is pcie5-x16, pcie)");
    // the catalog's Apple system, written out as a file, is fine
    CliRunner ok = CliRunner.run("hardware", "validate", write("ok.yaml", apple.replace("i9-13900ks", "m2-ultra-cpu")
        .replace("pcie4-x16", "unified-m2-ultra")).toString());
    assertThat(ok.code()).as(ok.err()).isZero();
  }

  @Test
  void theJobsSizeAndPrices_onACommandThatPricesNoJob_areRefused_notIgnored() throws IOException {
    // memory, roofline, explain and sweep-chart time no job: a --tokens or --price there changed nothing, without a word
    String out = dir.resolve("charts").toString();
    List<List<String>> commands = List.of(
        List.of("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference"),
        List.of("roofline", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--out", out),
        List.of("roofline", "--hardware", "m2-ultra", "--out", out),
        List.of("explain", "decode_tokens_per_s", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference"),
        List.of("sweep-chart", "--models", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--out", out));
    for (List<String> c : commands) {
      for (List<String> job : List.of(List.of("--tokens", "20M"), List.of("--requests", "100"),
          List.of("--price", "m2-ultra-76=1usd/h"), List.of("--pricing", "spot"))) {
        List<String> args = new java.util.ArrayList<>(c);
        args.addAll(job);
        assertBadInput(CliRunner.run(args.toArray(String[]::new)), "error: " + job.get(0) + ": " + c.get(0)
            + " sizes and prices no job");
      }
    }
    assertThat(Files.exists(dir.resolve("charts"))).as("a refused run draws nothing").isFalse();
    assertThat(CliRunner.run("memory", "--help").out()).as("nor are they offered").doesNotContain("--tokens");
    // the commands that size a job still take them
    assertThat(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference",
        "--requests", "100", "--price", "m2-ultra-76=1usd/h").code()).isZero();
  }

  @Test
  void aSystemNamedTwice_isRefusedAtItsFlagOrLine_notRunTwice() throws IOException {
    // compare --hardware m2-ultra,m2-ultra printed two identical columns (and --out drew the same files twice)
    for (String cmd : new String[] {"simulate", "compare", "memory"}) {
      assertBadInput(CliRunner.run(cmd, "--model", "llama-7b", "--task", "inference", "--hardware",
          "m2-ultra,rtx4090,m2-ultra"), "error: --hardware: m2-ultra is given twice; name each system once");
    }
    // roofline without a model failed with an internal error (exit 1): its chart file was written twice
    assertBadInput(CliRunner.run("roofline", "--hardware", "m2-ultra,m2-ultra", "--out", dir.resolve("r").toString()),
        "error: --hardware: m2-ultra is given twice");
    assertThat(dir.resolve("r")).doesNotExist();
    Path file = write("s.yaml", "model: llama-7b\nhardware: [m2-ultra, m2-ultra]\n");
    assertBadInput(CliRunner.run("simulate", file.toString()), file + ":2:11: 'hardware' m2-ultra is given twice");
  }

  @Test
  void aFileOfTheWrongKind_isNamedByTheCommandThatReadIt_notByAFlagNeverGiven() throws IOException {
    // 'models show gpu.yaml' said "--model needs a model file"; no --model was given
    Path device = write("gpu.yaml", DEVICE);
    assertBadInput(CliRunner.run("models", "show", device.toString()), device + ":1:7: models show needs a model file,"
        + " this is a device file");
    Path model = write("m.yaml", "kind: model\nid: my-7b\nname: My 7B\nfamily: llama\nlayers: 32\nhidden_size: 4096\n"
        + "heads: 32\nffn_hidden_size: 11008\nffn_kind: swiglu\nvocab_size: 32000\ntied_embeddings: false\n"
        + "max_context: 2048\nnorm: rmsnorm\npublished_parameters: 6738415616\npublished_source: my count\n");
    assertBadInput(CliRunner.run("hardware", "show", model.toString()), model + ":1:7: hardware show needs a device or"
        + " system file, this is a model file");
    assertBadInput(CliRunner.run("simulate", "--model", device.toString(), "--hardware", "m2-ultra"),
        "--model needs a model file, this is a device file");
    assertBadInput(CliRunner.run("sweep", "--models", device.toString(), "--hardware", "m2-ultra"),
        "--models needs a model file, this is a device file");
  }

  @Test
  void aNumberOfTheWrongType_isShownWithTheRule() throws IOException {
    // "'layers' must be an integer, was a number" did not say which number the file holds
    String model = "kind: model\nid: my-7b\nname: My 7B\nfamily: llama\nlayers: 32.5\nhidden_size: 4096\nheads: 32\n"
        + "ffn_hidden_size: 11008\nffn_kind: swiglu\nvocab_size: 32000\ntied_embeddings: false\nmax_context: 2048\n"
        + "norm: rmsnorm\npublished_parameters: 6738415616\npublished_source: my count\n";
    Path m = write("m.yaml", model);
    assertBadInput(CliRunner.run("models", "show", m.toString()), m + ":5:9: 'layers' must be an integer, was a number"
        + " 32.5");
    assertBadInput(validate(DEVICE.replace("id: my-gpu", "id: 7")), "gpu.yaml:2:5: 'id' must be a string, was an"
        + " integer 7");
  }

  @Test
  void aFileThatIsAListOrABareValue_isSaidToNeedAMapping_notToMissAField() throws IOException {
    // a list at the top said "missing required field 'kind'", as if a mapping lacked one key
    assertBadInput(validate("- kind: device\n- id: my-gpu\n"), "gpu.yaml:1:1: the file must be a mapping of fields"
        + " (kind: one of device,", "was a list");
    assertBadInput(validate("42\n"), "gpu.yaml:1:1: the file must be a mapping of fields", "was an integer");
    assertBadInput(validate("id: my-gpu\n"), "gpu.yaml:1:1: missing required field 'kind'");
  }

  @Test
  void aTextShorterThanItsMinimum_isSaidToBeShort_notEmpty() throws IOException {
    // a prices file's source must be at least 3 characters: 'x' was said to be empty
    String prices = "kind: prices\nprovider: my-cloud\noffers:\n  - device: a100-sxm-80gb\n    pricing: on-demand\n"
        + "    amount: 1.89\n    currency: USD\n    date: \"2026-09-25\"\n    source: \"x\"\n";
    Path p = write("p.yaml", prices);
    assertBadInput(CliRunner.run("hardware", "validate", p.toString()), p + ":9:13: 'offers[0].source' must be at least 3"
        + " characters, was 'x'");
    Path empty = write("e.yaml", prices.replace("\"x\"", "\"\""));
    assertBadInput(CliRunner.run("hardware", "validate", empty.toString()), "'offers[0].source' must not be empty");
  }

  @Test
  void aSystemOfSeveralDevicesWithoutAFabric_isRefused_notTakenAsNvSwitch() throws IOException {
    // eight cards with no fabric were simulated as if an NVSwitch joined them, without a word
    String box = "kind: system\nid: my-box\nname: My box\nhost: epyc-7742-2s\ndevice: rtx4090\ndevice_count: 8\n"
        + "host_link: pcie4-x16\ndevice_link: pcie4-x16\n";
    Path bad = write("box.yaml", box);
    assertBadInput(CliRunner.run("hardware", "validate", bad.toString()), bad + ":6:15: 'fabric' is needed with"
        + " device_count 8: how the node's devices reach each other, switch (NVSwitch), mesh (xGMI) or pcie-host");
    assertBadInput(CliRunner.run("simulate", "--hardware", bad.toString(), "--model", "llama-7b", "--task", "train",
        "--tp", "8"), "'fabric' is needed with device_count 8");
    Path ok = write("ok.yaml", box + "fabric: pcie-host\n");
    assertThat(CliRunner.run("hardware", "validate", ok.toString()).code()).isZero();
    // one device has no peers to reach
    Path one = write("one.yaml", box.replace("device_count: 8", "device_count: 1").replace("device_link: pcie4-x16\n",
        ""));
    assertThat(CliRunner.run("hardware", "validate", one.toString()).code()).isZero();
  }

  @Test
  void aFileOfAnotherKind_whereAScenarioGridCaseOrPricesFileIsRead_isOneMessageSayingWhatReadsIt() throws IOException {
    // a validation case given as a scenario was a dozen errors, one per case field ('unknown field id', 'category',
    // 'quote' ...), the kind mismatch among them; a device given to --price was told 'missing required field provider'
    Path kase = write("C99.yaml", "kind: case\nid: C99\ncategory: C-training\nscenario:\n  model: llama-7b\n"
        + "  hardware: h100-sxm\nmetric: tokens_per_s\nmeasured: {value: 1, unit: tokens/s}\nsource: a paper\n"
        + "quote: a quote\nconfidence: low\n");
    CliRunner r = CliRunner.run("compare", "--scenario", kase.toString());
    assertBadInput(r, kase + ":1:7: this is a case file, where a scenario file is needed", "`llmsim validate " + kase
        + "`", "its `scenario:` block");
    assertThat(r.err()).hasLineCount(1);
    assertThat(CliRunner.run("simulate", kase.toString()).err()).hasLineCount(1);
    Path device = write("gpu.yaml", DEVICE);
    r = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--tokens", "1M", "--price",
        device.toString());
    assertBadInput(r, device + ":1:7: this is a device file, where a prices file is needed: name it with --hardware "
        + device);
    assertThat(r.err()).hasLineCount(1);
    Path scenario = write("s.yaml", "kind: scenario\nmodel: llama-7b\nhardware: h100-sxm\n");
    r = CliRunner.run("sweep", scenario.toString());
    assertBadInput(r, scenario + ":1:7: this is a scenario file, where a grid file is needed: `llmsim simulate "
        + scenario + "` runs it");
    assertThat(r.err()).hasLineCount(1);
    r = CliRunner.run("validate", scenario.toString());
    assertBadInput(r, scenario + ":1:7: this is a scenario file, where a case file is needed");
    assertThat(r.err()).hasLineCount(1);
  }

  @Test
  void aCasesScenarioBlock_inAScenarioFile_saysItsKeysGoAtTheTopLevel() throws IOException {
    // a case copied as a scenario, its kind changed: "unknown field 'scenario' (allowed: kind, description, ...)"
    Path file = write("copied.yaml", "kind: scenario\nscenario:\n  model: llama-7b\n  hardware: h100-sxm\n");
    CliRunner r = CliRunner.run("simulate", file.toString());
    assertBadInput(r, file + ":2:1: 'scenario': a validation case's block: in a scenario file its keys go at the top"
        + " level (hardware, model, task ...)");
    assertThat(r.err()).doesNotContain("unknown field");
  }

  @Test
  void scenarioAsAnOption_toACommandThatReadsItAsItsArgument_saysSo_notDidYouMeanSchedule() {
    // compare, explain and memory take --scenario FILE; 'simulate --scenario job.yaml' was told "Unknown option:
    // '--scenario'. Possible solutions: --schedule"
    CliRunner r = CliRunner.run("simulate", "--scenario", "job.yaml");
    assertBadInput(r, "llmsim simulate reads its scenario file as its argument, not --scenario: llmsim simulate"
        + " SCENARIO.yaml");
    assertThat(r.err()).doesNotContain("--schedule");
    assertBadInput(CliRunner.run("advise", "--scenario=job.yaml"), "llmsim advise reads its scenario file as its"
        + " argument");
    assertBadInput(CliRunner.run("sweep", "--scenario", "grid.yaml"), "llmsim sweep reads its grid file as its"
        + " argument, not --scenario: llmsim sweep GRID.yaml");
  }

  @Test
  void scenarioAsAnArgument_toACommandThatReadsItWithScenario_saysSo_notUnmatchedArgument() {
    // the other way round: 'memory job.yaml' (as simulate takes it) was told "Unmatched argument at index 1:
    // 'job.yaml'", which names no rule
    assertBadInput(CliRunner.run("memory", "job.yaml"), "llmsim memory reads a scenario file with --scenario, not as"
        + " its argument: llmsim memory --scenario job.yaml [flags]");
    assertBadInput(CliRunner.run("compare", "job.yml", "--tp", "2"), "llmsim compare reads a scenario file with"
        + " --scenario, not as its argument: llmsim compare --scenario job.yml [flags]");
    CliRunner r = CliRunner.run("explain", "step_time_s", "job.yaml");
    assertBadInput(r, "llmsim explain reads a scenario file with --scenario, not as its argument: llmsim explain"
        + " --scenario job.yaml [flags]");
    assertThat(r.err()).doesNotContain("Unmatched");
  }

  @Test
  void validate_withNoCaseItCanRead_printsTheProblemsAlone_notAnEmptyTable() throws IOException {
    // 'validate scenario.yaml' printed the table's header, no row, and 'end-to-end 0 -' above the error
    Path scenario = write("s.yaml", "kind: scenario\nmodel: llama-7b\nhardware: h100-sxm\n");
    Path out = dir.resolve("charts");
    CliRunner r = CliRunner.run("validate", scenario.toString(), "--out", out.toString());
    assertBadInput(r, scenario + ":1:7: this is a scenario file, where a case file is needed");
    assertThat(r.out()).isEmpty();
    assertThat(out).doesNotExist();
  }
}
