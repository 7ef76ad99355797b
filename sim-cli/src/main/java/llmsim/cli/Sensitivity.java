package llmsim.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.FieldOverride;
import llmsim.hw.scenario.ScenarioFile;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Problem;
import llmsim.report.ChartFiles;
import llmsim.report.ReportFolder;
import llmsim.report.SensitivityChart;

/**
 * {@code compare --vary ID.FIELD=0.5x,1x,2x}: the scenario simulated again with one catalog field at each value
 * (through --set's mechanism, so the changed file is checked as a file is), and how tokens/s and the bound move.
 * A value ending in {@code x} multiplies the catalog's value; any other is the value itself.
 */
final class Sensitivity {
  private Sensitivity() {}

  /** The field and its values, resolved against the catalog. */
  record Axis(String flag, FieldOverride field, double catalogValue, List<String> texts, List<Double> values) {}

  /**
   * One simulated point, with its system's tokens/s at the catalog value ({@code catalogTokensPerSecond}; at the
   * first value where the catalog's file has no such field).
   */
  record Point(String valueText, double value, StepResult result, double catalogTokensPerSecond) {}

  static final String EXAMPLE = "m2-ultra.memory.bandwidth_gb_per_s=0.5x,1x,2x";

  static Axis parse(ScenarioOptions scenario, String vary) {
    String flag = "--vary " + vary;
    int eq = vary.indexOf('=');
    String values = eq < 0 ? "" : vary.substring(eq + 1).strip();
    if (eq <= 0 || values.isEmpty() || values.replace(",", "").isBlank()) {
      throw new BadFlagException(flag + ": give the field and its values: ID.FIELD=V1,V2,... (for example " + EXAMPLE
          + "; a value ending in x multiplies the catalog's)");
    }
    String key = vary.substring(0, eq).strip();
    FieldOverride f = located(flag, () -> FieldOverride.parse(scenario.catalog(), key + "=0"));
    if (f.was().equals("unset")) { // a field the file lacks: a misspelt one is refused as --set refuses it
      String first = values.split(",")[0].strip().replaceFirst("[xX]$", "");
      located(flag, () -> scenario.catalog().withOverrides(List.of(key + "=" + first)));
    }
    double base = number(f.was());
    List<String> texts = new ArrayList<>();
    List<Double> out = new ArrayList<>();
    for (String v : values.split(",")) {
      String t = v.strip().toLowerCase(Locale.ROOT);
      boolean factor = t.endsWith("x");
      double n = number(factor ? t.substring(0, t.length() - 1) : t);
      if (Double.isNaN(n) || factor && Double.isNaN(base)) {
        // the field's value is named only where it is what is not a number
        throw new BadFlagException(flag + ": '" + v.strip() + "' is not " + (factor && !Double.isNaN(n)
            ? "a multiple of a number: " + f.target() + " " + f.field() + " is '" + f.was() + "'" : "a number")
            + "; --vary takes numbers (a value, or a multiple such as 2x)");
      }
      double abs = factor ? base * n : n;
      String text = abs == Math.rint(abs) && Math.abs(abs) < 1e15 ? String.valueOf((long) abs) : String.valueOf(abs);
      int seen = out.indexOf(abs);
      if (seen >= 0) { // 1x,800 on an 800 GB/s field ran and printed the same row twice
        throw new BadFlagException(flag + ": '" + v.strip() + "' is " + text + " again (as '" + values.split(",")[seen]
            .strip() + "'); give each value once");
      }
      texts.add(text);
      out.add(abs);
    }
    return new Axis(flag, f, base, texts, out);
  }

  /**
   * Simulate the scenario once per value, on every system; the --set values already given stay in effect. Where the
   * catalog's value is not among them, it is simulated too, as the reference of 'tokens/s vs catalog' (not a point).
   */
  static List<Point> run(ScenarioOptions scenario, Path file, Axis axis) {
    List<String> base = scenario.sets();
    List<String> texts = new ArrayList<>(axis.texts());
    List<Double> values = new ArrayList<>(axis.values());
    boolean catalogAdded = !Double.isNaN(axis.catalogValue()) && !values.contains(axis.catalogValue());
    if (catalogAdded) {
      // 0.5x,2x were each put over the first point's tokens/s, under a column that says 'vs catalog'
      double c = axis.catalogValue();
      texts.add(c == Math.rint(c) && Math.abs(c) < 1e15 ? String.valueOf((long) c) : String.valueOf(c));
      values.add(c);
    }
    List<Point> runs = new ArrayList<>();
    for (int i = 0; i < values.size(); i++) {
      String value = texts.get(i);
      scenario.setField(axis.field().target() + "." + axis.field().field() + "=" + value, base);
      List<StepResult> results = located(axis.flag() + " (at " + value + ")",
          () -> SimulateCommand.run(scenario.resolve(file == null ? null : ScenarioFile.read(file), true)));
      double at = values.get(i);
      results.forEach(r -> runs.add(new Point(value, at, r, Double.NaN)));
    }
    Map<String, Double> reference = new LinkedHashMap<>();
    for (Point p : runs) { // the catalog's run, else (a field the file lacks) the first
      if (p.value() == axis.catalogValue() || !reference.containsKey(p.result().system().id())) {
        reference.put(p.result().system().id(), p.result().tokensPerSecond());
      }
    }
    return runs.stream().filter(p -> !catalogAdded || p.value() != axis.catalogValue())
        .map(p -> new Point(p.valueText(), p.value(), p.result(), reference.get(p.result().system().id()))).toList();
  }

