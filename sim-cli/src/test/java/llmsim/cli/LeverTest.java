package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static llmsim.cli.SimulateCommandTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.util.Units;
import llmsim.hw.catalog.Catalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Each explanation's "what would move it" holds: the lever it names, doubled through --set, moves the result by
 * more than half of 2x, and a lever it says would not (or does not name) moves it by less than a tenth.
 */
class LeverTest {
  @TempDir Path dir;

  /** The result's main metric after {@code --set}s, and its explanation. */
  static JsonNode run(List<String> scenario, String... sets) throws IOException {
    List<String> args = new java.util.ArrayList<>(List.of("simulate", "--format", "json"));
    args.addAll(scenario);
    for (String s : sets) {
      args.add("--set");
      args.add(s);
    }
    return json(args.toArray(String[]::new));
  }

  static void assertLevers(List<String> scenario, String metric, String named, List<String> lever, String other)
      throws IOException {
    JsonNode base = run(scenario);
    assertThat(base.get("explanation").asText()).contains(named);
    double at = base.get(metric).asDouble();
    double moved = run(scenario, lever.toArray(String[]::new)).get(metric).asDouble() / at;
    double still = run(scenario, other).get(metric).asDouble() / at;
    assertThat(moved).as("%s moves %s", lever, metric).isGreaterThan(1.5);
    assertThat(still).as("%s barely moves %s", other, metric).isBetween(0.9, 1.1);
  }

  static String twice(double catalogValue) {
    return String.valueOf(2 * catalogValue);
  }

  @Test
  void decodeOnM2Ultra_namesBandwidth_andBandwidthNotFlops_movesIt() throws IOException {
    SystemSpec s = Catalog.bundled().system("m2-ultra", "--hardware");
    assertLevers(List.of("--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--software",
            "llama.cpp"), "decode_tokens_per_s", "More bandwidth",
        List.of("m2-ultra.memory.bandwidth_gb_per_s=" + twice(s.device().memoryBandwidthBytesPerSecond() / Units.GB)),
        "m2-ultra.peak_dense_tflops.fp16=" + twice(s.device().peakFlops(Precision.FP16) / Units.TERA));
  }

  @Test
  void loraOnH100_namesFlops_andFlopsNotBandwidth_movesIt() throws IOException {
    SystemSpec s = Catalog.bundled().system("h100-sxm", "--hardware");
    assertLevers(List.of("--model", "llama-7b", "--hardware", "h100-sxm", "--task", "finetune-lora", "--batch", "4",
            "--software", "megatron"), "tokens_per_s", "More FLOP/s",
        List.of("h100-sxm.peak_dense_tflops.bf16=" + twice(s.device().peakFlops(Precision.BF16) / Units.TERA)),
        "h100-sxm.memory.bandwidth_gb_per_s=" + twice(s.device().memoryBandwidthBytesPerSecond() / Units.GB));
  }

  @Test
  void streamedWeightsOnH100_nameTheLink_andTheLinkNotHbm_movesIt() throws IOException {
    SystemSpec s = Catalog.bundled().system("13900ks-h100", "--hardware");
    double link = s.hostLink().measuredBytesPerSecondPerDirection() / Units.GB;
    assertLevers(List.of("--model", "llama-65b", "--hardware", "13900ks-h100", "--task", "inference"), "tokens_per_s",
        "Bound by the " + s.hostLink().name() + " link",
        List.of("13900ks-h100.host_link.nominal_gb_per_s_per_direction=" + twice(link),
            "13900ks-h100.host_link.measured_gb_per_s_per_direction=" + twice(link)),
        "13900ks-h100.memory.bandwidth_gb_per_s=" + twice(s.device().memoryBandwidthBytesPerSecond() / Units.GB));
  }

  @Test
  void launchBoundDecode_namesCudaGraphs_andNeitherBandwidthNorFlops_movesIt() throws IOException {
    SystemSpec s = Catalog.bundled().system("h100-sxm", "--hardware");
    List<String> decode = List.of("--model", "llama-7b", "--hardware", "h100-sxm", "--task", "inference");
    JsonNode base = run(decode);
    assertThat(base.get("explanation").asText()).contains("CUDA graphs").contains("more bandwidth or FLOP/s would not");
    double at = base.get("decode_tokens_per_s").asDouble();
    double bw = run(decode, "h100-sxm.memory.bandwidth_gb_per_s=" + twice(s.device().memoryBandwidthBytesPerSecond()
        / Units.GB)).get("decode_tokens_per_s").asDouble();
    List<String> fused = new java.util.ArrayList<>(decode);
    fused.addAll(List.of("--software", "tensorrt-llm"));
    double graphs = run(fused).get("decode_tokens_per_s").asDouble();
    assertThat(bw / at).isLessThan(1.25);
    assertThat(graphs / at).isGreaterThan(1.5);
    // on an Apple GPU there are no CUDA graphs to name: the fused runtime there is MLX
    JsonNode apple = run(List.of("--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--batch",
        "8"));
    assertThat(apple.get("explanation").asText()).doesNotContain("CUDA").contains("MLX");
    // a training step is not told to serve with TensorRT-LLM or llama.cpp: its remedies are the framework's graphs
    // and fused kernels (this 8-GPU step is 40% launch-bound)
    JsonNode train = run(List.of("--model", "llama-13b", "--task", "train", "--hardware", "hgx-h100-8x", "--gpus", "8",
        "--tp", "2", "--pp", "2", "--global-batch", "16"));
    assertThat(train.get("explanation").asText()).contains("Launch and dispatch overhead takes")
        .contains("CUDA graphs").doesNotContain("TensorRT-LLM").doesNotContain("llama.cpp");
  }

