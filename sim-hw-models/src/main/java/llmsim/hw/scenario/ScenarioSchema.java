package llmsim.hw.scenario;

import java.util.List;
import java.util.stream.Collectors;
import llmsim.core.scenario.ScenarioKey;

/**
 * The JSON Schemas of scenario and grid files, generated from the {@link ScenarioKey} table so that the
 * files, the flags and the sweep axes can never disagree. Validation case files embed the scenario schema.
 */
public final class ScenarioSchema {
  private ScenarioSchema() {}

  /** {@code scenario.schema.json}. */
  public static String scenario() {
    return document("scenario", "llmsim scenario",
        "One task on one model, on one or more systems. Keys are the command-line flags with underscores.",
        properties(false, "    "), "");
  }

  /** {@code grid.schema.json}: each key one value or a list. */
  public static String grid() {
    return document("grid", "llmsim sweep grid",
        "A cartesian grid: each key is one value or a list of values; keys are the scenario keys, with models and"
            + " tasks in the plural.",
        properties(true, "    "), ",\n  \"required\": [\"hardware\", \"models\"]");
  }

  /**
   * The scenario object as it sits inside a validation case: hardware required; the model is required of every case
   * but a ratio case, whose runs name the models (the case reader checks it).
   */
  public static String embeddedScenario() {
    return embedded("[\"hardware\"]");
  }

  /** One run of a ratio case: scenario keys laid over both the scenario and the baseline (the model required). */
  public static String embeddedRun() {
    return embedded("[\"model\"]");
  }

  private static String embedded(String required) {
    return "{\"type\": \"object\", \"additionalProperties\": false, \"required\": " + required + ",\n"
        + "  \"x-renamed\": " + renamed() + ",\n"
        + "  \"properties\": {\n" + properties(false, "    ") + "\n  }}";
  }

  private static String document(String kind, String title, String description, String properties, String extra) {
    return "{\n"
        + "  \"$schema\": \"https://json-schema.org/draft/2020-12/schema\",\n"
        + "  \"$id\": \"https://llmsim.io/schema/" + kind + ".schema.json\",\n"
        + "  \"title\": " + quote(title) + ",\n"
        + "  \"description\": " + quote(description + " Generated from the scenario key table.") + ",\n"
        + "  \"type\": \"object\",\n"
        + "  \"additionalProperties\": false" + extra + ",\n"
        + "  \"x-renamed\": " + renamed() + ",\n"
        // a validation case copied as a scenario, its kind changed, keeps its keys one level down
        + "  \"x-refused\": {\"^(scenario|baseline)$\": \"a validation case's block: in a " + kind + " file its keys"
        + " go at the top level (hardware, model, task ...); `llmsim validate CASE.yaml` runs the case as it is\"},\n"
        + "  \"properties\": {\n"
        + "    \"kind\": {\"const\": \"" + kind + "\"},\n"
        + "    \"description\": {\"type\": \"string\"},\n"
        + properties + "\n"
        + "  }\n"
        + "}\n";
  }

  /** Renamed keys and what to write instead: the validator names the new key rather than guessing. */
  private static String renamed() {
    return ScenarioKey.RENAMED.entrySet().stream().sorted(java.util.Map.Entry.comparingByKey())
        .map(e -> quote(e.getKey()) + ": " + quote(e.getValue())).collect(Collectors.joining(", ", "{", "}"));
  }

  private static String properties(boolean grid, String indent) {
    return java.util.Arrays.stream(ScenarioKey.values())
        .filter(k -> !grid || k.sweepable())
        .map(k -> indent + quote(grid ? k.gridKey() : k.key()) + ": " + property(k, grid))
        .collect(Collectors.joining(",\n"));
  }

  private static String property(ScenarioKey k, boolean grid) {
    String help = "\"description\": " + quote(k.longHelp());
    if (k.type() == ScenarioKey.Type.IDS) {
      return "{\"type\": [\"string\", \"array\"], \"items\": {\"type\": \"string\", \"minLength\": 1}, \"minItems\": 1,"
          + " \"minLength\": 1, " + help + "}";
    }
    String rules = rules(k);
    String sep = rules.isEmpty() ? "" : ", ";
    if (!grid) {
      return "{" + types(k, false) + sep + rules + ", " + help + "}";
    }
    // one value or a list: the list's items carry the rule; scalar keywords (enum, minimum, ...) check the
    // scalar form, since the validator applies them to scalars only
    return "{" + types(k, true) + ", \"items\": {" + types(k, false) + sep + rules + "}, \"minItems\": 1" + sep + rules
        + ", " + help + "}";
  }

  private static String types(ScenarioKey k, boolean orList) {
    String t = switch (k.type()) {
      case TEXT, PRICES, RATES, PER_KWH, DURATION -> "\"string\"";
      case CHOICE -> "\"string\"";
      case BOOL -> "\"boolean\"";
      case INT -> "\"integer\"";
      case INT_OR_AUTO, COUNT -> "\"integer\", \"string\"";
      case IDS -> throw new AssertionError(k);
    };
    return "\"type\": [" + (orList ? "\"array\", " : "") + t + "]";
  }

  private static String rules(ScenarioKey k) {
    return switch (k.type()) {
      case TEXT, PRICES, RATES, PER_KWH, DURATION -> "\"minLength\": 1";
      case CHOICE -> "\"enum\": [" + quoted(k.choices()) + "]";
      case BOOL -> "";
      case INT -> "\"minimum\": " + k.min() + ", \"maximum\": " + k.max();
      case INT_OR_AUTO -> "\"pattern\": \"^auto$\", \"patternDescription\": \"be auto or a whole number\", \"minimum\": "
          + k.min() + ", \"maximum\": " + k.max();
      case COUNT -> "\"pattern\": \"^[0-9][0-9_.]*[KkMmBbGgTt]?$\", \"patternDescription\": \"be a whole number, or one"
          + " with a suffix K, M, B or T\", \"minimum\": " + k.min() + ", \"maximum\": " + k.max();
      case IDS -> throw new AssertionError(k);
    };
  }

  private static String quoted(List<String> values) {
    return values.stream().map(ScenarioSchema::quote).collect(Collectors.joining(", "));
  }

  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        default -> b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
