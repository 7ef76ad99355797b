package llmsim.core.hw;

import java.util.List;

/**
 * An all-reduce's measured bus bandwidth by message size on one link (nccl-tests' busbw column at {@code ranks}
 * GPUs), from which a collective's size-dependent time is read: NCCL reaches its large-message bus bandwidth only
 * for large messages, and below that its protocols, chunking and channel counts cost time the link's rate and
 * per-step latency do not give.
 *
 * <p>What is taken from the curve is its shape, {@link #fraction}: the busbw at a size over the busbw at the
 * curve's largest size (the curve's own large-message figure), 1 beyond it, so that the link's calibrated
 * large-message rate stays what moves the bytes. Between two measured sizes the busbw is interpolated linearly in
 * the logarithm of the size; below the smallest the time is the smallest size's (a floor: busbw proportional to
 * the size).
 *
 * @param ranks the GPU count the curve was measured at
 * @param bytes message sizes, strictly increasing, in bytes
 * @param busBytesPerSecond the bus bandwidth measured at each size, bytes/s
 * @param source where the measurement comes from
 */
public record BusBandwidthCurve(int ranks, List<Double> bytes, List<Double> busBytesPerSecond, String source) {

  public BusBandwidthCurve {
    bytes = List.copyOf(bytes);
    busBytesPerSecond = List.copyOf(busBytesPerSecond);
    if (ranks < 2) {
      throw new IllegalArgumentException("a bus bandwidth curve needs at least 2 ranks, was " + ranks);
    }
    if (bytes.isEmpty() || bytes.size() != busBytesPerSecond.size()) {
      throw new IllegalArgumentException("a bus bandwidth curve needs as many bus bandwidths as sizes, at least one ("
          + bytes.size() + " sizes, " + busBytesPerSecond.size() + " bandwidths)");
    }
    for (int i = 0; i < bytes.size(); i++) {
      if (!(bytes.get(i) > 0) || !(busBytesPerSecond.get(i) > 0)) {
        throw new IllegalArgumentException("bus bandwidth curve point " + (i + 1) + ": size and bus bandwidth must be"
            + " positive, were " + bytes.get(i) + " B and " + busBytesPerSecond.get(i) + " B/s");
      }
      if (i > 0 && !(bytes.get(i) > bytes.get(i - 1))) {
        throw new IllegalArgumentException("bus bandwidth curve point " + (i + 1) + ": sizes must increase, "
            + bytes.get(i) + " B after " + bytes.get(i - 1) + " B");
      }
    }
    if (source == null || source.isBlank()) {
      throw new IllegalArgumentException("a bus bandwidth curve needs its source");
    }
  }

  /**
   * The measured bus bandwidth at {@code size} bytes (B/s), as the class comment reads the curve, held so that a
   * larger message never takes less time ({@code size / busbw}) than a smaller measured one: a table's busbw is
   * rounded (nccl-tests prints two decimals, so small sizes' times dip and rise by several percent), and more bytes
   * through the same ring cannot finish sooner.
   */
  public double busBandwidth(double size) {
    double slowest = 0;
    for (int i = 0; i < bytes.size() && bytes.get(i) <= size; i++) {
      slowest = Math.max(slowest, bytes.get(i) / busBytesPerSecond.get(i));
    }
    double read = interpolated(size);
    return slowest > 0 ? Math.min(read, size / slowest) : read;
  }

  private double interpolated(double size) {
    int last = bytes.size() - 1;
    if (size >= bytes.get(last)) {
      return busBytesPerSecond.get(last);
    }
    if (size <= bytes.get(0)) {
      return busBytesPerSecond.get(0) * size / bytes.get(0);
    }
    int i = 1;
    while (bytes.get(i) < size) {
      i++;
    }
    if (bytes.get(i) == size) {
      return busBytesPerSecond.get(i);
    }
    double x = Math.log(size / bytes.get(i - 1)) / Math.log(bytes.get(i) / bytes.get(i - 1));
    return busBytesPerSecond.get(i - 1) + x * (busBytesPerSecond.get(i) - busBytesPerSecond.get(i - 1));
  }

  /** The busbw at {@code size} over the curve's large-message busbw (its largest size's), at most 1. */
  public double fraction(double size) {
    return Math.min(1, busBandwidth(size) / busBytesPerSecond.get(bytes.size() - 1));
  }

  /**
   * The time beyond the bytes' own that a collective of {@code size} bytes takes, moving {@code moved} bytes
   * through each rank's link at {@code rate}: {@code moved / (rate x fraction) - moved / rate}.
   */
  public double extraSeconds(double size, double moved, double rate) {
    return extraAtFraction(moved, rate, fraction(size));
  }

  /**
   * The time beyond the bytes' own of moving {@code moved} bytes at {@code fraction} of {@code rate}:
   * {@code moved / (rate x fraction) - moved / rate} (one table's or a link's several tables' reading).
   */
  static double extraAtFraction(double moved, double rate, double fraction) {
    return moved / (rate * fraction) - moved / rate;
  }
}
