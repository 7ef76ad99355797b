package llmsim.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.workload.OpBudget;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.yaml.InputException;
import llmsim.report.ChartFiles;
import llmsim.report.MemoryChart;
import llmsim.report.TimelineChart;
import llmsim.report.roofline.RooflineChart;
import llmsim.report.roofline.RooflineData;
import org.jfree.chart.JFreeChart;

/**
 * The page {@code llmsim serve} shows, and the one request behind it: {@code GET /api/run?hardware=...&model=...}
 * simulates one scenario and answers its key numbers, its explanation and its charts as SVG. Requests are checked
 * as the CLI checks flags (same messages, answered 400); hardware and models are catalog ids only, never files; a
 * run over {@link #MAX_OPS} ops is refused before it is built; a run over {@link #TIMEOUT_SECONDS} is answered 503.
 * Nothing is written to disk.
 */
final class WebServer implements AutoCloseable {
  /** Ops one request may simulate (its run; the decode trajectory adds a few thousand). */
  static final long MAX_OPS = 1_000_000;
  static final long TIMEOUT_SECONDS = 30;
  /** Longest query string accepted. */
  static final int MAX_QUERY = 1000;

  /** The query parameters /api/run takes: scenario keys by their key name, and the device's scale factors. */
  static final Map<String, ScenarioKey> KEYS = keys();
  static final Set<String> SCALES = Set.of("bandwidth", "compute", "memory");

  private static Map<String, ScenarioKey> keys() {
    Map<String, ScenarioKey> m = new LinkedHashMap<>();
    for (ScenarioKey k : List.of(ScenarioKey.HARDWARE, ScenarioKey.MODEL, ScenarioKey.TASK, ScenarioKey.BATCH,
        ScenarioKey.PROMPT_TOKENS, ScenarioKey.SEQ_LEN, ScenarioKey.PRECISION, ScenarioKey.WEIGHTS,
        ScenarioKey.SOFTWARE, ScenarioKey.NODES)) {
      m.put(k.key(), k);
    }
    return m;
  }

  /** The page: hand-written HTML and JavaScript, nothing loaded from elsewhere. */
  static final String PAGE = page();