  @Test
  void vary_drawsTheSensitivity_andItsPointsAreTheSetRuns() throws IOException {
    Path out = dir.resolve("sens");
    CliRunner r = CliRunner.run("compare", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference",
        "--software", "llama.cpp", "--vary", "m2-ultra.memory.bandwidth_gb_per_s=0.5x,1x,2x", "--format", "json",
        "--out", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = SimulateCommandTest.JSON.readTree(r.out());
    assertThat(j.get("target").asText()).isEqualTo("m2-ultra-76");
    assertThat(j.get("catalog_value").asDouble()).isEqualTo(800);
    assertThat(j.get("points")).hasSize(3);
    assertThat(j.at("/points/0/value").asDouble()).isEqualTo(400);
    assertThat(j.at("/points/1/relative_tokens_per_s").asDouble()).isEqualTo(1.0);
    double set = run(List.of("--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--software",
        "llama.cpp"), "m2-ultra.memory.bandwidth_gb_per_s=1600").get("tokens_per_s").asDouble();
    assertThat(j.at("/points/2/tokens_per_s").asDouble()).isEqualTo(set);
    assertThat(Files.size(out.resolve("sensitivity.png"))).isPositive();
    assertThat(Files.readString(out.resolve("sensitivity.svg"))).contains("<svg");
  }

  @Test
  void vary_withoutTheCatalogValue_isStillRelativeToTheCatalogs() throws IOException {
    // 0.5x,2x of the M2 Ultra's 800 GB/s: 'tokens/s vs catalog' said 1.000x at 400 GB/s and 2.018x at 1,600, each
    // over the first point's tokens/s, not over the catalog's (800 GB/s), which the column and the README name
    List<String> scenario = List.of("--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference");
    CliRunner r = CliRunner.run(java.util.stream.Stream.concat(java.util.stream.Stream.of("compare"), java.util.stream
        .Stream.concat(scenario.stream(), java.util.stream.Stream.of("--vary",
        "m2-ultra.memory.bandwidth_gb_per_s=0.5x,2x", "--format", "json"))).toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = SimulateCommandTest.JSON.readTree(r.out());
    double catalog = run(scenario).get("tokens_per_s").asDouble();
    double half = run(scenario, "m2-ultra.memory.bandwidth_gb_per_s=400").get("tokens_per_s").asDouble();
    double twice = run(scenario, "m2-ultra.memory.bandwidth_gb_per_s=1600").get("tokens_per_s").asDouble();
    assertThat(j.get("points")).hasSize(2); // the catalog's run is the reference, not a row
    assertThat(j.at("/points/0/relative_tokens_per_s").asDouble()).isCloseTo(half / catalog, within(1e-12));
    assertThat(j.at("/points/1/relative_tokens_per_s").asDouble()).isCloseTo(twice / catalog, within(1e-12));
    assertThat(half / catalog).isLessThan(1); // bandwidth-bound decode: half the bandwidth is slower
  }

  @Test
  void vary_withoutValues_orOnANonNumber_isOneMessage() {
    String[] base = {"compare", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--vary"};
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwidth_gb_per_s")),
        "--vary m2-ultra.memory.bandwidth_gb_per_s: give the field and its values");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwidth_gb_per_s=")),
        "give the field and its values");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.type=2x")), "is not a multiple of a number");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwidth_gb_per_s=fast")), "'fast' is not a number");
    // Java's number suffixes are no numbers here: 2dx ran as 2x
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwidth_gb_per_s=2dx")),
        "'2dx' is not a number; --vary takes numbers");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwidth_gb_per_s=1600f")),
        "'1600f' is not a number");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwith_gb_per_s=1x")),
        "--vary m2-ultra.memory.bandwith_gb_per_s=1x", "unknown field");
  }

  @Test
  void vary_aValueGivenTwice_evenAsAMultiple_isRefused_notRunTwice() {
    // the M2 Ultra's catalog bandwidth is 800 GB/s: 1x and 800 are one value, and the table showed its row twice
    double catalog = Catalog.bundled().system("m2-ultra", "--hardware").device().memoryBandwidthBytesPerSecond() / 1e9;
    String same = String.valueOf((long) catalog);
    String[] base = {"compare", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--vary"};
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwidth_gb_per_s=1x," + same)),
        "'" + same + "' is " + same + " again (as '1x'); give each value once");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(base, "m2-ultra.memory.bandwidth_gb_per_s=2x,0.5x,2x")),
        "'2x' is " + (long) (2 * catalog) + " again (as '2x')");
  }

  @Test
  void decodeBoundByBandwidth_namesASmallerWeightFormat_onlyWhenThereIsOne() throws IOException {
    // f16 weights: a 4-bit format reads a quarter of the bytes, so it is named (int4 for pytorch, q4_0 for llama.cpp)
    assertThat(run(List.of("--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--software",
        "llama.cpp")).get("explanation").asText()).contains("a smaller weight format such as q4_0");
    // weights already 4-bit: naming the format in use as the remedy would tell the reader to change nothing
    for (List<String> scenario : List.of(
        List.of("--model", "llama-65b", "--hardware", "m2-ultra", "--task", "inference", "--weights", "int4"),
        List.of("--model", "llama-7b", "--hardware", "m2-ultra", "--task", "inference", "--software", "llama.cpp",
            "--weights", "q4_0"))) {
      JsonNode r = run(scenario);
      assertThat(r.get("bound").asText()).as("%s", scenario).isEqualTo("device_memory");
      String why = r.get("explanation").asText();
      assertThat(why).as("%s", scenario).contains("More bandwidth").doesNotContain("smaller weight format");
    }
  }
}
