package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.Footprint;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.TrainingOptimizer;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Pure-bf16 state, bitsandbytes' 8-bit and paged AdamW, and the optimizer inside the backward. */
class TrainingOptimizerTest {
  final ModelSpec llama7b = Fixtures.llama7b();

  static Task full(TrainingOptimizer o) {
    return new Task(TaskKind.FINETUNE_FULL, Precision.BF16, WeightFormat.BF16, 1, 512, 1, 1, 1, true, 8, 128,
        Offload.NONE).withOptimizer(o);
  }

  @Test
  void stateBytes_followTheWidths() {
    double p = llama7b.parameterCount();
    // mixed precision: fp32 master, m, v
    assertThat(Footprint.of(llama7b, full(TrainingOptimizer.DEFAULT), true).optimizerBytes()).isEqualTo(12 * p);
    // pure bf16 AdamW: m and v in bf16, no master
    TrainingOptimizer pure = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW, false, false);
    assertThat(Footprint.of(llama7b, full(pure), true).optimizerBytes()).isEqualTo(4 * p);
    // 8-bit: a byte per moment and an fp32 absmax per 256 elements of each
    TrainingOptimizer eight = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW_8BIT, false, false);
    assertThat(Footprint.of(llama7b, full(eight), true).optimizerBytes())
        .isCloseTo(p * (2 + 2 * 4.0 / 256), withPercentage(1e-9));
    // with masters the 8-bit state adds to the fp32 copy
    TrainingOptimizer eightMaster = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW_8BIT, true, false);
    assertThat(Footprint.of(llama7b, full(eightMaster), true).optimizerBytes())
        .isCloseTo(p * (4 + 2 + 2 * 4.0 / 256), withPercentage(1e-9));
  }

  @Test
  void inTheBackward_onlyTheLargestTensorsGradientIsHeld() {
    TrainingOptimizer inBwd = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW, false, true);
    // LLaMA-7B: the 32000 x 4096 embedding is larger than a 4096 x 11008 projection
    assertThat(Footprint.of(llama7b, full(inBwd), true).gradientsBytes()).isEqualTo(2.0 * 32000 * 4096);
    assertThat(Footprint.of(llama7b, full(TrainingOptimizer.DEFAULT), true).gradientsBytes())
        .isEqualTo(2 * llama7b.parameterCount());
  }

  @Test
  void pagedState_takesTheMemoryLeft_andTheRestGoesToTheHost() {
    SystemSpec gpu = Fixtures.discrete24GiB();
    TrainingOptimizer paged = new TrainingOptimizer(TrainingOptimizer.Kind.PAGED_ADAMW_8BIT, false, true);
    Task task = full(paged);
    MemoryPlan plan = MemoryPlanner.place(gpu, llama7b, task, SoftwareProfiles.TORCH_COMPILE, Offload.NONE);
    Footprint f = Footprint.of(llama7b, task, true);
    double others = f.weightsBytes() + f.gradientsBytes() + f.activationsBytes()
        + SoftwareProfiles.TORCH_COMPILE.workspaceBytes();
    double left = gpu.usableDeviceBytes() - others;
    assertThat(plan.fitsDevice()).isTrue();
    assertThat(plan.optimizerBytes()).isCloseTo(left, withPercentage(1e-9));
    assertThat(plan.hostBytes()).isCloseTo(f.optimizerBytes() - left, withPercentage(1e-9));
    // not paged: the same state does not fit
    TrainingOptimizer eight = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW_8BIT, false, true);
    assertThat(MemoryPlanner.place(gpu, llama7b, full(eight), SoftwareProfiles.TORCH_COMPILE, Offload.NONE)
        .fitsDevice()).isFalse();
  }

  @Test
  void pagedInTheBackward_eachLayerPagesItsStateInAndOut_thenUpdatesBeforeTheNextLayersBackward() {
    SystemSpec gpu = Fixtures.discrete24GiB();
    TrainingOptimizer paged = new TrainingOptimizer(TrainingOptimizer.Kind.PAGED_ADAMW_8BIT, false, true);
    Task task = full(paged);
    Trace t = Simulator.simulate(gpu, llama7b, task, SoftwareProfiles.TORCH_COMPILE).trace();
    double p = llama7b.parameterCount();
    double state = p * (2 + 2 * 4.0 / 256);
    int layers = llama7b.layers();
    // the sweep over the whole state misses on every page once any is paged out (LRU under a cyclic sweep)
    assertThat(t.ops().linkBytes()[op(t, "L31.optimizer.page_in")]).isCloseTo(state / layers, withPercentage(1e-9));
    assertThat(t.ops().linkBytes()[op(t, "L31.optimizer.page_out")]).isCloseTo(state / layers, withPercentage(1e-9));
    // pure bf16 8-bit update: gradient 2, weight 2 + 2, moments and absmax read and written
    double perParam = 2 + 2 * 2 + 2 * (2 + 2 * 4.0 / 256);
    assertThat(t.ops().memBytes()[op(t, "L31.optimizer")]).isCloseTo(perParam * p / layers, withPercentage(1e-9));
    int update = op(t, "L31.optimizer");
    assertThat(op(t, "L31.attn_norm.bwd")).isLessThan(update);
    assertThat(update).isLessThan(op(t, "L30.recompute.attn_norm"));
    assertThat(t.start()[update]).isGreaterThanOrEqualTo(t.end()[op(t, "L31.optimizer.page_in")]);
    assertThat(java.util.Arrays.asList(t.ops().names())).doesNotContain("optimizer.adamw");
  }

  @Test
  void bitsandbytesOptimizers_areNotOffloadedToTheCpu() {
    SystemSpec gpu = Fixtures.discrete24GiB();
    TrainingOptimizer eight = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW_8BIT, false, false);
    Task task = full(eight).withOffload(Offload.AUTO);
    assertThat(MemoryPlanner.candidates(gpu, task)).containsExactly(Offload.NONE);
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> MemoryPlanner.checkOffload(gpu, task.withOffload(Offload.OPTIMIZER)))
        .isInstanceOfSatisfying(llmsim.core.scenario.ScenarioKeyException.class,
            e -> assertThat(e.key()).isEqualTo(llmsim.core.scenario.ScenarioKey.OFFLOAD));
    assertThat(MemoryPlanner.candidates(gpu, full(TrainingOptimizer.DEFAULT).withOffload(Offload.AUTO)))
        .contains(Offload.OPTIMIZER);
  }

  @Test
  void pureBf16FusedAdamW_movesFourteenBytesAParameter() {
    TrainingOptimizer pure = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW, false, false);
    Trace t = Simulator.simulate(Fixtures.discrete(), llama7b, full(pure), SoftwareProfiles.TORCH_COMPILE).trace();
    assertThat(t.ops().memBytes()[op(t, "optimizer.adamw")]).isCloseTo(14 * llama7b.parameterCount(),
        withPercentage(1e-9));
  }

}
