package llmsim.core.software;

import java.time.LocalDate;
import java.time.YearMonth;
import java.time.format.DateTimeParseException;

/** A {@code software_date} as the dated profiles (llama.cpp's builds, MLX's versions) read it. */
final class SoftwareDate {
  private SoftwareDate() {}

  /**
   * The date {@code text} names: YYYY-MM (the month's first day) or YYYY-MM-DD. {@code forWhat} finishes the refusal
   * of anything else, e.g. {@code "llama.cpp (the build's date selects its kernels)"}.
   */
  static LocalDate parse(String text, String forWhat) {
    String v = text.strip();
    try {
      return v.length() == 7 ? YearMonth.parse(v).atDay(1) : LocalDate.parse(v);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("'software_date' must be a date YYYY-MM or YYYY-MM-DD for " + forWhat
          + ", was '" + text + "'", e);
    }
  }
}
