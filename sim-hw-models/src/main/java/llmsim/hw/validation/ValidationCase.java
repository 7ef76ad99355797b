package llmsim.hw.validation;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import llmsim.hw.catalog.FileRefs;
import llmsim.hw.scenario.ScenarioFile;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;

/**
 * A published measurement and what reproduces it: a scenario, a microbenchmark, or a reason to skip.
 * Relative {@code hardware:} and {@code model:} files are read against the case file's folder.
 *
 * @param scenario present for end-to-end cases
 * @param micro present for microbenchmark cases
 * @param skip present when the case cannot be simulated yet, with the reason
 * @param hardware the hardware id or file the case runs on (a link id for a link microbenchmark); null for a skip
 * @param model the model id or file; null where none applies
 * @param software the software profile named; null where none is
 * @param ratio present for a ratio case: the scenario's per-GPU metric over a baseline's, over several runs; its
 *     {@code scenario} is then the first run's
 */
public record ValidationCase(
    String file,
    int line,
    String id,
    String category,
    Optional<ScenarioFile.Raw> scenario,
    Optional<Micro> micro,
    Optional<String> skip,
    String metric,
    double measured,
    String unit,
    String source,
    String quote,
    String confidence,
    String hardware,
    String model,
    String software,
    Optional<Ratio> ratio) {

  /** The case without a ratio (every case but a ratio case). */
  public ValidationCase(String file, int line, String id, String category, Optional<ScenarioFile.Raw> scenario,
      Optional<Micro> micro, Optional<String> skip, String metric, double measured, String unit, String source,
      String quote, String confidence, String hardware, String model, String software) {
    this(file, line, id, category, scenario, micro, skip, metric, measured, unit, source, quote, confidence, hardware,
        model, software, Optional.empty());
  }

  /**
   * A ratio case's runs: run i is the scenario with run i's keys laid over it, against the baseline with the same
   * keys laid over it. Each side's metric is divided by the GPUs the source counts in its system, so that a package
   * of two dies simulated as two ranks (MI250) counts as the one GPU the source compares.
   *
   * @param models each run's model, as written
   * @param summary mean, median, min or max over the runs' ratios
   */
  public record Ratio(List<ScenarioFile.Raw> scenarios, List<ScenarioFile.Raw> baselines, List<String> models,
      String summary, int scenarioGpus, int baselineGpus, String baselineHardware) {}

  /**
   * A microbenchmark: a GEMM, a memory stream, a link transfer, or a collective; {@code bytes} and {@code gpus} (0:
   * all of the system) are a collective's payload and size, {@code algorithm} an all-reduce's (auto, ring, tree);
   * {@code gemmM}, {@code gemmN} and {@code gemmK} a GEMM's shape when the measurement is of one shape (0: the
   * device's large-shape fraction).
   */
  public record Micro(String measure, String hardware, String link, String precision, int dies, double bytes, int gpus,
      String algorithm, int gemmM, int gemmN, int gemmK) {

    /** Whether a GEMM microbenchmark names the shape it measured. */
    public boolean shaped() {
      return gemmM > 0;
    }
  }

  /** The cases that read, and one or more problems for each file that did not. */
  public record Loaded(List<ValidationCase> cases, List<Problem> problems) {}

  /** Units a metric may be published in, by metric. */
  static final Map<String, List<String>> UNITS = Map.of(
      "throughput", List.of("tokens/s", "output tokens/s", "tokens/GPU/s", "tokens/s/GPU"),
      "time", List.of("ms", "s", "minutes", "hours", "days", "GPU-hours"),
      "flops", List.of("TFLOP/s", "GFLOP/s", "TFLOP/s/GPU"),
      "bandwidth", List.of("GB/s"),
      "fraction", List.of("ratio", "percent"));

  static String dimension(String metric) {
    return switch (metric) {
      case "prefill_tokens_per_s", "decode_tokens_per_s", "tokens_per_s" -> "throughput";
      case "ttft_s", "tpot_s", "step_time_s", "job_time_s" -> "time";
      case "gemm_flops" -> "flops";
      case "memory_bandwidth", "link_bandwidth", "bus_bandwidth" -> "bandwidth";
      default -> "fraction";
    };
  }

  public boolean endToEnd() {
    return !category.equals("E-microbench");
  }

  /** Read every {@code *.yaml} under the given files or folders, sorted by path; all problems at once. */
  public static List<ValidationCase> readAll(List<Path> paths) {
    Loaded l = load(paths);
    if (!l.problems().isEmpty()) {
      throw new InputException(l.problems());
    }
    return l.cases();
  }

  /** Read every case it can; a bad file is one or more problems and does not stop the others. */
  public static Loaded load(List<Path> paths) {
    List<Path> files = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    for (Path p : paths) {
      if (Files.isDirectory(p)) {
        try (var s = Files.list(p)) {
          s.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().forEach(files::add);
        } catch (IOException e) {
          problems.add(new Problem(p.toString(), 0, 0, "cannot list: " + e.getMessage()));
        }
      } else {
        files.add(p);
      }
    }
    List<ValidationCase> out = new ArrayList<>();
    // a case named twice (a file given twice, or inside a folder also given) would be run and counted twice in the
    // medians and MAPE: refused, as two files of one id are
    java.util.Map<Path, Path> seenFiles = new java.util.HashMap<>();
    java.util.Map<String, String> seenIds = new java.util.HashMap<>();
    for (Path f : files) {
      Path first = seenFiles.putIfAbsent(f.toAbsolutePath().normalize(), f);
      if (first != null) {
        problems.add(new Problem(f.toString(), 0, 0, "given twice" + (first.toString().equals(f.toString()) ? ""
            : " (also as " + first + ")") + ": a case is run and counted once; name it once"));
        continue;
      }
      try {
        ValidationCase c = read(f);
        String other = seenIds.putIfAbsent(c.id(), c.file());
        if (other != null) {
          problems.add(new Problem(c.file(), c.line(), 1, "case id '" + c.id() + "' is also " + other + "'s: each"
              + " case is counted once in the summary; give each file its own id"));
          continue;
        }
        out.add(c);
      } catch (InputException e) {
        problems.addAll(e.problems());
      }
    }
    return new Loaded(out, problems);
  }

  public static ValidationCase read(Path path) {
    Node n = TreeReader.readFile(path);
    SchemaValidator.forKind("case").validate(n);
    boolean skip = n.get("skip").isPresent();
    int kinds = (skip ? 1 : 0) + (n.get("scenario").isPresent() ? 1 : 0) + (n.get("microbenchmark").isPresent() ? 1 : 0);
    if (kinds != 1) {
      throw new InputException(n.problem("a case needs exactly one of 'scenario', 'microbenchmark' or 'skip'"));
    }
    if (!skip && n.get("metric").isEmpty()) {
      throw new InputException(n.problem("missing required field 'metric' (a case that is not skipped needs one)"));
    }
    Optional<Node> ratioNode = n.get("ratio");
    Optional<Node> baselineNode = n.get("baseline");
    if (baselineNode.isPresent() != ratioNode.isPresent() || (ratioNode.isPresent() && n.get("scenario").isEmpty())) {
      Node at = ratioNode.orElse(baselineNode.orElse(n));
      throw new InputException(at.problem("a ratio case needs 'scenario', 'baseline' and 'ratio' together ("
          + (ratioNode.isPresent() ? (baselineNode.isPresent() ? "no 'scenario'" : "no 'baseline' to divide by")
              : "'baseline' without 'ratio'") + ")"));
    }
    Node measured = n.require("measured");
    boolean isRatio = ratioNode.isPresent();
    n.get("metric").ifPresent(m -> {
      List<String> allowed = isRatio ? UNITS.get("fraction") : UNITS.get(dimension(m.asText()));
      if (!allowed.contains(measured.str("unit"))) {
        throw new InputException(measured.require("unit").problem("a " + (isRatio ? "ratio of " : "") + m.asText()
            + " is measured in "
            + String.join(", ", allowed) + ", not '" + measured.str("unit") + "'"));
      }
    });
    Path folder = path.getParent() == null ? Path.of("") : path.getParent();
    Optional<Micro> micro = n.get("microbenchmark").map(m -> micro(m, folder));
    if (ratioNode.isPresent()) {
      return readRatio(path, n, measured, folder, n.require("scenario"), baselineNode.get(), ratioNode.get());
    }
    n.get("scenario").ifPresent(s -> {
      if (s.get("model").isEmpty()) {
        throw new InputException(s.problem("missing required field 'model' (only a ratio case names its models under"
            + " 'ratio: runs')"));
      }
    });
    Optional<Node> scenario = n.get("scenario").map(s -> relativeToCase(s, folder));
    String hardware = scenario.map(ValidationCase::hardwareText)
        .orElse(micro.map(m -> m.hardware() != null ? m.hardware() : m.link()).orElse(null));
    return new ValidationCase(path.toString(), n.line(), n.str("id"), n.str("category"),
        scenario.map(sc -> ScenarioFile.fromNode(sc, null)), micro, n.optStr("skip"), n.optStr("metric").orElse(""),
        measured.num("value"), measured.str("unit"), n.str("source"), n.str("quote"), n.str("confidence"),
        hardware, scenario.flatMap(s -> s.optStr("model")).orElse(null),
        scenario.flatMap(s -> s.optStr("software")).orElse(null));
  }

  private static ValidationCase readRatio(Path path, Node n, Node measured, Path folder, Node scenario, Node baseline,
      Node ratio) {
    String metric = n.str("metric");
    if (!dimension(metric).equals("throughput")) {
      throw new InputException(n.require("metric").problem("a ratio case compares per-GPU throughputs; metric '"
          + metric + "' is not one (prefill_tokens_per_s, decode_tokens_per_s or tokens_per_s)"));
    }
    // the unit was checked against the metric's above only for a plain case; a ratio is a fraction
    for (Node side : List.of(scenario, baseline)) {
      if (side.get("model").isPresent()) {
        throw new InputException(side.require("model").problem("a ratio case names its models under 'ratio: runs',"
            + " not in 'scenario' or 'baseline'"));
      }
    }
    List<ScenarioFile.Raw> scenarios = new ArrayList<>();
    List<ScenarioFile.Raw> baselines = new ArrayList<>();
    List<String> models = new ArrayList<>();
    for (Node run : ratio.require("runs").items()) {
      Node s = scenario;
      Node b = baseline;
      for (Map.Entry<String, Node> e : run.fields().entrySet()) {
        s = s.withField(e.getKey(), e.getValue());
        b = b.withField(e.getKey(), e.getValue());
      }
      scenarios.add(ScenarioFile.fromNode(relativeToCase(s, folder), null));
      baselines.add(ScenarioFile.fromNode(relativeToCase(b, folder), null));
      models.add(run.str("model"));
    }
    Node sb = relativeToCase(baseline, folder);
    return new ValidationCase(path.toString(), n.line(), n.str("id"), n.str("category"), Optional.of(scenarios.get(0)),
        Optional.empty(), Optional.empty(), metric, measured.num("value"), measured.str("unit"), n.str("source"),
        n.str("quote"), n.str("confidence"), hardwareText(relativeToCase(scenario, folder)), String.join(",", models),
        scenario.optStr("software").orElse(null), Optional.of(new Ratio(scenarios, baselines, models,
            ratio.str("summary"), ratio.integer("scenario_gpus"), ratio.integer("baseline_gpus"), hardwareText(sb))));
  }

  private static Micro micro(Node m, Path folder) {
    String measure = m.str("measure");
    boolean needsLink = measure.equals("link");
    if (needsLink ? m.get("link").isEmpty() : m.get("hardware").isEmpty()) {
      throw new InputException(m.problem("a '" + measure + "' microbenchmark needs '" + (needsLink ? "link" : "hardware") + "'"));
    }
    if (measure.equals("gemm") && m.get("precision").isEmpty()) {
      throw new InputException(m.problem("a 'gemm' microbenchmark needs 'precision'"));
    }
    boolean collective = measure.equals("all_reduce") || measure.equals("all_to_all");
    if (collective && m.get("bytes").isEmpty()) {
      throw new InputException(m.problem("an '" + measure + "' microbenchmark needs 'bytes' (the payload)"));
    }
    if (!measure.equals("all_reduce") && m.get("algorithm").isPresent()) {
      throw new InputException(m.require("algorithm").problem("'algorithm' applies to an 'all_reduce' microbenchmark"
          + " (ring, tree or auto), not to '" + measure + "'"));
    }
    Optional<Node> shape = m.get("shape");
    if (shape.isPresent() && !measure.equals("gemm")) {
      throw new InputException(shape.get().problem("'shape' applies to a 'gemm' microbenchmark, not to '" + measure
          + "'"));
    }
    return new Micro(measure, m.optStr("hardware").map(h -> FileRefs.resolve(folder, h)).orElse(null),
        m.optStr("link").orElse(null), m.optStr("precision").orElse(null), m.integer("dies", 0), m.num("bytes", 0),
        m.integer("gpus", 0), m.optStr("algorithm").orElse("auto"), shape.map(s -> s.integer("m")).orElse(0),
        shape.map(s -> s.integer("n")).orElse(0), shape.map(s -> s.integer("k")).orElse(0));
  }

  /** The scenario with relative hardware and model files resolved against the case file's folder. */
  private static Node relativeToCase(Node s, Path folder) {
    Node out = s;
    Optional<Node> model = s.get("model");
    if (model.isPresent()) {
      out = out.withField("model", model.get().withText(FileRefs.resolve(folder, model.get().asText())));
    }
    Node hw = s.require("hardware");
    if (hw.kind() == Node.Kind.ARRAY) {
      out = out.withField("hardware", hw.withItems(hw.items().stream()
          .map(i -> i.withText(FileRefs.resolve(folder, i.asText()))).toList()));
    } else {
      List<String> parts = List.of(hw.asText().split(",")).stream().map(String::strip)
          .map(h -> FileRefs.resolve(folder, h)).toList();
      out = out.withField("hardware", hw.withText(String.join(",", parts)));
    }
    return out;
  }

  private static String hardwareText(Node s) {
    Node hw = s.require("hardware");
    return hw.kind() == Node.Kind.ARRAY ? String.join(",", hw.items().stream().map(Node::asText).toList()) : hw.asText();
  }
}
