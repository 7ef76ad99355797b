package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Comparator;
import llmsim.core.scenario.ScenarioKey;
import llmsim.hw.catalog.Catalog;
import llmsim.report.ParetoChart;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AdviseCommandTest {
  @TempDir Path dir;

  /** Two single cards at prices fixed here, the micro-batch fixed, so each option's cost follows by hand. */
  static final String[] SMALL = {"advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "10M",
      "--hardware", "rtx4090,a100", "--max-gpus", "1", "--batch", "1", "--price", "rtx4090=0.5usd/h,a100=2usd/h",
      "--format", "json"};

  static JsonNode advise(String[] base, String... more) throws IOException {
    CliRunner r = JobCostCliTest.run(base, more);
    assertThat(r.code()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out());
  }

  @Test
  void ranking_isByCost_andEachCostIsTheJobsHoursTimesTheGivenPrice() throws IOException {
    JsonNode a = advise(SMALL);
    JsonNode options = a.get("options");
    assertThat(options).hasSize(2);
    double previous = 0;
    for (JsonNode o : options) {
      double price = o.get("device").asText().equals("rtx4090") ? 0.5 : 2.0;
      double hours = 10e6 / o.get("tokens_per_s").asDouble() / 3600; // the job's tokens at the simulated rate
      assertThat(o.get("wall_time_s").asDouble() / 3600).isCloseTo(hours, within(1e-9 * hours));
      assertThat(o.get("cost").asDouble()).isCloseTo(hours * 1 * price, within(1e-9 * hours * price));
      assertThat(o.get("cost").asDouble()).isGreaterThanOrEqualTo(previous);
      previous = o.get("cost").asDouble();
    }
    assertThat(a.get("winner").asText()).isEqualTo(options.get(0).get("hardware").asText());
    assertThat(a.get("explanation").asText()).startsWith("Rent 1x ");
  }

  @Test
  void numerics_fp8ForTrainingWhereNative_int8AndInt4WeightsForInference_unlessGiven_andTheAnswerSaysSo()
      throws IOException {
    String[] train = {"advise", "--model", "llama-7b", "--task", "train", "--tokens", "100M", "--hardware", "h100-sxm",
        "--price", "h100-sxm=2usd/h", "--software", "megatron", "--format", "json"};
    // one GPU, one plan: 5 micro-batches (1-16) x 2 numerics (bf16, and fp8: the H100 runs it natively and
    // Megatron's Transformer Engine trains in it)
    JsonNode both = advise(train);
    assertThat(both.get("candidates").asLong()).isEqualTo(5 * 2);
    JsonNode asked = advise(train, "--precision", "bf16");
    assertThat(asked.get("candidates").asLong()).isEqualTo(5);
    assertThat(asked.at("/options/0/precision").asText()).isEqualTo("bf16");
    // eager PyTorch trains in 16-bit: no fp8 offered under it
    String[] eager = train.clone();
    eager[12] = "pytorch";
    assertThat(advise(eager).get("candidates").asLong()).isEqualTo(5);
    if (both.at("/options/0/precision").asText().equals("fp8")) {
      assertThat(both.get("explanation").asText()).contains("fp8").contains("check its quality");
      // fp8 GEMMs run at twice the bf16 peak: the fp8 option cannot be slower than the bf16 one
      assertThat(both.at("/options/0/tokens_per_s").asDouble())
          .isGreaterThanOrEqualTo(asked.at("/options/0/tokens_per_s").asDouble());
    }
    String[] serve = {"advise", "--model", "llama-7b", "--task", "inference", "--requests", "1000", "--hardware",
        "h100-sxm", "--price", "h100-sxm=2usd/h", "--format", "json"};
    assertThat(advise(serve).get("candidates").asLong()).isEqualTo(5 * 3); // f16, int8, int4
    assertThat(advise(serve, "--weights", "f16").get("candidates").asLong()).isEqualTo(5);
  }

  @Test
  void paretoFront_holdsExactlyTheOptionsNothingBeatsOnTimeAndCost() throws IOException {
    JsonNode a = advise(new String[] {"advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "10M",
        "--hardware", "rtx4090,a100,dgx-a100-8x80gb", "--max-gpus", "4", "--format", "json"});
    List<JsonNode> options = new ArrayList<>();
    a.get("options").forEach(options::add);
    assertThat(options).hasSizeGreaterThanOrEqualTo(3);
    for (JsonNode o : options) {
      double t = o.get("wall_time_s").asDouble();
      double c = o.get("cost").asDouble();
      boolean beaten = options.stream().anyMatch(p -> p != o && p.get("wall_time_s").asDouble() <= t
          && p.get("cost").asDouble() <= c * (1 + 1e-9)
          && (p.get("wall_time_s").asDouble() < t || p.get("cost").asDouble() < c * (1 - 1e-9)));
      assertThat(o.get("pareto").asBoolean()).as(o.toString()).isEqualTo(!beaten);
    }
  }

  @Test
  void nothingMeetsTheDeadline_saysWhatComesClosest_andThatTheDeadlineBinds() throws IOException {
    JsonNode a = advise(SMALL, "--deadline", "1s");
    assertThat(a.get("winner").isNull()).isTrue();
    assertThat(a.get("explanation").asText()).contains("Nothing meets the deadline of 1.00 s", "The deadline binds",
        "the fastest option");
    assertThat(a.get("options")).allSatisfy(o -> assertThat(o.get("meets_constraints").asBoolean()).isFalse());
  }

  @Test
  void nothingMeetsEither_saysBothBind_notTheDeadlineAlone() throws IOException {
    // '--deadline 1s --budget 0.0001usd' said only 'The deadline binds', as if more time would do; no option is within
    // the budget at any time either
    JsonNode a = advise(SMALL, "--deadline", "1s", "--budget", "0.0001usd");
    JsonNode cheapest = a.get("options").get(0);
    for (JsonNode o : a.get("options")) {
      assertThat(o.get("cost").asDouble()).isGreaterThanOrEqualTo(cheapest.get("cost").asDouble());
    }
    assertThat(a.get("explanation").asText()).contains("The deadline binds: the fastest option, ",
        "The budget binds too: the cheapest option, " + cheapest.get("plan").get("gpus").asInt() + "x ")
        .contains("(" + cheapest.get("hardware").asText() + ", ");
    // a budget the cheapest option meets does not bind
    JsonNode rich = advise(SMALL, "--deadline", "1s", "--budget", "1000usd");
    assertThat(rich.get("explanation").asText()).contains("The deadline binds").doesNotContain("budget binds");
  }

  @Test
  void twoNamedSystemsOfOneDevice_areBothTried_theirHostsDiffer() throws IOException {
    // '--hardware 13900ks-h100,h100-pcie' (one H100 PCIe on an i9, one on two Xeons) dropped the second without a word
    // (one option per device and GPU count), though its host ran LLaMA-7B's offloaded step 4x faster
    JsonNode a = advise(new String[] {"advise", "--model", "gpt3-125m", "--task", "train", "--tokens", "1M",
        "--hardware", "13900ks-h100,h100-pcie", "--price", "h100-pcie=2usd/h", "--format", "json"});
    List<String> hardware = new java.util.ArrayList<>();
    a.get("options").forEach(o -> hardware.add(o.get("hardware").asText())); // the option's, not its scenario's too
    assertThat(hardware).containsExactlyInAnyOrder("13900ks-h100", "h100-pcie");
    // the catalog-wide search still tries one system per device and GPU count
    var c = llmsim.hw.catalog.Catalog.bundled();
    List<llmsim.core.hw.SystemSpec> all = Advisor.systems(c, List.of(), 1);
    assertThat(all.stream().map(s -> s.device().id()).distinct()).hasSize(all.size());
  }

  @Test
  void aBudgetTooSmall_saysTheBudgetBinds() throws IOException {
    JsonNode a = advise(SMALL, "--budget", "0.0001usd");
    assertThat(a.get("explanation").asText()).contains("The budget binds");
    // no deadline was given: the option named is the cheapest, not "the cheapest that meets the deadline"
    assertThat(a.get("explanation").asText()).contains("The budget binds: the cheapest option, ")
        .doesNotContain("deadline");
    JsonNode both = advise(SMALL, "--budget", "0.0001usd", "--deadline", "100y");
    assertThat(both.get("explanation").asText()).contains("the cheapest option that meets the deadline, ");
  }

  @Test
  void badConstraints_areBadInput() {
    String[] base = {"advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "10M", "--hardware",
        "rtx4090"};
    assertBadInput(JobCostCliTest.run(base, "--budget", "-5usd"), "--budget: must be > 0, was '-5usd'");
    assertBadInput(JobCostCliTest.run(base, "--budget", "5"), "--budget: must be an amount and a three-letter currency");
    assertBadInput(JobCostCliTest.run(base, "--budget", "5cny"), "--budget: CNY is not the report currency USD");
    assertBadInput(JobCostCliTest.run(base, "--deadline", "3"), "--deadline: must be a number and a unit");
    assertBadInput(JobCostCliTest.run(base, "--own", "--rent"), "--own and --rent");
    // owned hardware is priced with the power it draws: without a rate nothing could be ranked (an empty table, exit 0)
    assertBadInput(JobCostCliTest.run(base, "--own"), "--own (pricing own)", "give --electricity");
    assertBadInput(JobCostCliTest.run(base, "--pricing", "own"), "give --electricity");
    assertBadInput(JobCostCliTest.run(base, "--max-gpus", "0"), "--max-gpus must be >= 1");
    assertBadInput(CliRunner.run("advise", "--model", "llama-7b", "--task", "finetune-lora"), "advise needs the"
        + " job's size");
  }

  /**
   * LLaMA-30B training on eight A100s: a pipeline plan wins there (tp 2 x pp 4), which the closed form alone could not
   * rank; ZeRO-3 over 8 GPUs does not fit its 16 bytes a parameter, and ZeRO-2/3 do not go with pipeline stages.
   */
  static final String[] PIPELINE = {"advise", "--model", "llama-30b", "--task", "train", "--tokens", "1B",
      "--hardware", "dgx-a100-8x80gb", "--max-gpus", "8", "--format", "json"};

  static JsonNode option(JsonNode advice, int gpus) {
    for (JsonNode o : advice.get("options")) {
      if (o.get("plan").get("gpus").asInt() == gpus) {
        return o;
      }
    }
    throw new AssertionError("no option on " + gpus + " GPUs: " + advice);
  }

  @Test
  void pipelinePlans_areEventSimulated_atFourMicroBatchesPerStage_andMatchSimulate() throws IOException {
    JsonNode eight = option(advise(PIPELINE), 8);
    JsonNode plan = eight.get("plan");
    int pp = plan.get("pp").asInt();
    assertThat(pp).isGreaterThan(1);
    assertThat(eight.get("micro_batches").asInt()).isEqualTo(PlanSearch.MICRO_BATCHES_PER_STAGE * pp);
    JsonNode simulated = SimulateCommandTest.json("simulate", "--model", "llama-30b", "--task", "train", "--hardware",
        "dgx-a100-8x80gb", "--gpus", "8", "--tp", plan.get("tp").asText(), "--pp", plan.get("pp").asText(), "--dp",
        plan.get("dp").asText(), "--zero", plan.get("zero").asText(), "--batch", eight.get("batch").asText(),
        "--micro-batches", eight.get("micro_batches").asText(), "--format", "json");
    assertThat(eight.get("tokens_per_s").asDouble()).isEqualTo(simulated.get("tokens_per_s").asDouble());
  }

  @Test
  void givenMicroBatches_areKeptForPipelinesToo() throws IOException {
    assertThat(advise(PIPELINE, "--micro-batches", "3").get("options"))
        .allSatisfy(o -> assertThat(o.get("micro_batches").asInt()).isEqualTo(3));
  }

  @Test
  void aScenarioFile_givesTheJobAndPrices_andFlagsOverrideIt() throws IOException {
    Path f = dir.resolve("job.yaml");
    Files.writeString(f, "kind: scenario\nhardware: [rtx4090, a100]\nmodel: llama-7b\ntask: finetune-lora\n"
        + "tokens: 10M\nbatch: 1\nprice: rtx4090=0.5usd/h,a100=2usd/h\n");
    JsonNode fromFile = advise(new String[] {"advise", f.toString(), "--max-gpus", "1", "--format", "json"});
    JsonNode fromFlags = advise(SMALL);
    assertThat(fromFile.get("options")).isEqualTo(fromFlags.get("options"));
    JsonNode more = advise(new String[] {"advise", f.toString(), "--max-gpus", "1", "--tokens", "20M", "--format",
        "json"});
    assertThat(more.get("job_tokens").asLong()).isEqualTo(20_000_000L);
  }

  @Test
  void aBadScenarioFile_isRefusedAtItsLine() throws IOException {
    Path f = dir.resolve("bad.yaml");
    Files.writeString(f, "kind: scenario\nmodel: llama-7b\ntask: finetune-lora\nrequests: 5\n");
    assertBadInput(CliRunner.run("advise", f.toString()), "bad.yaml:4:", "'requests' applies to inference");
    Files.writeString(f, "kind: scenario\nmodel: llama-7b\ntokens: 1M\nbatchsize: 2\n");
    assertBadInput(CliRunner.run("advise", f.toString()), "bad.yaml:4:1: unknown field 'batchsize'");
  }

  @Test
  void theChartsFront_isTheOptionsNothingBeats_andItsWinnerTheCheapestThatMeetsTheDeadline() {
    ScenarioOptions o = new ScenarioOptions();
    o.set(ScenarioKey.MODEL, "llama-7b");
    o.set(ScenarioKey.TASK, "finetune-lora");
    o.set(ScenarioKey.TOKENS, "10M");
    o.set(ScenarioKey.HARDWARE, "rtx4090-8x,dgx-a100-8x80gb,h100-sxm");
    o.set(ScenarioKey.PRICE, "rtx4090=0.5usd/h,a100=2usd/h,h100=3usd/h");
    ScenarioOptions.Resolved r = o.resolve(null, false);
    Advisor.Result res = Advisor.search(r, Catalog.bundled().model("llama-7b", "--model"),
        Advisor.systems(r.catalog(), r.hardware(), 8), Costing.of(r));
    AdviseCommand.Constraints deadline = new AdviseCommand.Constraints(3600, Double.POSITIVE_INFINITY);
    XYSeriesCollection d = (XYSeriesCollection) AdviseCommand.chart("t", res, deadline, "USD").getXYPlot().getDataset();
    List<double[]> all = new ArrayList<>(points(d.getSeries(ParetoChart.OPTIONS)));
    all.addAll(points(d.getSeries(ParetoChart.MISSES)));
    assertThat(all).hasSize(res.options().size()).hasSizeGreaterThanOrEqualTo(6);
    List<double[]> front = all.stream().filter(p -> all.stream().noneMatch(q -> q != p && q[0] <= p[0]
        && q[1] <= p[1] * (1 + 1e-9) && (q[0] < p[0] || q[1] < p[1] * (1 - 1e-9)))).toList();
    assertThat(points(d.getSeries(ParetoChart.FRONT))).usingElementComparator(Comparator.comparingDouble((double[] p)
        -> p[0]).thenComparingDouble(p -> p[1])).containsExactlyInAnyOrderElementsOf(front);
    double[] winner = all.stream().filter(p -> p[0] <= 1).min(Comparator.comparingDouble(p -> p[1])).orElseThrow();
    assertThat(points(d.getSeries(ParetoChart.WINNER))).singleElement().satisfies(w -> {
      assertThat(w[0]).isEqualTo(winner[0]);
      assertThat(w[1]).isEqualTo(winner[1]);
    });
  }

  static List<double[]> points(XYSeries s) {
    List<double[]> out = new ArrayList<>();
    for (int i = 0; i < s.getItemCount(); i++) {
      out.add(new double[] {s.getX(i).doubleValue(), s.getY(i).doubleValue()});
    }
    return out;
  }

  @Test
  void out_writesTheChartAsPngAndSvg_andAFileIsRefused() throws IOException {
    Path charts = dir.resolve("charts");
    CliRunner r = JobCostCliTest.run(SMALL, "--out", charts.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.size(charts.resolve("advise.png"))).isPositive();
    assertThat(Files.readString(charts.resolve("advise.svg"))).contains("<svg", "winner: 1x ");
    Path file = Files.writeString(dir.resolve("f"), "x");
    assertBadInput(JobCostCliTest.run(SMALL, "--out", file.toString()), "--out: " + file + " is a file; give a folder");
  }

  @Test
  void aSystemThatDoesNotFit_isSaidNotToFit_notToLackAPrice() {
    // 65B full training needs 16 bytes a parameter, about 1 TB: neither a 24 GB RTX 4090 nor the M2 Ultra's 144 GiB
    // GPU share holds it; the M2 Ultra has no rental price, and advise told the user to give one
    CliRunner r = CliRunner.run("advise", "--model", "llama-65b", "--task", "train", "--tokens", "1B", "--hardware",
        "rtx4090,m2-ultra");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("not ranked: m2-ultra x 1: does not fit per-GPU memory")
        .contains("not ranked: rtx4090 x 1: does not fit per-GPU memory").doesNotContain("no on-demand price");
    // one that fits and has no price is still told to give one
    CliRunner fits = CliRunner.run("advise", "--model", "llama-7b", "--task", "inference", "--requests", "1000",
        "--hardware", "m2-ultra");
    assertThat(fits.out()).contains("not ranked, no on-demand price in the catalog (give --price DEVICE=AMOUNTCUR/h):"
        + " m2-ultra x 1");
  }

  @Test
  void theFooter_explainsTheBatchColumnOnlyByARowItHas_andCountsRunsInGoodEnglish() throws IOException {
    // every row here is one micro-batch: "batch 2 x 8: 8 micro-batches of 2 per step" described no row
    String[] table = java.util.Arrays.stream(SMALL).filter(a -> !a.equals("--format") && !a.equals("json"))
        .toArray(String[]::new);
    String[] rtx = table.clone();
    rtx[java.util.Arrays.asList(table).indexOf("--hardware") + 1] = "rtx4090";
    rtx[java.util.Arrays.asList(table).indexOf("--price") + 1] = "rtx4090=0.5usd/h"; // a100's would price nothing
    CliRunner one = CliRunner.run(rtx);
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(one.out()).doesNotContain("micro-batches of").contains(" were simulated, 1 run;");
    // with 4 micro-batches of 1, the row reads "1 x 4", and the footer says so by its numbers
    CliRunner four = JobCostCliTest.run(table, "--micro-batches", "4");
    assertThat(four.out()).contains("  1 x 4  ").contains("batch 1 x 4: 4 micro-batches of 1 per step;")
        .contains(" were simulated, 2 runs;");
  }

  @Test
  void anOptionWhoseOneStepExceedsTheJob_isNamed_asTimedByThatWholeStep() throws IOException {
    // 8 GPUs at batch 4 of 2,048 tokens: 65,536 tokens a step, against a 50,000-token job
    String[] args = {"advise", "--model", "gpt3-125m", "--task", "train", "--tokens", "50K", "--hardware",
        "dgx-a100-8x80gb", "--batch", "4", "--price", "a100-sxm-80gb=2usd/h"};
    CliRunner r = CliRunner.run(args);
    assertThat(r.code()).as(r.err()).isZero();
    int perStepAt8 = 8 * 4 * 2048;
    assertThat(perStepAt8).isGreaterThan(50_000);
    assertThat(r.out()).contains("processes more than the job's 50,000 tokens: each is timed and priced as that one"
        + " whole step");
    JsonNode j = new ObjectMapper().readTree(CliRunner.run(java.util.stream.Stream.concat(java.util.Arrays.stream(args),
        java.util.stream.Stream.of("--format", "json")).toArray(String[]::new)).out());
    for (JsonNode o : j.get("options")) {
      long perStep = o.get("plan").get("dp").asLong() * 4 * 2048 * o.get("micro_batches").asLong();
      assertThat(o.get("warnings").toString().contains("timed as one whole step")).as(o.toString())
          .isEqualTo(perStep > 50_000);
    }
  }

  @Test
  void out_withNoOptionRanked_titlesTheEmptyChartWithWhy_andTheFooterCountsInGoodEnglish() throws IOException {
    // the M2 Ultra has no rental price: nothing is ranked, and the chart was an empty plot under a legend of options
    Path out = dir.resolve("charts");
    CliRunner r = CliRunner.run("advise", "--model", "chatglm-6b", "--task", "finetune-lora", "--tokens", "20M",
        "--hardware", "m2-ultra", "--out", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.readString(out.resolve("advise.svg"))).contains("no option could be ranked (see 'not ranked')");
    assertThat(r.out()).contains("\n1 candidate (system, GPUs, plan, batch), 1 fits memory;");
  }

  @Test
  void gpusOrNodes_areRefused_notDroppedForTheSearchsOwnCounts() throws IOException {
    // --gpus 4 on an 8-GPU server was ignored: the answer ranked 2 GPUs
    assertBadInput(CliRunner.run("advise", "--model", "chatglm-6b", "--task", "finetune-lora", "--tokens", "20M",
        "--hardware", "dgx-a100-8x80gb", "--gpus", "4"), "error: --gpus: cannot be given to advise, which sizes each"
        + " system to 1, 2, 4, ... --max-gpus GPUs", "give --max-gpus N to cap them");
    assertBadInput(CliRunner.run("advise", "--model", "chatglm-6b", "--task", "finetune-lora", "--tokens", "20M",
        "--hardware", "h100-cluster", "--nodes", "2"), "error: --nodes: cannot be given to advise");
    // --shard hybrid was refused as "needs zero 3, was zero 0", and --zero cannot be given to advise
    assertBadInput(CliRunner.run("advise", "--model", "llama-13b", "--task", "train", "--tokens", "1B", "--hardware",
        "h100-cluster", "--shard", "hybrid"), "error: --shard: cannot be given to advise, which chooses each plan's"
        + " ZeRO stage itself");
    Path job = dir.resolve("job.yaml");
    Files.writeString(job, "model: chatglm-6b\ntask: finetune-lora\ntokens: 20M\nhardware: h100-cluster\ngpus: 16\n");
    assertBadInput(CliRunner.run("advise", job.toString()), job + ":5:", "'gpus' cannot be given to advise");
  }

  @Test
  void anOffloadTheSearchDropsForSeveralGpus_isRefused_unlessOnlyOneGpuIsTried() throws IOException {
    // the options of 2 to 8 GPUs ran without the --offload optimizer given, without a word
    String[] args = {"advise", "--model", "llama-7b", "--task", "train", "--tokens", "1B", "--hardware",
        "dgx-a100-8x80gb", "--offload", "optimizer"};
    assertBadInput(CliRunner.run(args), "error: --offload: optimizer applies to advise's single-GPU options only",
        "give --max-gpus 1");
    CliRunner one = CliRunner.run(CatalogOverrideTest.with(args, "--max-gpus", "1"));
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(CliRunner.run("advise", "--model", "llama-7b", "--task", "train", "--tokens", "1B", "--hardware",
        "dgx-a100-8x80gb", "--offload", "none").code()).isZero();
  }

  @Test
  void aDeadlineNoSingleGpuSystemMeets_pointsToOtherHardware_notToAMaxGpusThatChangesNothing() throws IOException {
    // rtx4090 and a100 come in one size: "more GPUs (--max-gpus)" would have changed nothing
    JsonNode single = advise(SMALL, "--deadline", "1s");
    assertThat(single.get("explanation").asText()).contains("a system of more or faster GPUs (--hardware), or a"
        + " smaller job would be needed").doesNotContain("--max-gpus");
    // an 8-GPU server tried at one GPU can grow
    JsonNode server = advise(new String[] {"advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "10M",
        "--hardware", "dgx-a100-8x80gb", "--max-gpus", "1", "--price", "a100-sxm-80gb=2usd/h", "--format", "json"},
        "--deadline", "1s");
    assertThat(server.get("explanation").asText()).contains("more GPUs (--max-gpus) or a smaller job would be needed");
  }
  @Test
  void aScenarioNoSystemGivenCanRun_isRefused_notAnEmptyRanking() {
    // fp8 on the A100 (no fp8 units; pytorch does not emulate them) and on the T4: '0 candidates', an empty
    // table, exit 0, and --out's folder drawn with nothing in it; one system that can run it is still a ranking
    Path out = dir.resolve("a");
    CliRunner r = CliRunner.run("advise", "--model", "llama-7b", "--task", "inference", "--requests", "5",
        "--hardware", "a100,t4", "--precision", "fp8", "--out", out.toString());
    assertBadInput(r, "error: --precision: fp8 is not native on NVIDIA A100", "t4 x 1");
    assertThat(r.out()).isEmpty();
    assertThat(out).doesNotExist();
    CliRunner some = CliRunner.run("advise", "--model", "llama-7b", "--task", "inference", "--requests", "5",
        "--hardware", "a100,h100-sxm", "--precision", "fp8");
    assertThat(some.code()).as(some.err()).isZero();
    assertThat(some.out()).contains("not ranked: a100-sxm-80gb x 1: cannot run it: 'precision' fp8 is not native");
  }
}
