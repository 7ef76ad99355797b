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

  /**
   * {@code v} to {@code decimals} places, or, where that would leave fewer than three significant digits of a
   * positive number (a one-step job's 0.0036 GPU-hours read 0.00), to three significant digits.
   */
  static String atLeast3Digits(double v, int decimals) {
    return v > 0 && v < Math.pow(10, 2 - decimals) ? significant(v, 3) : num(v, decimals);
  }

  /** {@code v} to {@code digits} significant digits, with no exponent and no trailing zeros (0 as "0"). */
  static String significant(double v, int digits) {
    return v == 0 ? "0"
        : new java.math.BigDecimal(v).round(new java.math.MathContext(digits)).stripTrailingZeros().toPlainString();
  }

  static String print(Format f, TextTable t, Object json) {
    return switch (f) {
      case table -> t.render();
      case csv -> t.csv();
      case json -> Json.write(json);
    };
  }

}
