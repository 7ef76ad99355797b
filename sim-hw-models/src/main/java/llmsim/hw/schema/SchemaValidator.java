package llmsim.hw.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import llmsim.core.util.Suggest;
import llmsim.hw.scenario.ScenarioSchema;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;

/**
 * Checks a {@link Node} tree against one of the JSON Schemas shipped in the jar
 * ({@code /llmsim/schema/KIND.schema.json}) and reports every violation with its line and column.
 *
 * <p>It interprets the subset of JSON Schema (2020-12) those files use: {@code type}, {@code enum},
 * {@code const}, {@code minimum}, {@code exclusiveMinimum}, {@code maximum}, {@code pattern},
 * {@code minLength}, {@code properties}, {@code required}, {@code additionalProperties},
 * {@code dependentRequired}, {@code items}, {@code minItems} and local {@code $ref}s into {@code $defs}.
 */
public final class SchemaValidator {

  public static final List<String> KINDS = List.of("device", "host", "link", "system", "model", "scenario", "case", "grid",
      "prices");

  private final Node schema;

  private SchemaValidator(Node schema) {
    this.schema = schema;
  }

  public static SchemaValidator forKind(String kind) {
    return new SchemaValidator(TreeReader.read(kind + ".schema.json", schemaText(kind)));
  }

  /**
   * The schema text of a file kind. Scenario and grid schemas are generated from the scenario key table;
   * the case schema is shipped in the jar with the generated scenario schema spliced into its {@code $defs}.
   */
  public static String schemaText(String kind) {
    switch (kind) {
      case "scenario":
        return ScenarioSchema.scenario();
      case "grid":
        return ScenarioSchema.grid();
      case "case":
        return withScenarioDef(resourceText(kind));
      default:
        return resourceText(kind);
    }
  }

  private static String withScenarioDef(String caseSchema) {
    int end = caseSchema.lastIndexOf('}');
    return caseSchema.substring(0, end).stripTrailing() + ",\n  \"$defs\": {\"scenario\": "
        + ScenarioSchema.embeddedScenario() + ",\n  \"run\": " + ScenarioSchema.embeddedRun() + "}\n}\n";
  }

