package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import llmsim.hw.validation.ValidationCase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Runs the whole validation suite: a regression in fidelity fails CI. */
class ValidationSuiteTest {
  static final Path CASES = Path.of("..", "validation", "cases");

  /** Run once for the class: every test reads the same outcomes (the suite takes seconds). */
  static final List<ValidationRunner.Outcome> outcomes = ValidationRunner.run(ValidationCase.readAll(List.of(CASES)));

  /**
   * The list of published measurements lives beside the repository, in the team's shared folder, not in it:
   * a fresh clone has no such file, so this check runs only where it is present.
   */
  static final Path PUBLISHED = Path.of("..", "..", "shared", "validation", "published-measurements.json");

  @Test
  void everyPublishedMeasurement_hasACaseFile() throws IOException {
    assumeTrue(Files.isRegularFile(PUBLISHED), () -> "skipped: " + PUBLISHED.toAbsolutePath().normalize()
        + " is not present (it sits beside the repository, not in it)");
    JsonNode published = new ObjectMapper().readTree(PUBLISHED.toFile());
    assertThat(published.size()).as("published measurements").isPositive();
    List<String> ids = outcomes.stream().map(o -> o.c().id()).toList();
    for (JsonNode c : published) {
      assertThat(ids).contains(c.get("id").asText());
    }
  }

  @Test
  void microbenchmarkCases_areEachWithinTwentyPercent() {
    // most are the calibration sources themselves; cross-checks on identical silicon measured by another
    // tool (E08: one fp16 shape under PyTorch 2.0a0 on an A800, calibrated from mamf-finder on the A100 PCIe)
    // miss by what the tools disagree. Shaped GEMMs with a short K are the exception below
    outcomes.stream().filter(o -> o.ran() && !o.c().endToEnd() && !shortK(o.c())).forEach(o ->
        assertThat(Math.abs(o.signedError())).as(o.c().id()).isLessThanOrEqualTo(0.20));
  }

  @Test
  void shapedGemmCases_withAShortK_withinTenPercentWhereComputeBound_tooFastNearTheRidge() {
    // XLA's H100 table (E40-E47) against the GEMM kernel floor (docs/CALIBRATION.md, "GEMM shape"): where the math
    // plus the floor takes at least twice as long as moving A, B and C once, the floor is the missing time (E41 +1.1%,
    // E43 +6.9%, E45 +6.8% today; +12% to +55% without it); nearer the ridge the measured kernel takes longer than
    // the longer of the two (E40 +33.5%, E47 +29.2%: 1.2x and 1.5x), which the model does not have, so they stay too
    // fast, never too slow; 0.40 is a regression bound just over the worst
    List<ValidationRunner.Outcome> shortK = outcomes.stream().filter(o -> o.ran() && shortK(o.c())).toList();
    assertThat(shortK).hasSizeGreaterThanOrEqualTo(5);
    int computeBound = 0;
    for (ValidationRunner.Outcome o : shortK) {
      ValidationCase.Micro m = o.c().micro().orElseThrow();
      var d = llmsim.hw.catalog.Catalog.bundled().system(m.hardware(), "hardware").device();
      var p = llmsim.core.hw.Precision.fromKey(m.precision());
      double rows = m.gemmM();
      double cols = m.gemmN();
      double depth = m.gemmK();
      double math = 2 * rows * cols * depth / (d.peakFlops(p) * d.efficiency().gemmAt(p)
          * llmsim.core.kernel.GemmTiles.factor(rows, cols, depth, d.computeUnits()));
      double moving = (rows * depth + depth * cols + rows * cols) * p.bytes()
          / (d.memoryBandwidthBytesPerSecond() * d.efficiency().memoryStreaming());
      if (math + llmsim.core.kernel.GemmTiles.kernelFloorSeconds(d.computeUnits()) >= 2 * moving) {
        computeBound++;
        assertThat(Math.abs(o.signedError())).as(o.c().id()).isLessThanOrEqualTo(0.10);
      } else {
        assertThat(o.signedError()).as(o.c().id()).isBetween(0.0, 0.40);
      }
    }
    assertThat(computeBound).isGreaterThanOrEqualTo(3);
  }

