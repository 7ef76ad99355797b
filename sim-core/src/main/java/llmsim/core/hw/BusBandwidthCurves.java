package llmsim.core.hw;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A link's measured all-reduce bus bandwidth by message size at one or more rank counts (one nccl-tests table per
 * GPU count, each a {@link BusBandwidthCurve}), from which a ring collective over {@code n} ranks takes its
 * size-dependent time.
 *
 * <p>Which table: the one measured at {@code n} ranks if there is one, else the one at the nearest measured rank
 * count (the larger of the two on a tie). A link with one table reads it at every rank count.
 *
 * <p>Against what: every table is read against one large-message figure, the busbw at the largest size of the
 * table measured at the most ranks (the {@link #reference()}): {@code fraction(n, size)} is the busbw the table for
 * {@code n} gives at {@code size} over that figure, at most 1. Tables measured on one machine at fewer ranks that
 * top out lower (vTrain's A100: 197 GB/s at 1 GiB on 2 GPUs, 229 on 8) so keep their lower top; reading each
 * table against its own largest size would give every rank count the link's full rate at large sizes. With one
 * table this is {@link BusBandwidthCurve#fraction}. The link's calibrated large-message rate stays what moves the
 * bytes: a collective costs {@code moved / (rate x fraction)}.
 *
 * @param tables the measured tables, at distinct rank counts, held in increasing rank count
 */
public record BusBandwidthCurves(List<BusBandwidthCurve> tables) {

  public BusBandwidthCurves {
    if (tables == null || tables.isEmpty()) {
      throw new IllegalArgumentException("a link's bus bandwidth curves need at least one table");
    }
    List<BusBandwidthCurve> sorted = new ArrayList<>(tables);
    sorted.sort(Comparator.comparingInt(BusBandwidthCurve::ranks));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).ranks() == sorted.get(i - 1).ranks()) {
        throw new IllegalArgumentException("two bus bandwidth tables measured at " + sorted.get(i).ranks()
            + " ranks: give one table per rank count");
      }
    }
    tables = List.copyOf(sorted);
  }

  /** One table, read at every rank count. */
  public static BusBandwidthCurves of(BusBandwidthCurve table) {
    return new BusBandwidthCurves(List.of(table));
  }

  /** The table measured at the most ranks: its largest size's busbw is the figure every table is read against. */
  public BusBandwidthCurve reference() {
    return tables.get(tables.size() - 1);
  }

  /** The table a collective over {@code ranks} ranks reads: measured at {@code ranks}, else the nearest (larger on a tie). */
  public BusBandwidthCurve at(int ranks) {
    BusBandwidthCurve best = tables.get(0);
    for (BusBandwidthCurve t : tables) {
      if (Math.abs(t.ranks() - ranks) <= Math.abs(best.ranks() - ranks)) {
        best = t;
      }
    }
    return best;
  }

  /** The busbw the table for {@code ranks} gives at {@code size} over the reference's large-message busbw, at most 1. */
  public double fraction(int ranks, double size) {
    BusBandwidthCurve ref = reference();
    double top = ref.busBytesPerSecond().get(ref.bytes().size() - 1);
    return Math.min(1, at(ranks).busBandwidth(size) / top);
  }

  /**
   * The time beyond the bytes' own that a collective over {@code ranks} ranks of {@code size} bytes takes, moving
   * {@code moved} bytes through each rank's link at {@code rate}: {@code moved / (rate x fraction) - moved / rate}.
   */
  public double extraSeconds(int ranks, double size, double moved, double rate) {
    return BusBandwidthCurve.extraAtFraction(moved, rate, fraction(ranks, size));
  }
}
