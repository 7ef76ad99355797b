package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.List;
import llmsim.core.engine.Lane;
import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Collectives against the ring closed forms; every expectation is derived here from the link figures. */
class CollectivesTest {
  static final SoftwareProfile IDEAL = SimulatorPhysicsTest.IDEAL;
  static final double FABRIC = 200e9;
  static final double FABRIC_STEP = 2e-6;
  static final double NIC = 20e9;
  static final double NIC_STEP = 5e-6;

  static Task training(ParallelPlan plan, int batch) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, batch, 2048, 1, 1, 1, Recompute.NONE, 8, 128,
        Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, plan);
  }

  /** One collective alone on one GPU of {@code system}: its makespan. */
  static double alone(SystemSpec system, ParallelPlan plan, Collectives.Kind kind, double bytes) {
    Simulation sim = new Simulation();
    StepContext ctx = new StepContext(system, training(plan, 1), IDEAL, sim, 1);
    ctx.collectives.dataParallel("c", kind, bytes);
    return sim.run().makespan();
  }

  /**
   * A compute-bound op of {@code flops} on GPU 0's compute stream, and a data-parallel all-reduce of {@code bytes}
   * issued at the same instant ({@code overlap}) or after the op; returns the op's end.
   */
  static double computeEnd(SystemSpec system, ParallelPlan plan, double flops, double bytes, boolean overlap) {
    Simulation sim = new Simulation();
    StepContext ctx = new StepContext(system, training(plan, 1), IDEAL, sim, 1);
    int op = sim.addOp("gemm", llmsim.core.engine.OpKind.MLP, ctx.compute, ctx.elementwise, flops, 1e6, 0);
    if (overlap) {
      ctx.collectives.dataParallel("c", Collectives.Kind.ALL_REDUCE, bytes);
    } else {
      ctx.collectives.dataParallel("c", Collectives.Kind.ALL_REDUCE, bytes, op);
    }
    return sim.run().end()[op];
  }

  @Test
  void aDataParallelAllReduce_holdsTheFabricsChannels_andSlowsComputeOnTheGpuWhileItRuns() {
    int sms = 108;
    int channels = 24;
    SystemSpec system = Fixtures.cluster(1, 0, sms, channels, 16);
    ParallelPlan plan = new ParallelPlan(1, 1, 8, 0);
    double flops = 1e13;
    double bytes = 1e9;
    int n = 8;
    double ring = 2.0 * (n - 1) / n * bytes / FABRIC + 2 * (n - 1) * FABRIC_STEP;
    double alone = computeEnd(system, plan, flops, bytes, false);
    assertThat(alone).isGreaterThan(ring);
    // for the ring's whole duration the op runs on sms - channels of sms SMs
    assertThat(computeEnd(system, plan, flops, bytes, true)).isCloseTo(alone + ring * channels / sms, within(1e-12));
    // a fabric without a channel count takes no SMs
    assertThat(computeEnd(Fixtures.cluster(1, 0, sms, 0, 0), plan, flops, bytes, true)).isCloseTo(alone, within(1e-12));
  }

  @Test
  void anAllReduceSpanningNodes_holdsTheNicsChannelsInEveryPhase() {
    int sms = 108;
    SystemSpec system = Fixtures.cluster(2, 0, sms, 24, 16);
    ParallelPlan plan = new ParallelPlan(1, 1, 16, 0);
    double flops = 1e14;
    double bytes = 1e9;
    double alone = computeEnd(system, plan, flops, bytes, false);
    // reduce-scatter in the node, ring all-reduce of the 1/8 shard over two nodes, all-gather in the node
    double intra = 7.0 / 8 * bytes / FABRIC + 7 * FABRIC_STEP;
    double inter = bytes / 8 / NIC + 2 * NIC_STEP;
    double comm = 2 * intra + inter;
    assertThat(alone).isGreaterThan(comm);
    assertThat(computeEnd(system, plan, flops, bytes, true)).isCloseTo(alone + comm * 16 / sms, within(1e-12));
  }

  @Test
  void whereNoChannelCountIsSourced_theResultSaysCollectivesDoNotSlowCompute() {
    ModelSpec m = Fixtures.llama7b();
    Task dp8 = training(new ParallelPlan(1, 1, 8, 0), 1);
    assertThat(Simulator.simulate(Fixtures.cluster(1, 0, 108, 24, 16), m, dp8, IDEAL).warnings()).isEmpty();
    assertThat(Simulator.simulate(Fixtures.cluster(1, 0, 108, 0, 16), m, dp8, IDEAL).warnings())
        .singleElement().asString().contains("collectives on fabric are not taken to slow compute");
    assertThat(Simulator.simulate(Fixtures.cluster(1, 0, 0, 24, 16), m, dp8, IDEAL).warnings())
        .singleElement().asString().contains("SM count of gpu");
    Task dp16 = training(new ParallelPlan(1, 1, 16, 0), 1);
    assertThat(Simulator.simulate(Fixtures.cluster(2, 0, 108, 24, 0), m, dp16, IDEAL).warnings())
        .singleElement().asString().contains("collectives on nic are not");
  }

  @Test
  void ringAllReduce_withinANode_takesTwoNMinusOneOverNOfTheBytesAtBusBandwidth_plusALatencyPerStep() {
    double s = 1e9;
    int n = 8;
    double expected = 2.0 * (n - 1) / n * s / FABRIC + 2 * (n - 1) * FABRIC_STEP;
    assertThat(alone(Fixtures.cluster(1), new ParallelPlan(1, 1, n, 0), Collectives.Kind.ALL_REDUCE, s))
        .isCloseTo(expected, within(1e-12));
    // reduce-scatter and all-gather: half the bytes, half the steps
    double half = (double) (n - 1) / n * s / FABRIC + (n - 1) * FABRIC_STEP;
    assertThat(alone(Fixtures.cluster(1), new ParallelPlan(1, 1, n, 0), Collectives.Kind.REDUCE_SCATTER, s))
        .isCloseTo(half, within(1e-12));
  }

  /**
   * Azure's ND A100 v4 nccl-tests all-reduce busbw by size (8x A100, NCCL 2.18.5; GB/s), the points used below:
   * 1 KB, 2 MB, 16 MB, 134 MB, 4 GB, 8 GB.
   */
  static final List<Double> AZURE_SIZES = List.of(1024.0, 2097152.0, 16777216.0, 134217728.0, 4294967296.0,
      8589934592.0);
  static final List<Double> AZURE_BUSBW = List.of(0.04e9, 53.54e9, 109.22e9, 174.18e9, 230.48e9, 231.58e9);

  /** A ring phase moving {@code moved} bytes of a collective of size {@code i}-th table size, in {@code steps}. */
  static double ringByTable(int i, double moved, int steps) {
    double f = AZURE_BUSBW.get(i) / AZURE_BUSBW.get(AZURE_BUSBW.size() - 1);
    return moved / FABRIC + Math.max(steps * FABRIC_STEP, moved / (FABRIC * f) - moved / FABRIC);
  }

  @Test
  void ringCollectives_onALinkWithAMeasuredCurve_takeTheCurvesShapeBySize_atAnyRankCount_andEveryKind() {
    SystemSpec system = Fixtures.cluster(1, new llmsim.core.hw.BusBandwidthCurve(8, AZURE_SIZES, AZURE_BUSBW, "test"));
    for (int i = 0; i < AZURE_SIZES.size(); i++) {
      double s = AZURE_SIZES.get(i);
      for (int n : new int[] {2, 4, 8}) {
        ParallelPlan plan = new ParallelPlan(1, 1, n, 0);
        assertThat(alone(system, plan, Collectives.Kind.ALL_REDUCE, s)).as("all-reduce %s B over %d", s, n)
            .isCloseTo(ringByTable(i, 2.0 * (n - 1) / n * s, 2 * (n - 1)), withPercentage(1e-9));
        assertThat(alone(system, plan, Collectives.Kind.REDUCE_SCATTER, s)).as("reduce-scatter %s B over %d", s, n)
            .isCloseTo(ringByTable(i, (double) (n - 1) / n * s, n - 1), withPercentage(1e-9));
        assertThat(alone(system, plan, Collectives.Kind.ALL_GATHER, s)).as("all-gather %s B over %d", s, n)
            .isCloseTo(ringByTable(i, (double) (n - 1) / n * s, n - 1), withPercentage(1e-9));
      }
    }
    // 8x 2 MB against the table's own time, 2 x 7/8 x S / busbw, within the 1.4% of its asymptote below FABRIC's...
    double measured = 1.75 * 2097152.0 / 53.54e9;
    double got = alone(system, new ParallelPlan(1, 1, 8, 0), Collectives.Kind.ALL_REDUCE, 2097152.0);
    assertThat(got).isCloseTo(measured * 231.58e9 / FABRIC, withPercentage(1e-9));
    // ...and at the largest size and beyond only the steps' latency is added: the large-message rate is the link's
    double big = 4 * 8589934592.0;
    assertThat(alone(system, new ParallelPlan(1, 1, 8, 0), Collectives.Kind.ALL_REDUCE, big))
        .isCloseTo(1.75 * big / FABRIC + 14 * FABRIC_STEP, withPercentage(1e-9));
  }

  @Test
  void ringCollectives_onALinkWithTablesAtSeveralRankCounts_readTheTableAtTheirRankCount_againstTheLargestRanksTop() {
    // vTrain's A100 in-place all-reduce busbw (GB/s) at 1 MiB, 16 MiB, 1 GiB (trace/a100/AR_GPU{2,4,8}_1M_1024M_LUT)
    List<Double> sizes = List.of(1048576.0, 16777216.0, 1073741824.0);
    double[][] busbw = {{23.25e9, 129.65e9, 196.89e9}, {29.82e9, 141.56e9, 221.37e9}, {19.91e9, 127.08e9, 229.25e9}};
    int[] ranks = {2, 4, 8};
    List<llmsim.core.hw.BusBandwidthCurve> tables = new java.util.ArrayList<>();
    for (int t = 0; t < ranks.length; t++) {
      tables.add(new llmsim.core.hw.BusBandwidthCurve(ranks[t], sizes,
          List.of(busbw[t][0], busbw[t][1], busbw[t][2]), "test"));
    }
    SystemSpec system = Fixtures.cluster(1, new llmsim.core.hw.BusBandwidthCurves(tables));
    double top = busbw[2][2];
    for (int t = 0; t < ranks.length; t++) {
      int n = ranks[t];
      ParallelPlan plan = new ParallelPlan(1, 1, n, 0);
      for (int i = 0; i < sizes.size(); i++) {
        double s = sizes.get(i);
        double f = busbw[t][i] / top;
        double ar = 2.0 * (n - 1) / n * s;
        double half = (double) (n - 1) / n * s;
        assertThat(alone(system, plan, Collectives.Kind.ALL_REDUCE, s)).as("all-reduce %s B over %d", s, n)
            .isCloseTo(ar / FABRIC + Math.max(2 * (n - 1) * FABRIC_STEP, ar / (FABRIC * f) - ar / FABRIC),
                withPercentage(1e-9));
        assertThat(alone(system, plan, Collectives.Kind.REDUCE_SCATTER, s)).as("reduce-scatter %s B over %d", s, n)
            .isCloseTo(half / FABRIC + Math.max((n - 1) * FABRIC_STEP, half / (FABRIC * f) - half / FABRIC),
                withPercentage(1e-9));
      }
    }
    // the 1 MiB all-reduce: 8 GPUs take longer than 4 (vTrain's floor, 92 us against 53), which one table cannot say
    double eight = alone(system, new ParallelPlan(1, 1, 8, 0), Collectives.Kind.ALL_REDUCE, 1048576.0);
    double four = alone(system, new ParallelPlan(1, 1, 4, 0), Collectives.Kind.ALL_REDUCE, 1048576.0);
    assertThat(eight).isGreaterThan(1.5 * four);
  }

  @Test
  void theCurvesTimeTakesNoLinkBandwidth_twoCollectivesSharingTheLink_contendOnlyForTheirBytes() {
    SystemSpec system = Fixtures.cluster(1, new llmsim.core.hw.BusBandwidthCurve(8, AZURE_SIZES, AZURE_BUSBW, "test"));
    int i = 3;
    double s = AZURE_SIZES.get(i);
    Simulation sim = new Simulation();
    StepContext ctx = new StepContext(system, training(new ParallelPlan(4, 1, 2, 0), 1), IDEAL, sim, 1);
    ctx.collectives.tensorParallel("tp", Collectives.Kind.ALL_REDUCE, s);
    ctx.collectives.dataParallel("dp", Collectives.Kind.ALL_REDUCE, s);
    double m4 = 1.5 * s;
    double m2 = s;
    double l4 = ringByTable(i, m4, 6) - m4 / FABRIC;
    double l2 = ringByTable(i, m2, 2) - m2 / FABRIC;
    // the 2-rank one starts flowing first and is still flowing when the 4-rank one starts: from l2 on the link
    // carries both collectives' bytes without a gap
    assertThat(l2).isLessThan(l4);
    assertThat(m2 / FABRIC).isGreaterThan(l4 - l2);
    assertThat(sim.run().makespan()).isCloseTo(l2 + (m2 + m4) / FABRIC, withPercentage(1e-9));
  }

  @Test
  void nvlsAllReduce_onALinkWithAMeasuredNvlsCurve_takesItsShapeBySize_andTheRingWhereThatIsFaster() {
    // Azure ND H200 v5, NCCL 2.20.5, NVLS enabled (GB/s busbw): 16 MB 240.41, 1 GB 467.58, 8 GB 479.98
    List<Double> sizes = List.of(16777216.0, 1073741824.0, 8589934592.0);
    List<Double> busbw = List.of(240.41e9, 467.58e9, 479.98e9);
    double nvls = 170e9;
    SystemSpec system = Fixtures.clusterNvls(1, nvls, new llmsim.core.hw.BusBandwidthCurve(8, sizes, busbw, "test"));
    int n = 8;
    ParallelPlan plan = new ParallelPlan(1, 1, n, 0);
    boolean[] nvlsTaken = new boolean[sizes.size()];
    for (int i = 0; i < sizes.size(); i++) {
      double s = sizes.get(i);
      double moved = s * (n + 1) / n;
      double f = busbw.get(i) / busbw.get(busbw.size() - 1);
      double viaNvls = moved / nvls + Math.max(Fixtures.NVLS_LATENCY, moved / (nvls * f) - moved / nvls);
      double viaRing = 2.0 * (n - 1) / n * s / FABRIC + 2 * (n - 1) * FABRIC_STEP;
      nvlsTaken[i] = viaNvls < viaRing;
      assertThat(alone(system, plan, Collectives.Kind.ALL_REDUCE, s)).as("%s B", s)
          .isCloseTo(Math.min(viaNvls, viaRing), withPercentage(1e-9));
    }
    // 16 MB: at half its large-message busbw NVLS loses to the ring (without the curve it would win); 1 GB and 8 GB
    // take NVLS, the latter at the fixed latency alone
    assertThat(nvlsTaken).containsExactly(false, true, true);
    double s16 = sizes.get(0);
    assertThat(s16 * (n + 1) / n / nvls + Fixtures.NVLS_LATENCY)
        .isLessThan(2.0 * (n - 1) / n * s16 / FABRIC + 2 * (n - 1) * FABRIC_STEP);
  }

  @Test
  void nvlsAllReduce_sendsNPlusOneOverNOfTheBytesAtTheNvlsRate_whereThatBeatsTheRing() {
    double s = 1e9;
    double nvls = 170e9;
    int n = 8;
    // NVLS: S(n+1)/n through each link plus its fixed latency; the ring: 2(n-1)/n x S in 2(n-1) steps
    double viaNvls = s * (n + 1) / n / nvls + Fixtures.NVLS_LATENCY;
    double viaRing = 2.0 * (n - 1) / n * s / FABRIC + 2 * (n - 1) * FABRIC_STEP;
    assertThat(viaNvls).isLessThan(viaRing);
    assertThat(alone(Fixtures.cluster(1, nvls), new ParallelPlan(1, 1, n, 0), Collectives.Kind.ALL_REDUCE, s))
        .isCloseTo(viaNvls, within(1e-12));
    // at 2 GPUs the ring moves S, NVLS 1.5 S at a lower rate: the ring is taken
    double ring2 = s / FABRIC + 2 * FABRIC_STEP;
    assertThat(alone(Fixtures.cluster(1, nvls), new ParallelPlan(1, 1, 2, 0), Collectives.Kind.ALL_REDUCE, s))
        .isCloseTo(ring2, within(1e-12));
    // reduce-scatter stays a ring
    double half = (double) (n - 1) / n * s / FABRIC + (n - 1) * FABRIC_STEP;
    assertThat(alone(Fixtures.cluster(1, nvls), new ParallelPlan(1, 1, n, 0), Collectives.Kind.REDUCE_SCATTER, s))
        .isCloseTo(half, within(1e-12));
  }

  @Test
  void nvlsAllReduce_paysItsFixedLatency_soAtFourGpusTheRingTakesSmallMessagesAndNvlsLargeOnes() {
    double nvls = 170e9;
    int n = 4;
    ParallelPlan plan = new ParallelPlan(1, 1, n, 0);
    for (double s : new double[] {1e6, 1e9}) {
      double viaNvls = s * (n + 1) / n / nvls + Fixtures.NVLS_LATENCY;
      double viaRing = 2.0 * (n - 1) / n * s / FABRIC + 2 * (n - 1) * FABRIC_STEP;
      double got = alone(Fixtures.cluster(1, nvls), plan, Collectives.Kind.ALL_REDUCE, s);
      assertThat(got).isCloseTo(Math.min(viaNvls, viaRing), within(1e-12));
      // 1 MB: 6 ring steps (12 us) cost less than NVLS's 20 us; 1 GB: NVLS's fewer bytes per link win
      assertThat(got).isCloseTo(s < 1e8 ? viaRing : viaNvls, within(1e-12));
    }
  }

  @Test
  void allReduceAcrossNodes_isHierarchical_reduceScatterInside_allReduceOfTheShardAcross_allGatherInside() {
    double s = 1e9;
    int nodes = 4;
    double inside = 7.0 / 8 * s / FABRIC + 7 * FABRIC_STEP;
    // each GPU's share of its node's NICs: 8 NICs of 20 GB/s for 8 GPUs
    double across = 2.0 * (nodes - 1) / nodes * (s / 8) / NIC + 2 * (nodes - 1) * NIC_STEP;
    double expected = inside + across + inside;
    assertThat(alone(Fixtures.cluster(nodes), new ParallelPlan(1, 1, 8 * nodes, 0), Collectives.Kind.ALL_REDUCE, s))
        .isCloseTo(expected, within(1e-12));
  }

  static double bytesOn(Trace t, Lane lane) {
    double sum = 0;
    for (int i = 0; i < t.size(); i++) {
      if (t.lanes().get(t.ops().streams()[i]) == lane) {
        sum += t.ops().linkBytes()[i];
      }
    }
    return sum;
  }

  static Trace step(SystemSpec system, ModelSpec m, Task t) {
    Simulation sim = new Simulation();
    var plan = llmsim.core.memory.MemoryPlanner.place(system, m, t, IDEAL, Offload.NONE);
    WorkloadBuilder w = new WorkloadBuilder(system, m, t, IDEAL, plan, sim);
    w.build();
    return sim.run();
  }

  /** Each op's id by its name. */
  static java.util.Map<String, Integer> ids(Trace t) {
    String[] names = t.ops().names();
    java.util.Map<String, Integer> id = new java.util.HashMap<>();
    for (int i = 0; i < names.length; i++) {
      id.put(names[i], i);
    }
    return id;
  }

  @Test
  void ddp_movesTwoNMinusOneOverNOfTheGradientsPerGpu_andOverlapsThemWithTheBackwardPass() {
    ModelSpec m = Fixtures.llama7b();
    // batch 4 x 2048 tokens: the backward pass (about 0.36 s) outlasts the all-reduce (about 0.12 s)
    Trace ddp = step(Fixtures.cluster(1), m, training(new ParallelPlan(1, 1, 8, 0), 4));
    Trace one = step(Fixtures.discrete(), m, training(ParallelPlan.SINGLE, 4));
    double grads = 2.0 * m.parameterCount(); // bf16 gradients of every parameter, embeddings and head included
    assertThat(bytesOn(ddp, Lane.FABRIC)).isCloseTo(2.0 * 7 / 8 * grads, withPercentage(1e-9));
    // the all-reduce of 23.6 GB at 200 GB/s hides behind the backward pass but for the last layer's bucket
    double allReduce = 2.0 * 7 / 8 * grads / FABRIC;
    assertThat(ddp.makespan() - one.makespan()).isGreaterThan(0).isLessThan(0.1 * allReduce + 1e-3);
  }

  @Test
  void zero3_movesAboutThreeTimesTheParameterBytes_twoGathersAndAReduceScatter() {
    ModelSpec m = Fixtures.llama7b();
    Trace z3 = step(Fixtures.cluster(1), m, training(new ParallelPlan(1, 1, 8, 3), 1));
    double layerBytes = 2.0 * m.parametersPerLayer() * m.layers();
    double grads = 2.0 * m.parameterCount();
    // all-gather of the layers' weights forward and again backward, reduce-scatter of every gradient, each
    // (n-1)/n of the bytes: about 3x the parameter bytes, as against DDP's 2x
    assertThat(bytesOn(z3, Lane.FABRIC)).isCloseTo(7.0 / 8 * (2 * layerBytes + grads), withPercentage(1e-9));
  }

  @Test
  void zero3_gathersEachLayerWhileTheLayerBeforeItComputes_atMostTwoLayersAhead() {
    ModelSpec m = Fixtures.llama7b();
    Trace t = step(Fixtures.cluster(1), m, training(new ParallelPlan(1, 1, 8, 3), 4));
    java.util.Map<String, Integer> id = ids(t);
    // a layer's forward is its ops from attn_norm to residual_2; the gather of layer l starts once layer l - 2 has
    // ended (its weights freed), so it runs during layer l - 1, and layer l starts when both are done
    for (int l = 2; l < 6; l++) {
      int gather = id.get("L" + l + ".zero3_all_gather");
      double twoBackEnds = t.end()[id.get("L" + (l - 2) + ".residual_2")];
      double previousStarts = t.start()[id.get("L" + (l - 1) + ".attn_norm")];
      double previousEnds = t.end()[id.get("L" + (l - 1) + ".residual_2")];
      assertThat(t.start()[gather]).as("layer %d", l).isEqualTo(twoBackEnds)
          .isLessThanOrEqualTo(previousStarts).isLessThan(previousEnds);
      assertThat(t.start()[id.get("L" + l + ".attn_norm")])
          .isEqualTo(Math.max(previousEnds, t.end()[gather]));
    }
  }

  @Test
  void zero3_backwardGathersTheNextLayerWhileThisOneComputes_notBehindItsGradientReduction() {
    ModelSpec m = Fixtures.llama7b();
    Trace t = step(Fixtures.cluster(1), m, training(new ParallelPlan(1, 1, 8, 3), 4));
    java.util.Map<String, Integer> id = ids(t);
    // backward runs layer n - 1 down to 0, each from residual_2.bwd to attn_norm.bwd. FSDP prefetches layer l - 1's
    // gather from layer l's pre- or post-backward hook, ahead of layer l's reduce-scatter: it starts once layer l + 1
    // (two above it) has freed its weights, so it runs during layer l's backward, whose gradient reduction (issued
    // after that backward) it does not wait for. Queued behind that reduction it started only once layer l had ended.
    int n = m.layers();
    for (int l = n - 3; l > n - 7; l--) {
      int gather = id.get("L" + (l - 1) + ".zero3_all_gather.bwd");
      double twoAboveEnds = t.end()[id.get("L" + (l + 1) + ".attn_norm.bwd")];
      double thisStarts = t.start()[id.get("L" + l + ".residual_2.bwd")];
      double thisEnds = t.end()[id.get("L" + l + ".attn_norm.bwd")];
      assertThat(t.start()[gather]).as("layer %d", l - 1).isEqualTo(twoAboveEnds)
          .isLessThanOrEqualTo(thisStarts).isLessThan(thisEnds);
      // the gather (~2 ms at the fixture's link, with this layer's reduction on the same link) ends well inside this
      // layer's backward (~10 ms), so the next layer waits for nothing but this one
      assertThat(t.end()[gather]).as("layer %d", l - 1).isLessThan(thisEnds);
      assertThat(t.start()[id.get("L" + (l - 1) + ".residual_2.bwd")]).isEqualTo(thisEnds);
    }
  }

  @Test
  void underGradientAccumulation_zero2And3ReduceEveryMicroBatch_ddpAndZero1OnceAtTheEnd() {
    ModelSpec m = Fixtures.llama7b();
    int microBatches = 3;
    double grads = 2.0 * m.parameterCount();
    double layerBytes = 2.0 * m.parametersPerLayer() * m.layers();
    for (int zero = 0; zero <= 3; zero++) {
      Task t = training(new ParallelPlan(1, 1, 8, zero), 1).withMicroBatches(microBatches);
      Trace trace = step(Fixtures.cluster(1), m, t);
      // DDP all-reduces 2 (n-1)/n of the gradients once (no_sync until the last micro-batch); ZeRO-1 reduce-scatters
      // (n-1)/n of them once and all-gathers the updated weights; ZeRO-2 reduce-scatters in every micro-batch (its
      // shard of the gradients is all it keeps); ZeRO-3 also gathers each layer's weights forward and backward
      double expected = switch (zero) {
        case 0 -> 2.0 * 7 / 8 * grads;
        case 1 -> 7.0 / 8 * grads + 7.0 / 8 * grads;
        case 2 -> microBatches * 7.0 / 8 * grads + 7.0 / 8 * grads;
        default -> microBatches * 7.0 / 8 * (2 * layerBytes + grads);
      };
      assertThat(bytesOn(trace, Lane.FABRIC)).as("zero %d", zero).isCloseTo(expected, withPercentage(1e-9));
    }
  }

  @Test
  void tensorParallelism_allReducesTheActivationsTwiceForwardAndTwiceBackward_perLayer() {
    ModelSpec m = Fixtures.llama7b();
    int tp = 4;
    int batch = 2;
    Trace t = step(Fixtures.cluster(1), m, training(new ParallelPlan(tp, 1, 2, 0), batch));
    long tpOps = 0;
    for (int i = 0; i < t.size(); i++) {
      if (t.streams().get(t.ops().streams()[i]).startsWith("tensor-parallel")) {
        tpOps++;
        double activations = (double) batch * 2048 * m.hidden() * 2;
        assertThat(t.ops().linkBytes()[i]).isCloseTo(2.0 * (tp - 1) / tp * activations, withPercentage(1e-9));
      }
    }
    assertThat(tpOps).isEqualTo(4L * m.layers());
  }

  @Test
  void aTensorParallelGroupWiderThanANode_allReducesOverTheNetwork_andTheResultSaysSo() {
    ModelSpec m = Fixtures.llama7b();
    int perNode = 8;
    int nodes = 2;
    int tp = perNode * nodes;
    int batch = 1;
    SystemSpec system = Fixtures.cluster(nodes, 0, 108, 24, 16);
    Task wide = training(new ParallelPlan(tp, 1, 1, 0), batch);
    // hierarchical: each of the 4 per-layer all-reduces of the activations sends its 1/8 shard over the network, a
    // ring of 2 (nodes - 1) / nodes of it over each GPU's share of the NICs
    double activations = (double) batch * 2048 * m.hidden() * 2;
    assertThat(bytesOn(step(system, m, wide), Lane.NETWORK))
        .isCloseTo(4.0 * m.layers() * 2.0 * (nodes - 1) / nodes * activations / perNode, withPercentage(1e-9));
    StepResult r = Simulator.simulate(system, m, wide, IDEAL);
    assertThat(r.timeByBound().get(llmsim.core.engine.Bound.NETWORK)).isPositive();
    // 'tp 16 on 16 GPUs' read as if its all-reduces stayed on NVLink
    assertThat(r.warnings()).singleElement().asString().startsWith("tp " + tp + " spans " + nodes + " nodes of "
        + perNode + " GPUs: its per-layer all-reduces cross the network (nic)")
        .contains("a tp of at most " + perNode + " keeps them inside a node");
    // a group inside a node, data parallel across nodes: no note
    Task inside = training(new ParallelPlan(perNode, 1, nodes, 0), batch);
    assertThat(Simulator.simulate(system, m, inside, IDEAL).warnings()).isEmpty();
  }

  @Test
  void perGpuMemory_isSplitByTensorParallelism_andShardedByZeroStage() {
    ModelSpec m = Fixtures.llama7b();
    SystemSpec c = Fixtures.cluster(1);
    var none = llmsim.core.memory.MemoryPlanner.place(c, m, training(new ParallelPlan(1, 1, 8, 0), 1), IDEAL, Offload.NONE);
    var z1 = llmsim.core.memory.MemoryPlanner.place(c, m, training(new ParallelPlan(1, 1, 8, 1), 1), IDEAL, Offload.NONE);
    var z3 = llmsim.core.memory.MemoryPlanner.place(c, m, training(new ParallelPlan(1, 1, 8, 3), 1), IDEAL, Offload.NONE);
    var tp2 = llmsim.core.memory.MemoryPlanner.place(c, m, training(new ParallelPlan(2, 1, 4, 0), 1), IDEAL, Offload.NONE);
    double p = m.parameterCount();
    assertThat(none.optimizerBytes()).isCloseTo(12 * p, withPercentage(1e-9));
    assertThat(z1.optimizerBytes()).isCloseTo(12 * p / 8, withPercentage(1e-9));
    assertThat(z1.gradientsBytes()).isCloseTo(2 * p, withPercentage(1e-9));
    // ZeRO-2: the gradient shard, and a layer's whole gradients until they are reduce-scattered (the mean layer's)
    var z2 = llmsim.core.memory.MemoryPlanner.place(c, m, training(new ParallelPlan(1, 1, 8, 2), 1), IDEAL, Offload.NONE);
    assertThat(z2.gradientsBytes()).isCloseTo(2 * p / 8 + 2 * p / m.layers(), withPercentage(1e-9));
    // ZeRO-3: its shard of the weights, and the two layers its gathers hold at once (the one running, the next),
    // each a layer's mean share of the weights as the planner's layer buffers are
    double gathered = 2 * 2.0 * p / m.layers();
    assertThat(z3.weightsBytes()).isCloseTo(2 * p / 8 + gathered, withPercentage(1e-9));
    assertThat(tp2.weightsBytes()).isCloseTo(2 * p / 2, withPercentage(1e-9));
    assertThat(tp2.capacityBytes()).isEqualTo(none.capacityBytes()); // one GPU's memory, never pooled
  }

  @Test
  void sequenceParallelism_movesTheSameTensorParallelBytes_asReduceScattersAndAllGathers_andSplitsNormActivations() {
    ModelSpec m = Fixtures.llama7b();
    int tp = 4;
    Trace ar = step(Fixtures.cluster(1), m, training(new ParallelPlan(tp, 1, 2, 0), 2));
    Trace sp = step(Fixtures.cluster(1), m, training(new ParallelPlan(tp, 1, 2, 0).withSequenceParallel(true), 2));
    double arBytes = 0;
    double spBytes = 0;
    long spOps = 0;
    for (int i = 0; i < ar.size(); i++) {
      if (ar.streams().get(ar.ops().streams()[i]).startsWith("tensor-parallel")) {
        arBytes += ar.ops().linkBytes()[i];
      }
    }
    for (int i = 0; i < sp.size(); i++) {
      if (sp.streams().get(sp.ops().streams()[i]).startsWith("tensor-parallel")) {
        spBytes += sp.ops().linkBytes()[i];
        spOps++;
      }
    }
    // an all-reduce is a reduce-scatter plus an all-gather: 2(t-1)/t = (t-1)/t + (t-1)/t
    assertThat(spBytes).isCloseTo(arBytes, withPercentage(1e-9));
    assertThat(spOps).isEqualTo(8L * m.layers());
    // the 4h of norm and block inputs per token and layer are split over tp: 2 bytes x 4h x (1 - 1/t) less
    double tokens = 2.0 * 2048;
    var plain = llmsim.core.memory.MemoryPlanner.place(Fixtures.cluster(1), m, training(new ParallelPlan(tp, 1, 2, 0), 2),
        IDEAL, Offload.NONE);
    var split = llmsim.core.memory.MemoryPlanner.place(Fixtures.cluster(1), m,
        training(new ParallelPlan(tp, 1, 2, 0).withSequenceParallel(true), 2), IDEAL, Offload.NONE);
    assertThat(plain.activationsBytes() - split.activationsBytes())
        .isCloseTo(m.layers() * tokens * 2.0 * 4 * m.hidden() * (1 - 1.0 / tp), withPercentage(1e-9));
  }

  @Test
  void sequenceParallelWithoutTensorParallelism_isSaidToDoNothing() {
    ModelSpec m = Fixtures.llama7b();
    SystemSpec box = Fixtures.cluster(1, 0, 108, 24, 16);
    Task tp1 = training(new ParallelPlan(1, 1, 8, 0, true, true, 1, false,
        llmsim.core.task.PipelineSchedule.ONE_F_ONE_B, false), 1);
    assertThat(Simulator.simulate(box, m, tp1, IDEAL).warnings()).singleElement().asString()
        .contains("sequence_parallel has no effect at tp 1");
    Task tp2 = training(new ParallelPlan(2, 1, 4, 0, true, true, 1, false,
        llmsim.core.task.PipelineSchedule.ONE_F_ONE_B, false), 1);
    assertThat(Simulator.simulate(box, m, tp2, IDEAL).warnings()).isEmpty();
  }

  @Test
  void zeroAndUnbucketedReductionsWithoutReplicas_andGpipeWithoutStages_areSaidToDoNothing() {
    ModelSpec m = Fixtures.llama7b();
    SystemSpec box = Fixtures.cluster(1, 0, 108, 24, 16);
    // tp 8 on the 8-GPU box leaves one data-parallel replica: ZeRO has nothing to shard over, and nothing to reduce
    StepResult plain = Simulator.simulate(box, m, training(new ParallelPlan(8, 1, 1, 0), 1), IDEAL);
    assertThat(plain.warnings()).isEmpty();
    for (int zero = 1; zero <= 3; zero++) {
      StepResult z = Simulator.simulate(box, m, training(new ParallelPlan(8, 1, 1, zero), 1), IDEAL);
      assertThat(z.warnings()).singleElement().asString().contains("zero " + zero + " has no effect at dp 1");
      // what the stage shards, listed as a sentence lists them: ZeRO-1 the optimizer state, 2 also gradients, 3 weights
      List<String> sharded = List.of("the optimizer state", "gradients", "weights").subList(0, zero);
      String listed = sharded.size() == 1 ? sharded.get(0)
          : String.join(", ", sharded.subList(0, zero - 1)) + " and " + sharded.get(zero - 1);
      assertThat(z.warnings().get(0)).contains("ZeRO shards " + listed + " over the data-parallel replicas");
      // the warning is true: the step and the bytes are those of no ZeRO at all
      assertThat(z.stepTimeSeconds()).isEqualTo(plain.stepTimeSeconds());
      assertThat(z.memory().totalBytes()).isEqualTo(plain.memory().totalBytes());
    }
    // dp 0 is every GPU tp leaves: one here too
    assertThat(Simulator.simulate(box, m, training(new ParallelPlan(8, 1, 0, 1), 1), IDEAL).warnings())
        .singleElement().asString().contains("zero 1 has no effect at dp 1");
    ParallelPlan unbucketed = new ParallelPlan(8, 1, 1, 0, false, false, 1, false,
        llmsim.core.task.PipelineSchedule.ONE_F_ONE_B);
    StepResult u = Simulator.simulate(box, m, training(unbucketed, 1), IDEAL);
    assertThat(u.warnings()).singleElement().asString().contains("overlap_grad_reduce false has no effect at dp 1");
    assertThat(u.stepTimeSeconds()).isEqualTo(plain.stepTimeSeconds());
    StepResult g = Simulator.simulate(box, m, training(new ParallelPlan(8, 1, 1, 0).withGpipe(), 1), IDEAL);
    assertThat(g.warnings()).singleElement().asString().contains("schedule gpipe has no effect at pp 1");
    assertThat(g.stepTimeSeconds()).isEqualTo(plain.stepTimeSeconds());
    // where each acts, nothing is said
    assertThat(Simulator.simulate(box, m, training(new ParallelPlan(4, 1, 2, 1), 1), IDEAL).warnings()).isEmpty();
    assertThat(Simulator.simulate(box, m, training(new ParallelPlan(4, 1, 2, 0, false, false, 1, false,
        llmsim.core.task.PipelineSchedule.ONE_F_ONE_B), 1), IDEAL).warnings()).isEmpty();
    // (GPipe over two micro-batches: with one it orders nothing, PipelineTest)
    assertThat(Simulator.simulate(box, m, training(new ParallelPlan(4, 2, 1, 0).withGpipe(), 1).withMicroBatches(2),
        IDEAL).warnings()).isEmpty();
  }

  @Test
  void inferenceOnMoreGpusThanAReplicaUses_saysTheRatesAreTheReplicasSum() {
    ModelSpec m = Fixtures.llama7b();
    SystemSpec box = Fixtures.cluster(1, 0, 108, 24, 16);
    Task dp8 = new Task(TaskKind.INFERENCE, Precision.BF16, WeightFormat.BF16, 1, 144, 128, 16, 1, Recompute.NONE, 8,
        128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(1, 1, 8, 0));
    var r = Simulator.simulate(box, m, dp8, IDEAL);
    String each = String.format(java.util.Locale.ROOT, "(%.1f generated tokens/s a replica)", r.tokensPerSecond() / 8);
    assertThat(r.warnings()).singleElement().asString().startsWith("8 data-parallel replicas each serve batch 1")
        .contains(each);
    Task tp8 = new Task(TaskKind.INFERENCE, Precision.BF16, WeightFormat.BF16, 1, 144, 128, 16, 1, Recompute.NONE, 8,
        128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(8, 1, 1, 0));
    assertThat(Simulator.simulate(box, m, tp8, IDEAL).warnings()).isEmpty();
  }
}
