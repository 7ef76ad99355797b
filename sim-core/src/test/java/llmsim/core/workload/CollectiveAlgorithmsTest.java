package llmsim.core.workload;

import static llmsim.core.workload.CollectivesTest.FABRIC;
import static llmsim.core.workload.CollectivesTest.FABRIC_STEP;
import static llmsim.core.workload.CollectivesTest.NIC;
import static llmsim.core.workload.CollectivesTest.NIC_STEP;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.engine.Lane;
import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.hw.SystemSpec;
import llmsim.core.task.ParallelPlan;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * The double binary tree and all-to-all against their closed forms, derived here from the test cluster's link
 * figures (8 GPUs per node on a 200 GB/s fabric, 2 us per step; 8 NICs of 20 GB/s per node, 5 us per step).
 */
class CollectiveAlgorithmsTest {
  /** NCCL's tree: 0.92 of the bus bandwidth, a network hop 5.0/2.7 of a ring step (tuning.cc). */
  static final double TREE_BW = NIC * 0.92;
  static final double TREE_HOP = NIC_STEP * 5.0 / 2.7;

  static Trace alone(SystemSpec system, CollectiveAlgorithm algorithm, boolean allToAll, double bytes) {
    Simulation sim = new Simulation();
    StepContext ctx = new StepContext(system, CollectivesTest.training(
        new ParallelPlan(1, 1, system.totalDevices(), 0), 1), CollectivesTest.IDEAL, sim, 1);
    ctx.collectives.algorithm = algorithm;
    if (allToAll) {
      ctx.collectives.allToAll("a2a", bytes);
    } else {
      ctx.collectives.dataParallel("ar", Collectives.Kind.ALL_REDUCE, bytes);
    }
    return sim.run();
  }

  /** Reduce-scatter or all-gather inside a node of 8: 7/8 of the bytes in 7 steps. */
  static double inside(double s) {
    return 7.0 / 8 * s / FABRIC + 7 * FABRIC_STEP;
  }

  @Test
  void treeAllReduce_acrossManyNodes_smallMessage_isTaken_withLog2NodesHopsUpAndDown() {
    int nodes = 64;
    double s = 8e6;
    double shard = s / 8; // each GPU's shard after the node's reduce-scatter
    // double binary tree: 2 x shard per direction at 0.92 of the NIC share, 2 x log2(64) = 12 hops
    double tree = 2 * shard / TREE_BW + 2 * 6 * TREE_HOP;
    double ring = 2.0 * (nodes - 1) / nodes * shard / NIC + 2 * (nodes - 1) * NIC_STEP;
    assertThat(tree).isLessThan(ring);
    double expected = inside(s) + tree + inside(s);
    assertThat(alone(Fixtures.cluster(nodes), CollectiveAlgorithm.AUTO, false, s).makespan())
        .isCloseTo(expected, within(1e-12));
    assertThat(alone(Fixtures.cluster(nodes), CollectiveAlgorithm.RING, false, s).makespan())
        .isCloseTo(inside(s) + ring + inside(s), within(1e-12));
  }

