package llmsim.core.util;

/** Argument checks that name the rule and the offending value (Caffeine's {@code requireArgument} style). */
public final class Checks {
  private Checks() {}

  public static double positive(String what, double value) {
    if (!(value > 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(what + " must be > 0, was " + value);
    }
    return value;
  }

  public static double nonNegative(String what, double value) {
    if (!(value >= 0) || Double.isInfinite(value)) {
      throw new IllegalArgumentException(what + " must be >= 0, was " + value);
    }
    return value;
  }

  public static double fraction(String what, double value) {
    if (!(value > 0 && value <= 1)) {
      throw new IllegalArgumentException(what + " must be in (0, 1], was " + value);
    }
    return value;
  }

  public static int positive(String what, int value) {
    if (value <= 0) {
      throw new IllegalArgumentException(what + " must be > 0, was " + value);
    }
    return value;
  }

  public static <T> T notNull(String what, T value) {
    if (value == null) {
      throw new IllegalArgumentException(what + " is required");
    }
    return value;
  }

  public static String notBlank(String what, String value) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(what + " must not be blank");
    }
    return value;
  }
}
