package llmsim.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class TraceTest {
  /**
   * Random runs with many equal times (whole-number sizes and launches, ops starting together on many streams),
   * every lane, shared pools and launch overheads: what a run does in every order it can.
   */
  static Trace randomRun(long seed) {
    return randomRun(seed, 1);
  }

  /** As above, the streams spread over {@code gpus} simulated GPUs (each GPU's first stream its own). */
  static Trace randomRun(long seed, int gpus) {
    SplittableRandom rnd = new SplittableRandom(seed);
    Simulation sim = new Simulation();
    int mem = sim.addPool("memory");
    int[] links = {sim.addPool("link 0"), sim.addPool("link 1")};
    int gpu = sim.addGroup(new CostGroup("gpu", 4, mem, 2, -1, 1, 1));
    int gpuNoLaunch = sim.addGroup(new CostGroup("gpu, no launch", 4, mem, 2, -1, 1, 0));
    int cpu = sim.addGroup(new CostGroup("cpu", 1, mem, 1, -1, 1, 0));
    int[] copy = {sim.addGroup(new CostGroup("copy 0", 1, -1, 1, links[0], 1, 0.5)),
        sim.addGroup(new CostGroup("copy 1", 1, -1, 1, links[1], 2, 0))};
    Lane[] lanes = Lane.values();
    int streams = 3 + rnd.nextInt(8) + gpus;
    int[] stream = new int[streams];
    for (int s = 0; s < streams; s++) {
      Lane lane = lanes[rnd.nextInt(lanes.length)];
      stream[s] = gpus == 1 ? sim.addStream("s" + s, lane)
          : sim.addStream("s" + s, lane, s < gpus ? -1 : stream[rnd.nextInt(gpus)]);
    }
    int n = 20 + rnd.nextInt(200);
    for (int i = 0; i < n; i++) {
      int s = rnd.nextInt(streams);
      int[] deps = i > 0 && rnd.nextBoolean() ? new int[] {rnd.nextInt(i)} : new int[0];
      int group = switch (rnd.nextInt(5)) {
        case 0 -> gpu;
        case 1 -> gpuNoLaunch;
        case 2 -> cpu;
        default -> copy[rnd.nextInt(2)];
      };
      sim.addOp("op" + i, OpKind.MLP, stream[s], group, rnd.nextInt(4), rnd.nextInt(3), rnd.nextInt(3), deps);
    }
    return sim.run();
  }

  @Test
  void timeByBound_isTheSortingSweepsToTheBit() {
    for (long seed = 0; seed < 1000; seed++) {
      Trace t = randomRun(seed);
      assertThat(t.timeByBound()).as("seed %d", seed).isEqualTo(sortingSweep(t));
    }
  }

  @Test
  void timeByBound_onSeveralGpus_isTheMeanOfEachGpusSortingSweep() {
    for (long seed = 0; seed < 1000; seed++) {
      int gpus = 2 + (int) (seed % 3);
      Trace t = randomRun(seed, gpus);
      assertThat(t.gpus()).isEqualTo(gpus);
      Map<Bound, Double> mean = new EnumMap<>(Bound.class);
      for (int g = 0; g < gpus; g++) {
        int gpu = g;
        sortingSweep(t, s -> t.gpuOf(s) == gpu, Bound.PIPELINE_BUBBLE)
            .forEach((b, v) -> mean.merge(b, v / gpus, Double::sum));
      }
      for (Bound b : Bound.values()) {
        assertThat(t.timeByBound().get(b)).as("seed %d, %s", seed, b)
            .isCloseTo(mean.get(b), org.assertj.core.data.Offset.offset(1e-9 * (1 + t.makespan())));
      }
    }
  }

  static Map<Bound, Double> sortingSweep(Trace tr) {
    return sortingSweep(tr, s -> true, Bound.OVERHEAD);
  }

  /**
   * The attribution as first written, kept as the reference, over the ops on the streams {@code ofGpu} takes (a GPU's,
   * or all), with nothing running charged to {@code idle}: every instant where something starts or ends, sorted; each kind's intervals sorted by start (stably, so in op order at equal starts); at the midpoint of
   * each pair of consecutive instants, the latest-starting interval covering it.
   */
  static Map<Bound, Double> sortingSweep(Trace tr, java.util.function.IntPredicate ofGpu, Bound idle) {
    List<double[]> gpu = new ArrayList<>();
    List<double[]> link = new ArrayList<>();
    List<double[]> cpu = new ArrayList<>();
    double[] start = tr.start();
    double[] end = tr.end();
    double[] cuts = new double[3 * tr.size() + 2];
    int k = 0;
    for (int i = 0; i < tr.size(); i++) {
      if (!ofGpu.test(tr.ops().streams()[i])) {
        continue;
      }
      Lane lane = tr.lanes().get(tr.ops().streams()[i]);
      double[] iv = {start[i], end[i], tr.opBound(i).ordinal()};
      switch (lane) {
        case COMPUTE -> {
          double workStart = Math.min(end[i], start[i] + tr.costs().launch[i]);
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
    cuts[k++] = tr.makespan();
    double[] t = Arrays.copyOf(cuts, k);
    Arrays.sort(t);
    Map<Bound, Double> out = new EnumMap<>(Bound.class);
    for (Bound b : Bound.values()) {
      out.put(b, 0.0);
    }
    for (int i = 0; i + 1 < t.length; i++) {
      double a = t[i];
      double b = t[i + 1];
      if (b <= a) {
        continue;
      }
      double mid = 0.5 * (a + b);
      double[] gi = latestCovering(gpu, mid);
      double[] li = gi == null ? latestCovering(link, mid) : null;
      Bound bound = gi != null ? Bound.values()[(int) gi[2]]
          : li != null ? Bound.values()[(int) li[2]] : latestCovering(cpu, mid) != null ? Bound.HOST : idle;
      out.merge(bound, b - a, Double::sum);
    }
    return out;
  }

  private static double[] latestCovering(List<double[]> intervals, double t) {
    double[][] iv = intervals.toArray(new double[0][]);
    Arrays.sort(iv, (x, y) -> Double.compare(x[0], y[0]));
    for (int j = iv.length - 1; j >= 0; j--) {
      if (iv[j][0] <= t && iv[j][1] > t) {
        return iv[j];
      }
    }
    return null;
  }
}
