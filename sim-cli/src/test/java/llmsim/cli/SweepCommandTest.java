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

class SweepCommandTest {
  @TempDir Path dir;

  static final String[] GRID = {"sweep", "--hardware", "m2-ultra,13900ks-rtx4090", "--models", "llama-7b,llama-13b",
      "--tasks", "inference,train", "--batch", "1,4", "--seq-len", "512", "--prompt-tokens", "128", "--generate-tokens", "16"};

  static String[] with(String... more) {
    String[] a = new String[GRID.length + more.length];
    System.arraycopy(GRID, 0, a, 0, GRID.length);
    System.arraycopy(more, 0, a, GRID.length, more.length);
    return a;
  }

  @Test
  void allGpusTrue_inTheClosedForm_isRefused_whereItChangesNoRow() {
    // the closed form simulates no GPU: --all-gpus true,false gave two identical rows, the first as if it had acted
    CliRunner r = CliRunner.run("sweep", "--models", "llama-7b", "--tasks", "train", "--hardware", "hgx-h100-8x",
        "--all-gpus", "true,false");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("error: --all-gpus: the closed form (--mode analytic) simulates no GPU, so all_gpus"
        + " changes none of its rows: sweep all_gpus with --mode simulate\n");
    assertThat(r.out()).isEmpty();
    CliRunner sim = CliRunner.run("sweep", "--models", "gpt3-125m", "--tasks", "train", "--hardware", "hgx-h100-8x",
        "--all-gpus", "true,false", "--mode", "simulate");
    assertThat(sim.code()).as(sim.err()).isZero();
    assertThat(sim.out().lines().count()).isEqualTo(3); // header and one row per value
  }

  @Test
  void rowsComeInAStableOrder_oneThreadOrTwo() {
    CliRunner one = CliRunner.run(with("--threads", "1"));
    CliRunner two = CliRunner.run(with("--threads", "2"));
    assertThat(one.code()).as(one.err()).isZero();
    assertThat(two.out()).isEqualTo(one.out());
    List<String> lines = one.out().lines().toList();
    assertThat(lines).hasSize(1 + 2 * 2 * 2 * 2);
    assertThat(lines.get(0)).startsWith("index,hardware,model,task");
    for (int i = 1; i < lines.size(); i++) {
      assertThat(lines.get(i)).startsWith((i - 1) + ",");
    }
    // the last axis varies fastest: hardware, model, task, ..., batch
    assertThat(lines.get(1)).contains(",m2-ultra,llama-7b,inference,").contains(",1,,128,16,");
    assertThat(lines.get(2)).contains(",m2-ultra,llama-7b,inference,").contains(",4,,128,16,");
  }

