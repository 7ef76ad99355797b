package llmsim.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/**
 * A collective kernel holding SMs of its GPU while compute runs there: the compute-bound op on that GPU runs on the
 * SMs left for as long as the collective runs, and on all of them otherwise; another GPU's compute is untouched.
 */
class SmInterferenceTest {
  static final double PEAK = 100e12;
  static final double MEM_BW = 2e12;
  static final double LINK_BW = 200e9;
  static final int SMS = 108;
  static final int CHANNELS = 24;
  /** A compute-bound GEMM of 10 ms alone: 1e12 FLOP at 100 TFLOP/s, its 1 GB of traffic taking 0.5 ms. */
  static final double GEMM_FLOPS = 1e12;
  static final double GEMM_BYTES = 1e9;
  static final double GEMM_ALONE = GEMM_FLOPS / PEAK;
  /** A collective of 2 ms on the link: 400 MB at 200 GB/s. */
  static final double COMM_BYTES = 400e6;
  static final double COMM_ALONE = COMM_BYTES / LINK_BW;

  /** One GPU's resources: its memory pool, its link pool, its compute and comm streams, its two groups. */
  record Gpu(int memPool, int linkPool, int compute, int comm, int gemm, int collective) {}

  static Gpu gpu(OpSink sink, String label, int channels) {
    int mem = sink.addPool(label + "device memory");
    int link = sink.addPool(label + "fabric");
    int compute = sink.addStream(label + "compute", Lane.COMPUTE);
    int comm = sink.addStream(label + "comm", Lane.FABRIC);
    int gemm = sink.addGroup(new CostGroup("gemm", PEAK, mem, MEM_BW, -1, 1, 0));
    CostGroup ring = new CostGroup("ring", 1, -1, 1, link, LINK_BW, 0);
    int collective = sink.addGroup(channels > 0 ? ring.holdingSms(mem, channels, SMS) : ring);
    return new Gpu(mem, link, compute, comm, gemm, collective);
  }

  @Test
  void aCollectiveOverlappingAGemm_slowsItByTheSmsItHolds_andOnlyOnItsGpu() {
    Simulation sim = new Simulation();
    Gpu g0 = gpu(sim, "gpu0 ", CHANNELS);
    Gpu g1 = gpu(sim, "gpu1 ", CHANNELS);
    // GPU 0: the collective starts with the GEMM; GPU 1: the collective waits for the GEMM (nothing overlaps)
    int gemm0 = sim.addOp("gemm0", OpKind.MLP, g0.compute(), g0.gemm(), GEMM_FLOPS, GEMM_BYTES, 0);
    int comm0 = sim.addOp("allreduce0", OpKind.TRANSFER, g0.comm(), g0.collective(), 0, 0, COMM_BYTES);
    int gemm1 = sim.addOp("gemm1", OpKind.MLP, g1.compute(), g1.gemm(), GEMM_FLOPS, GEMM_BYTES, 0);
    int comm1 = sim.addOp("allreduce1", OpKind.TRANSFER, g1.comm(), g1.collective(), 0, 0, COMM_BYTES, gemm1);
    Trace t = sim.run();

    // for COMM_ALONE the GEMM runs on (SMS - CHANNELS) of SMS SMs, doing COMM_ALONE x (SMS - CHANNELS) / SMS of its
    // GEMM_ALONE of work; the rest at full speed: it ends COMM_ALONE x CHANNELS / SMS later than alone
    double slowed = COMM_ALONE * (SMS - CHANNELS) / SMS;
    double expected = COMM_ALONE + (GEMM_ALONE - slowed);
    assertThat(expected).isCloseTo(GEMM_ALONE + COMM_ALONE * CHANNELS / SMS, within(1e-15));
    assertThat(t.end()[gemm0]).isCloseTo(expected, within(1e-12));
    // the collective itself is not slowed: it runs on its link
    assertThat(t.end()[comm0]).isCloseTo(COMM_ALONE, within(1e-12));
    // nothing overlaps on GPU 1: the GEMM takes its standalone time, the collective follows it
    assertThat(t.end()[gemm1]).isCloseTo(GEMM_ALONE, within(1e-12));
    assertThat(t.end()[comm1]).isCloseTo(GEMM_ALONE + COMM_ALONE, within(1e-12));
  }

