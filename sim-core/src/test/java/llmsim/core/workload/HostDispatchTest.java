package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.engine.OpKind;
import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * A profile whose host thread issues each layer pass ahead of the GPU: a pass takes the longer of its host and GPU
 * time, not their sum.
 */
class HostDispatchTest {
  final ModelSpec llama7b = Fixtures.llama7b();
  static final int MICRO_BATCHES = 2;

  /** Full recomputation: a forward, a recomputed forward and a backward per layer and micro-batch. */
  static Task training(int batch, int seq) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, batch, seq, 1, 1, MICRO_BATCHES, true, 8, 128,
        Offload.NONE);
  }

  private Trace trace(SoftwareProfile sw, int batch, int seq) {
    return Simulator.simulate(Fixtures.discrete(), llama7b, training(batch, seq), sw).trace();
  }

  /** Host ops that issue a pass (the host's waits are host ops of no duration). */
  private static long dispatches(Trace t) {
    OpKind[] kinds = t.ops().kinds();
    return java.util.stream.IntStream.range(0, t.size())
        .filter(i -> kinds[i] == OpKind.DISPATCH && t.costs().launch[i] > 0).count();
  }

  /**
   * Passes outside the layers per micro-batch: the embedding with the batch's preparation, the head with the loss
   * forward, and its backward.
   */
  static final int OUTSIDE_LAYERS = 3;

  @Test
  void hostBound_theStepIsTheHostsTime_onePassAfterAnother() {
    double host = 1.0; // a second per pass: the GPU's work at 16 tokens is microseconds
    Trace t = trace(SimulatorPhysicsTest.IDEAL.withHostDispatch(host), 1, 16);
    long passes = (3L * llama7b.layers() + OUTSIDE_LAYERS) * MICRO_BATCHES;
    assertThat(dispatches(t)).isEqualTo(passes);
    assertThat(t.makespan()).isGreaterThan(passes * host);
    assertThat(t.makespan()).isCloseTo(passes * host, withPercentage(0.1));
  }

  @Test
  void theEmbeddingAndTheHeadWithTheLoss_waitForTheirOwnPassOnTheHost() {
    double host = 1.0;
    Trace t = trace(SimulatorPhysicsTest.IDEAL.withHostDispatch(host), 1, 16);
    String[][] issuedBy = {{"mb1.embedding.host_dispatch", "mb1.embedding"},
        {"mb1.head_loss.host_dispatch", "mb1.lm_head"}, {"mb1.bwd.head_loss.host_dispatch", "mb1.bwd.cross_entropy"}};
    for (String[] p : issuedBy) {
      int hostOp = op(t, p[0]);
      assertThat(t.end()[hostOp] - t.start()[hostOp]).as(p[0]).isCloseTo(host, withPercentage(1e-6));
      assertThat(t.start()[op(t, p[1])]).as(p[1]).isGreaterThanOrEqualTo(t.end()[hostOp]);
    }
    // the head's forward pass follows the last layer's on the host; its backward pass follows the forward's
    assertThat(t.start()[op(t, "mb1.head_loss.host_dispatch")])
        .isGreaterThanOrEqualTo(t.end()[op(t, "mb1.L" + (llama7b.layers() - 1) + ".host_dispatch")]);
    assertThat(t.start()[op(t, "mb1.bwd.head_loss.host_dispatch")])
        .isGreaterThanOrEqualTo(t.end()[op(t, "mb1.head_loss.host_dispatch")]);
  }

  @Test
  void gpuBound_theHostRunsAheadAndAddsNothing() {
    // 1 ns per pass against milliseconds of GPU work per pass: the host's time hides under the GPU's, only the
    // first pass's issue (1 ns) is exposed
    int seq = 2048;
    double ideal = trace(SimulatorPhysicsTest.IDEAL, 4, seq).makespan();
    double ahead = trace(SimulatorPhysicsTest.IDEAL.withHostDispatch(1e-9), 4, seq).makespan();
    assertThat(ahead).isCloseTo(ideal, withPercentage(1e-4));
  }

  @Test
  void everyMicroBatch_theHostWaitsForThePreviousOne_soItsFirstPassesAreExposed() {
    // GPU-bound (milliseconds of GPU work per pass against 1 ms of host): only the first passes of each micro-batch
    // (the embedding's, then the first layer's) are issued while the GPU idles, since get_batch's read-back makes the
    // host wait for the previous micro-batch
    double host = 1e-3;
    int seq = 2048;
    Trace ideal = trace(SimulatorPhysicsTest.IDEAL, 4, seq);
    double ahead = trace(SimulatorPhysicsTest.IDEAL.withHostDispatch(host), 4, seq).makespan();
    // the GPU spends the start of each micro-batch on the batch's copy and the embedding, under the host's issue
    double preamble = ideal.start()[op(ideal, "mb0.L0.attn_norm")];
    assertThat(preamble).isLessThan(host / 2);
    assertThat(ahead - ideal.makespan()).isCloseTo(MICRO_BATCHES * (2 * host - preamble), withPercentage(1));
  }

  @Test
  void hostDispatch_replacesThePerKernelLaunch_itIsNotPaidTwice() {
    SoftwareProfile perKernel = SoftwareProfile.builder("launch", "test").launchSeconds(10e-6).kernelsPerLayer(30)
        .flashAttention(true).workspaceBytes(0).source("test").build();
    Trace t = trace(perKernel.withHostDispatch(1e-9), 1, 256);
    for (int i = 0; i < t.size(); i++) {
      if (t.lanes().get(t.ops().streams()[i]) == llmsim.core.engine.Lane.COMPUTE) {
        assertThat(t.costs().launch[i]).as(t.ops().names()[i]).isZero();
      }
    }
  }

  @Test
  void pipeline_theHostWaitsAtEverySendAndReceive_soTheBubbleStaysWhenTheHostIsTheBottleneck() {
    int p = 2;
    int m = 4;
    double host = 1.0; // a second per pass against milliseconds of GPU work
    Task t = PipelineTest.task(p, m); // no recomputation: a forward and a backward per layer and micro-batch
    SoftwareProfile sw = SimulatorPhysicsTest.IDEAL.withHostDispatch(host);
    var system = Fixtures.cluster(1);
    Simulation sim = new Simulation();
    var plan = llmsim.core.memory.MemoryPlanner.place(system, PipelineTest.M, t, sw, Offload.NONE);
    new WorkloadBuilder(system, PipelineTest.M, t, sw, plan, sim).build();
    Trace trace = sim.run();
    // a stage's forward (or backward) of one micro-batch is L / p passes of host time, plus the embedding's pass on
    // the first stage's forward and the head's (with the loss) on the last stage's forward and backward. The last
    // stage is the slower, so it never waits after its first micro-batch: the first stage's first forward, the last
    // stage's m forwards and backwards, then the first stage's last backward
    double layers = PipelineTest.M.layers() / p * host;
    double withBubble = (layers + host) + m * 2 * (layers + host) + layers;
    assertThat(trace.makespan()).isCloseTo(withBubble, withPercentage(0.5));
    // a host that ran ahead across the sends would finish in the last stage's own m forwards and backwards
    assertThat(trace.makespan()).isGreaterThan(m * 2 * (layers + host) * 1.2);
  }

  @Test
  void closedForm_countsTheHostOnlyBeyondTheGpu_asTheSimulationFinds() {
    double gpuPerPass = idealGpuSecondsPerPass();
    // host-bound; the host at half the GPU's time, which a sum of the two would overstate by about half; GPU-bound
    closedFormAgrees(SimulatorPhysicsTest.IDEAL, new double[][] {{1.0, 16}, {gpuPerPass / 2, 2048}, {1e-6, 2048}});
  }

  final Estimator estimator = new Estimator(llmsim.core.kernel.Kernels.get());

  /** The GPU's time per pass of a 2048-token training step with nothing else charged (the IDEAL profile). */
  private double idealGpuSecondsPerPass() {
    long passes = (3L * llama7b.layers() + OUTSIDE_LAYERS) * MICRO_BATCHES;
    return estimator.simulated(Fixtures.discrete(), llama7b, training(1, 2048), SimulatorPhysicsTest.IDEAL)
        .stepTimeSeconds() / passes;
  }

  /** For each {host seconds per pass, tokens}: {@code sw}'s closed form within 2% of its simulation. */
  private void closedFormAgrees(SoftwareProfile sw, double[][] cases) {
    for (double[] c : cases) {
      SoftwareProfile issued = sw.withHostDispatch(c[0]);
      Task t = training(1, (int) c[1]);
      assertThat(estimator.analytic(Fixtures.discrete(), llama7b, t, issued).stepTimeSeconds())
          .as("host %s s per pass", c[0])
          .isCloseTo(estimator.simulated(Fixtures.discrete(), llama7b, t, issued).stepTimeSeconds(), withPercentage(2));
    }
  }

  @Test
  void megatronDeepSpeed_theHostWaitsForTheGpuBeforeEachForwardPasssMlp() {
    // GPU-bound at 2048 tokens (milliseconds of GPU work against 10 us of host a pass): before the MLP of each forward
    // pass the host waits until the GPU has done the pass's attention and norms, then issues the MLP
    double host = 10e-6;
    SoftwareProfile sw = SoftwareProfiles.MEGATRON_DEEPSPEED.withHostDispatch(host);
    Trace t = trace(sw, 4, 2048);
    for (String pass : new String[] {"mb0.L3.", "mb1.L7."}) {
      int sync = op(t, pass + "host_sync.mlp_bias");
      int issueMlp = op(t, pass + "host_dispatch.mlp");
      assertThat(t.end()[sync]).as(pass).isGreaterThanOrEqualTo(t.end()[op(t, pass + "residual_1")]);
      assertThat(t.start()[issueMlp]).as(pass).isGreaterThanOrEqualTo(t.end()[sync]);
      assertThat(t.start()[op(t, pass + "gate_up_proj")]).as(pass).isGreaterThanOrEqualTo(t.end()[issueMlp]);
      // the pass's host time is split at the sync: 52 of its 65 Python-level events before it, 13 after
      int before = op(t, pass + "host_dispatch");
      assertThat(t.end()[before] - t.start()[before]).isCloseTo(host * 52 / 65, withPercentage(1e-6));
      assertThat(t.end()[issueMlp] - t.start()[issueMlp]).isCloseTo(host * 13 / 65, withPercentage(1e-6));
    }
    // megatron-classic's host issues the same passes without stopping: no sync ops, and it runs ahead
    Trace classic = trace(SoftwareProfiles.MEGATRON_CLASSIC.withHostDispatch(host), 4, 2048);
    assertThat(java.util.Arrays.stream(classic.ops().names()).noneMatch(n -> n.contains("host_sync.mlp"))).isTrue();
    assertThat(classic.start()[op(classic, "mb0.L4.host_dispatch")])
        .isLessThan(classic.end()[op(classic, "mb0.L3.residual_1")]);
  }

  @Test
  void megatronDeepSpeed_hostBound_theSyncsAddOnlyTheGpusShortPasses() {
    // a second per pass against microseconds of GPU work: the step is the host's passes, the syncs add the GPU's
    // attention part of each forward pass (microseconds), as with megatron-classic within 0.1%
    double host = 1.0;
    Trace ds = trace(SoftwareProfiles.MEGATRON_DEEPSPEED.withHostDispatch(host), 1, 16);
    long passes = (3L * llama7b.layers() + OUTSIDE_LAYERS) * MICRO_BATCHES;
    assertThat(ds.makespan()).isCloseTo(passes * host, withPercentage(0.1));
    // and the explanation of a host-bound step says where this software's host also waits
    String sync = "before each forward pass's MLP";
    assertThat(Simulator.simulate(Fixtures.discrete(), llama7b, training(1, 16),
        SoftwareProfiles.MEGATRON_DEEPSPEED.withHostDispatch(host)).explanation())
        .contains("host issuing kernels", sync);
    assertThat(Simulator.simulate(Fixtures.discrete(), llama7b, training(1, 16),
        SoftwareProfiles.MEGATRON_CLASSIC.withHostDispatch(host)).explanation()).contains("host issuing kernels")
        .doesNotContain(sync);
  }

  @Test
  void megatronDeepSpeed_closedForm_takesEachSyncedPassAsTheSimulationDoes() {
    // steady state of a forward pass with a sync: max(host to the sync, the previous MLP on the GPU) + the GPU's
    // attention part + the host's issue of the MLP, which the closed form sums pass by pass
    Estimator e = estimator;
    var system = Fixtures.discrete();
    double gpuPerPass = idealGpuSecondsPerPass();
    // host-bound, the host at a quarter of the GPU's time, GPU-bound: as close as megatron-classic's closed form
    closedFormAgrees(SoftwareProfiles.MEGATRON_DEEPSPEED,
        new double[][] {{1.0, 16}, {gpuPerPass / 4, 2048}, {1e-6, 2048}});
    // host and GPU equal: the syncs cost time that megatron-classic's run-ahead hides, and the closed form finds that
    // cost within 15% (both closed forms leave out the transients at each micro-batch's start, 3% of the step here)
    Task t = training(1, 2048);
    SoftwareProfile classic = SoftwareProfiles.MEGATRON_CLASSIC.withHostDispatch(gpuPerPass);
    SoftwareProfile ds = SoftwareProfiles.MEGATRON_DEEPSPEED.withHostDispatch(gpuPerPass);
    double simulatedCost = e.simulated(system, llama7b, t, ds).stepTimeSeconds()
        - e.simulated(system, llama7b, t, classic).stepTimeSeconds();
    double closedCost = e.analytic(system, llama7b, t, ds).stepTimeSeconds()
        - e.analytic(system, llama7b, t, classic).stepTimeSeconds();
    assertThat(simulatedCost).isGreaterThan(0.1 * e.simulated(system, llama7b, t, classic).stepTimeSeconds());
    assertThat(closedCost).isCloseTo(simulatedCost, withPercentage(15));
  }

  @Test
  void megatronClassic_issuesEachPassInTheEagerLayersHostTime() {
    SoftwareProfile sw = SoftwareProfiles.find("megatron-classic").orElseThrow();
    // 30 tok/s eager against 69 graph-captured (vllm-project/vllm#914): 33.3 ms of host time per token, 32 layers
    assertThat(sw.hostSecondsPerLayerPass()).isCloseTo(1000.0 / 30 / 32 * 1e-3, withPercentage(0.2));
    assertThat(SoftwareProfiles.find("pytorch").orElseThrow().hostDispatch()).isFalse();
  }

  @Test
  void megatronFusedSoftmax_onlyWhereItsShapeConditionHolds() {
    // Megatron's FusedScaleMaskSoftmax: 16 < keys <= 2048, queries % 4 == 0, (micro-batch x heads per GPU) % 4 == 0
    assertThat(SoftwareProfile.megatronSoftmaxFused(4, 1024, 1024)).isTrue(); // 16 heads / tp 8, micro-batch 2
    assertThat(SoftwareProfile.megatronSoftmaxFused(2, 1024, 1024)).isFalse(); // 16 heads / tp 8, micro-batch 1
    assertThat(SoftwareProfile.megatronSoftmaxFused(32, 2048, 2048)).isTrue();
    assertThat(SoftwareProfile.megatronSoftmaxFused(32, 4096, 4096)).isFalse();
    assertThat(SoftwareProfile.megatronSoftmaxFused(32, 16, 16)).isFalse();
    assertThat(SoftwareProfile.megatronSoftmaxFused(32, 18, 18)).isFalse();
    assertThat(SoftwareProfiles.find("megatron-classic").orElseThrow().megatronFusedSoftmax()).isTrue();
    assertThat(SoftwareProfiles.find("megatron").orElseThrow().megatronFusedSoftmax()).isFalse(); // flash attention
    assertThat(SimulatorPhysicsTest.IDEAL.withHostDispatch(1).megatronFusedSoftmax()).isFalse();
  }

  @Test
  void megatronClassic_withoutItsFusedSoftmax_theHostIssuesFourEagerCallsMorePerPass() {
    // host-bound (a second per pass against microseconds of GPU work): 20 tokens take the fused kernel (20 % 4 == 0,
    // 1 x 32 heads), 18 do not (18 % 4 != 0), so every layer pass costs the host 4 calls at 1.04 ms / 48 more
    SoftwareProfile sw = SoftwareProfiles.find("megatron-classic").orElseThrow().withHostDispatch(1.0);
    Trace fused = trace(sw, 1, 20);
    Trace unfused = trace(sw, 1, 18);
    long layerPasses = 3L * llama7b.layers() * MICRO_BATCHES;
    assertThat(dispatches(unfused) - dispatches(fused)).isEqualTo(layerPasses);
    double perCall = 33.3e-3 / 32 / 48;
    assertThat(unfused.makespan() - fused.makespan()).isCloseTo(layerPasses * 4 * perCall, withPercentage(1));
    // and each (memory-bound) softmax moves 33 bytes more per score element forward (float, scale, masked_fill_,
    // softmax, half) than the fused kernel's 9 (13 for the chain less the QK^T write and the attention x V read)
    double fusedPerElement = fused.costs().time[op(fused, "mb0.L0.softmax")] / (32.0 * 20 * 20);
    double unfusedPerElement = unfused.costs().time[op(unfused, "mb0.L0.softmax")] / (32.0 * 18 * 18);
    assertThat(unfusedPerElement / fusedPerElement).isCloseTo((9 + 33) / 9.0, withPercentage(0.1));
  }
}
