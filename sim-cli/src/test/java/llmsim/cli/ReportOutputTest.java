package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class ReportOutputTest {
  @TempDir static Path dir;
  static Path out;
  static JsonNode results;

  @BeforeAll
  static void simulate() throws IOException {
    out = dir.resolve("report");
    CliRunner r = CliRunner.run("compare", "--model", "llama-7b", "--task", "train", "--seq-len", "512",
        "--hardware", "m2-ultra,13900ks-rtx4090", "--out", out.toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    results = new ObjectMapper().readTree(r.out());
  }

  static Document svg(String name) throws Exception {
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false); // no network
    return f.newDocumentBuilder().parse(out.resolve(name).toFile());
  }

  @Test
  void everyChartKind_isWrittenAsParseableSvgNamingItsSeries() throws Exception {
    Map<String, List<String>> expected = Map.of(
        "memory.svg", List.of("weights", "optimizer state", "activations", "capacity"),
        "bounds.svg", List.of("compute", "device memory", "host link", "host", "overhead"),
        "timeline-m2-ultra.svg", List.of("GPU compute", "CPU"),
        "timeline-13900ks-rtx4090.svg", List.of("H2D copy", "D2H copy"),
        "roofline-13900ks-rtx4090.svg", List.of("fp16/bf16", "host link roof", "PCIe 4.0", "ridge"));
    for (var e : expected.entrySet()) {
      String text = svg(e.getKey()).getDocumentElement().getTextContent();
      for (String series : e.getValue()) {
        assertThat(text).as(e.getKey()).contains(series);
      }
    }
  }

  @Test
  void everyPng_decodesWithTheExpectedSize() throws IOException {
    Map<String, int[]> sizes = Map.of("memory.png", new int[] {1200, 750}, "roofline-m2-ultra.png", new int[] {1200, 750},
        "bounds.png", new int[] {1200, 200 + 110 * 2}, "timeline-m2-ultra.png", new int[] {1200, 150 + 90 * 2});
    for (var e : sizes.entrySet()) {
      BufferedImage img = ImageIO.read(out.resolve(e.getKey()).toFile());
      assertThat(img).as(e.getKey()).isNotNull();
      assertThat(new int[] {img.getWidth(), img.getHeight()}).as(e.getKey()).containsExactly(e.getValue());
    }
  }

  @Test
  void svgOutput_isDeterministic() throws IOException {
    Path again = dir.resolve("again");
    CliRunner.run("compare", "--model", "llama-7b", "--task", "train", "--seq-len", "512",
        "--hardware", "m2-ultra,13900ks-rtx4090", "--out", again.toString());
    for (String f : List.of("memory.svg", "bounds.svg", "timeline-m2-ultra.svg", "roofline-m2-ultra.svg", "trace.json")) {
      assertThat(Files.readString(again.resolve(f))).as(f).isEqualTo(Files.readString(out.resolve(f)));
    }
  }

  @Test
  void traceJson_hasChromeTraceFields_andSliceSumsEqualBusyTime() throws IOException {
    JsonNode trace = new ObjectMapper().readTree(out.resolve("trace.json").toFile());
    JsonNode events = trace.get("traceEvents");
    assertThat(events.size()).isPositive();
    Map<String, Double> busyMicros = new HashMap<>();
    boolean counters = false;
    for (JsonNode e : events) {
      assertThat(e.has("ph") && e.has("pid") && e.has("name")).isTrue();
      switch (e.get("ph").asText()) {
        case "X" -> {
          assertThat(e.has("ts") && e.has("dur") && e.has("tid")).isTrue();
          busyMicros.merge(e.get("pid").asInt() + "/" + e.get("tid").asInt(), e.get("dur").asDouble(), Double::sum);
        }
        case "C" -> counters = true;
        default -> { }
      }
    }
    assertThat(counters).isTrue();
    // the m2-ultra process (pid 1): its GPU compute track's slices sum to the compute stream's busy time,
    // which for a step with nothing but GPU work on that stream is the step minus any idle gap
    double computeBusy = busyMicros.get("1/1") / 1e6;
    double step = results.get(0).get("step_time_s").asDouble();
    assertThat(computeBusy).isLessThanOrEqualTo(step * (1 + 1e-9)).isGreaterThan(0.5 * step);
  }

  @Test
  void traceJson_hasOneProcessPerSimulatedGpu_namedByIt() throws IOException {
    // 8 GPUs as tp 2 x pp 2 x dp 2: one GPU per stage stands for its peers; with all_gpus every one is simulated
    for (String all : List.of("false", "true")) {
      ScenarioOptions o = new ScenarioOptions();
      o.set(llmsim.core.scenario.ScenarioKey.MODEL, "llama-7b");
      o.set(llmsim.core.scenario.ScenarioKey.HARDWARE, "hgx-h100-8x");
      o.set(llmsim.core.scenario.ScenarioKey.TASK, "train");
      o.set(llmsim.core.scenario.ScenarioKey.SEQ_LEN, "512");
      o.set(llmsim.core.scenario.ScenarioKey.TP, "2");
      o.set(llmsim.core.scenario.ScenarioKey.PP, "2");
      o.set(llmsim.core.scenario.ScenarioKey.DP, "2");
      o.set(llmsim.core.scenario.ScenarioKey.ALL_GPUS, all);
      var r = SimulateCommand.run(o.resolve(null, true)).get(0);
      String json = llmsim.report.ChromeTrace.write(List.of(new llmsim.report.ChromeTrace.Process("x", r.trace(), r.memory())));
      List<String> names = new java.util.ArrayList<>();
      for (JsonNode e : new ObjectMapper().readTree(json).get("traceEvents")) {
        if (e.get("name").asText().equals("process_name")) {
          names.add(e.get("args").get("name").asText());
        }
      }
      if (all.equals("false")) {
        assertThat(names).containsExactly("x / stage 0 GPU", "x / stage 1 GPU");
      } else {
        // tp x dp = 4 peers per stage, peer 0 keeping the stage's own name; a peer in step with another says so
        assertThat(names).hasSize(8).doesNotHaveDuplicates().contains("x / stage 0 GPU", "x / stage 1 GPU")
            .anySatisfy(n -> assertThat(n).startsWith("x / peer 3 stage 1 GPU"));
      }
    }
  }

  /** Each process's highest 'host link in use' reading, by pid. */
  static Map<Integer, Double> hostLinkPeaks(llmsim.core.workload.StepResult r) throws IOException {
    String json = llmsim.report.ChromeTrace.write(List.of(new llmsim.report.ChromeTrace.Process("x", r.trace(),
        r.memory())));
    Map<Integer, Double> peaks = new java.util.TreeMap<>();
    for (JsonNode e : new ObjectMapper().readTree(json).get("traceEvents")) {
      if (e.get("name").asText().equals("host link in use")) {
        peaks.merge(e.get("pid").asInt(), e.get("args").get("GB/s").asDouble(), Math::max);
      }
    }
    return peaks;
  }

  @Test
  void traceHostLinkCounter_isEachGpusOwnLink_notTheSumOverTheGpusDrawn() throws IOException {
    // LLaMA-65B served at tp 4 on 8 H100s (two replicas), each GPU on a PCIe 5.0 link of its own: every GPU simulated
    // drew one 'host link in use' counter, on the first GPU, summing the two replicas' prompt copies to twice the rate
    // the one-GPU run shows, more than one link carries in a direction
    String[] plan = {"MODEL", "llama-65b", "HARDWARE", "hgx-h100-8x", "TASK", "inference", "TP", "4",
        "GENERATE_TOKENS", "2"};
    var one = run(plan);
    String[] every = java.util.Arrays.copyOf(plan, plan.length + 2);
    every[plan.length] = "ALL_GPUS";
    every[plan.length + 1] = "true";
    var all = run(every);
    Map<Integer, Double> onePeak = hostLinkPeaks(one);
    Map<Integer, Double> allPeaks = hostLinkPeaks(all);
    assertThat(onePeak).hasSize(1);
    double link = one.system().hostLink().nominalBytesPerSecondPerDirection() / 1e9;
    assertThat(onePeak.values()).allSatisfy(v -> assertThat(v).isLessThanOrEqualTo(link));
    // one counter per GPU drawn (peers in step with another are not), each that GPU's link alone
    int drawn = 0;
    for (int g = 0; g < all.trace().gpus(); g++) {
      drawn += all.trace().inStepWith(g) == g ? 1 : 0;
    }
    assertThat(allPeaks).hasSize(drawn);
    assertThat(allPeaks.values()).allSatisfy(v -> assertThat(v).isCloseTo(onePeak.values().iterator().next(),
        org.assertj.core.data.Percentage.withPercentage(1e-6)));
  }

  @Test
  void traceMemoryCounter_underPipelineStages_risesAndFallsToThePlansPeak() throws IOException {
    // a pipeline's op names carry their stage (s0.mb1.L3.qkv_proj): none was read as a layer op, so the first stage's
    // 'device memory in use' was one point at the plan's total, the activations never seen to come and go
    for (String schedule : List.of("1f1b", "gpipe")) {
      for (String pp : List.of("1", "2")) {
        var r = run("MODEL", "llama-7b", "HARDWARE", "hgx-h100-8x", "TASK", "train", "SEQ_LEN", "512", "TP", "2",
            "PP", pp, "MICRO_BATCHES", "4", "SCHEDULE", pp.equals("1") ? "1f1b" : schedule);
        String json = llmsim.report.ChromeTrace.write(List.of(new llmsim.report.ChromeTrace.Process("x", r.trace(),
            r.memory())));
        List<Double> gib = new java.util.ArrayList<>();
        for (JsonNode e : new ObjectMapper().readTree(json).get("traceEvents")) {
          if (e.get("name").asText().equals("device memory in use")) {
            assertThat(e.get("pid").asInt()).isEqualTo(1); // the first stage's GPU, the fullest
            gib.add(e.get("args").get("GiB").asDouble());
          }
        }
        double total = r.memory().totalBytes() / Math.pow(2, 30);
        double resident = (r.memory().totalBytes() - r.memory().activationsBytes()) / Math.pow(2, 30);
        String as = "pp " + pp + ", " + schedule;
        assertThat(gib.size()).as(as).isGreaterThan(2);
        assertThat(java.util.Collections.max(gib)).as(as).isCloseTo(total, org.assertj.core.data.Offset.offset(1e-4));
        assertThat(java.util.Collections.min(gib)).as(as).isCloseTo(resident,
            org.assertj.core.data.Offset.offset(1e-4));
      }
    }
  }

  @Test
  void traceJson_withEveryGpuSimulated_hasOneProcessPerGpu() throws IOException {
    Path all = dir.resolve("all-gpus");
    int tp = 2;
    int pp = 2;
    int gpus = 8; // dgx-a100-8x80gb: one node of 8 A100s, so dp = 8 / (tp x pp) = 2
    CliRunner r = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "train", "--seq-len", "512",
        "--hardware", "dgx-a100-8x80gb", "--tp", String.valueOf(tp), "--pp", String.valueOf(pp), "--micro-batches", "2",
        "--all-gpus", "--out", all.toString());
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode events = new ObjectMapper().readTree(all.resolve("trace.json").toFile()).get("traceEvents");
    Map<Integer, String> processes = new HashMap<>();
    java.util.Set<Integer> slicePids = new java.util.HashSet<>();
    Map<Integer, java.util.Set<Integer>> computeTracks = new HashMap<>();
    for (JsonNode e : events) {
      int pid = e.get("pid").asInt();
      if (e.get("name").asText().equals("process_name")) {
        processes.put(pid, e.get("args").get("name").asText());
      } else if (e.get("name").asText().equals("thread_name") && e.get("args").get("name").asText().endsWith("GPU compute")) {
        computeTracks.computeIfAbsent(pid, k -> new java.util.HashSet<>()).add(e.get("tid").asInt());
      } else if (e.get("ph").asText().equals("X")) {
        slicePids.add(pid);
      }
    }
    assertThat(processes).hasSize(gpus);
    assertThat(java.util.Set.copyOf(processes.values())).hasSize(gpus);
    // a symmetric plan's peers run in step: such a GPU is a process named for the one it repeats, without tracks or
    // slices of its own; the GPUs drawn say how many repeat them, and the two add up to every GPU
    Map<Integer, String> inStep = new HashMap<>(processes);
    inStep.values().removeIf(n -> !n.contains(": ran in step with "));
    Map<Integer, String> drawn = new HashMap<>(processes);
    drawn.keySet().removeAll(inStep.keySet());
    assertThat(inStep).isNotEmpty();
    assertThat(computeTracks.keySet()).isEqualTo(drawn.keySet());
    assertThat(drawn.keySet()).containsAll(slicePids);
    assertThat(computeTracks.values()).allSatisfy(t -> assertThat(t).hasSize(1));
    int repeats = 0;
    java.util.regex.Pattern standsFor = java.util.regex.Pattern.compile("\\(and (\\d+) GPUs? in step with it\\)$");
    for (String name : drawn.values()) {
      java.util.regex.Matcher m = standsFor.matcher(name);
      if (m.find()) {
        String gpu = name.substring(name.indexOf(" / ") + 3, m.start()).strip();
        List<String> its = inStep.values().stream()
            .filter(v -> v.endsWith("ran in step with " + gpu + " (its slices are that GPU's)")).toList();
        assertThat(its).as(name).hasSize(Integer.parseInt(m.group(1)));
        // a stage's peers repeat a GPU of the same stage
        String stage = gpu.substring(gpu.indexOf("stage"));
        assertThat(its).allSatisfy(v -> assertThat(v.substring(0, v.indexOf(':', v.indexOf(" / ")))).contains(stage));
        repeats += its.size();
      }
    }
    assertThat(repeats).isEqualTo(inStep.size());
    assertThat(drawn.size() + inStep.size()).isEqualTo(gpus);
  }

  @Test
  void timeline_withEveryGpuSimulated_drawsAGpuInStepWithAnotherOnce() {
    // 8 H100s as tp 2 x pp 2 x dp 2, every GPU simulated: the lanes are the GPUs that no other repeats, each lane of
    // a GPU others ran in step with naming how many, and together they stand for every GPU
    var r = run("MODEL", "llama-7b", "HARDWARE", "hgx-h100-8x", "TASK", "train", "SEQ_LEN", "512", "TP", "2", "PP", "2",
        "DP", "2", "ALL_GPUS", "true");
    var t = r.trace();
    int[] shown = llmsim.report.TimelineChart.shownStreams(t);
    java.util.Set<Integer> drawnGpus = new java.util.TreeSet<>();
    for (int s : shown) {
      assertThat(t.inStepWith(t.gpuOf(s))).isEqualTo(t.gpuOf(s));
      drawnGpus.add(t.gpuOf(s));
    }
    int standFor = 0;
    for (int g : drawnGpus) {
      standFor += 1 + t.peersInStep(g);
    }
    assertThat(drawnGpus.size()).isLessThan(t.gpus());
    assertThat(standFor).isEqualTo(t.gpus());
    var chart = llmsim.report.TimelineChart.create("t", t, ReportOutput.style());
    String[] lanes = ((org.jfree.chart.axis.SymbolAxis) chart.getXYPlot().getDomainAxis()).getSymbols();
    assertThat(lanes).hasSize(shown.length);
    for (int i = 0; i < shown.length; i++) {
      int peers = t.peersInStep(t.gpuOf(shown[i]));
      assertThat(lanes[i]).isEqualTo(t.streams().get(shown[i]) + (peers == 0 ? "" : " (+" + peers + " in step)"));
    }
  }

  static llmsim.core.workload.StepResult run(String... keyValues) {
    ScenarioOptions o = new ScenarioOptions();
    for (int i = 0; i < keyValues.length; i += 2) {
      o.set(llmsim.core.scenario.ScenarioKey.valueOf(keyValues[i]), keyValues[i + 1]);
    }
    return SimulateCommand.run(o.resolve(null, true)).get(0);
  }

  static java.util.Optional<llmsim.report.roofline.RooflineData.Point> wholeStep(llmsim.core.workload.StepResult r) {
    return ReportOutput.roofline(r).points().stream().filter(p -> p.kind() == null).findFirst();
  }

  @Test
  void rooflinesWholeStepPoint_isOneGpusWork_againstTheHostLinksBytesAlone() {
    // ZeRO-1 with the optimizer offloaded on eight H100s: fp32 gradients out and weights in over each GPU's PCIe link
    String[] offloaded = {"MODEL", "llama-7b", "HARDWARE", "hgx-h100-8x", "TASK", "train", "ZERO", "1", "OFFLOAD",
        "optimizer"};
    var one = run(offloaded);
    String[] every = java.util.Arrays.copyOf(offloaded, offloaded.length + 2);
    every[offloaded.length] = "ALL_GPUS";
    every[offloaded.length + 1] = "true";
    var all = run(every);
    double peak = one.system().device().peakFlops(llmsim.core.hw.Precision.BF16);
    var t = one.trace();
    double flops = 0;
    double[] bytes = new double[2]; // host to device, device to host
    for (int i = 0; i < t.size(); i++) {
      flops += t.ops().flops()[i];
      if (t.lane(i).hostLink()) {
        bytes[t.lane(i) == llmsim.core.engine.Lane.H2D ? 0 : 1] += t.ops().linkBytes()[i];
      }
    }
    assertThat(bytes[0] + bytes[1]).isCloseTo(one.linkBytes(), org.assertj.core.data.Percentage.withPercentage(1e-6));
    var p = wholeStep(one).orElseThrow();
    // one GPU simulated: its FLOPs over the bytes of the host link's busier direction (the roof is one direction's
    // bandwidth), and over the step
    assertThat(p.intensity()).isCloseTo(flops / Math.max(bytes[0], bytes[1]),
        org.assertj.core.data.Percentage.withPercentage(1e-6));
    assertThat(p.flopsPerSecond()).isCloseTo(flops / one.stepTimeSeconds(),
        org.assertj.core.data.Percentage.withPercentage(1e-6)).isLessThan(peak);
    // every GPU simulated: the same GPU's point, not the eight GPUs' FLOPs over one step (8x, above the roof)
    var q = wholeStep(all).orElseThrow();
    assertThat(q.flopsPerSecond()).isCloseTo(p.flopsPerSecond(), org.assertj.core.data.Percentage.withPercentage(1e-6));
    assertThat(q.intensity()).isCloseTo(p.intensity(), org.assertj.core.data.Percentage.withPercentage(1e-6));
    // and each kind of op at the same place, though the peers that ran in step with another are counted through it
    assertThat(all.trace().standsFor(all.trace().inStepWith(1))).isGreaterThan(1);
    var onePoints = ReportOutput.roofline(one).points();
    var allPoints = ReportOutput.roofline(all).points();
    assertThat(allPoints).hasSameSizeAs(onePoints);
    for (int i = 0; i < onePoints.size(); i++) {
      assertThat(allPoints.get(i).label()).isEqualTo(onePoints.get(i).label());
      assertThat(allPoints.get(i).intensity()).isCloseTo(onePoints.get(i).intensity(),
          org.assertj.core.data.Percentage.withPercentage(1e-6));
      assertThat(allPoints.get(i).flopsPerSecond()).isCloseTo(onePoints.get(i).flopsPerSecond(),
          org.assertj.core.data.Percentage.withPercentage(1e-6));
    }
    // tp 2 without offload: the collectives' bytes cross NVLink, not the host link, which carries almost nothing
    assertThat(wholeStep(run("MODEL", "llama-7b", "HARDWARE", "hgx-h100-8x", "TASK", "train", "TP", "2"))).isEmpty();
  }

  @Test
  void rooflinesWholeStepPoint_staysUnderTheHostLinkRoof_whenBothDirectionsCarryBytes() {
    // ZeRO-Offload on one H100: gradients out and weights in, both directions busy; both directions' bytes over one
    // direction's roof drew the step at 3.8e13 FLOP/s where the roof at its intensity is 3.2e13
    for (String hw : List.of("h100-sxm", "a100")) {
      var r = run("MODEL", "llama-7b", "HARDWARE", hw, "TASK", "train", "SEQ_LEN", "512", "OFFLOAD", "optimizer");
      var d = ReportOutput.roofline(r);
      var p = wholeStep(r).orElseThrow();
      assertThat(p.flopsPerSecond()).as(hw).isLessThanOrEqualTo(p.intensity() * d.linkBytesPerSecond());
      assertThat(d.linkBytesPerSecond()).isEqualTo(r.system().hostLink().nominalBytesPerSecondPerDirection());
    }
  }

  @Test
  void traceSlices_sumToTheSimulationsBusySeconds() {
    ScenarioOptions o = new ScenarioOptions();
    o.set(llmsim.core.scenario.ScenarioKey.MODEL, "llama-7b");
    o.set(llmsim.core.scenario.ScenarioKey.HARDWARE, "13900ks-rtx4090");
    o.set(llmsim.core.scenario.ScenarioKey.TASK, "inference");
    o.set(llmsim.core.scenario.ScenarioKey.GENERATE_TOKENS, "4");
    var r = SimulateCommand.run(o.resolve(null, true)).get(0);
    String json = llmsim.report.ChromeTrace.write(List.of(new llmsim.report.ChromeTrace.Process("x", r.trace(), r.memory())));
    double[] busy = r.trace().busySeconds();
    try {
      JsonNode events = new ObjectMapper().readTree(json).get("traceEvents");
      double[] sums = new double[busy.length];
      for (JsonNode e : events) {
        if (e.get("ph").asText().equals("X")) {
          sums[e.get("tid").asInt() - 1] += e.get("dur").asDouble() / 1e6;
        }
      }
      for (int s = 0; s < busy.length; s++) {
        assertThat(sums[s]).as(r.trace().streams().get(s)).isCloseTo(busy[s], org.assertj.core.data.Offset.offset(1e-9 + busy[s] * 1e-6));
      }
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void reportHtml_isSelfContainedAndEscapesUserStrings() throws IOException {
    Path gpu = dir.resolve("evil.yaml");
    Files.writeString(gpu, BadInputTest.DEVICE.replace("name: My GPU", "name: \"<script>alert(1)</script> GPU\""));
    Path evil = dir.resolve("evil-out");
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", gpu.toString(), "--out", evil.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String html = Files.readString(evil.resolve("report.html"));
    assertThat(html.contains("<script>")).as("raw <script> in report.html").isFalse();
    assertThat(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;")).as("escaped name in report.html").isTrue();
    assertThat(html.contains("data:image/png;base64,")).isTrue();
    assertThat(html.contains("src=\"http")).isFalse();
  }

  @Test
  void reportHtml_carriesTheResultsWarnings_asTheTerminalPrintsThem() throws IOException {
    // on an M2 Ultra the default bf16 runs as fp16, and ZeRO-3 at tp 8 on eight A100s shards nothing: the terminal
    // says both; report.html said neither
    Path apple = dir.resolve("warn-apple");
    CliRunner a = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "train", "--hardware", "m2-ultra", "--out",
        apple.toString(), "--format", "json");
    assertThat(a.code()).as(a.err()).isZero();
    JsonNode warnings = new ObjectMapper().readTree(a.out()).get("warnings");
    assertThat(warnings.size()).isPositive();
    String html = Files.readString(apple.resolve("report.html"));
    for (JsonNode w : warnings) {
      assertThat(html).contains("m2-ultra: warning</b>: " + llmsim.report.Escape.html(w.asText()));
    }
    Path zero = dir.resolve("warn-zero");
    CliRunner z = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "train", "--hardware", "dgx-a100-8x80gb",
        "--tp", "4", "--dp", "1", "--gpus", "4", "--zero", "3", "--out", zero.toString());
    assertThat(z.code()).as(z.err()).isZero();
    assertThat(Files.readString(zero.resolve("report.html"))).contains("zero 3 has no effect at dp 1");
  }

  /**
   * Every key of the JSON's scenario is a row of the page's scenario table: a q8_0 KV cache with flash attention, 20
   * of 32 layers on the GPU, n_ctx 1,024 and a llama.cpp build's date; LoRA rank 16 on every projection. The page
   * showed none of them, so these runs read as the defaults'.
   */
  @Test
  void reportHtmlsScenarioTable_showsEveryKeyOfTheJsonsScenario() throws IOException {
    String[][] runs = {{"--task", "inference", "--software", "llama.cpp", "--hardware", "13900ks-rtx4090", "--weights",
        "q4_0", "--kv-cache", "q8_0", "--flash-attention", "--context", "1024", "--gpu-layers", "20",
        "--software-date", "2024-06"}, {"--task", "finetune-lora", "--hardware", "h100-sxm", "--lora-rank", "16",
        "--lora-targets", "all", "--seq-len", "512"}};
    String[][] expected = {{"kv_cache", "q8_0"}, {"flash_attention", "true"}, {"context", "1024 tokens"},
        {"gpu_layers", "20 layers"}, {"software_date", "2024-06-01"}, {"lora_rank", "16"}, {"lora_targets", "all"}};
    int i = 0;
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (String[] flags : runs) {
      Path folder = dir.resolve("keys" + i++);
      CliRunner r = CliRunner.run(CatalogOverrideTest.with(CatalogOverrideTest.with(new String[] {"simulate", "--model",
          "llama-7b"}, flags), "--out", folder.toString(), "--format", "json"));
      assertThat(r.code()).as(r.err()).isZero();
      String html = Files.readString(folder.resolve("report.html"));
      var scenario = new ObjectMapper().readTree(r.out()).get("scenario");
      scenario.fieldNames().forEachRemaining(k -> {
        if (!List.of("hardware", "model", "precision", "weights", "gpus", "dp", "software", "seq_len").contains(k)) {
          assertThat(html).as(k).contains("<td>" + k + "</td><td>");
        }
      });
      for (String[] e : expected) {
        if (scenario.has(e[0])) {
          seen.add(e[0]);
          assertThat(html).contains("<td>" + e[0] + "</td><td>" + e[1] + "</td>");
        }
      }
    }
    assertThat(seen).hasSize(expected.length);
  }

  @Test
  void reportHtmlsScenarioTable_givesEachSystemsPrecision_whereTheyDiffer() throws IOException {
    // the M2 Ultra runs the default bf16 as fp16 (no bf16 units), the H100 runs bf16: the table read 'fp16 / f16' for
    // both, the first system's
    Path mixed = dir.resolve("precision");
    CliRunner r = CliRunner.run("compare", "--model", "gpt3-125m", "--task", "train", "--seq-len", "512", "--hardware",
        "m2-ultra,h100-sxm", "--out", mixed.toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    String html = Files.readString(mixed.resolve("report.html"));
    java.util.Set<String> precisions = new java.util.HashSet<>();
    for (JsonNode result : new ObjectMapper().readTree(r.out())) {
      precisions.add(result.get("precision").asText());
      // full training holds its weights at the precision: no stored format of its own
      assertThat(result.get("weights").isNull()).isTrue();
      assertThat(html).contains("<td>precision " + result.get("hardware").asText() + "</td><td>"
          + result.get("precision").asText() + "</td>");
    }
    assertThat(precisions).hasSize(2);
  }

  @Test
  void fullTraining_hasNoStoredWeightFormat_inJsonOrTheReport_aFrozenBaseHasItsOwn() throws IOException {
    // '"weights": "f16"' and 'precision / weights: bf16 / f16' were said of a bf16 training step (fp32's too): the
    // key's inference default, which full training does not use
    Path train = dir.resolve("train");
    CliRunner r = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "train", "--precision", "fp32",
        "--hardware", "h100-sxm", "--out", train.toString(), "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(new ObjectMapper().readTree(r.out()).get("weights").isNull()).isTrue();
    assertThat(Files.readString(train.resolve("report.html"))).contains("<td>precision</td><td>fp32</td>")
        .doesNotContain("precision / weights");
    Path lora = dir.resolve("lora");
    CliRunner l = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "finetune-lora", "--weights", "int8",
        "--hardware", "h100-sxm", "--out", lora.toString(), "--format", "json");
    assertThat(l.code()).as(l.err()).isZero();
    assertThat(new ObjectMapper().readTree(l.out()).get("weights").asText()).isEqualTo("int8");
    assertThat(Files.readString(lora.resolve("report.html"))).contains("<td>precision / weights</td><td>bf16 / int8</td>");
  }

  @Test
  void reportHtml_saysWhereEachJobsPriceCameFrom_orWhyItHasNone() throws IOException {
    // the terminal says 'h100-sxm: price: ...' and 'm2-ultra: no price: ...'; the page gave '0.202 USD' and
    // 'no price' in its table without either
    Path priced = dir.resolve("priced");
    CliRunner r = CliRunner.run("compare", "--model", "gpt3-125m", "--task", "inference", "--hardware",
        "m2-ultra,h100-sxm", "--requests", "10", "--price", "h100-sxm=2usd/h", "--out", priced.toString(), "--format",
        "json");
    assertThat(r.code()).as(r.err()).isZero();
    String html = Files.readString(priced.resolve("report.html"));
    for (JsonNode result : new ObjectMapper().readTree(r.out())) {
      JsonNode job = result.get("job");
      String note = job.get("price_source").isNull() ? "no price: " + job.get("price_missing").asText()
          : "price: " + job.get("price_source").asText();
      assertThat(html).contains("<b>" + result.get("hardware").asText() + "</b>: "
          + llmsim.report.Escape.html(note + "; energy is an " + job.get("energy_basis").asText()));
    }
    assertThat(html).contains("no price: ", "price: ");
  }

  @Test
  void reportHtmlsScenarioTable_listsThePlanKeysTheRunUsed() throws IOException {
    // the text's plan line said 'tp 2, pp 1, dp 4, ZeRO-1 on 8 GPUs'; the page's scenario table gave batch, recompute
    // and software but no plan at all
    int gpus = 8;
    int tp = 2;
    int batch = 1;
    int microBatches = 2;
    Path plan = dir.resolve("plan-keys");
    CliRunner r = CliRunner.run("simulate", "--model", "gpt3-125m", "--task", "train", "--seq-len", "512",
        "--hardware", "hgx-h100-8x", "--tp", String.valueOf(tp), "--zero", "1", "--batch", String.valueOf(batch),
        "--micro-batches", String.valueOf(microBatches), "--all-gpus", "--out", plan.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String html = Files.readString(plan.resolve("report.html"));
    String table = html.substring(html.indexOf("<h2>Scenario</h2>"), html.indexOf("<h2>Results</h2>"));
    int dp = gpus / tp;
    assertThat(table).contains("<td>tp</td><td>" + tp + "</td>", "<td>pp</td><td>1</td>", "<td>dp</td><td>" + dp + "</td>",
        "<td>zero</td><td>1</td>", "<td>schedule</td><td>1f1b</td>", "<td>micro_batches</td><td>" + microBatches + "</td>",
        "<td>global_batch</td><td>" + batch * microBatches * dp + " sequences",
        "<td>all_gpus</td><td>true (" + gpus + " GPUs simulated)</td>");
    // a key left at its default and one the task does not use are not listed
    assertThat(table).doesNotContain("overlap_grad_reduce", "virtual_stages", "sequence_parallel", "shard");
    // plans that differ by system (plan auto: a pipeline on one, none on the other) get one row per system: the
    // micro-batches of the first system's plan read as every system's
    Path two = dir.resolve("plan-keys-two");
    CliRunner c = CliRunner.run("compare", "--model", "gpt3-125m", "--task", "train", "--seq-len", "512",
        "--hardware", "h100-sxm,hgx-h100-8x", "--micro-batches", "2", "--out", two.toString(), "--format", "json");
    assertThat(c.code()).as(c.err()).isZero();
    String page = Files.readString(two.resolve("report.html"));
    for (JsonNode result : new ObjectMapper().readTree(c.out())) {
      String id = result.get("hardware").asText();
      int replicas = result.get("plan").get("dp").asInt();
      assertThat(page).contains("<td>dp " + id + "</td><td>" + replicas + "</td>",
          "<td>global_batch " + id + "</td><td>" + (2 * replicas) + " sequences");
    }
  }

  @Test
  void outThatCannotBeCreated_isABadInput() throws IOException {
    Path file = dir.resolve("plain-file");
    Files.writeString(file, "x");
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--out", file.resolve("sub").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--out: cannot create folder");
  }

  @Test
  void aRunRefusedAfterItsInputIsRead_leavesNoFolder() {
    // plan auto finds no plan that fits (LLaMA-65B training on 8 x 80 GB: 16 bytes x 65.3e9 / 8 = 131 GB a GPU at
    // the most sharded), found only by searching: --out's folder was made before the search, and left there empty
    Path one = dir.resolve("a").resolve("b");
    BadInputTest.assertBadInput(CliRunner.run("simulate", "--model", "llama-65b", "--task", "train", "--hardware",
        "hgx-h100-8x", "--plan", "auto", "--recompute", "full", "--out", one.toString()), "error: --plan: auto: none of");
    assertThat(dir.resolve("a")).doesNotExist();
    Path two = dir.resolve("c");
    BadInputTest.assertBadInput(CliRunner.run("compare", "--model", "llama-65b", "--task", "train", "--hardware",
        "hgx-h100-8x,dgx-a100-8x80gb", "--plan", "auto", "--recompute", "full", "--out", two.toString()),
        "error: --plan: auto: none of");
    assertThat(two).doesNotExist();
    // a folder that exists is left as it was, and one that cannot be made is still refused before any simulation
    assertThat(dir).exists();
  }

  @Test
  void twoRunsIntoOneFolder_leaveOnlyTheSecondRunsReport() throws IOException {
    Path both = dir.resolve("both");
    Files.createDirectories(both);
    Files.writeString(both.resolve("notes.txt"), "mine");
    CliRunner first = CliRunner.run("compare", "--model", "gpt3-125m", "--hardware", "m2-ultra,13900ks-rtx4090",
        "--generate-tokens", "2", "--out", both.toString());
    assertThat(first.code()).as(first.err()).isZero();
    assertThat(both.resolve("timeline-m2-ultra.png")).exists();
    CliRunner second = CliRunner.run("simulate", "--model", "gpt3-125m", "--hardware", "h100-sxm",
        "--generate-tokens", "2", "--out", both.toString());
    assertThat(second.code()).as(second.err()).isZero();
    List<String> names;
    try (var s = Files.list(both)) {
      names = s.map(p -> p.getFileName().toString()).sorted().toList();
    }
    assertThat(names).containsExactly(llmsim.report.ReportFolder.MANIFEST, "bounds.png", "bounds.svg", "memory.png",
        "memory.svg", "notes.txt", "report.html", "roofline-h100-sxm.png", "roofline-h100-sxm.svg", "timeline.png",
        "timeline.svg", "trace.json");
    assertThat(second.err()).contains("--out: removed 8 file(s) an earlier run wrote into " + both)
        .contains("timeline-m2-ultra.png").contains("roofline-13900ks-rtx4090.svg");
  }

  @Test
  void moreSystemsThanAReportDraws_isABadInput_andWritesNothing() {
    Path many = dir.resolve("many");
    // distinct systems: one named twice is refused as such
    String ids = String.join(",", llmsim.hw.catalog.Catalog.bundled().systems().stream()
        .map(llmsim.core.hw.SystemSpec::id).limit(ReportOutput.MAX_SYSTEMS + 1).toList());
    for (String cmd : List.of("compare", "roofline", "sweep-chart")) {
      List<String> args = new java.util.ArrayList<>(List.of(cmd, "--hardware", ids, "--out", many.toString()));
      args.addAll(cmd.equals("sweep-chart") ? List.of("--models", "gpt3-125m") : List.of("--model", "gpt3-125m"));
      CliRunner r = CliRunner.run(args.toArray(String[]::new));
      assertThat(r.code()).as(cmd + ": " + r.err()).isEqualTo(2);
      // compare's --out is optional; roofline's and sweep-chart's charts are their output, --out required
      assertThat(r.err()).as(cmd).isEqualTo(cmd.equals("compare") ? "error: --out draws at most "
          + ReportOutput.MAX_SYSTEMS + " systems, but --hardware names " + (ReportOutput.MAX_SYSTEMS + 1)
          + "; drop --out, split the systems over several runs, or use llmsim sweep\n"
          : "error: --hardware: " + cmd + " draws at most " + ReportOutput.MAX_SYSTEMS + " systems, but --hardware"
          + " names " + (ReportOutput.MAX_SYSTEMS + 1) + "; split them over several runs\n");
      assertThat(many).as(cmd).doesNotExist();
    }
  }
}
