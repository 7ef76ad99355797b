package llmsim.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Peers in step swept once for all (BoundSweep.Shadows), and a run whose peers fall out of step swept GPU by GPU. */
class ShadowSweepTest {
  @Test
  void peersInStep_areSweptOnce_andTheMeanIsEachGpusOwnSweep() {
    for (long seed = 0; seed < 40; seed++) {
      int peers = 3 + (int) (seed % 6);
      Simulation sim = new Simulation();
      ReplicatedSinkTest.build(new ReplicatedSink(sim, peers), seed, true);
      Trace shadowed = sim.run();
      String at = "seed " + seed + ", " + peers + " peers";
      assertThat(shadowed.gpus()).as(at).isEqualTo(peers);
      // peer 0's transfer streams also run the peers' synchronisations, so it is swept (where the run has
      // transfers); peer 1 leads peers 2 and up, or peer 0 leads all
      assertThat(sim.sweptGpus()).as(at).isBetween(1, 2);
      assertThat(shadowed.timeByBound()).as(at).isEqualTo(meanOfEachGpusSweep(shadowed));
      // a GPU in step with another ran that GPU's ops, shifted by its copy, at the same instants
      int shadows = 0;
      int counted = 0;
      for (int g = 0; g < peers; g++) {
        int l = shadowed.inStepWith(g);
        if (l != g) {
          shadows++;
          assertThat(shadowed.inStepWith(l)).as(at).isEqualTo(l);
          assertThat(startsOf(shadowed, g)).as(at).isEqualTo(startsOf(shadowed, l));
        } else {
          counted += shadowed.peersInStep(g);
        }
      }
      assertThat(shadows).as(at).isEqualTo(peers - sim.sweptGpus()).isEqualTo(counted);

      Simulation each = new Simulation();
      ReplicatedSinkTest.build(new ReplicatedSink(each, peers), seed, true);
      each.sweepEveryGpu();
      Trace swept = each.run();
      assertThat(each.sweptGpus()).as(at).isEqualTo(peers);
      assertThat(shadowed.timeByBound()).as(at).isEqualTo(swept.timeByBound());
    }
  }

  @Test
  void aPeerSlowedByAnotherGpuOnItsMemory_isSweptOnItsOwn() {
    // four peers each read m bytes from their own memory at b bytes/s; a fifth GPU reads as much from peer 1's memory
    // at the same time, so peer 1 gets b / 2 for 2 m / b and the others finish at m / b and wait (the bubble)
    double m = 6e9;
    double b = 2e12;
    int peers = 4;
    Simulation sim = new Simulation();
    int[] mem = new int[peers];
    for (int j = 0; j < peers; j++) {
      mem[j] = sim.addPool("memory " + j);
    }
    int first = -1;
    for (int j = 0; j < peers; j++) {
      int s = sim.addStream("peer " + j + " compute", Lane.COMPUTE, -1);
      first = j == 0 ? s : first;
    }
    int group = -1;
    for (int j = 0; j < peers; j++) {
      int g = sim.addGroup(new CostGroup("peer " + j, 1e15, mem[j], b, -1, 1, 0));
      group = j == 0 ? g : group;
    }
    sim.addCopies("read", OpKind.NORM_ELEMENTWISE, first, group, 0, m, 0, 0, 0, 0, peers);
    int other = sim.addStream("other GPU compute", Lane.COMPUTE, -1);
    int shared = sim.addGroup(new CostGroup("other GPU on peer 1's memory", 1e15, mem[1], b, -1, 1, 0));
    sim.addOp("read", OpKind.NORM_ELEMENTWISE, other, shared, 0, m, 0);

    Trace t = sim.run();
    int gpus = peers + 1;
    assertThat(sim.sweptGpus()).isEqualTo(gpus);
    for (int g = 0; g < gpus; g++) {
      assertThat(t.inStepWith(g)).isEqualTo(g);
      assertThat(t.peersInStep(g)).isZero();
    }
    assertThat(t.makespan()).isCloseTo(2 * m / b, within(1e-15));
    Map<Bound, Double> byBound = t.timeByBound();
    // memory: three peers m / b each, peer 1 and the fifth GPU 2 m / b each; the three wait m / b each
    assertThat(byBound.get(Bound.DEVICE_MEMORY)).isCloseTo((3 + 2 + 2) * m / b / gpus, within(1e-15));
    assertThat(byBound.get(Bound.PIPELINE_BUBBLE)).isCloseTo(3 * m / b / gpus, within(1e-15));
    assertThat(byBound).isEqualTo(meanOfEachGpusSweep(t));
  }

  /** The start and end times of GPU {@code g}'s ops, in op order. */
  private static java.util.List<Double> startsOf(Trace t, int g) {
    java.util.List<Double> times = new java.util.ArrayList<>();
    for (int i = 0; i < t.size(); i++) {
      if (t.gpuOf(t.stream(i)) == g) {
        times.add(t.start()[i]);
        times.add(t.end()[i]);
      }
    }
    return times;
  }

  /** The reference: each GPU's sorting sweep (TraceTest) over its own streams, summed in GPU order, over the GPUs. */
  static Map<Bound, Double> meanOfEachGpusSweep(Trace t) {
    Map<Bound, Double> mean = new java.util.EnumMap<>(Bound.class);
    for (int g = 0; g < t.gpus(); g++) {
      int gpu = g;
      TraceTest.sortingSweep(t, s -> t.gpuOf(s) == gpu, Bound.PIPELINE_BUBBLE).forEach((b, v) -> mean.merge(b, v,
          Double::sum));
    }
    mean.replaceAll((b, v) -> v / t.gpus());
    return mean;
  }
}