  @Test
  void aRefusedSinglePoint_saysWhyWithoutAnEmptyLocation() {
    CliRunner r = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--generate-tokens", "4096");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--generate-tokens").contains("max context of 2048").doesNotContain("(at )");
    CliRunner two = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--generate-tokens",
        "16,4096");
    assertThat(two.code()).as(two.err()).isZero(); // the point that can run runs; the other is named
    assertThat(two.err()).contains("sweep: skipped 1 row at generate_tokens=4096: --generate-tokens:");
  }

  @Test
  void aRefusedCombination_isSkippedAndNamed_andTheRowsThatCanRunAreWritten() {
    // mlx runs on Apple silicon only: of 2 systems x 2 profiles, the H100 under mlx cannot run
    String[] args = {"sweep", "--hardware", "h100-sxm,m2-ultra", "--models", "llama-7b", "--software",
        "llama.cpp,mlx"};
    CliRunner r = CliRunner.run(args);
    assertThat(r.code()).as(r.err()).isZero();
    List<String> lines = r.out().lines().toList();
    assertThat(lines).hasSize(1 + 3);
    // the index column keeps the grid's numbering: point 1 (h100-sxm, mlx) has no row
    assertThat(lines.get(1)).startsWith("0,h100-sxm,").contains(",llama.cpp,");
    assertThat(lines.get(2)).startsWith("2,m2-ultra,").contains(",llama.cpp,");
    assertThat(lines.get(3)).startsWith("3,m2-ultra,").contains(",mlx,");
    assertThat(r.err()).isEqualTo("sweep: skipped 1 row at hardware=h100-sxm, software=mlx:"
        + " --software: mlx is Apple's MLX on Metal, which runs on Apple silicon only, not on NVIDIA H100 SXM5 80GB"
        + " (MLX's CUDA backend is not modelled); use pytorch, llama.cpp or another profile that runs there\n");
    // the same input, the same bytes
    CliRunner again = CliRunner.run(args);
    assertThat(again.out()).isEqualTo(r.out());
    assertThat(again.err()).isEqualTo(r.err());
    // skipped rows are counted per combination, in grid order: tp 3 divides neither system's GPUs, tp 8 not the M2's
    CliRunner tp = CliRunner.run("sweep", "--hardware", "dgx-a100-8x80gb,m2-ultra", "--models", "llama-7b",
        "--tasks", "train", "--tp", "1,3,8", "--batch", "1,2");
    assertThat(tp.code()).as(tp.err()).isZero();
    assertThat(tp.out().lines().skip(1).map(l -> l.substring(0, l.indexOf(','))).toList())
        .containsExactly("0", "2", "3", "5", "6", "9");
    assertThat(tp.err().lines().toList()).containsExactly(
        "sweep: skipped 2 rows at hardware=dgx-a100-8x80gb, tasks=train, tp=3: --tp: tp x pp = 3 does not divide the"
            + " 8 GPUs of dgx-a100-8x80gb",
        "sweep: skipped 2 rows at hardware=m2-ultra, tasks=train, tp=3: --tp: tp x pp = 3 does not divide the 1 GPU"
            + " of m2-ultra",
        "sweep: skipped 2 rows at hardware=m2-ultra, tasks=train, tp=8: --tp: tp x pp = 8 does not divide the 1 GPU"
            + " of m2-ultra");
    // a grid none of whose points can run is refused whole
    CliRunner none = CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "llama-7b", "--software", "mlx");
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.out()).isEmpty();
    assertThat(none.err()).contains("--software:").contains("no point of the grid can run");
  }

  @Test
  void aKeySweptThatATaskDoesNotUse_skipsTheRowsThatWouldRepeat_namingThem() {
    // '--tasks inference --seq-len 512,1024' gave two identical rows (seq_len blank in both)
    List<String> seqLens = List.of("512", "1024");
    List<String> prompts = List.of("128", "256");
    CliRunner r = CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "gpt3-125m", "--tasks",
        "inference,train", "--seq-len", String.join(",", seqLens), "--prompt-tokens", String.join(",", prompts));
    assertThat(r.code()).as(r.err()).isZero();
    // inference runs at each prompt length (seq_len at its first value only), training at each seq_len (prompt_tokens
    // at its first only)
    List<String> rows = r.out().lines().skip(1).toList();
    assertThat(rows).hasSize(prompts.size() + seqLens.size());
    assertThat(rows.stream().map(l -> l.substring(l.indexOf(',') + 1)).distinct()).hasSize(rows.size());
    assertThat(r.err().lines().toList()).hasSize(2 * 2).allSatisfy(l -> assertThat(l).startsWith("sweep: skipped 1 row"))
        .anySatisfy(l -> assertThat(l).contains("tasks=inference", "seq_len=1024", ": --seq-len: does not apply to"
            + " inference").endsWith("its rows at seq_len=512 stand for these, which would repeat them"))
        .anySatisfy(l -> assertThat(l).contains("tasks=train", "prompt_tokens=256", ": --prompt-tokens: does not"
            + " apply to train").endsWith("its rows at prompt_tokens=128 stand for these, which would repeat them"));
    // a key no task of the grid uses: one row, the others named
    CliRunner none = CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "gpt3-125m", "--tasks", "inference",
        "--micro-batches", "1,2,4");
    assertThat(none.code()).as(none.err()).isZero();
    assertThat(none.out().lines().skip(1).toList()).hasSize(1);
    assertThat(none.err()).contains("micro_batches=2: --micro-batches: does not apply to inference");
  }

  @Test
  void simulatedChunks_growOnlyWhereAThousandOfThemRemain() {
    for (long points : new long[] {1, 432, 16_384, 16_385, 20_000, 65_535, 65_536, 100_000, 10_000_000}) {
      int chunk = SweepCommand.simulateChunk(points);
      assertThat(chunk).as("points " + points).isBetween(16, 64);
      if (chunk > 16) { // grown: at least 1,024 chunks of it
        assertThat((points + chunk - 1) / chunk).as("chunks of " + points).isGreaterThanOrEqualTo(1024);
      }
    }
    assertThat(SweepCommand.simulateChunk(432)).isEqualTo(16); // a cluster's 432-point grid: 27 chunks, as measured
    assertThat(SweepCommand.simulateChunk(100_000)).isEqualTo(64); // 1,563 chunks, not 6,250
  }

  @Test
  void manyCombinationsSkippedForOneReason_areOneLine_withTheirRowsAndEachKeysValues() {
    // inference does not read seq_len: its points past the first seq_len repeat the rows at it. With 996 of them
    // (2 systems x 2 models x 249 seq_lens) the sweep printed 996 lines before its rows
    List<String> seqLens = List.of("128", "256", "384", "512", "640", "768");
    CliRunner r = CliRunner.run("sweep", "--hardware", "h100-sxm,a100-sxm-80gb", "--models", "gpt3-125m", "--tasks",
        "inference,train", "--batch", "1,2", "--seq-len", String.join(",", seqLens));
    assertThat(r.code()).as(r.err()).isZero();
    int skippedLens = seqLens.size() - 1; // all but the first
    int combinations = 2 * skippedLens; // per system; batch is not a rule key, so its 2 values are rows of each
    assertThat(r.err().lines().toList()).containsExactly("sweep: skipped " + combinations * 2 + " rows in "
        + combinations + " combinations (hardware=h100-sxm,a100-sxm-80gb; tasks=inference; seq_len=256,384,...,768 ("
        + skippedLens + " values)): --seq-len: does not apply to inference (inference's lengths are prompt_tokens and"
        + " generate_tokens): its rows at seq_len=128 stand for these, which would repeat them");
    assertThat(r.out().lines().skip(1).toList()).hasSize(2 * 2 * (1 + seqLens.size()));
  }

  @Test
  void aRuleBetweenKeysOutsideTheCheckedOnes_skipsItsPointsBeforeAnyRow_insteadOfEndingTheSweepMidway() {
    // each grid stopped with exit 2 after its header, the message naming no flag ("error: 'shard: hybrid' is ZeRO-3
    // ..."), or lost rows that run: kv_cache q8_0 was skipped with flash_attention true too
    record Grid(int points, int skipped, String flag, String... args) {}
    List<Grid> grids = List.of(
        new Grid(2 * 2, 1, "--master-weights", "--hardware", "h100-sxm", "--tasks", "train,finetune-lora",
            "--master-weights", "true,false"),
        new Grid(2 * 2, 1, "--optimizer-in-backward", "--hardware", "h100-sxm", "--tasks", "train",
            "--optimizer-in-backward", "false,true", "--micro-batches", "1,2"),
        // zero 1 with either shard (the scope of ZeRO-3's shards), and hybrid on one node
        new Grid(2 * 2, 3, "--shard", "--hardware", "hgx-h100-8x", "--tasks", "train", "--zero", "1,3", "--shard",
            "full,hybrid"),
        new Grid(2 * 2, 1, "--virtual-stages", "--hardware", "hgx-h100-8x", "--tasks", "train", "--pp", "1,2",
            "--virtual-stages", "1,2", "--micro-batches", "2", "--mode", "simulate"),
        new Grid(2, 1, "--global-batch", "--hardware", "hgx-h100-8x", "--tasks", "train", "--global-batch", "8",
            "--batch", "1,3"),
        new Grid(2 * 2, 1, "--kv-cache", "--hardware", "m2-ultra", "--software", "llama.cpp", "--flash-attention",
            "false,true", "--kv-cache", "f16,q8_0"));
    for (Grid g : grids) {
      String[] args = java.util.stream.Stream.concat(java.util.stream.Stream.of("sweep", "--models", "gpt3-125m"),
          java.util.Arrays.stream(g.args())).toArray(String[]::new);
      CliRunner r = CliRunner.run(args);
      assertThat(r.code()).as(g.flag() + ": " + r.err()).isZero();
      assertThat(r.out().lines().skip(1).toList()).as(g.flag()).hasSize(g.points() - g.skipped());
      assertThat(r.err().lines().toList()).as(g.flag()).hasSize(g.skipped())
          .allSatisfy(l -> assertThat(l).startsWith("sweep: skipped 1 row at ").contains(": " + g.flag() + ": "));
    }
  }

  @Test
  void backendFlags_areCheckedBeforeAnyWork() {
    CliRunner unknown = CliRunner.run(with("--backend", "spark"));
    assertThat(unknown.code()).isEqualTo(2);
    assertThat(unknown.err()).contains("--backend").contains("spark").contains("local");
    assertThat(unknown.out()).isEmpty();
    CliRunner clusterLocal = CliRunner.run(with("--cluster", "127.0.0.1:5701"));
    assertThat(clusterLocal.code()).isEqualTo(2);
    assertThat(clusterLocal.err()).contains("--cluster needs a distributed --backend");
    CliRunner threads = CliRunner.run(with("--backend", "hazelcast", "--cluster", "127.0.0.1:5701", "--threads", "2"));
    assertThat(threads.code()).isEqualTo(2);
    assertThat(threads.err()).contains("each worker sets its own");
  }

  @Test
  void aDistributedBackendWithoutItsJars_namesTheFolderAndTheBuild() {
    String before = System.getProperty(SweepBackends.LIB_PROPERTY);
    System.setProperty(SweepBackends.LIB_PROPERTY, dir.resolve("no-such-lib").toString());
    try {
      CliRunner r = CliRunner.run(with("--backend", "hazelcast"));
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).contains("no-such-lib").contains("sim-distributed");
    } finally {
      if (before == null) {
        System.clearProperty(SweepBackends.LIB_PROPERTY);
      } else {
        System.setProperty(SweepBackends.LIB_PROPERTY, before);
      }
    }
  }

  @Test
  void analyticAndSimulatedRows_agreeForSerialSteps() {
    String[] base = {"sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks", "train", "--batch", "1,2",
        "--seq-len", "256", "--offload", "none", "--format", "jsonl"};
    List<String> a = CliRunner.run(concat(base, "--mode", "analytic")).out().lines().toList();
    List<String> s = CliRunner.run(concat(base, "--mode", "simulate")).out().lines().toList();
    ObjectMapper json = new ObjectMapper();
    for (int i = 0; i < a.size(); i++) {
      try {
        double ta = json.readTree(a.get(i)).get("step_time_s").asDouble();
        double ts = json.readTree(s.get(i)).get("step_time_s").asDouble();
        assertThat(ta).isCloseTo(ts, org.assertj.core.data.Percentage.withPercentage(1e-6));
      } catch (IOException e) {
        throw new AssertionError(e);
      }
    }
  }

  static String[] concat(String[] a, String... b) {
    String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  @Test
  void jsonLines_parseAndNameTheKernel() throws IOException {
    CliRunner r = CliRunner.run(with("--format", "jsonl"));
    for (String line : r.out().lines().toList()) {
      JsonNode j = new ObjectMapper().readTree(line);
      assertThat(j.get("kernel").asText()).isNotBlank();
      assertThat(j.get("tokens_per_s").asDouble()).isPositive();
    }
  }

  @Test
  void top_keepsTheBestRowsBestFirst() {
    String[] inference = GRID.clone();
    inference[java.util.Arrays.asList(GRID).indexOf("--tasks") + 1] = "inference";
    CliRunner r = CliRunner.run(java.util.stream.Stream.concat(java.util.Arrays.stream(inference),
        java.util.stream.Stream.of("--top", "3", "--by", "tokens_per_s")).toArray(String[]::new));
    List<String> rows = r.out().lines().skip(1).toList();
    assertThat(rows).hasSize(3);
    int col = List.of(r.out().lines().findFirst().orElseThrow().split(",")).indexOf("tokens_per_s");
    double[] v = rows.stream().mapToDouble(l -> Double.parseDouble(l.split(",")[col])).toArray();
    assertThat(v[0]).isGreaterThanOrEqualTo(v[1]);
    assertThat(v[1]).isGreaterThanOrEqualTo(v[2]);
  }

  @Test
  void outputFile_isWrittenWhole() throws IOException {
    Path f = dir.resolve("s.csv");
    CliRunner r = CliRunner.run(with("--output", f.toString()));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.readAllLines(f)).hasSize(17);
  }

  @Test
  void gridFile_isReadAndFlagsOverrideIt() throws IOException {
    Path g = dir.resolve("g.yaml");
    Files.writeString(g, "kind: grid\nhardware: [m2-ultra, rtx4090]\nmodels: llama-7b\ntasks: [inference]\nbatch: [1, 2, 3]\n");
    assertThat(CliRunner.run("sweep", g.toString()).out().lines().count()).isEqualTo(1 + 2 * 3);
    assertThat(CliRunner.run("sweep", g.toString(), "--batch", "8").out().lines().count()).isEqualTo(1 + 2);
  }

  @Test
  void badValue_isRefusedUpFront() throws IOException {
    CliRunner r = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--batch", "1,zero");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--batch: 'batch' must be a whole number, was 'zero'");
    Path g = dir.resolve("bad.yaml");
    Files.writeString(g, "kind: grid\nhardware: m2-ultra\nmodels: llama-7b\nbatch: [1, 0]\n");
    CliRunner r2 = CliRunner.run("sweep", g.toString());
    assertThat(r2.code()).isEqualTo(2);
    assertThat(r2.err()).contains("bad.yaml:4:12: 'batch[1]' must be >= 1, was 0");
  }

  @Test
  void aGridPointThatBreaksARuleSimulateKeeps_isSkippedWithTheReason_beforeAnyRow() {
    CliRunner r = CliRunner.run("sweep", "--hardware", "rtx4090", "--models", "llama-7b", "--tasks", "train,inference",
        "--offload", "optimizer");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).startsWith("sweep: skipped 1 row at tasks=inference: --offload: optimizer applies to training"
        + " only");
    assertThat(r.out().lines().skip(1).toList()).singleElement().asString().startsWith("0,rtx4090,llama-7b,train,");
    CliRunner tooLong = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks", "train",
        "--seq-len", "1024,4096");
    assertThat(tooLong.code()).as(tooLong.err()).isZero();
    assertThat(tooLong.err()).contains("sweep: skipped 1 row at tasks=train, seq_len=4096: --seq-len: 4096 exceeds"
        + " llama-7b's max context of 2048 tokens");
    assertThat(tooLong.out().lines().count()).isEqualTo(2);
    CliRunner unified = CliRunner.run("sweep", "--hardware", "rtx4090,m2-ultra", "--models", "llama-7b", "--tasks", "train",
        "--offload", "optimizer");
    assertThat(unified.code()).as(unified.err()).isZero();
    assertThat(unified.err()).contains("sweep: skipped 1 row at hardware=m2-ultra, tasks=train: --offload:")
        .contains("does not apply to m2-ultra").contains("share one unified memory");
    assertThat(unified.out().lines().skip(1).toList()).singleElement().asString().startsWith("0,rtx4090,");
    // none can run: refused whole, nothing written
    CliRunner none = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks", "train",
        "--offload", "optimizer");
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.out()).isEmpty();
    assertThat(none.err()).contains("share one unified memory").contains("no point of the grid can run");
  }

  @Test
  void pipelineStagesInTheClosedForm_areRefusedBeforeAnyRow_andRunEventSimulated() {
    CliRunner r = CliRunner.run("sweep", "--hardware", "hgx-h100-8x", "--models", "llama-7b", "--tasks", "train",
        "--pp", "1,2", "--tp", "1");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--pp: the closed form");
    assertThat(r.out()).isEmpty();
    CliRunner sim = CliRunner.run("sweep", "--hardware", "hgx-h100-8x", "--models", "llama-7b", "--tasks", "train",
        "--pp", "1,2", "--tp", "1", "--mode", "simulate");
    assertThat(sim.code()).as(sim.err()).isZero();
    assertThat(sim.out().lines().count()).isEqualTo(3);
  }

  @Test
  void tooManyPoints_isRefusedUpFront() {
    CliRunner r = CliRunner.run(with("--max-points", "10"));
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("the grid has 16 points, more than --max-points 10");
    assertThat(r.out()).isEmpty();
  }

  @Test
  void aGridPastALongsRange_isABadInputNamingTheAxes() {
    // five integer axes of 8,192 values each: 2^65 points, before the enumerated axes even multiply in
    String values = String.join(",", java.util.stream.IntStream.rangeClosed(1, 8192).mapToObj(Integer::toString)
        .toList());
    CliRunner r = CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "gpt3-125m", "--batch", values,
        "--seq-len", values, "--prompt-tokens", values, "--generate-tokens", values, "--micro-batches", values);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("error: the grid has more than 2^63 - 1 points (batch 8192 x seq_len 8192 x "
        + "prompt_tokens 8192 x generate_tokens 8192 x micro_batches 8192); --max-points allows at most the number given "
        + "(default 20,000,000): narrow it\n");
  }

  @Test
  void aValueNamedTwiceInAnAxis_isRefused_notRunTwice() {
    // the grid's rows are every combination of the values: a repeated one repeated its rows, and took two --top places
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--batch",
        "1,1,8"), "--batch: 1 is given twice; name each once");
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks",
        "inference,INFERENCE"), "--tasks: inference is given twice");
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b,llama1-7b"),
        "--models: llama1-7b and llama-7b both name llama-7b");
  }

  @Test
  void anUnknownIdInAGridFile_isRefusedAtItsLine_notAtAFlagNeverGiven() throws IOException {
    // 'hardware: [h100-sxm, h100-sxn]' in a grid file was told '--hardware: unknown hardware', as a scenario file's
    // was before it was moved to its line
    Path g = dir.resolve("ids.yaml");
    Files.writeString(g, "kind: grid\nhardware: [h100-sxm, h100-sxn]\nmodels: gpt3-12m\n");
    BadInputTest.assertBadInput(CliRunner.run("sweep", g.toString(), "--models", "gpt3-125m"),
        g + ":2:1: unknown hardware 'h100-sxn' (nearest: h100-sxm");
    BadInputTest.assertBadInput(CliRunner.run("sweep", g.toString(), "--hardware", "h100-sxm"),
        g + ":3:1: unknown model 'gpt3-12m' (nearest: gpt3-125m");
    // a flag that overrides the key is still named as the flag
    BadInputTest.assertBadInput(CliRunner.run("sweep", g.toString(), "--hardware", "h100-sxq", "--models", "gpt3-125m"),
        "error: --hardware: unknown hardware 'h100-sxq'");
  }

  @Test
  void aValueListedTwiceInAGridFile_isRefusedAtItsLine_notAtAFlagNeverGiven() throws IOException {
    // 'batch: [1, 2, 1]' in a grid file was told '--batch: 1 is given twice', a flag never typed, without the file
    Path g = dir.resolve("g.yaml");
    Files.writeString(g, "kind: grid\nhardware: [m2-ultra]\nmodels: llama-7b\nbatch:\n  - 1\n  - 2\n  - 1\n");
    CliRunner r = CliRunner.run("sweep", g.toString());
    BadInputTest.assertBadInput(r, g + ":7:5: 'batch' lists 1 twice (first at line 5); name each once");
    assertThat(r.err()).doesNotContain("--batch").hasLineCount(1);
    assertThat(r.out()).isEmpty();
  }

  @Test
  void anAxisFlagWithAnEmptyList_isRefused_notSweptAtTheDefault() {
    // '--batch ,' split into no values and ran batch 1, the default, as if the flag had not been typed; '--models ,'
    // was told 'sweep needs --models', a flag that was given
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--batch",
        ","), "--batch: no value given; list one or more, comma-separated");
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", ",", "--tasks",
        "inference"), "--models: no value given");
    CliRunner r = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--seq-len", ",,");
    BadInputTest.assertBadInput(r, "--seq-len: no value given");
    assertThat(r.out()).as("no header without rows").isEmpty();
  }

  @Test
  void aKeyGivenOneValueThatNoTaskOfTheGridUses_isNamed_notDroppedWithoutAWord() {
    // '--tasks train --lora-rank 8' wrote the training row with lora_rank empty, exit 0, and not a word: one value
    // has no repeats to skip and name (several values do), and simulate refuses the flag outright
    CliRunner r = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks", "train",
        "--lora-rank", "8");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEqualTo("sweep: --lora-rank 8 is in no row: it does not apply to train (it is"
        + " finetune-lora's and finetune-qlora's), and no task of the grid uses it\n");
    CliRunner inference = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--seq-len", "512");
    assertThat(inference.err()).startsWith("sweep: --seq-len 512 is in no row: it does not apply to inference");
    // a task of the grid that uses it keeps it in its rows, and nothing is said
    CliRunner used = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks",
        "train,finetune-lora", "--lora-rank", "8");
    assertThat(used.code()).as(used.err()).isZero();
    assertThat(used.err()).isEmpty();
    assertThat(used.out().lines()).hasSize(1 + 2);
  }

  @Test
  void anAxisFlagGivenTwice_addsItsValues_asARepeatedSetDoes() {
    // the second --models replaced the first without a word: llama-7b's rows were missing
    CliRunner r = CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--models", "llama-13b");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out().lines().skip(1).map(l -> l.split(",")[2]).toList()).containsExactly("llama-7b", "llama-13b");
  }

  @Test
  void topByAMetricNoPointHas_isRefused_andPointsWithoutIt_areCounted() {
    // --by ttft_s over training tasks answered a header and nothing, exit 0
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks",
        "train", "--top", "3", "--by", "ttft_s"), "--by ttft_s: the grid's tasks are all training");
    // over training and inference, --top 3 answers the 2 inference points and says why not 3
    CliRunner mixed = CliRunner.run("sweep", "--hardware", "m2-ultra,13900ks-h100", "--models", "llama-7b", "--tasks",
        "train,inference", "--top", "3", "--by", "ttft_s");
    assertThat(mixed.code()).as(mixed.err()).isZero();
    assertThat(mixed.out().lines().skip(1).toList()).hasSize(2).allMatch(l -> l.contains(",inference,"));
    assertThat(mixed.err()).contains("sweep: 2 points have no ttft_s to rank by and are left out of --top");
    // no price for the M2 Ultra: its point has no cost
    CliRunner cost = CliRunner.run("sweep", "--hardware", "m2-ultra,13900ks-h100", "--models", "llama-7b", "--top", "5",
        "--by", "cost", "--requests", "100");
    assertThat(cost.code()).as(cost.err()).isZero();
    assertThat(cost.out().lines().skip(1).toList()).hasSize(1);
    assertThat(cost.err()).contains("sweep: 1 point has no cost to rank by and is left out of --top");
  }

  @Test
  void top_ranksOnlyPointsThatFitMemory_andCountsTheOthers() {
    // llama-7b's KV cache is 32 layers x 2 (K, V) x 4,096 x 2 B = 0.5 MiB a token; batch 512 of 512 + 128 tokens
    // holds 512 x 640 x 0.5 MiB = 160 GiB against the RTX 4090's 24 GB, so that point cannot run; its time assumes
    // the memory were there, and '--top 1 --by tokens_per_s' named it the best (fits false) over batch 1, which runs
    CliRunner r = CliRunner.run("sweep", "--hardware", "rtx4090", "--models", "llama-7b", "--tasks", "inference",
        "--batch", "1,512", "--top", "1", "--by", "tokens_per_s");
    assertThat(r.code()).as(r.err()).isZero();
    List<String> header = List.of(r.out().lines().findFirst().orElseThrow().split(","));
    List<String> rows = r.out().lines().skip(1).toList();
    assertThat(rows).hasSize(1);
    String[] row = rows.get(0).split(",");
    assertThat(row[header.indexOf("batch")]).isEqualTo("1");
    assertThat(row[header.indexOf("fits")]).isEqualTo("true");
    assertThat(r.err()).contains("sweep: 1 point does not fit memory and is left out of --top");
  }

  @Test
  void manyMoreThreadsThanPoints_runAsOneThreadPerChunk_notRefusedForTheirHeap() {
    // one point is one chunk, so one simulation at a time: --threads 100000 was refused as 100,000 simulations of
    // 128 tokens at once needing 1,535 GiB, and in the closed form started 100,000 threads for the one row
    for (String mode : new String[] {"analytic", "simulate"}) {
      CliRunner r = CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "gpt3-125m", "--mode", mode,
          "--threads", "100000");
      assertThat(r.code()).as(mode + ": " + r.err()).isZero();
      assertThat(r.out().lines()).as(mode).hasSize(1 + 1);
    }
  }

  @Test
  void byWithoutTop_isRefused_notDropped() {
    // '--by mfu' alone wrote every row in grid order, the ranking asked for dropped without a word
    CliRunner r = CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "gpt3-125m", "--batch", "1,2", "--by",
        "mfu");
    BadInputTest.assertBadInput(r, "--by mfu ranks the rows --top keeps; give --top K");
    assertThat(r.out()).isEmpty();
    assertThat(CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "gpt3-125m", "--batch", "1,2", "--by", "mfu",
        "--top", "1").code()).isZero();
    assertThat(CliRunner.run("sweep", "--help").out().replaceAll("\\s+", " "))
        .contains("with a job (--tokens, --requests) also cost, cost_per_million_tokens and wall_time_s");
  }

  @Test
  void anOutputNamedForOneFormat_isRefused_whenTheRowsAreTheOther() {
    // --output grid.jsonl wrote CSV rows into it
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--output",
        dir.resolve("grid.jsonl").toString()), "--output: grid.jsonl names JSON Lines but the rows would be csv (the"
        + " default); give --format jsonl or a .csv name");
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--format",
        "jsonl", "--output", dir.resolve("grid.csv").toString()), "--output: grid.csv names CSV but the rows would be"
        + " jsonl; give --format csv or a .jsonl name");
    assertThat(dir.resolve("grid.jsonl")).doesNotExist();
    assertThat(dir.resolve("grid.csv")).doesNotExist();
  }

  @Test
  void maxPointsBelowOne_isRefusedAsSuch() {
    // "the grid has 1 points, more than --max-points -1": the flag's value was the problem, not the grid
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b",
        "--max-points", "0"), "--max-points must be >= 1, was 0");
    BadInputTest.assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b,llama-13b",
        "--max-points", "1"), "the grid has 2 points, more than --max-points 1");
  }
}
