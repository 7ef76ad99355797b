package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static llmsim.cli.SimulateCommandTest.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import llmsim.core.hw.SystemSpec;
import llmsim.core.util.Units;
import llmsim.hw.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --set ID.FIELD=VALUE}: a catalog field changed for one run, checked as a file is, and said in the output. */
class CatalogOverrideTest {
  static final String[] DECODE = {"--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference",
      "--software", "llama.cpp", "--format", "json"};

  @TempDir Path dir;

  static String[] with(String[] base, String... more) {
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return all;
  }

  @Test
  void systemField_theSystemLacks_isItsDevices_andTheResultSaysSo() throws IOException {
    JsonNode viaSystem = json(with(with(new String[] {"simulate"}, DECODE), "--set",
        "m2-ultra.memory.bandwidth_gb_per_s=1600"));
    JsonNode viaDevice = json(with(with(new String[] {"simulate"}, DECODE), "--set",
        "m2-ultra-76.memory.bandwidth_gb_per_s=1600"));
    assertThat(viaSystem.get("decode_tokens_per_s").asDouble()).isEqualTo(viaDevice.get("decode_tokens_per_s").asDouble());
    assertThat(viaSystem.get("warnings").toString())
        .contains("override in effect: m2-ultra-76 memory.bandwidth_gb_per_s = 1600 (catalog: 800");
    JsonNode plain = json(with(new String[] {"simulate"}, DECODE));
    assertThat(plain.get("warnings").toString()).doesNotContain("override");
    assertThat(viaSystem.get("decode_tokens_per_s").asDouble()).isGreaterThan(plain.get("decode_tokens_per_s").asDouble());
  }

  @Test
  void capacity_overridden_isTheCapacityTheMemoryPlanUses() throws IOException {
    SystemSpec s = Catalog.bundled().system("m2-ultra", "--hardware");
    JsonNode j = json("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--set",
        "m2-ultra.memory.capacity_gib=64", "--format", "json");
    assertThat(j.get(0).at("/memory/capacity_bytes").asDouble())
        .isCloseTo(64 * Units.GIB * s.gpuMemoryShare(), org.assertj.core.data.Offset.offset(1.0));
    assertThat(j.get(0).get("warnings").toString()).contains("m2-ultra-76 memory.capacity_gib = 64");
  }

  @Test
  void modelShape_overridden_changesWeightsInProportion_withoutThePublishedCountCheck() throws IOException {
    var m = Catalog.bundled().model("llama-7b", "--model");
    JsonNode plain = json("memory", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "inference",
        "--format", "json");
    JsonNode deeper = json("memory", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "inference",
        "--set", "llama-7b.layers=" + 2 * m.layers(), "--format", "json");
    double doubled = m.parameterCount() + (double) m.layers() * m.parametersPerLayer(); // twice the layers, same ends
    double expected = plain.get(0).at("/memory/weights_bytes").asDouble() * doubled / m.parameterCount();
    assertThat(deeper.get(0).at("/memory/weights_bytes").asDouble()).isCloseTo(expected,
        org.assertj.core.data.Percentage.withPercentage(0.5));
  }

  @Test
  void partsOfASystem_areReachedByName_andNotOtherSystems() throws IOException {
    JsonNode j = json("compare", "--model", "llama-65b", "--task", "inference", "--hardware",
        "13900ks-h100,m2-ultra", "--set", "13900ks-h100.host_link.measured_gb_per_s_per_direction=40", "--format",
        "json");
    assertThat(j.get(0).get("warnings").toString()).contains("pcie5-x16 measured_gb_per_s_per_direction = 40");
    assertThat(j.get(1).get("warnings").toString()).doesNotContain("override");
  }

  @Test
  void everyScenarioCommand_takesSet() {
    for (String cmd : new String[] {"simulate", "compare", "memory", "roofline", "sweep-chart", "sweep", "advise"}) {
      assertThat(CliRunner.run(cmd, "--help").out()).as(cmd).contains("--set=ID.FIELD=VALUE");
    }
  }

  @Test
  void misspeltField_isRefusedAsAFileWouldBe_namingTheFlag() {
    assertBadInput(CliRunner.run(with(with(new String[] {"simulate"}, DECODE), "--set", "m2-ultra.memory.bandwith_gb_per_s=1600")),
        "--set m2-ultra.memory.bandwith_gb_per_s=1600: unknown field 'memory.bandwith_gb_per_s'",
        "did you mean 'bandwidth_gb_per_s'?");
  }

