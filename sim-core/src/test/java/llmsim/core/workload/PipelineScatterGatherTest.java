package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * Megatron's scatter-gather of pipeline sends (megatron-classic): each tensor-parallel rank sends its 1 / tp share of
 * the activation (or its gradient) to the next stage, and the receiving stage all-gathers the shares over its
 * tensor-parallel group before using them.
 */
class PipelineScatterGatherTest {
  static final int SEQ = 2048;

  static Task task(int tp) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, SEQ, 1, 1, 2, Recompute.NONE, 8, 128,
        Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(tp, 2, 1, 0));
  }

  static Trace step(SystemSpec system, Task t, SoftwareProfile sw) {
    Simulation sim = new Simulation();
    var plan = llmsim.core.memory.MemoryPlanner.place(system, PipelineTest.M, t, sw, Offload.NONE);
    new WorkloadBuilder(system, PipelineTest.M, t, sw, plan, sim).build();
    return sim.run();
  }

  static double duration(Trace t, String name) {
    int i = op(t, name);
    return t.end()[i] - t.start()[i];
  }

  @Test
  void acrossNodes_eachRankSendsItsShare_andTheNextStageGathersTheWholeActivation() {
    // 2 nodes of 8 GPUs, tp 8 x pp 2: a stage fills a node, so the activation crosses the network. Each GPU's share
    // of its node's NICs is one 20 GB/s NIC (5 us a step); the fabric runs rings at 200 GB/s (2 us a step)
    Trace t = step(Fixtures.cluster(2), task(8), SoftwareProfiles.MEGATRON_CLASSIC);
    double activation = 1.0 * SEQ * PipelineTest.M.hidden() * 2; // batch 1, bf16: 16 MiB
    double send = activation / 8 / 20e9 + 5e-6; // a rank's eighth, one step
    assertThat(duration(t, "s0.mb0.pp.send_activations")).isCloseTo(send, withPercentage(0.1));
    assertThat(duration(t, "s1.mb0.pp.send_gradients")).isCloseTo(send, withPercentage(0.1));
    // the all-gather of the eight shares on the receiving stage: 7/8 of the activation through each GPU's link
    double gather = 7.0 / 8 * activation / 200e9 + 7 * 2e-6;
    int recvGather = op(t, "s1.mb0.pp.recv_activations.all_gather");
    assertThat(t.end()[recvGather] - t.start()[recvGather]).isCloseTo(gather, withPercentage(0.1));
    assertThat(duration(t, "s0.mb0.pp.recv_gradients.all_gather")).isCloseTo(gather, withPercentage(0.1));
    // it starts once the send has arrived, and the stage's first layer waits for it
    assertThat(t.start()[recvGather]).isGreaterThanOrEqualTo(t.end()[op(t, "s0.mb0.pp.send_activations")]);
    assertThat(t.start()[op(t, "s1.mb0.L16.attn_norm")]).isGreaterThanOrEqualTo(t.end()[recvGather]);
  }

  @Test
  void otherProfiles_sendTheWholeActivation_andGatherNothing() {
    Trace t = step(Fixtures.cluster(2), task(8), SoftwareProfiles.MEGATRON);
    double activation = 1.0 * SEQ * PipelineTest.M.hidden() * 2;
    assertThat(duration(t, "s0.mb0.pp.send_activations")).isCloseTo(activation / 20e9 + 5e-6, withPercentage(0.1));
    assertThatThrownBy(() -> op(t, "s1.mb0.pp.recv_activations.all_gather")).isInstanceOf(AssertionError.class);
  }

  @Test
  void withoutTensorParallelism_thereIsNothingToSplit() {
    // tp 1, pp 2 on one node: the whole activation over the fabric (one step), no gather
    Trace t = step(Fixtures.cluster(1), task(1), SoftwareProfiles.MEGATRON_CLASSIC);
    double activation = 1.0 * SEQ * PipelineTest.M.hidden() * 2;
    assertThat(duration(t, "s0.mb0.pp.send_activations")).isCloseTo(activation / 200e9 + 2e-6, withPercentage(0.1));
    assertThatThrownBy(() -> op(t, "s1.mb0.pp.recv_activations.all_gather")).isInstanceOf(AssertionError.class);
  }
}
