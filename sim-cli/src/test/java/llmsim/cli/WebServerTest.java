package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Locale;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.hw.catalog.Catalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The server's rules: bad requests get 400 and the CLI's message, only GET, catalog ids only, bounded runs. */
class WebServerTest {
  static WebServer server;
  static final HttpClient CLIENT = HttpClient.newHttpClient();

  @BeforeAll
  static void start() throws Exception {
    server = WebServer.start("127.0.0.1", 0);
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  static HttpResponse<String> get(String pathAndQuery) throws Exception {
    return CLIENT.send(HttpRequest.newBuilder(server.uri().resolve(pathAndQuery)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void bindsLoopbackOnTheFreePortItWasGiven() {
    assertThat(server.uri().getHost()).isEqualTo("127.0.0.1");
    assertThat(server.port()).isPositive();
  }

  @Test
  void page_isServedWithNothingFromElsewhere() throws Exception {
    HttpResponse<String> r = get("/");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("/api/run").doesNotContain("http://", "https://", "<script src");
    assertThat(get("/other").statusCode()).isEqualTo(404);
  }

  @Test
  void badValue_is400WithTheCliMessage() throws Exception {
    HttpResponse<String> r = get("/api/run?hardware=h100-sxm&model=llama-7b&task=inference&batch=0");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).isEqualTo("--batch: must be >= 1, was 0");
  }

  @Test
  void unknownOrRepeatedParameter_is400NamingTheAllowedOnes() throws Exception {
    assertThat(get("/api/run?out=/tmp/x").body()).startsWith("unknown parameter 'out' (allowed: hardware, model");
    assertThat(get("/api/run?batch=1&batch=2").body()).isEqualTo("parameter 'batch' is given twice");
  }

  @Test
  void aFilePathForHardwareOrModel_isRefusedUnread() throws Exception {
    HttpResponse<String> r = get("/api/run?hardware=/etc/passwd&model=llama-7b");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("is not a catalog id");
    assertThat(get("/api/run?hardware=h100-sxm&model=my.yaml").statusCode()).isEqualTo(400);
    // an unknown id is told the nearest ones, not to give a file, which the page refuses
    HttpResponse<String> hw = get("/api/run?hardware=nope&model=llama-7b");
    assertThat(hw.statusCode()).isEqualTo(400);
    assertThat(hw.body()).contains("unknown hardware 'nope'", "nearest").doesNotContain(".yaml");
    HttpResponse<String> m = get("/api/run?hardware=h100-sxm&model=nope");
    assertThat(m.statusCode()).isEqualTo(400);
    assertThat(m.body()).contains("unknown model 'nope'", "nearest").doesNotContain(".yaml", "config.json");
  }

  @Test
  void aRunOverTheOpBudget_isRefusedBeforeItIsBuilt() throws Exception {
    // a million sequences per micro-batch on every GPU of a DGX: refused with a 400 before anything is simulated
    HttpResponse<String> big = get("/api/run?hardware=dgx-a100-8x80gb&model=llama-7b&task=train&seq_len=4096&batch=1048576");
    assertThat(big.statusCode()).isEqualTo(400);
  }

  @Test
  void post_is405() throws Exception {
    HttpResponse<String> r = CLIENT.send(HttpRequest.newBuilder(server.uri().resolve("/api/run"))
        .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(405);
  }

  @Test
  void scaledHardware_multipliesTheDevicesFiguresAndSaysSo() {
    SystemSpec s = Catalog.bundled().system("h100-sxm", "--hardware");
    SystemSpec x = ScaledHardware.scale(s, 2, 0.5, 1.5);
    assertThat(x.device().memoryBandwidthBytesPerSecond()).isEqualTo(2 * s.device().memoryBandwidthBytesPerSecond());
    s.device().peakFlopsDense().forEach((p, v) -> assertThat(x.device().peakFlopsDense().get(p)).isEqualTo(0.5 * v));
    assertThat(x.device().memoryCapacityBytes()).isEqualTo(1.5 * s.device().memoryCapacityBytes());
    assertThat(x.name()).contains("x2.00 bandwidth");
    assertThat(ScaledHardware.scale(s, 1, 1, 1)).isSameAs(s);
  }

  @Test
  void anApiPathWithMoreAfterIt_isNotFound_notServedAsTheApi() throws Exception {
    // the server's contexts match by prefix: /api/run/extra ran a simulation and /api/options/x listed the options
    HttpResponse<String> run = get("/api/run/extra?hardware=m2-ultra&model=llama-7b");
    assertThat(run.statusCode()).isEqualTo(404);
    assertThat(run.body()).isEqualTo("not found: /api/run/extra (the API is /api/run)");
    assertThat(get("/api/options/x").statusCode()).isEqualTo(404);
    assertThat(get("/api/options").statusCode()).isEqualTo(200);
  }

  @Test
  void aFactorThatOnlyJavasParserReadsAsANumber_isRefused() throws Exception {
    // bandwidth=2d ran at x2; NaN was refused only by the range check ("must be 0.1 to 10.0, was NaN")
    for (String v : new String[] {"2d", "2f", "0x2p0", "NaN"}) {
      HttpResponse<String> r = get("/api/run?hardware=m2-ultra&model=llama-7b&bandwidth=" + v);
      assertThat(r.statusCode()).as(v).isEqualTo(400);
      assertThat(r.body()).isEqualTo("bandwidth: '" + v + "' is not a number (a factor such as 1.5)");
    }
  }

  @Test
  void aPrecisionTheDeviceEmulates_showsThePeakItRunsAt_notNaN() throws Exception {
    // MLX's bf16 on an M2 Ultra (no bf16 units) read 'Apple M2 Ultra ...: 0.80 TB/s, NaN TFLOP/s bf16'
    HttpResponse<String> r = get("/api/run?hardware=m2-ultra&model=llama-7b&task=inference&software=mlx&precision=bf16");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    var d = Catalog.bundled().system("m2-ultra", "--hardware").device();
    double peak = d.emulated().get(Precision.BF16).rate() * d.peakFlops(d.emulated().get(Precision.BF16).via());
    assertThat(r.body()).doesNotContain("NaN").contains(String.format(Locale.US, ", %.1f TFLOP/s bf16 (not native: see"
        + " the warning)", peak / 1e12));
    assertThat(get("/api/run?hardware=h100-sxm&model=llama-7b&task=inference").body()).contains(String.format(Locale.US,
        ", %.1f TFLOP/s fp16\"", Catalog.bundled().system("h100-sxm", "--hardware").device().peakFlops(Precision.FP16)
        / 1e12));
  }

  @Test
  void offloadedStateThatDoesNotFitTheHost_saysSo_asTheDevicesRowDoes() throws Exception {
    // LLaMA-65B's training on an H100 offloads its optimizer state: 16 bytes a parameter on a 128 GiB host, and the
    // page read '1094.4 / 128.0 GiB' without a word where the device's row says '(does not fit)'
    var m = Catalog.bundled().model("llama-65b", "--model");
    var s = Catalog.bundled().system("13900ks-h100", "--hardware");
    assertThat(12.0 * m.parameterCount()).isGreaterThan(s.host().memoryCapacityBytes());
    assertThat(hostRow("llama-65b")).matches(String.format(Locale.US, "[0-9.]+ / %.1f GiB \\(does not fit\\)",
        s.host().memoryCapacityBytes() / (1L << 30)));
    assertThat(hostRow("llama-7b")).doesNotContain("does not fit"); // 12 bytes a parameter of 6.7B: 75 GiB
  }

  @Test
  void aClusterTemplate_isSizedByNodes_andTheRunSaysHowManyGpusItRan() throws Exception {
    // h100-cluster on the page ran its one-node default, named 'size with --nodes/--gpus', a flag the page lacked
    SystemSpec cluster = Catalog.bundled().system("h100-cluster", "--hardware");
    HttpResponse<String> r = get("/api/run?hardware=h100-cluster&model=llama-7b&task=train&nodes=4");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    int gpus = 4 * cluster.deviceCount();
    assertThat(row(r.body(), "gpus")).startsWith(String.format(Locale.US, "%d GPUs (4 nodes x %d): tp 1, pp 1, dp %d",
        gpus, cluster.deviceCount(), gpus));
    HttpResponse<String> one = get("/api/run?hardware=m2-ultra&model=llama-7b&nodes=2");
    assertThat(one.statusCode()).isEqualTo(400);
    assertThat(one.body()).startsWith("--nodes: m2-ultra has no network between nodes");
    var options = new com.fasterxml.jackson.databind.ObjectMapper().readTree(get("/api/options").body());
    assertThat(options.get("multi_node").toString()).contains("\"h100-cluster\"", "\"hgx-h100-8x\"")
        .doesNotContain("\"m2-ultra\"");
  }

  @Test
  void options_listEachSoftwareProfileOnce_byItsId_withItsDescription_notEveryAlias() throws Exception {
    // the page's software list had 40 entries: pytorch, hf, transformers, peft, hf-fa2, ... where hf and transformers
    // (and llama-factory and llamafactory) are one profile, so picking another name changed nothing
    var options = new com.fasterxml.jackson.databind.ObjectMapper().readTree(get("/api/options").body());
    java.util.List<String> listed = new java.util.ArrayList<>();
    options.get("software").forEach(n -> listed.add(n.asText()));
    assertThat(listed).containsExactlyElementsOf(llmsim.core.software.SoftwareProfiles.ids());
    for (var p : llmsim.core.software.SoftwareProfiles.ALL) {
      assertThat(options.get("software_names").get(p.id()).asText()).isEqualTo(p.description());
    }
    // an alias is still a valid id for the API, as it is for --software
    assertThat(get("/api/run?hardware=h100-sxm&model=llama-7b&software=transformers").statusCode()).isEqualTo(200);
  }

  private static String row(String body, String key) throws Exception {
    for (var n : new com.fasterxml.jackson.databind.ObjectMapper().readTree(body).get("numbers")) {
      if (n.get("key").asText().equals(key)) {
        return n.get("value").asText();
      }
    }
    throw new AssertionError("no " + key + " row: " + body);
  }

  private static String hostRow(String model) throws Exception {
    HttpResponse<String> r = get("/api/run?hardware=13900ks-h100&task=train&model=" + model);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    for (var n : new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.body()).get("numbers")) {
      if (n.get("key").asText().equals("host_memory")) {
        return n.get("value").asText();
      }
    }
    throw new AssertionError("no host_memory row: " + model);
  }
}
