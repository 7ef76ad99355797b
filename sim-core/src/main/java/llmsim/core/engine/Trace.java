package llmsim.core.engine;

import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.kernel.RooflineKernel;

/**
 * What a run did: every op's stream, start, end, FLOPs, bytes and standalone bound. Utilisation and
 * the time attributed to each bound are derived from it.
 *
 * @param makespan time from the first op's start (0) to the last op's end
 * @param order what the run did in time order, three entries per op: its start, the start of its flow (after the
 *     launch) and its end, each {@code op << 2 | kind} with kind {@link #START}, {@link #FLOW} or {@link #END}
 */
public record Trace(List<String> streams, List<Lane> lanes, List<String> pools, OpTable.Ops ops, Costs costs,
    double[] start, double[] end, double makespan, String kernel, long events, int[] order) {
  static final int START = 0;
  static final int FLOW = 1;
  static final int END = 2;
  private static final Bound[] BOUNDS = Bound.values();

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
   * them); else overhead (the GPU idles between launches). Where several intervals of a kind cover an instant,
   * the one starting last counts (the earlier op at equal starts).
   *
   * <p>The instants where something starts or ends are read in the order the run produced them, so they come
   * sorted without a sort (a sort remains the fallback should rounding ever put one out of order); the time
   * between two consecutive instants is added to its bound's sum in time order.
   */
  public Map<Bound, Double> timeByBound() {
    int n = size();
    double[] cuts = new double[3 * n + 2];
    Cursor gpu = new Cursor(2 * n);
    Cursor link = new Cursor(n);
    Cursor cpu = new Cursor(n);
    int k = 0;
    cuts[k++] = 0;
    for (int e : order) {
      int op = e >>> 2;
      Lane lane = lanes.get(ops.streams()[op]);
      switch (e & 3) {
        case START -> {
          cuts[k++] = start[op];
          if (lane == Lane.CPU) {
            cpu.add(op << 1, start[op]);
          } else if (lane != Lane.COMPUTE) {
            link.add(op << 1, start[op]);
          } else if (workStart(op) > start[op]) {
            gpu.add(op << 1, start[op]);
          }
        }
        case FLOW -> {
          if (lane == Lane.COMPUTE) {
            double workStart = workStart(op);
            if (workStart > start[op]) {
              cuts[k++] = workStart;
            }
            if (end[op] > workStart) {
              gpu.add(op << 1 | 1, workStart);
            }
          }
        }
        default -> cuts[k++] = end[op];
      }
    }
    cuts[k++] = makespan;
    double[] t = Arrays.copyOf(cuts, k);
    if (!sorted(t)) {
      Arrays.sort(t);
    }
    gpu.order(this);
    link.order(this);
    cpu.order(this);
    double[] sum = new double[BOUNDS.length];
    for (int i = 0; i + 1 < t.length; i++) {
      double a = t[i];
      double b = t[i + 1];
      if (b <= a) {
        continue;
      }
      double mid = 0.5 * (a + b);
      int bound = gpu.at(mid);
      if (bound < 0) {
        bound = link.at(mid);
      }
      if (bound < 0) {
        bound = cpu.at(mid) >= 0 ? Bound.HOST.ordinal() : Bound.OVERHEAD.ordinal();
      }
      sum[bound] += b - a;
    }
    Map<Bound, Double> out = new EnumMap<>(Bound.class);
    for (Bound b : BOUNDS) {
      out.put(b, sum[b.ordinal()]);
    }
    return out;
  }

  /** When the work of a GPU op starts, after its launch overhead. */
  private double workStart(int op) {
    return Math.min(end[op], start[op] + costs.launch[op]);
  }

  private static boolean sorted(double[] t) {
    for (int i = 1; i < t.length; i++) {
      if (t[i] < t[i - 1]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Intervals of one kind, each named by {@code op << 1 | piece} (piece 1: a GPU op's work after its launch
   * overhead, piece 0: the overhead or the whole op), ordered by start and at equal starts by name. Answers, for
   * increasing query times, the bound of the interval starting last that covers the time: the intervals started
   * by then are stacked in that order, and one whose end has passed is dropped for good.
   */
  private static final class Cursor {
    private int[] name;
    private double[] from;
    private double[] to;
    private int[] bound;
    private int size;
    private int next;
    private final int[] stack;
    private int top;

    Cursor(int capacity) {
      name = new int[capacity];
      from = new double[capacity];
      stack = new int[capacity];
    }

    /** Add in the run's time order: starts are then sorted but for ties, which {@link #order} puts right. */
    void add(int interval, double start) {
      name[size] = interval;
      from[size++] = start;
    }

    void order(Trace tr) {
      name = Arrays.copyOf(name, size);
      from = Arrays.copyOf(from, size);
      for (int i = 0; i < size;) {
        int j = i + 1;
        while (j < size && from[j] == from[i]) {
          j++;
        }
        if (j < size && from[j] < from[i]) {
          sortAll();
          break;
        }
        if (j - i > 1) {
          Arrays.sort(name, i, j);
        }
        i = j;
      }
      to = new double[size];
      bound = new int[size];
      for (int i = 0; i < size; i++) {
        int op = name[i] >>> 1;
        boolean overhead = tr.lanes.get(tr.ops.streams()[op]) == Lane.COMPUTE && (name[i] & 1) == 0;
        to[i] = overhead ? tr.workStart(op) : tr.end[op];
        bound[i] = overhead ? Bound.OVERHEAD.ordinal() : tr.opBound(op).ordinal();
      }
    }

    /** Rounding put a start out of the run's order: sort them all, stably by name at equal starts. */
    private void sortAll() {
      Integer[] idx = new Integer[size];
      for (int i = 0; i < size; i++) {
        idx[i] = i;
      }
      Arrays.sort(idx, Comparator.<Integer>comparingDouble(i -> from[i]).thenComparingInt(i -> name[i]));
      int[] n = new int[size];
      double[] f = new double[size];
      for (int i = 0; i < size; i++) {
        n[i] = name[idx[i]];
        f[i] = from[idx[i]];
      }
      name = n;
      from = f;
    }

    /** The bound of the latest-starting interval covering {@code t}, or -1; {@code t} must not decrease. */
    int at(double t) {
      while (next < size && from[next] <= t) {
        stack[top++] = next++;
      }
      while (top > 0 && to[stack[top - 1]] <= t) {
        top--;
      }
      return top > 0 ? bound[stack[top - 1]] : -1;
    }
  }
}
