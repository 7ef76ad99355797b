package llmsim.core.engine;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.kernel.RooflineKernel;

/**
 * What a run did: every op's stream, start, end, FLOPs, bytes and standalone bound. Utilisation and
 * the time attributed to each bound are derived from it.
 *
 * @param makespan time from the first op's start (0) to the last op's end
 */
public record Trace(List<String> streams, List<Lane> lanes, List<String> pools, OpTable.Ops ops, Costs costs,
    double[] start, double[] end, double makespan, String kernel, long events) {

  public int size() {
    return start.length;
  }

  public double duration(int op) {
    return end[op] - start[op];
  }

  /** Busy seconds of each stream (its ops never overlap, so this is a plain sum). */
  public double[] busySeconds() {
    double[] busy = new double[streams.size()];
    for (int i = 0; i < size(); i++) {
      busy[ops.streams()[i]] += duration(i);
    }
    return busy;
  }

  public Bound opBound(int op) {
    double b = costs.bound[op];
    Lane lane = lanes.get(ops.streams()[op]);
    if (lane == Lane.CPU) {
      return Bound.HOST;
    }
    Bound transfer = Bound.ofTransferLane(lane);
    if (transfer != null) {
      return transfer;
    }
    if (b == RooflineKernel.LINK) {
      return Bound.HOST_LINK;
    }
    return b == RooflineKernel.COMPUTE ? Bound.COMPUTE : Bound.DEVICE_MEMORY;
  }

  /**
   * Wall-clock time attributed to each bound, summing to the makespan. At each instant: the bound of
   * the GPU op running, if any, where the first {@code launch} seconds of each GPU op are overhead (dispatch
   * before the work); else the host link if a transfer runs; else the host if a CPU op runs (the GPU waits on
   * them); else overhead (the GPU idles between launches).
   */
  public Map<Bound, Double> timeByBound() {
    List<double[]> gpu = new ArrayList<>();
    List<double[]> link = new ArrayList<>();
    List<double[]> cpu = new ArrayList<>();
    double[] cuts = new double[3 * size() + 2];
    int k = 0;
    for (int i = 0; i < size(); i++) {
      Lane lane = lanes.get(ops.streams()[i]);
      double[] iv = {start[i], end[i], opBound(i).ordinal()};
      switch (lane) {
        case COMPUTE -> {
          double workStart = Math.min(end[i], start[i] + costs.launch[i]);
          if (workStart > start[i]) {
            gpu.add(new double[] {start[i], workStart, Bound.OVERHEAD.ordinal()});
            cuts[k++] = workStart;
          }
          if (end[i] > workStart) {
            gpu.add(new double[] {workStart, end[i], iv[2]});
          }
        }
        case H2D, D2H, FABRIC, NETWORK -> link.add(iv);
        case CPU -> cpu.add(iv);
      }
      cuts[k++] = start[i];
      cuts[k++] = end[i];
    }
    cuts[k++] = 0;
    cuts[k++] = makespan;
    double[] t = Arrays.copyOf(cuts, k);
    Arrays.sort(t);
    Map<Bound, Double> out = new EnumMap<>(Bound.class);
    for (Bound b : Bound.values()) {
      out.put(b, 0.0);
    }
    Cursor g = new Cursor(gpu);
    Cursor l = new Cursor(link);
    Cursor c = new Cursor(cpu);
    for (int i = 0; i + 1 < t.length; i++) {
      double a = t[i];
      double b = t[i + 1];
      if (b <= a) {
        continue;
      }
      double mid = 0.5 * (a + b);
      double[] gi = g.at(mid);
      double[] li = gi == null ? l.at(mid) : null;
      Bound bound = gi != null ? Bound.values()[(int) gi[2]]
          : li != null ? Bound.values()[(int) li[2]] : c.at(mid) != null ? Bound.HOST : Bound.OVERHEAD;
      out.merge(bound, b - a, Double::sum);
    }
    return out;
  }

  /** Finds, for increasing query times, an interval containing the time (intervals sorted by start). */
  private static final class Cursor {
    private final double[][] iv;
    private final double[] maxEnd;
    private int i;

    Cursor(List<double[]> intervals) {
      iv = intervals.toArray(new double[0][]);
      Arrays.sort(iv, (x, y) -> Double.compare(x[0], y[0]));
      maxEnd = new double[iv.length];
      for (int j = 0; j < iv.length; j++) {
        maxEnd[j] = Math.max(iv[j][1], j > 0 ? maxEnd[j - 1] : Double.NEGATIVE_INFINITY);
      }
    }

    double[] at(double t) {
      while (i < iv.length && iv[i][0] <= t) {
        i++;
      }
      // the candidates are iv[0..i); scan back while an earlier interval could still cover t
      for (int j = i - 1; j >= 0 && maxEnd[j] > t; j--) {
        if (iv[j][1] > t) {
          return iv[j];
        }
      }
      return null;
    }
  }
}
