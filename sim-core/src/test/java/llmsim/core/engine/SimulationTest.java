package llmsim.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SimulationTest {
  static final double PEAK = 100e12;
  static final double MEM_BW = 1e12;
  static final double LINK_BW = 50e9;

  Simulation sim;
  int devicePool;
  int linkPool;
  int gpuGroup;
  int copyGroup;

  void setUp(double launch) {
    sim = new Simulation();
    devicePool = sim.addPool("device memory");
    linkPool = sim.addPool("PCIe H2D");
    gpuGroup = sim.addGroup(new CostGroup("gpu", PEAK, devicePool, MEM_BW, -1, 1, launch));
    copyGroup = sim.addGroup(new CostGroup("copy", 1, -1, 1, linkPool, LINK_BW, 0));
  }

  @Test
  void opsInSeriesOnOneStream_takeTheSum() {
    setUp(5e-6);
    int s = sim.addStream("compute", Lane.COMPUTE);
    double f1 = 2e12;      // compute-bound: 2e12 / 1e14 = 20 ms
    double b2 = 5e9;       // memory-bound: 5e9 / 1e12 = 5 ms
    sim.addOp("a", OpKind.MLP, s, gpuGroup, f1, 1e6, 0);
    sim.addOp("b", OpKind.MLP, s, gpuGroup, 1e6, b2, 0);
    Trace t = sim.run();
    double expected = (f1 / PEAK + 5e-6) + (b2 / MEM_BW + 5e-6);
    assertThat(t.makespan()).isCloseTo(expected, within(1e-12));
    // each op's launch is overhead, paid before its work
    assertThat(t.timeByBound().get(Bound.COMPUTE)).isCloseTo(f1 / PEAK, within(1e-12));
    assertThat(t.timeByBound().get(Bound.DEVICE_MEMORY)).isCloseTo(b2 / MEM_BW, within(1e-12));
    assertThat(t.timeByBound().get(Bound.OVERHEAD)).isCloseTo(2 * 5e-6, within(1e-12));
  }

  @Test
  void aGemmsShape_dividesItsComputeTimeByHowItFillsTheSms() {
    sim = new Simulation();
    int pool = sim.addPool("device memory");
    int tiled = sim.addGroup(new CostGroup("gemm", PEAK, pool, MEM_BW, -1, 1, 0, 108, 0.0));
    int s = sim.addStream("compute", Lane.COMPUTE);
    // 1024 x 1024 x 4096: 64x64 tiles give 256 tiles in 3 waves of 108 SMs, 256 / 324 of the device busy
    double flops = 2.0 * 1024 * 1024 * 4096;
    sim.addGemm("qkv", OpKind.ATTENTION, s, tiled, flops, 1e6, 1024, 1024, 4096);
    sim.addOp("attention", OpKind.ATTENTION, s, tiled, flops, 1e6, 0); // no shape: the group's peak as it is
    Trace t = sim.run();
    assertThat(t.costs().time[0]).isCloseTo(flops / PEAK / (256.0 / 324), within(1e-15));
    assertThat(t.costs().time[1]).isCloseTo(flops / PEAK, within(1e-15));
    assertThat(t.makespan()).isCloseTo(flops / PEAK * (1 + 324.0 / 256), within(1e-12));
  }

  @Test
  void twoGpus_eachSpendsTheStepOnItsOwnStreams_andTheTimeByBoundIsTheirMean() {
    setUp(0);
    // two GPUs in a pipeline: A computes, sends over its link, then B computes on what it received
    int a = sim.addStream("A compute", Lane.COMPUTE, -1);
    int aSend = sim.addStream("A send", Lane.FABRIC, a);
    int b = sim.addStream("B compute", Lane.COMPUTE, -1);
    int fabric = sim.addPool("fabric");
    int sendGroup = sim.addGroup(new CostGroup("send", 1, -1, 1, fabric, LINK_BW, 0));
    double f = 2e12;   // compute-bound: 20 ms on each GPU
    double bytes = 1e8; // 10 ms over the link
    int first = sim.addOp("a", OpKind.MLP, a, gpuGroup, f, 1e6, 0);
    int send = sim.addOp("send", OpKind.TRANSFER, aSend, sendGroup, 0, 0, bytes, first);
    sim.addOp("b", OpKind.MLP, b, gpuGroup, f, 1e6, 0, send);
    Trace t = sim.run();
    double compute = f / PEAK;
    double link = bytes / LINK_BW;
    assertThat(t.makespan()).isCloseTo(2 * compute + link, within(1e-12));
    // A: computes, sends, then idles while B works; B: idles until the activation arrives, then computes. Each GPU's
    // own spans add up to the step; the step's figures are their mean
    assertThat(t.timeByBound().get(Bound.COMPUTE)).isCloseTo(compute, within(1e-12));
    assertThat(t.timeByBound().get(Bound.INTRA_NODE_LINK)).isCloseTo(link / 2, within(1e-12));
    assertThat(t.timeByBound().get(Bound.PIPELINE_BUBBLE)).isCloseTo((compute + link) / 2 + compute / 2,
        within(1e-12));
    assertThat(t.timeByBound().values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(t.makespan(), within(1e-12));
  }

  @Test
  void aGemmKernelsFloor_isComputeTime_oncePerKernel_underALongerMemoryTime_andOnlyWithSms() {
    double floor = 7e-6;
    sim = new Simulation();
    int pool = sim.addPool("device memory");
    int tiled = sim.addGroup(new CostGroup("gemm", PEAK, pool, MEM_BW, -1, 1, 0, 108, floor));
    int untiled = sim.addGroup(new CostGroup("gemm (no SM count)", PEAK, pool, MEM_BW, -1, 1, 0));
    int s = sim.addStream("compute", Lane.COMPUTE);
    // 108 x 64 rows by 4096 by 4096: 64x64 tiles fill whole waves of 108 SMs (factor 1), so the floor is all that
    // is added to the math
    double m = 108 * 64;
    double one = 2 * m * 4096 * 4096;
    sim.addGemm("fwd", OpKind.MLP, s, tiled, one, 1e6, m, 4096, 4096);
    sim.addGemm("bwd", OpKind.MLP, s, tiled, 2 * one, 1e6, m, 4096, 4096);      // input and weight gradients
    double bytes = (one / PEAK + floor) * MEM_BW * 3;                           // memory 3x compute + floor
    sim.addGemm("streaming", OpKind.MLP, s, tiled, one, bytes, m, 4096, 4096);
    sim.addGemm("untiled", OpKind.MLP, s, untiled, one, 1e6, m, 4096, 4096);
    Trace t = sim.run();
    assertThat(t.costs().time[0]).isCloseTo(one / PEAK + floor, within(1e-15));
    assertThat(t.costs().time[1]).isCloseTo(2 * one / PEAK + 2 * floor, within(1e-15));
    assertThat(t.costs().time[2]).isCloseTo(bytes / MEM_BW, within(1e-15));
    assertThat(t.costs().bound[2]).isEqualTo(llmsim.core.kernel.RooflineKernel.MEMORY);
    assertThat(t.costs().time[3]).isCloseTo(one / PEAK, within(1e-15));
    // the floor runs on the GPU as compute: the timeline charges it to the compute bound, none to overhead
    double compute = 3 * one / PEAK + 3 * floor + one / PEAK;
    assertThat(t.makespan()).isCloseTo(compute + bytes / MEM_BW, within(1e-12));
    assertThat(t.timeByBound().get(Bound.COMPUTE)).isCloseTo(compute, within(1e-12));
    assertThat(t.timeByBound().getOrDefault(Bound.OVERHEAD, 0.0)).isZero();
  }

  @Test
  void independentOpsOnSeparateResources_takeTheMax() {
    setUp(0);
    int compute = sim.addStream("compute", Lane.COMPUTE);
    int h2d = sim.addStream("h2d", Lane.H2D);
    double flops = 3e12;   // 30 ms
    double bytes = 1e9;    // 1e9 / 50e9 = 20 ms
    sim.addOp("gemm", OpKind.MLP, compute, gpuGroup, flops, 0, 0);
    sim.addOp("copy", OpKind.TRANSFER, h2d, copyGroup, 0, 0, bytes);
    Trace t = sim.run();
    assertThat(t.makespan()).isCloseTo(Math.max(flops / PEAK, bytes / LINK_BW), within(1e-12));
  }

  @Test
  void twoEqualTransfersSharingOneLinkDirection_takeTwiceAsLongAsOne() {
    setUp(0);
    int a = sim.addStream("h2d-a", Lane.H2D);
    int b = sim.addStream("h2d-b", Lane.H2D);
    double bytes = 2e9;
    sim.addOp("x", OpKind.TRANSFER, a, copyGroup, 0, 0, bytes);
    sim.addOp("y", OpKind.TRANSFER, b, copyGroup, 0, 0, bytes);
    Trace t = sim.run();
    double alone = bytes / LINK_BW;
    assertThat(t.makespan()).isCloseTo(2 * alone, within(1e-12));
    assertThat(t.end()[0]).isCloseTo(2 * alone, within(1e-12));
    assertThat(t.end()[1]).isCloseTo(2 * alone, within(1e-12));
  }

  @Test
  void bandwidthIsResharedWhenATransferEnds() {
    setUp(0);
    int a = sim.addStream("h2d-a", Lane.H2D);
    int b = sim.addStream("h2d-b", Lane.H2D);
    sim.addOp("small", OpKind.TRANSFER, a, copyGroup, 0, 0, 1e9);
    sim.addOp("large", OpKind.TRANSFER, b, copyGroup, 0, 0, 3e9);
    Trace t = sim.run();
    // both at half rate until the small one is done (2 x 1e9/50e9 = 40 ms), then the large one alone:
    // it has 2e9 left at the full 50 GB/s = 40 ms more. Total bytes / bandwidth = 80 ms.
    assertThat(t.end()[0]).isCloseTo(2 * 1e9 / LINK_BW, within(1e-12));
    assertThat(t.end()[1]).isCloseTo(4e9 / LINK_BW, within(1e-12));
    // the large one's first completion, due at 3e9 / 25e9 = 120 ms before the re-share, is stale: the step ends
    // when the last op does
    assertThat(t.makespan()).isCloseTo(4e9 / LINK_BW, within(1e-12));
  }

  @Test
  void linkBoundOffloadStep_takesBytesOverEffectiveLinkBandwidth() {
    setUp(0);
    int compute = sim.addStream("compute", Lane.COMPUTE);
    int h2d = sim.addStream("h2d", Lane.H2D);
    int layers = 10;
    double layerBytes = 1e9;            // 20 ms per layer over the link
    double layerFlops = 1e11;           // 1 ms per layer of compute
    int prevCompute = -1;
    int[] copy = new int[layers];
    for (int l = 0; l < layers; l++) {
      copy[l] = l >= 2 ? sim.addOp("w" + l, OpKind.TRANSFER, h2d, copyGroup, 0, 0, layerBytes, computeOf(l - 2))
          : sim.addOp("w" + l, OpKind.TRANSFER, h2d, copyGroup, 0, 0, layerBytes);
      prevCompute = prevCompute < 0
          ? sim.addOp("layer" + l, OpKind.MLP, compute, gpuGroup, layerFlops, 0, 0, copy[l])
          : sim.addOp("layer" + l, OpKind.MLP, compute, gpuGroup, layerFlops, 0, 0, copy[l], prevCompute);
      computeIds[l] = prevCompute;
    }
    Trace t = sim.run();
    // the link never idles: all bytes cross it back to back, then the last layer computes
    double expected = layers * layerBytes / LINK_BW + layerFlops / PEAK;
    assertThat(t.makespan()).isCloseTo(expected, within(1e-12));
    Map<Bound, Double> byBound = t.timeByBound();
    assertThat(byBound.get(Bound.HOST_LINK)).isGreaterThan(0.9 * t.makespan());
  }

  private final int[] computeIds = new int[64];

  private int computeOf(int l) {
    return computeIds[l];
  }

  @Test
  void unifiedPool_gpuAndCpuSlowEachOther() {
    sim = new Simulation();
    int unified = sim.addPool("unified memory");
    int gpu = sim.addGroup(new CostGroup("gpu", PEAK, unified, 600e9, -1, 1, 0));
    int cpu = sim.addGroup(new CostGroup("cpu", 1e12, unified, 600e9, -1, 1, 0));
    int cs = sim.addStream("compute", Lane.COMPUTE);
    int hs = sim.addStream("cpu", Lane.CPU);
    double bytes = 60e9; // 100 ms alone
    sim.addOp("gpu-read", OpKind.MLP, cs, gpu, 0, bytes, 0);
    sim.addOp("cpu-read", OpKind.OPTIMIZER, hs, cpu, 0, bytes, 0);
    Trace t = sim.run();
    assertThat(t.makespan()).isCloseTo(2 * bytes / 600e9, within(1e-12));
  }

  @Test
  void dependencyAcrossStreams_isWaitedFor() {
    setUp(0);
    int compute = sim.addStream("compute", Lane.COMPUTE);
    int h2d = sim.addStream("h2d", Lane.H2D);
    int copy = sim.addOp("input", OpKind.TRANSFER, h2d, copyGroup, 0, 0, 1e9);
    int op = sim.addOp("use", OpKind.MLP, compute, gpuGroup, 1e12, 0, 0, copy);
    Trace t = sim.run();
    assertThat(t.start()[op]).isCloseTo(1e9 / LINK_BW, within(1e-15));
    assertThat(t.makespan()).isCloseTo(1e9 / LINK_BW + 1e12 / PEAK, within(1e-12));
  }

  @Test
  void busyTimePerStream_sumsItsOps() {
    setUp(1e-6);
    int s = sim.addStream("compute", Lane.COMPUTE);
    sim.addOp("a", OpKind.MLP, s, gpuGroup, 1e12, 0, 0);
    sim.addOp("b", OpKind.MLP, s, gpuGroup, 1e12, 0, 0);
    Trace t = sim.run();
    assertThat(t.busySeconds()[0]).isCloseTo(2 * (1e12 / PEAK + 1e-6), within(1e-12));
  }

  @Test
  void anOpWhoseMemoryAndLinkPoolAreOne_countsTwiceOnItAndIsReratedOncePerChange() {
    sim = new Simulation();
    int pool = sim.addPool("one pool both ways");
    int g = sim.addGroup(new CostGroup("g", 1e30, pool, 1, pool, 1, 0));
    int a = sim.addOp("a", OpKind.MLP, sim.addStream("s0", Lane.COMPUTE), g, 0, 1, 1);
    int b = sim.addOp("b", OpKind.MLP, sim.addStream("s1", Lane.COMPUTE), g, 0, 2, 2);
    Trace t = sim.run();
    // each op is on the pool twice: with both flowing it counts 4, so a (1 s alone) runs at 1/4 and ends at 4; b
    // (2 s alone) has done 4/8 by then and finishes the other half at 1/(2 x 2): 4 + 0.5 x 4 = 6
    assertThat(t.end()[a]).isEqualTo(4.0);
    assertThat(t.end()[b]).isEqualTo(6.0);
    // completion events: a alone (due 2), a re-rated as b joins (4), b (8), b re-rated as a ends (6); each once
    assertThat(t.events()).isEqualTo(4);
  }
}
