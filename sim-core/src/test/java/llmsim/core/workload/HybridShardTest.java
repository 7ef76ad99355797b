package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.engine.Lane;
import llmsim.core.engine.Trace;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.parallel.Placement;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** FSDP's hybrid shard: ZeRO-3 over the replicas in a node (8 on the test cluster), replicated across nodes. */
class HybridShardTest {
  static ParallelPlan hybrid(int dp) {
    return new ParallelPlan(1, 1, dp, 3).withHybridShard(true);
  }

  @Test
  void perGpuMemory_shardsWeightsGradientsAndOptimizerOverTheNodesReplicas_notAllOfThem() {
    ModelSpec m = Fixtures.llama7b();
    SystemSpec c = Fixtures.cluster(4);
    double p = m.parameterCount();
    var full = MemoryPlanner.place(c, m, CollectivesTest.training(new ParallelPlan(1, 1, 32, 3), 1),
        CollectivesTest.IDEAL, Offload.NONE);
    var hyb = MemoryPlanner.place(c, m, CollectivesTest.training(hybrid(32), 1), CollectivesTest.IDEAL, Offload.NONE);
    // bf16 weights and gradients, 12 bytes of fp32 optimizer state per parameter: / 32 full, / 8 hybrid; beside
    // the weight shards, the two whole layers ZeRO-3's gathers hold at once
    double gathered = 2 * 2.0 * p / m.layers(); // a layer's mean share of the weights, as the planner's buffers
    assertThat(full.weightsBytes()).isCloseTo(2 * p / 32 + gathered, withPercentage(1e-9));
    assertThat(hyb.weightsBytes()).isCloseTo(2 * p / 8 + gathered, withPercentage(1e-9));
    // and beside the gradient shard, the layer whose gradients are whole until they are reduce-scattered
    assertThat(hyb.gradientsBytes()).isCloseTo(2 * p / 8 + 2 * p / m.layers(), withPercentage(1e-9));
    assertThat(hyb.optimizerBytes()).isCloseTo(12 * p / 8, withPercentage(1e-9));
  }

  @Test
  void traffic_gathersAndReduceScattersInsideTheNode_andAllReducesOnlyTheShardAcrossNodes() {
    ModelSpec m = Fixtures.llama7b();
    int nodes = 2;
    Trace t = CollectivesTest.step(Fixtures.cluster(nodes), m, CollectivesTest.training(hybrid(8 * nodes), 1));
    double layerBytes = 2.0 * m.parametersPerLayer() * m.layers();
    double grads = 2.0 * m.parameterCount();
    // inside the node (8 replicas): the weights gathered forward and backward, the gradients reduce-scattered
    assertThat(CollectivesTest.bytesOn(t, Lane.FABRIC)).isCloseTo(7.0 / 8 * (2 * layerBytes + grads),
        withPercentage(1e-9));
    // across nodes: a ring all-reduce of each GPU's 1/8 shard over 2 nodes moves 2(2-1)/2 of it
    assertThat(CollectivesTest.bytesOn(t, Lane.NETWORK)).isCloseTo(grads / 8, withPercentage(1e-9));
  }

  @Test
  void plansThatCannotRun_areRefusedNamingTheShardKey() {
    ModelSpec m = Fixtures.llama7b();
    // one node: nothing to replicate across
    assertThatThrownBy(() -> Placement.resolve(Fixtures.cluster(1), m, CollectivesTest.training(hybrid(0), 1)))
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.SHARD))
        .hasMessageContaining("one node");
    // tp 8 fills the node: one replica per node, nothing to shard over
    assertThatThrownBy(() -> Placement.resolve(Fixtures.cluster(2), m,
        CollectivesTest.training(new ParallelPlan(8, 1, 0, 3).withHybridShard(true), 1)))
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.SHARD));
    // hybrid shard is ZeRO-3's
    assertThatThrownBy(() -> new ParallelPlan(1, 1, 16, 1).withHybridShard(true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("zero 3");
    // a runnable plan keeps the hybrid shard
    assertThat(Placement.resolve(Fixtures.cluster(2), m, CollectivesTest.training(hybrid(0), 1)).plan().hybridShard())
        .isTrue();
  }
}