  private static String page() {
    try (var in = WebServer.class.getResourceAsStream("/llmsim/serve/index.html")) {
      if (in == null) {
        throw new IllegalStateException("llmsim/serve/index.html is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private final HttpServer http;
  private final ExecutorService requests;
  private final ThreadPoolExecutor work;

  private WebServer(HttpServer http, ExecutorService requests, ThreadPoolExecutor work) {
    this.http = http;
    this.requests = requests;
    this.work = work;
  }

  /** Listens on {@code host}:{@code port} (0: any free port). */
  static WebServer start(String host, int port) throws IOException {
    HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
    ExecutorService requests = Executors.newFixedThreadPool(4, daemon("llmsim-http"));
    // two simulations at once, a few more waiting; beyond that a request is told the server is busy
    ThreadPoolExecutor work = new ThreadPoolExecutor(2, 2, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(4),
        daemon("llmsim-sim"));
    WebServer s = new WebServer(http, requests, work);
    http.setExecutor(requests);
    http.createContext("/", s::page);
    http.createContext("/api/options", s::options);
    http.createContext("/api/run", s::run);
    http.start();
    return s;
  }

  private static java.util.concurrent.ThreadFactory daemon(String name) {
    return r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      return t;
    };
  }

  int port() {
    return http.getAddress().getPort();
  }

  URI uri() {
    String host = http.getAddress().getAddress().getHostAddress();
    return URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + port() + "/");
  }

  @Override
  public void close() {
    http.stop(0);
    requests.shutdownNow();
    work.shutdownNow();
  }

  private void page(HttpExchange ex) throws IOException {
    if (refuseMethod(ex)) {
      return;
    }
    if (!ex.getRequestURI().getPath().equals("/")) {
      send(ex, 404, "text/plain", "not found: " + ex.getRequestURI().getPath() + " (the page is at /)");
      return;
    }
    send(ex, 200, "text/html", PAGE);
  }

  private void options(HttpExchange ex) throws IOException {
    if (refuseMethod(ex) || refuseSubpath(ex, "/api/options")) {
      return;
    }
    Catalog c = Catalog.bundled();
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("hardware", c.systems().stream().map(SystemSpec::id).sorted().toList());
    o.put("model", c.models().stream().map(ModelSpec::id).sorted().toList());
    // each model's max context and the tokens an inference generates after its prompt: the context slider ends where
    // a run still fits the model's context
    Map<String, Integer> context = new LinkedHashMap<>();
    c.models().stream().sorted(java.util.Comparator.comparing(ModelSpec::id)).forEach(m -> context.put(m.id(),
        m.maxContext()));
    o.put("max_context", context);
    o.put("generate_tokens", Integer.parseInt(ScenarioKey.GENERATE_TOKENS.defaultText().orElseThrow()));
    // the systems with a network between nodes, which nodes sizes (a cluster template is one node until it is)
    o.put("multi_node", c.systems().stream().filter(s -> s.network().isPresent()).map(SystemSpec::id).sorted().toList());
    for (ScenarioKey k : List.of(ScenarioKey.TASK, ScenarioKey.PRECISION, ScenarioKey.WEIGHTS)) {
      o.put(k.key(), k.choices());
    }
    // the tasks a stored weight format applies to: inference and the frozen bases; train and finetune-full hold the
    // weights they train at the compute precision and refuse the key
    o.put("weights_tasks", java.util.Arrays.stream(llmsim.core.task.TaskKind.values())
        .filter(k -> !k.training() || k.frozenBase()).map(llmsim.core.task.TaskKind::key).toList());
    // each profile once, by its id: --software's choices add every alias (hf, transformers and peft are one profile)
    o.put("software", SoftwareProfiles.ids());
    Map<String, String> names = new LinkedHashMap<>();
    SoftwareProfiles.ALL.forEach(p -> names.put(p.id(), p.description()));
    o.put("software_names", names);
    send(ex, 200, "application/json", Json.write(o));
  }

  private void run(HttpExchange ex) throws IOException {
    if (refuseMethod(ex) || refuseSubpath(ex, "/api/run")) {
      return;
    }
    Map<String, String> q;
    try {
      q = query(ex.getRequestURI().getRawQuery());
    } catch (BadFlagException e) {
      send(ex, 400, "text/plain", e.getMessage());
      return;
    }
    Future<String> f;
    try {
      f = work.submit(() -> ServeRun.json(q));
    } catch (RejectedExecutionException e) {
      send(ex, 503, "text/plain", "the server is busy with other simulations; try again in a moment");
      return;
    }
    try {
      send(ex, 200, "application/json", f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
    } catch (TimeoutException e) {
      f.cancel(true);
      send(ex, 503, "text/plain", "the simulation took longer than " + TIMEOUT_SECONDS + " s; lower the batch or the context");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      send(ex, 503, "text/plain", "the server is stopping");
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof InputException ie) {
        send(ex, 400, "text/plain", pageHint(String.join("\n", ie.problems().stream().map(Object::toString).sorted()
            .toList())));
      } else if (c instanceof BadFlagException || c instanceof IllegalArgumentException) {
        send(ex, 400, "text/plain", pageHint(c.getMessage()));
      } else {
        send(ex, 500, "text/plain", "internal error: " + c);
      }
    }
  }

  /** The query's parameters; an unknown, repeated or malformed one is refused with the allowed names. */
  static Map<String, String> query(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    if (raw.length() > MAX_QUERY) {
      throw new BadFlagException("the query is longer than " + MAX_QUERY + " characters");
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
      String value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      if (!KEYS.containsKey(name) && !SCALES.contains(name)) {
        List<String> allowed = new ArrayList<>(KEYS.keySet());
        allowed.addAll(SCALES.stream().sorted().toList());
        throw new BadFlagException("unknown parameter '" + name + "' (allowed: " + String.join(", ", allowed) + ")");
      }
      if (out.put(name, value) != null) {
        throw new BadFlagException("parameter '" + name + "' is given twice");
      }
    }
    return out;
  }

  /** A context matches by prefix: /api/run/anything would be served as /api/run. Answered 404 instead. */
  private static boolean refuseSubpath(HttpExchange ex, String path) throws IOException {
    if (ex.getRequestURI().getPath().equals(path)) {
      return false;
    }
    send(ex, 404, "text/plain", "not found: " + ex.getRequestURI().getPath() + " (the API is " + path + ")");
    return true;
  }

  private static boolean refuseMethod(HttpExchange ex) throws IOException {
    if (ex.getRequestMethod().equals("GET")) {
      return false;
    }
    ex.getResponseHeaders().set("Allow", "GET");
    send(ex, 405, "text/plain", "only GET is served");
    return true;
  }

  private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type + "; charset=utf-8");
    ex.getResponseHeaders().set("Cache-Control", "no-store");
    ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream o = ex.getResponseBody()) {
      o.write(bytes);
    }
  }

  /**
   * The CLI's message for an unknown id, without its "or give a .yaml file": the page takes catalog ids only (a path is
   * refused unread), so the hint would send its user to something the page refuses.
   */
  static String pageHint(String message) {
    return message.replace(", or give a .yaml or config.json", "").replace(", or give a .yaml file", "");
  }

  /** One /api/run request: checked as the CLI checks its flags, simulated, drawn. */
  static final class ServeRun {
    private ServeRun() {}

    static String json(Map<String, String> q) {
      for (String idKey : List.of("hardware", "model")) {
        String v = q.get(idKey);
        if (v != null && !v.matches("[A-Za-z0-9][A-Za-z0-9._+-]*") || v != null && v.matches(".*\\.(ya?ml|json)$")) {
          throw new BadFlagException("--" + idKey + ": '" + v + "' is not a catalog id (the page runs catalog "
              + "hardware and models only; `llmsim hardware list` and `llmsim models list` show them)");
        }
      }
      ScenarioOptions o = new ScenarioOptions();
      q.forEach((name, value) -> {
        if (KEYS.containsKey(name)) {
          o.set(KEYS.get(name), value);
        }
      });
      ScenarioOptions.Resolved r = o.resolve(null, true);
      if (r.hardware().size() != 1) {
        throw new BadFlagException("--hardware: the page runs one system at a time, was " + r.hardware().size());
      }
      Catalog c = Catalog.bundled();
      ModelSpec model = c.model(r.model(), "--model");
      r.checkAgainst(model);
      SystemSpec s = ScaledHardware.scale(r.sized(c.system(r.hardware().get(0), "--hardware")),
          factor(q, "bandwidth"), factor(q, "compute"), factor(q, "memory"));
      r.checkAgainst(s);
      long ops = OpBudget.ops(s, model, r.taskOn(s, model).task(), r.software());
      if (ops > MAX_OPS) {
        throw new BadFlagException(String.format(Locale.US, "this run would simulate %,d ops and the page allows "
            + "%,d: lower the batch, the context or the generated tokens, or run it with llmsim simulate", ops, MAX_OPS));
      }
      r.checkSimulable(model, List.of(s), true);
      StepResult result = r.simulate(s, model);
      return Json.write(ServeView.of(result));
    }

    static double factor(Map<String, String> q, String name) {
      String v = q.get(name);
      if (v == null || v.isEmpty()) {
        return 1;
      }
      try {
        if (!v.matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) { // Java's 2d, 2f, 0x2p0, NaN
          throw new NumberFormatException(v);
        }
        return Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new BadFlagException(name + ": '" + v + "' is not a number (a factor such as 1.5)");
      }
    }
  }

  /** What the page shows of one result: key numbers with units, the explanation, warnings and three SVG charts. */
  static final class ServeView {
    private ServeView() {}

    static Map<String, Object> of(StepResult r) {
      Map<String, Object> out = new LinkedHashMap<>();
      out.put("system", r.system().name());
      out.put("numbers", numbers(r));
      out.put("explanation", r.explanation());
      out.put("warnings", r.warnings());
      RooflineData roof = ReportOutput.roofline(r);
      out.put("critical_batch", Double.isFinite(roof.criticalBatch()) ? (long) Math.ceil(roof.criticalBatch()) : null);
      String what = r.model().name() + ", " + r.task().kind().key() + ", batch " + r.task().batch();
      Map<String, String> svg = new LinkedHashMap<>();
      svg.put("roofline", svg(RooflineChart.create("Roofline: " + what + " on " + r.system().id(), List.of(roof),
          ReportOutput.style()), ReportOutput.style().height(), "roofline"));
      svg.put("memory", svg(MemoryChart.create("Memory: " + what, List.of(new MemoryChart.Entry(r.system().id(),
          r.memory())), ReportOutput.style()), ReportOutput.style().height(), "memory"));
      int lanes = TimelineChart.shownStreams(r.trace()).length;
      svg.put("timeline", svg(TimelineChart.create("Timeline: " + what, r.trace(), ReportOutput.style()),
          150 + 90 * lanes, "timeline"));
      out.put("svg", svg);
      return out;
    }

    static List<Map<String, String>> numbers(StepResult r) {
      List<Map<String, String>> n = new ArrayList<>();
      boolean training = r.task().kind().training();
      add(n, "tokens_per_s", training ? "training tokens/s" : "generated tokens/s",
          String.format(Locale.US, "%,.1f tokens/s", r.tokensPerSecond()));
      add(n, "step_time", training ? "step time" : "run time (prefill + decode)", seconds(r.stepTimeSeconds()));
      if (!training) {
        add(n, "ttft", "time to first token", seconds(r.ttftSeconds()));
        add(n, "tpot", "time per output token", seconds(r.tpotSeconds()));
        add(n, "mbu", "memory-bandwidth utilisation (decode)", pct(r.mbu()));
      }
      add(n, "mfu", "model FLOPs utilisation", pct(r.mfu()));
      if (r.system().totalDevices() > 1) {
        add(n, "gpus", "GPUs and parallel plan", String.format(Locale.US, "%d GPUs (%s): %s", r.system().totalDevices(),
            r.system().nodes() > 1 ? r.system().nodes() + " nodes x " + r.system().deviceCount() : "one node",
            r.task().plan().describe()));
      }
      add(n, "bound", "bound by", r.bound().toString().toLowerCase(Locale.ROOT).replace('_', ' '));
      double gib = llmsim.core.util.Units.GIB;
      add(n, "memory", "on the device / usable", String.format(Locale.US, "%.1f / %.1f GiB%s",
          r.memory().totalBytes() / gib, r.memory().capacityBytes() / gib, r.memory().fitsDevice() ? "" : " (does not fit)"));
      if (r.memory().hostBytes() > 0) {
        // as the device's row says it: LLaMA-65B's offloaded training state, 1094 GiB, read beside a 128 GiB host
        add(n, "host_memory", "offloaded to host memory / host capacity", String.format(Locale.US, "%.1f / %.1f GiB%s",
            r.memory().hostBytes() / gib, r.memory().hostCapacityBytes() / gib, r.memory().fitsHost() ? ""
                : " (does not fit)"));
      }
      // the peak the run used: an emulated precision (MLX's bf16 on an M2) or tf32 as fp32 has none of its own
      var peak = PrecisionSupport.resolve(r.system().device(), r.task().precision(), r.software());
      add(n, "device", "device", String.format(Locale.US, "%s: %.2f TB/s, %.1f TFLOP/s %s%s", r.system().device().name(),
          r.system().device().memoryBandwidthBytesPerSecond() / 1e12, peak.peakFlops() / 1e12, r.task().precision().key(),
          peak.warning() == null ? "" : " (not native: see the warning)"));
      return n;
    }

    private static void add(List<Map<String, String>> n, String key, String label, String value) {
      Map<String, String> m = new LinkedHashMap<>(); // Map.of's order changes from one JVM start to the next
      m.put("key", key);
      m.put("label", label);
      m.put("value", value);
      n.add(m);
    }

    static String seconds(double s) {
      return Double.isNaN(s) ? "n/a" : s >= 1 ? String.format(Locale.US, "%,.2f s", s) : String.format(Locale.US, "%.2f ms", s * 1e3);
    }

    static String pct(double f) {
      return Double.isNaN(f) ? "n/a" : String.format(Locale.US, "%.1f %%", f * 100);
    }

    private static String svg(JFreeChart chart, int height, String prefix) {
      try {
        return ChartFiles.svg(chart, ReportOutput.style().width(), height, prefix);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