  /** A GEMM microbenchmark of one shape whose K is under 4096: where the per-kernel floor is not negligible. */
  static boolean shortK(ValidationCase c) {
    return c.micro().map(m -> m.shaped() && m.gemmK() < 4096).orElse(false);
  }

  @Test
  void singleGpuInferenceCases_medianAbsoluteErrorIsAtMostTwelvePercent() {
    // the published single-GPU inference cases (Apple and discrete GPUs): 2.5% over 22 cases today (2.2% as last written here; 3.3% before the
    // A100 SXM's sustained GEMM rate, 3.8% before the GEMM kernel floor; 10.1% over 8
    // before llama.cpp's builds were costed by date); the fidelity issue's bound is 12%
    ValidationStats inference = ValidationStats.of("single-GPU inference", outcomes.stream()
        .filter(o -> o.c().endToEnd() && gpus(o.c()) == 1 && isInference(o.c())).toList());
    assertThat(inference.cases()).isGreaterThanOrEqualTo(8);
    assertThat(inference.medianAbsError()).isLessThanOrEqualTo(0.12);
  }

  @Test
  void singleGpuEndToEndCases_medianAbsoluteErrorIsAtMostTenPercent() {
    // every single-GPU end-to-end case, training and fine-tuning included: 5.3% over 43 cases today (5.7% before the
    // A100 SXM's sustained GEMM rate, 6.0% before
    // MLX's December 2023 modules were modelled for T18/T19; 10.05% before
    // Unsloth's backward and NF4 dequantisation launches were counted from its code and its offloaded checkpointing
    // modelled, T30-T32 crossing from ~20% to under 5% where the distribution has a gap from 6.9% to 10.0%; 15.3%
    // over 21 before the fine-tuning frameworks' profiles and llama.cpp's builds; 6.4% over 34 before causal
    // attention was charged the blocks FlashAttention-2 visits and CUDA quantised prefill cases B05-B07 came in). The
    // fidelity issue's target, 10%, is the bound
    ValidationStats e2e = ValidationStats.of("end-to-end", outcomes.stream()
        .filter(o -> o.c().endToEnd() && gpus(o.c()) == 1).toList());
    assertThat(e2e.cases()).isGreaterThanOrEqualTo(20);
    assertThat(e2e.medianAbsError()).isLessThanOrEqualTo(0.10);
  }

  static boolean isInference(ValidationCase c) {
    return c.category().startsWith("A-") || c.category().startsWith("B-");
  }

  @Test
  void multiGpuEndToEndCases_run_andTheirMedianAbsoluteErrorIsAtMostTwentyPercent() {
    // 10.5% over 56 cases today (13.2% as last written here; 14.5% before the A100 SXM's sustained GEMM rate; 16.6% over 47 with 17.1% before the
    // GEMM kernel floor; 18.5% before collectives were timed by message
    // size from nccl-tests curves;
    // 17.8% over 45 before the MI250-vs-A100 ratio cases C59/C60 ran, at +21% and +30%;
    // 18.7% over 45 before the SM hold of collectives and Megatron's scatter-gather of pipeline sends): 30.8% before
    // the multi-GPU inference cases were read from their sources and
    // TensorRT-LLM v0.6's decode kernel was modelled, 16.7% before causal attention was charged the blocks
    // FlashAttention-2 visits (more optimistic: what the full matrix hid is not modelled yet); the many-GPUs issue
    // asks 20% of each public case
    ValidationStats multi = ValidationStats.of("multi-GPU", outcomes.stream()
        .filter(o -> o.c().endToEnd() && gpus(o.c()) > 1).toList());
    assertThat(multi.cases()).isGreaterThanOrEqualTo(20);
    assertThat(multi.medianAbsError()).isLessThanOrEqualTo(0.20);
  }

  /** GPUs a case's scenario runs on: its gpus or nodes key, else its system's. */
  static int gpus(ValidationCase c) {
    if (c.scenario().isEmpty()) {
      return 1;
    }
    var v = c.scenario().get().values();
    String hw = v.hardware().get(0);
    var s = llmsim.hw.catalog.Catalog.bundled().system(hw, "hardware");
    if (v.gpus() > 0) {
      return v.gpus();
    }
    return v.nodes() > 0 ? v.nodes() * s.deviceCount() : s.totalDevices();
  }