  @Test
  void badValues_unknownIds_andMissingParts_areOneMessageEach() {
    String[] sim = with(new String[] {"simulate"}, DECODE);
    assertBadInput(CliRunner.run(with(sim, "--set", "m2-ultra.memory.bandwidth_gb_per_s=800 GB/s")),
        "'memory.bandwidth_gb_per_s' must be a number", "write the bare number");
    assertBadInput(CliRunner.run(with(sim, "--set", "h100-sxm.peak_dense_tflops.bf16=-1")),
        "--set h100-sxm.peak_dense_tflops.bf16=-1: 'peak_dense_tflops.bf16' must be > 0");
    assertBadInput(CliRunner.run(with(sim, "--set", "m2ultra.memory.bandwidth_gb_per_s=1")),
        "unknown id 'm2ultra' (nearest: m2-ultra");
    assertBadInput(CliRunner.run(with(sim, "--set", "m2-ultra.memory.bandwidth_gb_per_s")), "give ID.FIELD=VALUE");
    assertBadInput(CliRunner.run(with(sim, "--set", "m2-ultra=1")), "name a field after the id");
    assertBadInput(CliRunner.run(with(sim, "--set", "m2-ultra.id=x")), "'id' names the system and cannot be set");
    assertBadInput(CliRunner.run(with(sim, "--set", "llama-7b.heads=33")), "--set llama-7b.heads=33: hidden_size 4096"
        + " is not a multiple of heads 33");
  }

  @Test
  void aChangeToACatalogId_thatTheRunReadsFromAFile_isRefused_notSaidToBeInEffect() throws IOException {
    // a copy of a device file keeping 'id: h100-sxm' ran with its own 900 GB/s while the result said "override in
    // effect: h100-sxm memory.bandwidth_gb_per_s = 1600 (catalog: 3350; --set)": --set changes the catalog's entry
    Path copy = Files.writeString(dir.resolve("copy.yaml"), BadInputTest.DEVICE.replace("id: my-gpu", "id: h100-sxm"));
    String set = "h100-sxm.memory.bandwidth_gb_per_s=1600";
    for (String[] run : new String[][] {
        {"simulate", "--model", "gpt3-125m", "--task", "inference", "--hardware", copy.toString(), "--set", set},
        {"memory", "--model", "gpt3-125m", "--task", "inference", "--hardware", copy.toString(), "--set", set}}) {
      CliRunner r = CliRunner.run(run);
      assertBadInput(r, "--set " + set + ": the h100-sxm this run uses is read from a file that carries the catalog's"
          + " id, and --set changes the catalog's h100-sxm, not the file");
      assertThat(r.out()).as(run[0]).isEmpty();
    }
    // a model file too; and the catalog's own entries still take the change
    Path model = Files.writeString(dir.resolve("model.yaml"), new String(getClass().getResourceAsStream(
        "/llmsim/catalog/models/gpt3-125m.yaml").readAllBytes(), java.nio.charset.StandardCharsets.UTF_8));
    assertBadInput(CliRunner.run("memory", "--model", model.toString(), "--task", "inference", "--hardware",
        "h100-sxm", "--set", "gpt3-125m.layers=6"), "the gpt3-125m this run uses is read from a file");
    CliRunner catalogs = CliRunner.run("memory", "--model", "gpt3-125m", "--task", "inference", "--hardware",
        "h100-cluster", "--gpus", "16", "--set", set, "--set", "gpt3-125m.layers=6");
    assertThat(catalogs.code()).as(catalogs.err()).isZero();
    assertThat(catalogs.out()).contains("h100-cluster: warning: override in effect: h100-sxm"
        + " memory.bandwidth_gb_per_s = 1600", "h100-cluster: warning: override in effect: gpt3-125m layers = 6");
  }

