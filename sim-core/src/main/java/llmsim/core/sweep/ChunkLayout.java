package llmsim.core.sweep;

import java.io.Serializable;

/**
 * How {@code points} indexes are cut into chunks: chunks of {@code size} in index order, except that a long run ends
 * in smaller ones, so that the last chunks to finish are short and the workers run out of work at about the same
 * time. The points vary in cost (a simulated pipeline of 128 micro-batches takes ~8x one of 16), and with chunks of one
 * size the run ends when the last full chunk does, while the other workers idle: on average about half a chunk of one
 * worker's time, 5% of a 432-point sweep on two workers (docs/DISTRIBUTED.md, eighth run).
 *
 * <p>The tail, when there are at least four full chunks' worth of points and {@code size} is at least 2: two chunks each
 * of {@code size / 2}, {@code size / 4}, ... down to {@code max(1, size / 16)} (for 16: 8, 8, 4, 4, 2, 2, 1, 1, 30
 * points; for 2,048: 1,024 down to 128, 3,840 points), after {@code ceil((points - tail) / size)} chunks of
 * {@code size} (the last of which may be short). The layout is a function of the two numbers alone, and rows are
 * written in index order whatever it is, so the output does not depend on it.
 */
public record ChunkLayout(long points, int size) implements Serializable {
  private static final long serialVersionUID = 1L;

  public ChunkLayout {
    if (points < 0 || size < 1) {
      throw new IllegalArgumentException("points must be >= 0 and size >= 1, were " + points + ", " + size);
    }
  }

  /** The smallest chunk of the tail. */
  private int smallest() {
    return Math.max(1, size / 16);
  }

  /** Points in the tail of smaller chunks (0: none). */
  long tailPoints() {
    if (size < 2 || points < 4L * size) {
      return 0;
    }
    long t = 0;
    for (int s = size / 2; s >= smallest(); s /= 2) {
      t += 2L * s;
    }
    return t;
  }

  /** Chunks of the full size, before the tail (the last may be short). */
  private long body() {
    return (points - tailPoints() + size - 1) / size;
  }

  /** How many chunks. */
  public long chunks() {
    long tail = 0;
    if (tailPoints() > 0) {
      for (int s = size / 2; s >= smallest(); s /= 2) {
        tail += 2;
      }
    }
    return body() + tail;
  }

  /** The first point of chunk {@code c}. */
  public long start(long c) {
    long body = body();
    long bodyPoints = points - tailPoints();
    if (c < body) {
      return c * size;
    }
    long at = bodyPoints;
    long k = c - body; // chunks into the tail
    for (int s = size / 2; k > 0; s /= 2) {
      long n = Math.min(2, k);
      at += n * s;
      k -= n;
    }
    return at;
  }

  /** One past the last point of chunk {@code c}. */
  public long end(long c) {
    return c + 1 < chunks() ? start(c + 1) : points;
  }
}
