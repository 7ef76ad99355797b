package llmsim.report.roofline;

import java.util.ArrayList;
import java.util.List;

/**
 * Places text labels next to their points without overlapping one another or the points, in pixel space (y
 * grows downwards). Each label tries positions around its point, nearest first (above, below, right, left, the
 * corners, then rows further up and down), and takes the first that overlaps nothing placed before and stays
 * inside the plot; a label with nowhere free is dropped when optional, else put where it overlaps least.
 */
public final class LabelLayout {
  private LabelLayout() {}

  /** A label to place: its anchor point and its text box size, in pixels. */
  public record Label(double x, double y, double width, double height, boolean optional) {}

  /** A placed box by its centre, or {@link #DROPPED}. */
  public record Box(double cx, double cy, double width, double height) {
    boolean overlaps(Box o) {
      return Math.abs(cx - o.cx) * 2 < width + o.width && Math.abs(cy - o.cy) * 2 < height + o.height;
    }

    double overlapArea(Box o) {
      double dx = (width + o.width) / 2 - Math.abs(cx - o.cx);
      double dy = (height + o.height) / 2 - Math.abs(cy - o.cy);
      return dx > 0 && dy > 0 ? dx * dy : 0;
    }
  }

  public static final Box DROPPED = new Box(Double.NaN, Double.NaN, 0, 0);

  /** Pixels between a point and its label, and the size of the square kept free around every point. */
  static final double GAP = 6;
  static final double MARKER = 12;

  /** One box per label, in order, inside [0, plotWidth] x [0, plotHeight]. */
  public static List<Box> place(List<Label> labels, double plotWidth, double plotHeight) {
    List<Box> taken = new ArrayList<>();
    for (Label l : labels) {
      taken.add(new Box(l.x(), l.y(), MARKER, MARKER));
    }
    List<Box> out = new ArrayList<>();
    for (Label l : labels) {
      Box best = null;
      double bestOverlap = Double.POSITIVE_INFINITY;
      for (double[] c : candidates(l)) {
        Box b = new Box(l.x() + c[0], l.y() + c[1], l.width(), l.height());
        if (b.cx - b.width / 2 < 0 || b.cx + b.width / 2 > plotWidth || b.cy - b.height / 2 < 0
            || b.cy + b.height / 2 > plotHeight) {
          continue;
        }
        double overlap = 0;
        for (Box t : taken) {
          overlap += b.overlapArea(t);
        }
        if (overlap < bestOverlap) {
          best = b;
          bestOverlap = overlap;
        }
        if (overlap == 0) {
          break;
        }
      }
      if (best == null || (bestOverlap > 0 && l.optional())) {
        out.add(DROPPED);
        continue;
      }
      out.add(best);
      taken.add(best);
    }
    return out;
  }

  /** Offsets of the box centre from the point, nearest first. */
  static List<double[]> candidates(Label l) {
    double up = -(l.height() / 2 + GAP);
    double side = l.width() / 2 + GAP;
    List<double[]> c = new ArrayList<>(List.of(new double[] {0, up}, new double[] {0, -up}, new double[] {side, 0},
        new double[] {-side, 0}, new double[] {side, up}, new double[] {-side, up}, new double[] {side, -up},
        new double[] {-side, -up}));
    for (int row = 1; row <= 8; row++) {
      double dy = row * (l.height() + 2);
      for (double dx : new double[] {0, side, -side}) {
        c.add(new double[] {dx, up - dy});
        c.add(new double[] {dx, -up + dy});
      }
    }
    return c;
  }
}