  @Test
  void aCollectiveStartingMidGemm_slowsOnlyTheOverlap() {
    Simulation sim = new Simulation();
    Gpu g = gpu(sim, "", CHANNELS);
    // the collective waits for a 4 ms memory-bound op on a third stream: it runs from 4 ms to 6 ms
    int side = sim.addStream("side", Lane.COMPUTE);
    int sideGroup = sim.addGroup(new CostGroup("side", PEAK, -1, 1, -1, 1, 4e-3));
    int before = sim.addOp("wait", OpKind.NORM_ELEMENTWISE, side, sideGroup, 0, 0, 0);
    int gemm = sim.addOp("gemm", OpKind.MLP, g.compute(), g.gemm(), GEMM_FLOPS, GEMM_BYTES, 0);
    int comm = sim.addOp("allgather", OpKind.TRANSFER, g.comm(), g.collective(), 0, 0, COMM_BYTES, before);
    Trace t = sim.run();
    assertThat(t.start()[comm]).isCloseTo(4e-3, within(1e-15));
    assertThat(t.end()[gemm]).isCloseTo(GEMM_ALONE + COMM_ALONE * CHANNELS / SMS, within(1e-12));
  }

  @Test
  void aCollectiveHoldingNoSms_leavesComputeAlone() {
    Simulation sim = new Simulation();
    Gpu g = gpu(sim, "", 0);
    int gemm = sim.addOp("gemm", OpKind.MLP, g.compute(), g.gemm(), GEMM_FLOPS, GEMM_BYTES, 0);
    sim.addOp("allreduce", OpKind.TRANSFER, g.comm(), g.collective(), 0, 0, COMM_BYTES);
    assertThat(sim.run().end()[gemm]).isCloseTo(GEMM_ALONE, within(1e-12));
  }

  @Test
  void aMemoryBoundOp_isNotSlowedByTheSmsHeld() {
    Simulation sim = new Simulation();
    Gpu g = gpu(sim, "", CHANNELS);
    // 1 GFLOP, 10 GB: 10 us of compute against 5 ms of memory; the SMs left still cover the compute
    int copy = sim.addOp("elementwise", OpKind.NORM_ELEMENTWISE, g.compute(), g.gemm(), 1e9, 10e9, 0);
    sim.addOp("allreduce", OpKind.TRANSFER, g.comm(), g.collective(), 0, 0, COMM_BYTES);
    assertThat(sim.run().end()[copy]).isCloseTo(10e9 / MEM_BW, within(1e-12));
  }

  @Test
  void everyPeerSimulated_eachPeersCollectiveSlowsItsOwnGemm() {
    Simulation sim = new Simulation();
    ReplicatedSink peers = new ReplicatedSink(sim, 4);
    Gpu g = gpu(peers, "", CHANNELS);
    peers.addOp("gemm", OpKind.MLP, g.compute(), g.gemm(), GEMM_FLOPS, GEMM_BYTES, 0);
    peers.addOp("allreduce", OpKind.TRANSFER, g.comm(), g.collective(), 0, 0, COMM_BYTES);
    Trace t = sim.run();
    double expected = GEMM_ALONE + COMM_ALONE * CHANNELS / SMS;
    for (int j = 0; j < 4; j++) {
      assertThat(t.end()[j]).as("peer %d's GEMM", j).isCloseTo(expected, within(1e-12));
    }
  }

  @Test
  void anOpHoldingSms_mustRunOnACommunicationLane() {
    Simulation sim = new Simulation();
    Gpu g = gpu(sim, "", CHANNELS);
    sim.addOp("misplaced", OpKind.TRANSFER, g.compute(), g.collective(), 0, 0, COMM_BYTES);
    assertThatThrownBy(sim::run).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("holds SMs");
  }

  @Test
  void holdingSms_needsTheGpusPoolAndMoreSmsThanHeld() {
    CostGroup ring = new CostGroup("ring", 1, -1, 1, 0, LINK_BW, 0);
    assertThatThrownBy(() -> ring.holdingSms(-1, CHANNELS, SMS)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ring.holdingSms(0, SMS, SMS)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("more SMs");
  }
}
