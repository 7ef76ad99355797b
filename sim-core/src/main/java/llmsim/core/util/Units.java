package llmsim.core.util;

import java.util.Locale;

/** Unit constants and formatting. Internally: seconds, bytes, FLOP/s, bytes/s. Convert only at the edges. */
public final class Units {
  private Units() {}

  public static final double GB = 1e9;
  public static final double GIB = 1024.0 * 1024.0 * 1024.0;
  public static final double MIB = 1024.0 * 1024.0;
  public static final double TERA = 1e12;

  public static String gib(double bytes) {
    return String.format(Locale.US, "%.1f GiB", bytes / GIB);
  }

  /** Decimal bytes with a unit that keeps the number readable (kB, MB, GB, TB). */
  public static String gb(double bytes) {
    if (bytes >= 1e12) {
      return String.format(Locale.US, "%.2f TB", bytes / 1e12);
    }
    if (bytes >= 1e9 || bytes == 0) {
      return String.format(Locale.US, "%.1f GB", bytes / GB);
    }
    if (bytes >= 1e6) {
      return String.format(Locale.US, "%.1f MB", bytes / 1e6);
    }
    return String.format(Locale.US, "%.1f kB", bytes / 1e3);
  }

  public static String bandwidth(double bytesPerSecond) {
    if (bytesPerSecond >= 1e12) {
      return String.format(Locale.US, "%.2f TB/s", bytesPerSecond / 1e12);
    }
    return String.format(Locale.US, "%.1f GB/s", bytesPerSecond / 1e9);
  }

  public static String tflops(double flops) {
    return String.format(Locale.US, "%.1f TFLOP/s", flops / 1e12);
  }

  public static String seconds(double s) {
    if (s >= 3600) {
      long total = Math.round(s);
      return String.format(Locale.US, "%d:%02d:%02d (h:mm:ss)", total / 3600, (total / 60) % 60, total % 60);
    }
    if (s >= 1) {
      return String.format(Locale.US, "%.2f s", s);
    }
    if (s >= 1e-3) {
      return String.format(Locale.US, "%.2f ms", s * 1e3);
    }
    return String.format(Locale.US, "%.1f us", s * 1e6);
  }

  /** A long span in the largest unit that keeps it readable: seconds, minutes, hours or days. */
  public static String duration(double s) {
    if (Double.isNaN(s)) {
      return "-";
    }
    if (s < 120) {
      return seconds(s);
    }
    if (s < 2 * 3600) {
      return String.format(java.util.Locale.US, "%.1f min", s / 60);
    }
    if (s < 2 * 86400) {
      return String.format(java.util.Locale.US, "%.1f h", s / 3600);
    }
    return String.format(java.util.Locale.US, "%.1f days", s / 86400);
  }

  public static String percent(double fraction) {
    return String.format(Locale.US, "%.1f%%", fraction * 100);
  }

}
