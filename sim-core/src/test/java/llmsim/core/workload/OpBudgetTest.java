package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import llmsim.core.engine.Simulation;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * The op count is derived here from the workload's structure (ops per layer pass, copies, heads), then
 * checked against both the estimate and the ops a real build adds to a simulation.
 */
class OpBudgetTest {
  static final SoftwareProfile FLASH = SoftwareProfile.builder("flash", "test").launchSeconds(0).kernelsPerLayer(1)
      .flashAttention(true).workspaceBytes(0).source("test").build();
  static final SoftwareProfile EAGER = SoftwareProfile.builder("eager", "test").launchSeconds(0).kernelsPerLayer(1)
      .flashAttention(false).workspaceBytes(0).source("test").build();

  final ModelSpec llama7b = Fixtures.llama7b();
  final ModelSpec llama65b = Fixtures.llama65b();

  /** Forward ops of one layer: norms, qkv, attention (1 fused, else scores, softmax, x V), o_proj, residual, up, act, down, residual. */
  static int forwardOps(ModelSpec m, boolean flash) {
    return m.normsPerLayer() + 1 + (flash ? 1 : 3) + 1 + 1 + 1 + 1 + 1 + 1;
  }

  /** Backward ops of one layer: residual, down, act, up, norms, o_proj, the attention core as one op, qkv. */
  static int backwardOps(ModelSpec m) {
    return 1 + 1 + 1 + 1 + m.normsPerLayer() + 1 + 1 + 1;
  }