  /** A point's tokens/s over its system's at the catalog value. */
  static double relative(Point p) {
    return p.result().tokensPerSecond() / p.catalogTokensPerSecond();
  }

  static TextTable table(List<Point> points, Axis axis) {
    TextTable t = new TextTable(List.of(axis.field().target() + " " + axis.field().field(), "x catalog", "hardware",
        "tokens/s", "step time (s)", "bound", "tokens/s vs catalog"));
    for (Point p : points) {
      t.row(List.of(p.valueText(), factor(p, axis), p.result().system().id(),
          Output.num(p.result().tokensPerSecond(), 4), Output.num(p.result().stepTimeSeconds(), 4),
          p.result().bound().key(), Output.num(relative(p), 3) + "x"));
    }
    return t;
  }

  static Map<String, Object> json(List<Point> points, Axis axis) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("target", axis.field().target());
    m.put("field", axis.field().field());
    m.put("catalog_value", axis.catalogValue());
    m.put("metric", "tokens_per_s");
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Point p : points) {
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("value", p.value());
      row.put("hardware", p.result().system().id());
      row.put("tokens_per_s", p.result().tokensPerSecond());
      row.put("step_time_s", p.result().stepTimeSeconds());
      row.put("bound", p.result().bound().key());
      row.put("relative_tokens_per_s", relative(p));
      row.put("fits", p.result().memory().fits());
      row.put("warnings", warnings(p, axis));
      rows.add(row);
    }
    m.put("points", rows);
    return m;
  }

  /**
   * What a point's result must say, but for the override --vary makes at it (the table's first column): a default
   * precision the device lacks, another --set in effect, a run that does not fit. The rows gave none, so LLaMA-65B's
   * training on an M2 Ultra read as a time, 877 GiB short without a word.
   */
  static List<String> warnings(Point p, Axis axis) {
    String own = "override in effect: " + axis.field().target() + " " + axis.field().field() + " = ";
    List<String> out = new ArrayList<>(p.result().warnings().stream().filter(w -> !w.startsWith(own)).toList());
    if (!p.result().memory().fits()) {
      out.add("at " + p.valueText() + " it does not fit (" + (p.result().memory().fitsDevice()
          ? "host memory short by " + llmsim.core.util.Units.gib(p.result().memory().hostShortfallBytes())
          : "device memory short by " + llmsim.core.util.Units.gib(p.result().memory().shortfallBytes()))
          + "); the time assumes the memory were there");
    }
    return out;
  }

  /** Each system's warnings over the points, once each, as "ID: warning: ..." lines. */
  static List<String> warningLines(List<Point> points, Axis axis) {
    java.util.Set<String> lines = new java.util.LinkedHashSet<>();
    points.forEach(p -> warnings(p, axis).forEach(w -> lines.add(p.result().system().id() + ": warning: " + w)));
    return List.copyOf(lines);
  }

  /** sensitivity.png and .svg under {@code out}. */
  static void chart(List<Point> points, Axis axis, Path out, java.io.PrintWriter err) {
    List<String> systems = points.stream().map(p -> p.result().system().id()).distinct().toList();
    List<SensitivityChart.Point> data = points.stream().map(p -> new SensitivityChart.Point(p.result().system().id(),
        p.value(), p.result().tokensPerSecond(), p.result().bound().key())).toList();
    StepResult first = points.get(0).result();
    String metric = first.task().kind().training() ? "training tokens/s" : "generated tokens/s";
    try (ReportFolder folder = ReportOutput.open(out, "sensitivity")) {
      ChartFiles.write(SensitivityChart.create(metric + " as " + axis.field().target() + " " + axis.field().field()
              + " changes: " + first.model().id() + ", " + first.task().kind().key(), axis.field().field()
              + " (catalog " + axis.field().was() + ")", metric, systems, data, ReportOutput.style()), folder,
          "sensitivity", ReportOutput.style().width(), ReportOutput.style().height());
      ReportOutput.commit(folder, err);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String factor(Point p, Axis axis) {
    return Double.isNaN(axis.catalogValue()) || axis.catalogValue() == 0 ? ""
        : Output.num(p.value() / axis.catalogValue(), 3);
  }

  private static double number(String s) {
    if (!s.strip().matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
      return Double.NaN; // Double.parseDouble alone takes Java's 2d, 2f and 0x2p0: "2dx" ran as 2x
    }
    try {
      return Double.parseDouble(s.strip());
    } catch (NumberFormatException e) {
      return Double.NaN;
    }
  }

  /** Run {@code body}; a --set problem it raises is reported as --vary's. */
  private static <T> T located(String flag, java.util.function.Supplier<T> body) {
    try {
      return body.get();
    } catch (InputException e) {
      throw new InputException(e.problems().stream().map(p -> p.file().startsWith("--set ")
          ? new Problem(flag, 0, 0, p.message()) : p).toList());
    }
  }
}
