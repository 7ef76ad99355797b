package llmsim.cli;

import java.util.List;
import java.util.Map;

/**
 * The field/value tables of {@code hardware show} and {@code models show}: the JSON's snake_case fields, flattened
 * with dots, each number as a reader takes it in, with the unit its field name carries ({@code _bytes} in GiB or GB,
 * {@code _bytes_per_s} in GB/s or TB/s, {@code _flops} in TFLOP/s, {@code _w} in W, {@code _s} in us, ms or s) and
 * without binary noise ({@code 2.41 us}, not {@code 2.4100000000000002E-6}). JSON keeps the exact SI numbers.
 */
final class FieldCells {
  private FieldCells() {}

  /** Significant digits shown: enough for every figure the catalog quotes from its sources (55.43 GB/s, 989.4). */
  private static final int DIGITS = 6;

  /** The rows of {@code m} into {@code t}, nested maps flattened as {@code outer.inner}. */
  @SuppressWarnings("unchecked")
  static void flatten(String prefix, Map<String, Object> m, TextTable t) {
    for (var e : m.entrySet()) {
      String k = prefix + e.getKey();
      if (e.getValue() instanceof Map<?, ?> sub) {
        flatten(k + ".", (Map<String, Object>) sub, t);
      } else {
        t.row(List.of(k, cell(k, e.getValue())));
      }
    }
  }

  /** One value as shown: a number with the unit of its field's name, anything else as it reads. */
  static String cell(String field, Object value) {
    if (!(value instanceof Number n) || !Double.isFinite(n.doubleValue())) {
      return String.valueOf(value);
    }
    double v = n.doubleValue();
    if (value instanceof Integer || value instanceof Long) {
      return field.endsWith("_bytes") ? bytes(field, v) : String.valueOf(value);
    }
    if (field.endsWith("_bytes_per_s") || field.endsWith("_bytes_per_s_per_direction")) {
      return v >= 1e12 ? plain(v / 1e12) + " TB/s" : plain(v / 1e9) + " GB/s";
    }
    if (field.endsWith("_bytes")) {
      return bytes(field, v);
    }
    if (field.endsWith("_flops")) {
      return plain(v / 1e12) + (field.contains("int8") ? " TOP/s" : " TFLOP/s");
    }
    if (field.endsWith("_w")) {
      return plain(v) + " W";
    }
    if (field.endsWith("_s")) {
      return v == 0 ? "0 s" : v < 1e-3 ? plain(v * 1e6) + " us" : v < 1 ? plain(v * 1e3) + " ms" : plain(v) + " s";
    }
    // counts whole (6.738415616E9 -> 6738415616), fractions to the digits above
    return v == Math.rint(v) && Math.abs(v) < 1e15 ? Long.toString((long) v) : plain(v);
  }

  /** Memory sizes in binary units (80 GiB is 85.9e9 bytes), other byte counts in decimal ones. */
  private static String bytes(String field, double v) {
    boolean binary = field.contains("capacity") || field.contains("usable") || field.contains("cache");
    if (binary) {
      return v >= 1024.0 * 1024 * 1024 ? plain(v / (1024.0 * 1024 * 1024)) + " GiB"
          : plain(v / (1024.0 * 1024)) + " MiB";
    }
    return v >= 1e9 ? plain(v / 1e9) + " GB" : plain(v / 1e6) + " MB";
  }

  private static String plain(double v) {
    return Output.significant(v, DIGITS);
  }
}