  static Task inference(int generate, Offload offload) {
    return new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, 2048, 64, generate, 1, false, 8, 128, offload);
  }

  static Task training(int microBatches, boolean checkpointing, Offload offload) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 256, 1, 1, microBatches, checkpointing, 8, 128,
        offload);
  }

  /** The ops a real build adds to an event simulation. */
  static long built(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw) {
    Simulation sim = new Simulation();
    new WorkloadBuilder(s, m, t, sw, MemoryPlanner.choose(s, m, t, sw), sim).build();
    return sim.opCount();
  }

  @Test
  void ops_decodeOnDiscreteGpu_isPrefillPlusOnePassPerGeneratedTokenAfterTheFirst() {
    int generate = 37;
    Task t = inference(generate, Offload.NONE);
    long l = llama7b.layers();
    // prefill: prompt copy, embedding, layers, LM head, logits copy; each later token: the same without the prompt copy
    long expected = 4 + l * forwardOps(llama7b, false) + (generate - 1) * (3 + l * forwardOps(llama7b, false));
    assertThat(OpBudget.ops(Fixtures.discrete(), llama7b, t, EAGER)).isEqualTo(expected);
    assertThat(built(Fixtures.discrete(), llama7b, t, EAGER)).isEqualTo(expected);
  }

  @Test
  void ops_decodeOnUnifiedMemory_hasNoCopies() {
    int generate = 20;
    Task t = inference(generate, Offload.NONE);
    long l = llama7b.layers();
    long expected = 2 + l * forwardOps(llama7b, true) + (generate - 1) * (2 + l * forwardOps(llama7b, true));
    assertThat(OpBudget.ops(Fixtures.unified(), llama7b, t, FLASH)).isEqualTo(expected);
    assertThat(built(Fixtures.unified(), llama7b, t, FLASH)).isEqualTo(expected);
  }

  @Test
  void ops_trainingWithMicroBatches_repeatsForwardHeadsAndBackwardPerMicroBatchThenOneOptimizerOp() {
    int micro = 5;
    Task t = training(micro, true, Offload.NONE);
    long l = llama7b.layers();
    int f = forwardOps(llama7b, true);
    // per micro-batch: input copy, embedding, forward, LM head, the loss and its gradient, the head's backward,
    // recomputed forward, backward, the embedding's gradient
    long expected = micro * (2 + l * f + 4 + l * (f + backwardOps(llama7b)) + 1) + 1;
    assertThat(OpBudget.ops(Fixtures.discrete(), llama7b, t, FLASH)).isEqualTo(expected);
    assertThat(built(Fixtures.discrete(), llama7b, t, FLASH)).isEqualTo(expected);
  }

  @Test
  void ops_inferenceStreamingWeights_addsOneCopyPerHostLayerAndPass() {
    int generate = 9;
    Task t = inference(generate, Offload.WEIGHTS);
    SystemSpec s = Fixtures.discrete24GiB();
    MemoryPlan plan = MemoryPlanner.choose(s, llama65b, t, FLASH);
    long l = llama65b.layers();
    long g = plan.gpuLayers();
    assertThat(g).as("some layers stream").isLessThan(l);
    assertThat(plan.cpuRunsHostLayers()).isFalse();
    long pass = g * forwardOps(llama65b, true) + (l - g) * (1 + forwardOps(llama65b, true));
    long expected = 4 + pass + (generate - 1) * (3 + pass);
    assertThat(OpBudget.ops(s, llama65b, t, FLASH)).isEqualTo(expected);
    assertThat(built(s, llama65b, t, FLASH)).isEqualTo(expected);
  }

  @Test
  void ops_trainingStreamingWeights_copiesWeightsBothPassesAndGradientsOutAndRunsAdamOnTheCpu() {
    int micro = 3;
    Task t = training(micro, false, Offload.WEIGHTS);
    SystemSpec s = Fixtures.discrete();
    long l = llama7b.layers();
    int f = forwardOps(llama7b, true);
    // per micro-batch: input copy, embedding, (weights copy + forward) per layer, the LM head, the loss and its
    // gradient, the head's backward, (weights copy + backward + gradient-accumulation copy to or from the host) per
    // layer, the embedding's gradient; then per layer the fp32 gradients' copy to the host and one CPU AdamW op
    long expected = micro * (2 + l * (1 + f) + 4 + l * (1 + backwardOps(llama7b) + 1) + 1) + l * 2;
    assertThat(OpBudget.ops(s, llama7b, t, FLASH)).isEqualTo(expected);
    assertThat(built(s, llama7b, t, FLASH)).isEqualTo(expected);
  }

  @Test
  void ops_longestDecode_isCountedWithoutBuildingIt() {
    int generate = 1 << 24;
    Task t = inference(generate, Offload.NONE);
    long l = llama65b.layers();
    long expected = 4 + l * forwardOps(llama65b, true) + (generate - 1L) * (3 + l * forwardOps(llama65b, true));
    assertThat(OpBudget.ops(Fixtures.discrete(), llama65b, t, FLASH)).isEqualTo(expected);
  }

  @Test
  void limit_isTheHeapShareOverTheBytesPerOp_cappedByTheEnginesOpIds() {
    long heap = 8L << 30;
    assertThat(OpBudget.limit(heap, OpBudget.BYTES_PER_OP)).isEqualTo((long) (heap * OpBudget.HEAP_SHARE / OpBudget.BYTES_PER_OP));
    assertThat(OpBudget.limit(Long.MAX_VALUE / 2, OpBudget.BYTES_PER_OP)).isEqualTo(OpBudget.MAX_OPS);
  }

  @Test
  void check_atTheLimit_passes_andOneOpMore_namesGeneratedTokensForADecode() {
    long heap = 1L << 30;
    long limit = OpBudget.limit(heap, OpBudget.BYTES_PER_OP);
    Task t = inference(4096, Offload.NONE);
    OpBudget.check(limit, OpBudget.BYTES_PER_OP, 1, "systems", t, heap);
    assertThatThrownBy(() -> OpBudget.check(limit + 1, OpBudget.BYTES_PER_OP, 1, "systems", t, heap))
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.GENERATE_TOKENS))
        .hasMessageContaining("4,096 generated tokens (4,095 decode steps)")
        .hasMessageContaining(String.format(java.util.Locale.US, "%,d ops", limit + 1))
        .hasMessageContaining("sweep --mode analytic");
  }

  @Test
  void check_withReports_costsEachOpMore() {
    long heap = 1L << 30;
    long fitsBare = OpBudget.limit(heap, OpBudget.BYTES_PER_OP);
    assertThat(OpBudget.limit(heap, OpBudget.REPORT_BYTES_PER_OP))
        .isEqualTo((long) (heap * OpBudget.HEAP_SHARE / OpBudget.REPORT_BYTES_PER_OP)).isLessThan(fitsBare);
    assertThatThrownBy(() -> OpBudget.check(fitsBare, OpBudget.REPORT_BYTES_PER_OP, 1, "systems",
        inference(4096, Offload.NONE), heap)).hasMessageContaining(String.format(java.util.Locale.US, "at %,d B each", OpBudget.REPORT_BYTES_PER_OP));
  }

  @Test
  void check_training_namesMicroBatches_orTheModelWithOne() {
    long heap = 1L << 30;
    long over = OpBudget.limit(heap, OpBudget.BYTES_PER_OP) + 1;
    assertThatThrownBy(() -> OpBudget.check(over, OpBudget.BYTES_PER_OP, 2, "systems", training(8, false, Offload.NONE), heap))
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.MICRO_BATCHES))
        .hasMessageContaining("for 2 systems at once");
    assertThatThrownBy(() -> OpBudget.check(over, OpBudget.BYTES_PER_OP, 1, "systems", training(1, false, Offload.NONE), heap))
        .isInstanceOfSatisfying(ScenarioKeyException.class, e -> assertThat(e.key()).isEqualTo(ScenarioKey.MODEL));
  }

  @Test
  void bytesPerOp_withEveryGpuSimulated_isACopysStateAndItsShareOfTheRow() {
    Task one = training(4, false, Offload.NONE).withPlan(new llmsim.core.task.ParallelPlan(8, 4, 64, 0));
    Task all = one.withPlan(one.plan().withAllGpus(true));
    // 512 peers per stage: an op of one GPU becomes 512 copies and at most one synchronisation, held in at most
    // two rows of 400 B shared by the 513 ops OpBudget.ops counts for it
    assertThat(OpBudget.bytesPerOp(all, false)).isEqualTo(OpBudget.COPY_BYTES_PER_OP + (2 * 400 + 512) / 513);
    assertThat(OpBudget.bytesPerOp(one, false)).isEqualTo(OpBudget.BYTES_PER_OP);
    assertThat(OpBudget.bytesPerOp(one, true)).isEqualTo(OpBudget.REPORT_BYTES_PER_OP);
    // with reports, which draw a stage's first peer (and its synchronisations) and one peer the others ran in step
    // with: 3 of the 513 ops at 1,200 B each
    assertThat(OpBudget.bytesPerOp(all, true))
        .isEqualTo(OpBudget.bytesPerOp(all, false) + (long) Math.ceil(1200.0 * 3 / 513));
  }

  @Test
  void checkReported_refusesReportsOfMoreOpsThanTheHeapHolds() {
    long heap = 1L << 30;
    long fits = (long) (heap * 0.9 / 1200);
    OpBudget.checkReported(fits, heap);
    assertThatThrownBy(() -> OpBudget.checkReported(fits + 1, heap)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(String.format(java.util.Locale.US, "%,d ops", fits + 1))
        .hasMessageContaining("no report was written");
  }

  @Test
  void check_beyondTheEnginesOpIds_saysSoWhateverTheHeap() {
    assertThatThrownBy(() -> OpBudget.check(OpBudget.MAX_OPS + 1, OpBudget.BYTES_PER_OP, 1, "systems", inference(100, Offload.NONE), Long.MAX_VALUE))
        .hasMessageContaining("op ids");
  }
}