  @Test
  void multiDeviceCases_runOrSayWhatTheyNeed() {
    // FSDP (zero 3) on 8 GPUs, and Megatron's tp x pp x dp runs up to 3072 GPUs (C21: pp 64), all run
    // and the MI250-vs-A100 ratio cases (C59, C60: two simulations per model, four models)
    assertThat(outcomes.stream().filter(o -> List.of("C01", "C02", "C11", "C21", "C34", "C35", "C59", "C60")
        .contains(o.c().id())))
        .hasSize(8).allSatisfy(o -> assertThat(o.ran()).as(o.c().id()).isTrue());
    // every multi-GPU case that still cannot run says why
    assertThat(outcomes.stream().filter(o -> o.c().id().startsWith("C") && !o.ran()))
        .allSatisfy(o -> assertThat(o.skipped()).isNotBlank());
  }

  @Test
  void perGpuUnits_areOneGpusShareOfTheSystemsRate() {
    // C01 is 8 GPUs publishing tokens/s/GPU: the prediction is the step's tokens/s over 8
    ValidationRunner.Outcome c01 = outcomes.stream().filter(o -> o.c().id().equals("C01")).findFirst().orElseThrow();
    ScenarioOptions.Resolved r = new ScenarioOptions().resolve(c01.c().scenario().orElseThrow(), true);
    double system = SimulateCommand.run(r).get(0).tokensPerSecond();
    assertThat(c01.predicted()).isCloseTo(system / 8, org.assertj.core.data.Offset.offset(1e-6 * system));
  }

  @Test
  void statistics_matchAHandComputation() {
    // three cases with errors +10%, -20%, +40%: median |e| = 20%, MAPE = 23.3%
    ValidationCase c = outcomes.get(0).c();
    List<ValidationRunner.Outcome> three = List.of(
        new ValidationRunner.Outcome(withMeasured(c, 100), 110, null),
        new ValidationRunner.Outcome(withMeasured(c, 100), 80, null),
        new ValidationRunner.Outcome(withMeasured(c, 100), 140, null));
    ValidationStats s = ValidationStats.of("x", three);
    assertThat(s.medianAbsError()).isCloseTo(0.20, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(s.mape()).isCloseTo(0.70 / 3, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(s.worst().get(0).predicted()).isEqualTo(140);
  }

  static ValidationCase withMeasured(ValidationCase c, double measured) {
    return new ValidationCase(c.file(), c.line(), c.id(), c.category(), c.scenario(), c.micro(), c.skip(), c.metric(),
        measured, c.unit(), c.source(), c.quote(), c.confidence(), c.hardware(), c.model(), c.software(), c.ratio());
  }

  @TempDir Path dir;

  @Test
  void incompleteCaseFile_isABadInputWithItsLine() throws IOException {
    Path f = dir.resolve("X1.yaml");
    Files.writeString(f, "kind: case\nid: X1\ncategory: B-gpu-inference\nscenario:\n  hardware: rtx4090\n  model: llama-7b\n"
        + "metric: tokens_per_sec\nmeasured:\n  value: 10\n  unit: tokens/s\nquote: q\nconfidence: high\n");
    CliRunner r = CliRunner.run("validate", f.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("X1.yaml:7:9: 'metric' must be one of").contains("did you mean 'tokens_per_s'?")
        .contains("X1.yaml:1:1: missing required field 'source'");
  }

  @Test
  void validateOut_drawsPredictedVsMeasured() throws IOException {
    CliRunner r = CliRunner.run("validate", CASES.toString(), "--out", dir.resolve("v").toString());
    assertThat(r.code()).as(r.err()).isZero();
    java.awt.image.BufferedImage img = javax.imageio.ImageIO.read(dir.resolve("v/validation.png").toFile());
    assertThat(img.getWidth()).isEqualTo(1200);
    assertThat(Files.readString(dir.resolve("v/validation.svg"))).contains("predicted = measured").contains("E-microbench");
  }

  @Test
  void validateCommand_printsJsonWithASummary() throws IOException {
    CliRunner r = CliRunner.run("validate", CASES.toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = new ObjectMapper().readTree(r.out());
    assertThat(j.get("cases").size()).isEqualTo(outcomes.size());
    assertThat(j.get("summary").findValuesAsText("group")).contains("end-to-end", "all", "E-microbench");
  }
}