  @Test
  void aChangeToNoPartOfTheRun_isRefused_notAppliedToNothing() {
    // '--hardware m2-ultra --set h100-sxm.memory.bandwidth_gb_per_s=1' ran the M2 Ultra as the catalog has it; sweep,
    // sweep-chart and advise even warned 'override in effect: h100-sxm ...' of a device they never ran
    String set = "h100-sxm.memory.bandwidth_gb_per_s=1";
    String[][] runs = {with(with(new String[] {"simulate"}, DECODE), "--set", set),
        {"memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--set", set},
        {"explain", "mfu", "--model", "llama-7b", "--hardware", "m2-ultra", "--set", set},
        {"sweep", "--models", "llama-7b", "--hardware", "m2-ultra", "--set", set},
        {"sweep-chart", "--models", "llama-7b", "--hardware", "m2-ultra", "--set", set, "--out",
            dir.resolve("chart").toString()},
        {"advise", "--model", "llama-7b", "--hardware", "m2-ultra", "--requests", "100", "--set", set}};
    for (String[] run : runs) {
      CliRunner r = CliRunner.run(run);
      assertBadInput(r, "--set " + set + ": h100-sxm is no part of this run (m2-ultra; model llama-7b), so the change"
          + " would change nothing");
      assertThat(r.out()).as(run[0]).isEmpty();
    }
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--set",
        "llama-13b.layers=20"), "llama-13b is no part of this run");
    assertBadInput(CliRunner.run("compare", "--model", "llama-7b", "--hardware", "m2-ultra", "--vary",
        "h100-sxm.memory.bandwidth_gb_per_s=1x,2x"), "--vary h100-sxm.memory.bandwidth_gb_per_s=1x,2x (at " + Math.round(
        Catalog.bundled().system("h100-sxm", "--hardware").device().memoryBandwidthBytesPerSecond() / Units.GB)
        + "): h100-sxm is no part of this run");
  }

  @Test
  void aFieldAndTheSourceItNeeds_setByTwoFlags_areCheckedTogether() throws IOException {
    // each --set was checked alone, so 'gpu_memory_share=0.9' was refused as needing gpu_memory_share_source even
    // with the --set that gives it: an M2 Ultra's GPU share could not be changed at all
    SystemSpec s = Catalog.bundled().system("m2-ultra", "--hardware");
    JsonNode j = json("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--set",
        "m2-ultra.gpu_memory_share=0.9", "--set", "m2-ultra.gpu_memory_share_source=my measurement", "--format", "json");
    assertThat(j.get(0).at("/memory/capacity_bytes").asDouble()).isCloseTo(0.9 * s.device().memoryCapacityBytes(),
        org.assertj.core.data.Offset.offset(1.0));
    // alone it still needs its source
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--hardware", "m2-ultra", "--set",
        "m2-ultra.gpu_memory_share=0.9"), "--set m2-ultra.gpu_memory_share=0.9: 'gpu_memory_share' needs"
        + " 'gpu_memory_share_source' next to it");
  }

  @Test
  void csvOutput_saysTheOverrideAndTheOtherWarningsOnStandardError_theTableStaysATable() {
    // with --format csv the override note (and every other warning) went nowhere: a script read the changed
    // bandwidth's times as the catalog's
    String set = "m2-ultra.memory.bandwidth_gb_per_s=1600";
    String note = "m2-ultra: warning: override in effect: m2-ultra-76 memory.bandwidth_gb_per_s = 1600 (catalog: 800";
    for (String[] cmd : new String[][] {{"simulate"}, {"compare"}, {"memory"}}) {
      CliRunner r = CliRunner.run(with(cmd, "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference",
          "--set", set, "--format", "csv"));
      assertThat(r.code()).as(r.err()).isZero();
      assertThat(r.err()).as(cmd[0]).contains(note);
      assertThat(r.out()).as(cmd[0]).doesNotContain("warning");
    }
    CliRunner explain = CliRunner.run("explain", "mfu", "--model", "llama-7b", "--hardware", "m2-ultra", "--task",
        "train", "--set", set, "--format", "csv");
    assertThat(explain.err()).contains("warning: override in effect: m2-ultra-76").contains("warning: precision fp16");
  }

  @Test
  void compareVary_saysWhatEachPointMust_aRunThatDoesNotFitAndADefaultPrecisionChanged() throws IOException {
    // LLaMA-65B's training step on an M2 Ultra (16 bytes a parameter against 144 GiB) read as a time at each
    // bandwidth, without a word that it does not fit or that its bf16 ran as fp16
    var m = Catalog.bundled().model("llama-65b", "--model");
    SystemSpec s = Catalog.bundled().system("m2-ultra", "--hardware");
    assertThat(16.0 * m.parameterCount()).isGreaterThan(s.usableDeviceBytes());
    String[] vary = {"compare", "--model", "llama-65b", "--hardware", "m2-ultra", "--task", "train", "--vary",
        "m2-ultra.memory.bandwidth_gb_per_s=1x,2x"};
    CliRunner table = CliRunner.run(vary);
    assertThat(table.code()).as(table.err()).isZero();
    assertThat(table.out()).contains("m2-ultra: warning: at 800 it does not fit (device memory short by")
        .contains("m2-ultra: warning: at 1600 it does not fit").contains("m2-ultra: warning: precision fp16")
        .doesNotContain("override in effect"); // the varied field is the table's first column
    JsonNode j = json(with(vary, "--format", "json"));
    for (JsonNode p : j.get("points")) {
      assertThat(p.get("fits").asBoolean()).isFalse();
      assertThat(p.get("warnings").toString()).contains("does not fit");
    }
    CliRunner csv = CliRunner.run(with(vary, "--format", "csv"));
    assertThat(csv.out()).doesNotContain("warning");
    assertThat(csv.err()).contains("m2-ultra: warning: at 800 it does not fit");
  }

  @Test
  void userFiles_areUntouched_andTheCatalogIsTheSameAfterwards() throws IOException {
    Path gpu = dir.resolve("gpu.yaml");
    Files.writeString(gpu, BadInputTest.DEVICE);
    // beside a catalog system the flag changes: the file's column has no override, the catalog system's has
    JsonNode both = json("compare", "--model", "llama-7b", "--hardware", gpu + ",h100-sxm", "--task", "inference",
        "--set", "h100-sxm.memory.bandwidth_gb_per_s=1", "--format", "json");
    assertThat(both.get(0).get("warnings").toString()).doesNotContain("override");
    assertThat(both.get(1).get("warnings").toString()).contains("override in effect: h100-sxm");
    assertThat(Catalog.bundled().system("m2-ultra", "--hardware").device().memoryBandwidthBytesPerSecond())
        .isEqualTo(800 * Units.GB);
  }
}
