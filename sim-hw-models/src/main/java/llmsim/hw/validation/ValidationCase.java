package llmsim.hw.validation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import llmsim.hw.scenario.ScenarioFile;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;

/**
 * A published measurement and what reproduces it: a scenario, a microbenchmark, or a reason to skip.
 *
 * @param scenario present for end-to-end cases
 * @param micro present for microbenchmark cases
 * @param skip present when the case cannot be simulated yet, with the reason
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
    String confidence) {

  /** A microbenchmark: a GEMM, a memory stream, or a link transfer. */
  public record Micro(String measure, String hardware, String link, String precision, int dies) {}

  public boolean endToEnd() {
    return !category.equals("E-microbench");
  }

  /** Read every {@code *.yaml} under the given files or folders, sorted by path; all problems at once. */
  public static List<ValidationCase> readAll(List<Path> paths) {
    List<Path> files = new ArrayList<>();
    List<Problem> problems = new ArrayList<>();
    for (Path p : paths) {
      if (java.nio.file.Files.isDirectory(p)) {
        try (var s = java.nio.file.Files.list(p)) {
          s.filter(f -> f.toString().endsWith(".yaml") || f.toString().endsWith(".yml")).sorted().forEach(files::add);
        } catch (java.io.IOException e) {
          problems.add(new Problem(p.toString(), 0, 0, "cannot list: " + e.getMessage()));
        }
      } else {
        files.add(p);
      }
    }
    List<ValidationCase> out = new ArrayList<>();
    for (Path f : files) {
      try {
        out.add(read(f));
      } catch (InputException e) {
        problems.addAll(e.problems());
      }
    }
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    return out;
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
    Optional<Micro> micro = n.get("microbenchmark").map(m -> {
      String measure = m.str("measure");
      boolean needsLink = measure.equals("link");
      if (needsLink ? m.get("link").isEmpty() : m.get("hardware").isEmpty()) {
        throw new InputException(m.problem("a '" + measure + "' microbenchmark needs '" + (needsLink ? "link" : "hardware") + "'"));
      }
      if (measure.equals("gemm") && m.get("precision").isEmpty()) {
        throw new InputException(m.problem("a 'gemm' microbenchmark needs 'precision'"));
      }
      return new Micro(measure, m.optStr("hardware").orElse(null), m.optStr("link").orElse(null),
          m.optStr("precision").orElse(null), m.integer("dies", 0));
    });
    Node measured = n.require("measured");
    return new ValidationCase(path.toString(), n.line(), n.str("id"), n.str("category"),
        n.get("scenario").map(s -> ScenarioFile.fromNode(s, path.toAbsolutePath().getParent())), micro, n.optStr("skip"), n.optStr("metric").orElse(""),
        measured.num("value"), measured.str("unit"), n.str("source"), n.str("quote"), n.str("confidence"));
  }
}
