package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;

import llmsim.core.hw.SystemSpec;
import llmsim.core.task.ParallelPlan;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Which collectives a communication-bound explanation names: only those whose groups cross the binding link. */
class ExplainerCollectivesTest {
  final SystemSpec cluster = Fixtures.cluster(8); // 8 nodes of 8 GPUs

  @Test
  void tensorParallelInsideANode_isNotBlamedOnTheNetwork_butIsOnTheFabric() {
    ParallelPlan plan = new ParallelPlan(8, 1, 8, 0);
    assertThat(Explainer.collectivesOn(cluster, plan, true, true))
        .isEqualTo("the data-parallel gradient all-reduces not hidden behind the backward pass");
    // tp 8 fills a node: each node holds one replica, so the gradient all-reduce has no rank inside the node to
    // reduce with and goes straight over the network (Collectives.dataParallel: intra = 8 / tp = 1)
    assertThat(Explainer.collectivesOn(cluster, plan, false, true))
        .isEqualTo("the tensor-parallel all-reduces on the critical path");
    assertThat(Explainer.collectivesOn(cluster, new ParallelPlan(4, 1, 16, 0), false, true))
        .isEqualTo("the tensor-parallel all-reduces on the critical path and the data-parallel gradient all-reduces not"
            + " hidden behind the backward pass");
  }

  @Test
  void tensorParallelAcrossNodes_andZero3_areNamed() {
    ParallelPlan plan = new ParallelPlan(16, 1, 4, 3);
    assertThat(Explainer.collectivesOn(cluster, plan, true, true)).isEqualTo("the tensor-parallel all-reduces on the"
        + " critical path and the ZeRO-3 weight all-gathers before each layer and gradient reduce-scatters");
  }

  @Test
  void hybridShard_sendsOnlyTheGradientShardsAcrossNodes() {
    ParallelPlan plan = new ParallelPlan(1, 1, 64, 3, true, false, 1, false, llmsim.core.task.PipelineSchedule.ONE_F_ONE_B,
        true);
    assertThat(Explainer.collectivesOn(cluster, plan, true, true))
        .isEqualTo("the across-node all-reduces of the gradient shards (hybrid shard)");
    assertThat(Explainer.collectivesOn(cluster, plan, false, true)).contains("ZeRO-3 weight all-gathers");
  }

  @Test
  void pipelineSends_areNamedOnTheLinkTheEngineSendsThemOver_stagesTpTimesDpRanksApart() {
    // ranks are numbered tensor-parallel fastest, then data-parallel, then pipeline (Collectives.pointToPoint): a
    // stage's neighbour is tp x dp ranks away, so across the network once tp x dp fills a node. tp 4 x dp 8: 32 ranks,
    // 4 nodes apart (it was told the sends stayed inside the node, and named them on the fabric)
    assertThat(Explainer.collectivesOn(cluster, new ParallelPlan(4, 2, 8, 1), true, true))
        .endsWith(" and the pipeline's activation sends between stages").contains("ZeRO-1");
    assertThat(Explainer.collectivesOn(cluster, new ParallelPlan(4, 2, 8, 1), false, true)).doesNotContain("pipeline");
    assertThat(Explainer.collectivesOn(cluster, new ParallelPlan(8, 8, 1, 0), false, true)).doesNotContain("pipeline");
    // tp 2 x dp 2 = 4 ranks: two stages share a node, the sends stay on its fabric
    SystemSpec two = Fixtures.cluster(2);
    assertThat(Explainer.collectivesOn(two, new ParallelPlan(2, 4, 2, 1), false, true))
        .endsWith(" and the pipeline's activation sends between stages");
    assertThat(Explainer.collectivesOn(two, new ParallelPlan(2, 4, 2, 1), true, true)).doesNotContain("pipeline");
  }

  @Test
  void inference_hasNoGradientCollectives() {
    assertThat(Explainer.collectivesOn(cluster, new ParallelPlan(8, 1, 8, 0), false, false))
        .isEqualTo("the tensor-parallel all-reduces on the critical path");
  }
}
