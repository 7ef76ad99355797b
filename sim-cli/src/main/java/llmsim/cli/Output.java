package llmsim.cli;

import java.util.Locale;
import picocli.CommandLine.Option;

/** The shared {@code --format} option. */
final class Output {
  @Option(names = "--format", defaultValue = "table", paramLabel = "FMT",
      description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE}). JSON keys are stable"
          + " snake_case, numbers in SI units (s, bytes, tokens/s): the form for scripts. csv is the table as shown,"
          + " its cells with their units (5.48 s, 41.9%%); sweep's CSV has plain numbers, one row per point.")
  Format format = Format.table;

  static String num(double v, int decimals) {
    return String.format(Locale.US, "%." + decimals + "f", v);
  }

  static String print(Format f, TextTable t, Object json) {
    return switch (f) {
      case table -> t.render();
      case csv -> t.csv();
      case json -> Json.write(json);
    };
  }

}