  private static String resourceText(String kind) {
    String resource = "/llmsim/schema/" + kind + ".schema.json";
    try (InputStream in = SchemaValidator.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalArgumentException("no schema for kind '" + kind + "' (kinds: " + String.join(", ", KINDS) + ")");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Whether a document of this kind may have a top-level field {@code name}. */
  public boolean hasProperty(String name) {
    return schema.get("properties").flatMap(p -> p.get(name)).isPresent();
  }

  /**
   * All problems with {@code doc}; empty when it conforms. A file of another known kind is one problem, naming the kind
   * it is and what reads it: checked field by field, a validation case given as a scenario read as a dozen unknown
   * fields.
   */
  public List<Problem> check(Node doc) {
    Problem wrongKind = wrongKind(doc);
    if (wrongKind != null) {
      return List.of(wrongKind);
    }
    List<Problem> out = new ArrayList<>();
    check(doc, schema, "", null, out);
    return out;
  }

  /** Throws an {@link InputException} naming every problem, if there are any. */
  public void validate(Node doc) {
    List<Problem> p = check(doc);
    if (!p.isEmpty()) {
      throw new InputException(p);
    }
  }

  /** The one problem of a document whose {@code kind} is another known kind than this schema's; null otherwise. */
  private Problem wrongKind(Node doc) {
    Node expected = schema.get("properties").flatMap(p -> p.get("kind")).flatMap(k -> k.get("const")).orElse(null);
    Node kind = doc.kind() == Node.Kind.OBJECT ? doc.get("kind").orElse(null) : null;
    if (expected == null || kind == null || kind.asText().equals(expected.asText()) || !KINDS.contains(kind.asText())) {
      return null;
    }
    return kind.problem("this is a " + kind.asText() + " file, where a " + expected.asText() + " file is needed: "
        + readBy(kind.asText(), doc.file()));
  }

  /** What reads a file of this kind, as a command to run. */
  private static String readBy(String kind, String file) {
    return switch (kind) {
      case "case" -> "a validation case, run by `llmsim validate " + file + "`; its `scenario:` block, saved as a"
          + " file with kind: scenario, runs with `llmsim simulate`";
      case "scenario" -> "`llmsim simulate " + file + "` runs it (compare, explain and memory read it with --scenario)";
      case "grid" -> "a sweep grid, run by `llmsim sweep " + file + "`";
      case "device", "system" -> "name it with --hardware " + file;
      case "model" -> "name it with --model " + file;
      case "prices" -> "give it with --price " + file;
      default -> "a system file names it by its id; `llmsim hardware validate " + file + "` checks it";
    };
  }

  private void check(Node n, Node schemaOrRef, String path, Node parent, List<Problem> out) {
    Node s = schemaOrRef.get("$ref").isPresent() ? resolve(schemaOrRef.str("$ref")) : schemaOrRef;
    String where = path.isEmpty() ? "the document" : "'" + path + "'";
    if (s.get("type").isPresent() && !typeMatches(n, s.require("type"))) {
      // 'fp16:' with nothing after it reads as an empty string: "was a string \"\"" named a string no one wrote
      boolean empty = n.kind() == Node.Kind.STRING && n.asText().isEmpty();
      out.add(n.problem(where + " must be " + describeType(s.require("type")) + ", was "
          + (empty ? "empty: write the value after the colon" : n.kind().describe())
          + (empty ? "" : n.kind() == Node.Kind.STRING ? " \"" + n.shortText() + "\"" + unitHint(n)
              : n.kind() == Node.Kind.NUMBER || n.kind() == Node.Kind.INTEGER ? " " + n.asText() : "")));
      return;
    }
    boolean scalar = n.kind() != Node.Kind.ARRAY && n.kind() != Node.Kind.OBJECT;
    s.get("const").filter(c -> scalar).ifPresent(c -> {
      if (!c.asText().equals(n.asText())) {
        out.add(n.problem(where + " must be '" + c.asText() + "', was '" + n.shortText() + "'"));
      }
    });
    s.get("enum").filter(e -> scalar).ifPresent(e -> {
      List<String> allowed = e.items().stream().map(Node::asText).toList();
      if (!allowed.contains(n.asText())) {
        String near = n.asText().length() > 64 ? null : Suggest.closeMatch(n.asText(), allowed);
        out.add(n.problem(where + " must be one of " + String.join(", ", allowed) + ", was '" + n.shortText() + "'"
            + (near == null ? "" : " (did you mean '" + near + "'?)")));
      }
    });
    if (n.isNumber()) {
      String range = rangeProblem(n.asDouble(), s);
      if (range != null) {
        out.add(n.problem(where + " must be " + range + ", was " + n.asText()));
      }
    }
    if (n.kind() == Node.Kind.STRING) {
      s.get("minLength").ifPresent(m -> {
        if (n.asText().length() < m.asLong()) { // "must not be empty" said of a source "x" read as false
          out.add(n.problem(where + (n.asText().isEmpty() || m.asLong() <= 1 ? " must not be empty"
              : " must be at least " + m.asLong() + " characters, was '" + n.shortText() + "'")));
        }
      });
      s.get("pattern").ifPresent(pat -> {
        if (!Pattern.compile(pat.asText()).matcher(n.asText()).find()) {
          String desc = s.optStr("patternDescription").orElse("match " + pat.asText());
          out.add(n.problem(where + " must " + desc + ", was '" + n.shortText() + "'"));
        }
      });
    }
    if (n.kind() == Node.Kind.OBJECT) {
      checkObject(n, s, path, out);
    }
    if (n.kind() == Node.Kind.ARRAY) {
      s.get("minItems").ifPresent(m -> {
        if (n.items().size() < m.asLong()) {
          out.add(n.problem(where + " needs at least " + m.asLong() + " item(s)"));
        }
      });
      s.get("items").ifPresent(is -> {
        for (int i = 0; i < n.items().size(); i++) {
          check(n.items().get(i), is, path + "[" + i + "]", n, out);
        }
      });
    }
  }

  /**
   * Why a key the schema's {@code x-refused} names by pattern is not taken (a key a user writes for a figure the
   * schema refuses on purpose, such as a sparse peak, which the nearest known key would invite under the wrong name);
   * null where none matches.
   */
  private static String refusal(Node s, String key) {
    Node refused = s.get("x-refused").orElse(null);
    if (refused == null) {
      return null;
    }
    for (var e : refused.fields().entrySet()) {
      if (key.matches(e.getKey())) {
        return e.getValue().asText();
      }
    }
    return null;
  }

  private void checkObject(Node n, Node s, String path, List<Problem> out) {
    Node props = s.get("properties").orElse(null);
    List<String> known = props == null ? List.of() : new ArrayList<>(props.fields().keySet());
    Node additional = s.get("additionalProperties").orElse(null);
    for (var e : n.fields().entrySet()) {
      String key = e.getKey();
      String sub = path.isEmpty() ? key : path + "." + key;
      if (props != null && props.get(key).isPresent()) {
        check(e.getValue(), props.require(key), sub, n, out);
      } else if (refusal(s, key) != null) {
        out.add(n.problemAtKey(key, "'" + sub + "': " + refusal(s, key)));
      } else if (s.get("x-renamed").flatMap(r -> r.get(key)).isPresent()) {
        out.add(n.problemAtKey(key, "'" + key + "' was renamed: write " + s.require("x-renamed").require(key).asText()));
      } else if (additional != null && additional.kind() == Node.Kind.BOOLEAN && !additional.asBoolean()) {
        String near = key.length() > 64 ? null : Suggest.closeMatch(key, known);
        String shown = sub.length() <= 80 ? sub : sub.substring(0, 77) + "...";
        out.add(n.problemAtKey(key, "unknown field '" + shown + "'"
            + (near == null ? " (allowed: " + String.join(", ", known) + ")" : " (did you mean '" + near + "'?)")));
      } else if (additional != null && additional.kind() == Node.Kind.OBJECT) {
        check(e.getValue(), additional, sub, n, out);
      }
    }
    s.get("required").ifPresent(r -> {
      for (Node req : r.items()) {
        String key = req.asText();
        if (n.get(key).isEmpty()) {
          out.add(n.problem("missing required field '" + (path.isEmpty() ? key : path + "." + key) + "'"));
        }
      }
    });
    s.get("dependentRequired").ifPresent(d -> {
      for (var e : d.fields().entrySet()) {
        if (n.get(e.getKey()).isPresent()) {
          for (Node req : e.getValue().items()) {
            if (n.get(req.asText()).isEmpty()) {
              out.add(n.problemAtKey(e.getKey(), "'" + e.getKey() + "' needs '" + req.asText() + "' next to it"));
            }
          }
        }
      }
    });
  }

  /** The first bound {@code v} breaks (exclusiveMinimum, minimum, maximum), or null: one message per value. */
  private static String rangeProblem(double v, Node s) {
    var exclusiveMin = s.get("exclusiveMinimum");
    if (exclusiveMin.isPresent() && !(v > exclusiveMin.get().asDouble())) {
      return "> " + fmt(exclusiveMin.get().asDouble());
    }
    var min = s.get("minimum");
    if (min.isPresent() && !(v >= min.get().asDouble())) {
      return ">= " + fmt(min.get().asDouble());
    }
    var max = s.get("maximum");
    if (max.isPresent() && !(v <= max.get().asDouble())) {
      return "<= " + fmt(max.get().asDouble());
    }
    return null;
  }

  private Node resolve(String ref) {
    String prefix = "#/$defs/";
    if (!ref.startsWith(prefix)) {
      throw new IllegalStateException("only local $defs refs are supported, got " + ref);
    }
    return schema.require("$defs").require(ref.substring(prefix.length()));
  }

  private static boolean typeMatches(Node n, Node type) {
    if (type.kind() == Node.Kind.ARRAY) {
      return type.items().stream().anyMatch(t -> typeMatches(n, t));
    }
    switch (type.asText()) {
      case "object": return n.kind() == Node.Kind.OBJECT;
      case "array": return n.kind() == Node.Kind.ARRAY;
      case "string": return n.kind() == Node.Kind.STRING;
      case "boolean": return n.kind() == Node.Kind.BOOLEAN;
      case "integer": return n.kind() == Node.Kind.INTEGER;
      case "number": return n.isNumber();
      case "null": return n.kind() == Node.Kind.NULL;
      default: throw new IllegalStateException("unknown schema type " + type.asText());
    }
  }

  private static String describeType(Node type) {
    if (type.kind() == Node.Kind.ARRAY) {
      return String.join(" or ", type.items().stream().map(t -> describeType(t)).toList());
    }
    String t = type.asText();
    return switch (t) {
      case "object" -> "a mapping";
      case "array" -> "a list";
      case "integer" -> "an integer";
      default -> "a " + t;
    };
  }

  private static String unitHint(Node n) {
    String s = n.asText().trim().toLowerCase(Locale.ROOT);
    if (s.length() > 64) {
      return "";
    }
    if (s.matches("[0-9.eE+-]+\\s*[a-z/]+.*")) {
      return " (write the bare number; the unit is in the field name)";
    }
    return "";
  }

  private static String fmt(double d) {
    if (d == Math.rint(d) && Math.abs(d) < 1e18) {
      return String.valueOf((long) d);
    }
    return String.valueOf(d);
  }
}