  @Test
  void treeAllReduce_largeMessageOrFewNodes_leavesTheRing_unlessForced() {
    double s = 4e9;
    int nodes = 64;
    double shard = s / 8;
    double ring = 2.0 * (nodes - 1) / nodes * shard / NIC + 2 * (nodes - 1) * NIC_STEP;
    double tree = 2 * shard / TREE_BW + 2 * 6 * TREE_HOP;
    assertThat(ring).isLessThan(tree); // the bandwidth term dominates: 2(n-1)/n against 2/0.92
    assertThat(alone(Fixtures.cluster(nodes), CollectiveAlgorithm.AUTO, false, s).makespan())
        .isCloseTo(inside(s) + ring + inside(s), within(1e-12));
    assertThat(alone(Fixtures.cluster(nodes), CollectiveAlgorithm.TREE, false, s).makespan())
        .isCloseTo(inside(s) + tree + inside(s), within(1e-12));
    // two nodes: each of the two trees is one edge, so a node moves the shard once each way, as the ring does
    double tree2 = s / 8 / TREE_BW + 2 * 1 * TREE_HOP;
    assertThat(alone(Fixtures.cluster(2), CollectiveAlgorithm.TREE, false, s).makespan())
        .isCloseTo(inside(s) + tree2 + inside(s), within(1e-12));
    // 4 nodes, a small message: the tree's 2 x 2 hops at 5.0/2.7 of a step do not beat the ring's 6 steps
    double small = 8e3;
    double ring4 = 2.0 * 3 / 4 * small / 8 / NIC + 6 * NIC_STEP;
    assertThat(alone(Fixtures.cluster(4), CollectiveAlgorithm.AUTO, false, small).makespan())
        .isCloseTo(inside(small) + ring4 + inside(small), within(1e-12));
  }

  @Test
  void treeBusBandwidth_atLargeSizes_isAboutTheRings_within1OverN_andTheTreeFraction() {
    double s = 4e9;
    SystemSpec c = Fixtures.cluster(32);
    double ring = CollectiveBench.allReduceBusBandwidth(c, s, CollectiveAlgorithm.RING);
    double tree = CollectiveBench.allReduceBusBandwidth(c, s, CollectiveAlgorithm.TREE);
    // the network phases differ by (2 / 0.92) / (2 x 31/32); the node's phases are the same
    assertThat(tree).isLessThan(ring).isGreaterThan(0.85 * ring);
  }

  @Test
  void treeOnOneNode_isRefused_namingWhy() {
    assertThatThrownBy(() -> CollectiveBench.allReduceBusBandwidth(Fixtures.cluster(1), 1e9, CollectiveAlgorithm.TREE))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("across nodes");
  }

  @Test
  void allToAll_insideANode_sendsOneNthToEachPeer_oneStepEach() {
    double s = 1e9;
    int n = 8;
    Trace t = alone(Fixtures.cluster(1), CollectiveAlgorithm.AUTO, true, s);
    assertThat(CollectivesTest.bytesOn(t, Lane.FABRIC)).isCloseTo((double) (n - 1) / n * s, withPercentage(1e-9));
    assertThat(t.makespan()).isCloseTo((n - 1) * (s / n / FABRIC + FABRIC_STEP), within(1e-12));
    // nccl-tests' bus bandwidth of an all-to-all: (n-1)/n x S / time, the fabric's figure less the latencies
    double busbw = CollectiveBench.allToAllBusBandwidth(Fixtures.cluster(1), s);
    assertThat(busbw).isCloseTo((double) (n - 1) / n * s / t.makespan(), withPercentage(1e-9));
    assertThat(busbw).isLessThan(FABRIC).isGreaterThan(0.99 * FABRIC);
  }

  @Test
  void allToAll_acrossNodes_sendsTheNodesShareOverTheFabric_andTheRestOverTheNics_atOnce() {
    double s = 1e9;
    int nodes = 4;
    int n = 8 * nodes;
    Trace t = alone(Fixtures.cluster(nodes), CollectiveAlgorithm.AUTO, true, s);
    double perPeer = s / n;
    assertThat(CollectivesTest.bytesOn(t, Lane.FABRIC)).isCloseTo(7 * perPeer, withPercentage(1e-9));
    assertThat(CollectivesTest.bytesOn(t, Lane.NETWORK)).isCloseTo((n - 8) * perPeer, withPercentage(1e-9));
    double fabric = 7 * (perPeer / FABRIC + FABRIC_STEP);
    double network = (n - 8) * (perPeer / NIC + NIC_STEP); // each GPU's NIC share: 8 x 20 GB/s over 8 GPUs
    assertThat(t.makespan()).isCloseTo(Math.max(fabric, network), within(1e-12));
  }
}
