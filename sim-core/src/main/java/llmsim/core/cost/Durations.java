package llmsim.core.cost;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Spans written by people: {@code 90min}, {@code 36h}, {@code 3d}, {@code 2w}, {@code 3y} (a year is 365 days). */
public final class Durations {
  private Durations() {}

  /** The sign is matched so that "-1d" is told it must be above zero, not that it is not a number and a unit. */
  private static final Pattern TEXT = Pattern.compile("([-+]?[0-9]+(?:\\.[0-9]+)?)\\s*(s|min|h|d|w|y)");

  /** Seconds in {@code text}; must be > 0. */
  public static double seconds(String text) {
    String v = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
    Matcher m = TEXT.matcher(v);
    if (!m.matches()) {
      throw new IllegalArgumentException("must be a number and a unit (s, min, h, d, w, y) such as 36h or 3d, was '"
          + text + "'");
    }
    double n = Double.parseDouble(m.group(1));
    if (!(n > 0)) {
      throw new IllegalArgumentException("must be > 0, was '" + text + "'");
    }
    double unit = switch (m.group(2)) {
      case "s" -> 1;
      case "min" -> 60;
      case "h" -> 3600;
      case "d" -> 86400;
      case "w" -> 7 * 86400;
      default -> 365 * 86400;
    };
    return n * unit;
  }
}
