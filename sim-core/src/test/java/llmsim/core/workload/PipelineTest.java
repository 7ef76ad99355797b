package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.List;
import llmsim.core.engine.Bound;
import llmsim.core.engine.Lane;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.memory.Footprint;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
import llmsim.core.parallel.Placement;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** 1F1B against its closed forms: the schedule, the bubble, and one send per micro-batch per boundary. */
class PipelineTest {
  /** LLaMA-7B's layers with a 1,000-entry vocabulary, so that the head does not unbalance the last stage. */
  static final ModelSpec M = new ModelSpec("even", "even stages", "llama", List.of(), 32, 4096, 32, 32, 128, 11008,
      FfnKind.SWIGLU, 1000, true, 2048, NormKind.RMSNORM, false, false, false, false, 2, 6.48e9, "test");

  static Task task(int pp, int microBatches) {
    return task(pp, microBatches, 1);
  }

  static Task task(int pp, int microBatches, int chunks) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 2048, 1, 1, microBatches, Recompute.NONE, 8,
        128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO,
        new ParallelPlan(1, pp, 1, 0).withVirtualStages(chunks));
  }

  /** Idle fraction of the second GPU's compute stream over the span (optimizer excluded). */
  static double idleOfSecondGpu(Trace t) {
    int stream = -1;
    int seen = 0;
    for (int i = 0; i < t.streams().size(); i++) {
      if (t.lanes().get(i) == Lane.COMPUTE && seen++ == 1) {
        stream = i;
      }
    }
    double busy = 0;
    for (int i = 0; i < t.size(); i++) {
      if (t.ops().streams()[i] == stream && !t.ops().names()[i].startsWith("optimizer")) {
        busy += t.duration(i);
      }
    }
    return 1 - busy / span(t);
  }

  @Test
  void interleavedSchedule_dividesTheBubbleByTheChunks() {
    int p = 4;
    int m = 8;
    int v = 2;
    // Narayanan et al. 2021: the bubble shrinks from (p-1) to (p-1)/v stage-steps against m of work
    double expected = ((p - 1.0) / v) / (m + (p - 1.0) / v);
    assertThat(idleOfSecondGpu(CollectivesTest.step(Fixtures.cluster(1), M, task(p, m, v)))).isCloseTo(expected, within(0.03));
    // each GPU runs v chunks: its order has m x v forwards and as many backwards, warm-up (p-g-1) x 2 + (v-1) x p
    List<int[]> gpu1 = PipelineStep.schedule(1, p, v, m);
    assertThat(gpu1).hasSize(2 * m * v);
    long warmup = 0;
    while (gpu1.get((int) warmup)[0] == 1) {
      warmup++;
    }
    assertThat(warmup).isEqualTo((p - 1 - 1) * 2 + (v - 1) * p + 1); // the warm-up, then the steady state's first forward
    // GPU 1 holds virtual stages 1 and 5 (chunk x p + g)
    assertThat(gpu1.stream().mapToInt(a -> a[1]).distinct().sorted().toArray()).containsExactly(1, 5);
  }

  /** The step without the optimizer that ends it: the pipeline's span. */
  static double span(Trace t) {
    double optimizer = 0;
    for (int i = 0; i < t.size(); i++) {
      if (t.ops().names()[i].startsWith("optimizer")) {
        optimizer = Math.max(optimizer, t.duration(i));
      }
    }
    return t.makespan() - optimizer;
  }

  @Test
  void unevenStages_takeTheLayersAsEvenlyAsTheyGo() {
    assertThat(PipelineStep.split(70, 12)).containsExactly(0, 5, 11, 17, 23, 29, 35, 40, 46, 52, 58, 64, 70);
    assertThat(PipelineStep.split(32, 4)).containsExactly(0, 8, 16, 24, 32);
  }

  @Test
  void oneF1B_orderOfAStage_isWarmupForwardsThenAlternationThenDrain() {
    // stage 1 of 4 with 5 micro-batches: 2 warm-up forwards, then F B pairs, then the remaining backwards
    List<int[]> s = PipelineStep.schedule(1, 4, 5);
    StringBuilder b = new StringBuilder();
    s.forEach(a -> b.append(a[0] == 1 ? "F" : "B").append(a[2]).append(' '));
    assertThat(b.toString().trim()).isEqualTo("F0 F1 F2 B0 F3 B1 F4 B2 B3 B4");
    assertThat(PipelineStep.schedule(3, 4, 5)).hasSize(10);
  }

  @Test
  void bubble_isPMinusOneOverMPlusPMinusOne_ofAMiddleStage() {
    int p = 4;
    int m = 8;
    // over the span from the first stage's first forward to the last backward: the ideal bubble
    // (p-1)/(m+p-1), within what the sends add
    assertThat(idleOfSecondGpu(CollectivesTest.step(Fixtures.cluster(1), M, task(p, m))))
        .isCloseTo((double) (p - 1) / (m + p - 1), within(0.02));
  }

  @Test
  void timeByBound_isEachStagesOwn_itsWorkAStagesShare_andItsWaitTheBubble() {
    int p = 4;
    int m = 8;
    SystemSpecHolder h = new SystemSpecHolder();
    StepResult one = Simulator.simulate(h.system, M, task(1, m), SimulatorPhysicsTest.IDEAL);
    StepResult four = Simulator.simulate(h.system, M, task(p, m), SimulatorPhysicsTest.IDEAL);
    // each stage runs 1 / p of the layers for the same micro-batches: its GPU computes and streams memory for 1 / p
    // of one GPU's time without stages (the even model's embedding and head are a small share of it)
    double work1 = one.timeByBound().get(Bound.COMPUTE) + one.timeByBound().get(Bound.DEVICE_MEMORY);
    double work4 = four.timeByBound().get(Bound.COMPUTE) + four.timeByBound().get(Bound.DEVICE_MEMORY);
    assertThat(work4).isCloseTo(work1 / p, withPercentage(3));
    assertThat(one.timeByBound().get(Bound.PIPELINE_BUBBLE)).isZero();
    // and waits through the fill and drain, (p - 1) / (m + p - 1) of the pipeline's span, within what the sends add
    double bubble = four.timeByBound().get(Bound.PIPELINE_BUBBLE) / span(four.trace());
    assertThat(bubble).isCloseTo((double) (p - 1) / (m + p - 1), within(0.03));
    assertThat(four.timeByBound().values().stream().mapToDouble(Double::doubleValue).sum())
        .isCloseTo(four.stepTimeSeconds(), within(1e-9 * four.stepTimeSeconds()));
  }

  @Test
  void gpipe_hasOneF1BsBubble_butHoldsEveryMicroBatchsActivations() {
    int p = 4;
    int m = 8;
    Task oneF1B = task(p, m);
    Task gpipe = oneF1B.withPlan(oneF1B.plan().withGpipe());
    // both idle (p-1)/(m+p-1) of the step on a stage: the fill and the drain take p-1 stage-steps either way
    double bubble = (double) (p - 1) / (m + p - 1);
    assertThat(idleOfSecondGpu(CollectivesTest.step(Fixtures.cluster(1), M, gpipe))).isCloseTo(bubble, within(0.02));
    assertThat(idleOfSecondGpu(CollectivesTest.step(Fixtures.cluster(1), M, oneF1B))).isCloseTo(bubble, within(0.02));
    // 1F1B holds at most p micro-batches' activations on the first stage, GPipe all m of them
    double ratio = (double) m / Math.min(p, m);
    assertThat(Footprint.of(M, gpipe, true).activationsBytes())
        .isCloseTo(ratio * Footprint.of(M, oneF1B, true).activationsBytes(), withPercentage(1e-9));
  }

  @Test
  void unevenStages_holdTheFullestStagesWeightsAndState_notTheMean() {
    // 32 layers over 3 stages split 10, 11, 11 (floor(32 s / 3)); the first also holds the embedding, the last the
    // final norm and the head: the fullest stage's parameters, not a third of the model's, are what must fit
    Task t = task(3, 4);
    double perLayer = M.parametersPerLayer();
    double first = 10 * perLayer + M.embeddingParameters();
    // the head's matrix: its own, or under tied embeddings the last stage's copy of the embedding's
    double head = M.tiedEmbeddings() ? (double) M.vocab() * M.hidden() : M.unembeddingParameters();
    double last = 11 * perLayer + (double) M.normKind().paramsPerChannel() * M.hidden() + head;
    double fullest = Math.max(first, last);
    assertThat(fullest).isGreaterThan(M.parameterCount() / 3.0);
    Footprint f = Footprint.of(M, t, true);
    assertThat(f.weightsBytes()).isCloseTo(2 * fullest, withPercentage(1e-9)); // bf16
    assertThat(f.gradientsBytes()).isCloseTo(2 * fullest, withPercentage(1e-9));
  }

  @Test
  void interleaved_holdsItsWarmUpChunksActivations_moreThan1F1BsStages() {
    // first stage, pp 4, v 2, 8 micro-batches: (4 - 1) x 2 + (2 - 1) x 4 = 10 warm-up forwards of a chunk (32 / 8 = 4
    // layers) and one more before the first backward frees one: 11 chunks = 44 layers, against 1F1B's 4 micro-batches
    // of its 8-layer stage = 32 layers
    int p = 4;
    Task oneF1B = task(p, 8);
    Task interleaved = task(p, 8, 2);
    double ratio = 11.0 * 4 / (4.0 * 8);
    assertThat(Footprint.of(M, interleaved, true).activationsBytes())
        .isCloseTo(ratio * Footprint.of(M, oneF1B, true).activationsBytes(), withPercentage(1e-9));
    // with fewer micro-batches than the warm-up, every chunk of every micro-batch: 2 x 2 chunks = 16 layers, as
    // 1F1B's 2 micro-batches of 8 layers
    assertThat(Footprint.of(M, task(p, 2, 2), true).activationsBytes())
        .isCloseTo(Footprint.of(M, task(p, 2), true).activationsBytes(), withPercentage(1e-9));
  }

  @Test
  void gpipe_withOneMicroBatch_isSaidToDoNothing_asItsStepAndBytesAre1F1Bs() {
    Task oneF1B = task(4, 1);
    Task gpipe = oneF1B.withPlan(oneF1B.plan().withGpipe());
    StepResult g = Simulator.simulate(Fixtures.cluster(1), M, gpipe, CollectivesTest.IDEAL);
    StepResult o = Simulator.simulate(Fixtures.cluster(1), M, oneF1B, CollectivesTest.IDEAL);
    // one micro-batch: its forward, then its backward, whichever the schedule; one micro-batch in flight either way
    assertThat(g.stepTimeSeconds()).isEqualTo(o.stepTimeSeconds());
    assertThat(g.memory().totalBytes()).isEqualTo(o.memory().totalBytes());
    assertThat(o.warnings()).noneMatch(w -> w.contains("gpipe"));
    assertThat(g.warnings()).filteredOn(w -> w.contains("gpipe")).singleElement().asString()
        .contains("schedule gpipe has no effect with 1 micro-batch");
    // with two micro-batches GPipe holds both on the first stage: it acts, and nothing is said
    Task two = task(4, 2);
    assertThat(Simulator.simulate(Fixtures.cluster(1), M, two.withPlan(two.plan().withGpipe()), CollectivesTest.IDEAL)
        .warnings()).noneMatch(w -> w.contains("gpipe"));
  }

  @Test
  void bubbleRemedy_namesInterleavingOnlyWhereMoreChunksCanSplitTheLayers() {
    // virtual_stages V needs the 32 layers split into pp x V equal chunks: pp 4 goes to 2, 4 or 8 chunks, pp 4 at 8
    // chunks has a layer a chunk (no more), and pp 3 has no split at all (3 does not divide 32)
    int[][] plans = {{4, 1}, {4, 2}, {4, 8}, {3, 1}, {8, 4}, {2, 1}};
    for (int[] pv : plans) {
      boolean more = false;
      for (int c = pv[1] + 1; pv[0] * c <= M.layers(); c++) {
        more |= M.layers() % (pv[0] * c) == 0;
      }
      String lever = Explainer.interleavingLever(M, new ParallelPlan(1, pv[0], 1, 0).withVirtualStages(pv[1]));
      assertThat(lever).as("pp %d, %d chunks", pv[0], pv[1])
          .isEqualTo(!more ? null : pv[1] > 1 ? "more chunks" : "the interleaved schedule (--virtual-stages)");
    }
    // pp 3 (on 3 GPUs of the 8): the explanation offered --virtual-stages, which is refused there
    var gpus3 = Placement.size(Fixtures.cluster(1), 0, 3);
    Task three = task(3, 6);
    assertThatThrownBy(() -> Placement.resolve(gpus3, M, three.withPlan(three.plan().withVirtualStages(2))))
        .isInstanceOf(ScenarioKeyException.class).hasMessageContaining("does not divide the 32 layers");
    String said = Simulator.simulate(gpus3, M, three, CollectivesTest.IDEAL).explanation();
    assertThat(said).contains("more micro-batches").doesNotContain("interleaved").doesNotContain("chunks");
    String four = Simulator.simulate(Fixtures.cluster(1), M, task(4, 8), CollectivesTest.IDEAL).explanation();
    assertThat(four).contains("the interleaved schedule (--virtual-stages)");
    String full = Simulator.simulate(Fixtures.cluster(1), M, task(4, 8, 8), CollectivesTest.IDEAL).explanation();
    assertThat(full).contains("more micro-batches").doesNotContain("more chunks");
  }

  @Test
  void gpipe_orderOfAStage_isEveryForwardThenEveryBackwardInReverse() {
    StringBuilder b = new StringBuilder();
    PipelineStep.gpipe(1, 3).forEach(a -> b.append(a[0] == 1 ? "F" : "B").append(a[2]).append(' '));
    assertThat(b.toString().trim()).isEqualTo("F0 F1 F2 B2 B1 B0");
  }

  @Test
  void moreMicroBatches_shrinkTheBubble_asTheClosedFormSays() {
    Trace two = CollectivesTest.step(Fixtures.cluster(1), M, task(4, 2));
    Trace sixteen = CollectivesTest.step(Fixtures.cluster(1), M, task(4, 16));
    // (m + p - 1) stage-steps: 5 for m = 2, 19 for m = 16
    assertThat(span(sixteen) / span(two)).isCloseTo(19.0 / 5, within(0.1));
  }

  @Test
  void stagesSendActivationsForwardAndGradientsBack_oncePerMicroBatchPerBoundary() {
    int p = 4;
    int m = 3;
    Trace t = CollectivesTest.step(Fixtures.cluster(1), M, task(p, m));
    long sends = 0;
    for (int i = 0; i < t.size(); i++) {
      if (t.streams().get(t.ops().streams()[i]).contains("pipeline send")
          && !t.ops().names()[i].contains("tied_embedding")) {
        sends++;
        // b x s x h x 2 bytes over the NVLink-like fabric
        assertThat(t.ops().linkBytes()[i]).isEqualTo(1.0 * 2048 * 4096 * 2);
      }
    }
    assertThat(sends).isEqualTo(2L * (p - 1) * m);
  }

  @Test
  void tiedEmbedding_firstAndLastStagesAllReduceItsGradientOncePerStep_beforeTheirOptimizers() {
    int p = 4;
    Trace t = CollectivesTest.step(Fixtures.cluster(1), M, task(p, 3));
    int found = -1;
    for (int i = 0; i < t.size(); i++) {
      if (t.ops().names()[i].contains("tied_embedding_grads")) {
        assertThat(found).as("one all-reduce per step").isEqualTo(-1);
        found = i;
      }
    }
    assertThat(found).isNotEqualTo(-1);
    // two ranks: a ring all-reduce moves 2 (n - 1) / n = 1 x the (vocab x hidden) bf16 gradient
    assertThat(t.ops().linkBytes()[found]).isCloseTo(1000.0 * 4096 * 2, withPercentage(1e-9));
    // after the last stage's last backward and the first stage's, before those two stages' optimizers
    int firstStage = t.ops().streams()[Fixtures.op(t, "s0.mb0.bwd.embedding_grad")];
    int lastStage = t.ops().streams()[Fixtures.op(t, "s3.mb0.bwd.lm_head")];
    int optimizers = 0;
    for (int i = 0; i < t.size(); i++) {
      String n = t.ops().names()[i];
      int stream = t.ops().streams()[i];
      if (n.startsWith("optimizer") && (stream == firstStage || stream == lastStage)) {
        optimizers++;
        assertThat(t.start()[i]).isGreaterThanOrEqualTo(t.end()[found] - 1e-15);
      }
      if (n.contains("bwd") && !n.contains("tied")) {
        assertThat(t.end()[i]).isLessThanOrEqualTo(t.start()[found] + 1e-15);
      }
    }
    assertThat(optimizers).isEqualTo(2);
    // the first stage's embedding gradient is not summed with a head there: the head's copy is on the last stage
    int first = -1;
    for (int i = 0; i < t.size(); i++) {
      if (t.ops().names()[i].equals("s0.mb0.bwd.embedding_grad")) {
        first = i;
      }
    }
    assertThat(t.ops().memBytes()[first]).isCloseTo(1000.0 * 4096 * 2 + 3 * 2048.0 * 4096 * 2, withPercentage(1e-9));
    // an untied model has nothing to all-reduce
    ModelSpec untied = new ModelSpec("even", "even stages", "llama", List.of(), 32, 4096, 32, 32, 128, 11008,
        FfnKind.SWIGLU, 1000, false, 2048, NormKind.RMSNORM, false, false, false, false, 2, 6.48e9, "test");
    Trace u = CollectivesTest.step(Fixtures.cluster(1), untied, task(p, 3));
    assertThat(List.of(u.ops().names())).noneMatch(n -> n.contains("tied_embedding"));
  }

  @Test
  void tiedEmbeddingAllReduce_crossesTheNetwork_onlyOnceTheStagesBetweenFillANode() {
    // ranks: tensor-parallel fastest, then data-parallel, then pipeline; 8 GPUs a node. tp 8, pp 2 on two nodes: the
    // last stage starts at rank 8, in the second node
    assertThat(tiedAllReduceStream(Fixtures.cluster(2), new ParallelPlan(8, 2, 1, 0))).endsWith("(network)");
    // tp 2, dp 2, pp 2 on one node: ranks 0 and 4
    assertThat(tiedAllReduceStream(Fixtures.cluster(1), new ParallelPlan(2, 2, 2, 0))).endsWith("(intra-node)");
    // tp 2, dp 4, pp 2 on two nodes: the last stage starts at rank 8, in the second node
    assertThat(tiedAllReduceStream(Fixtures.cluster(2), new ParallelPlan(2, 2, 4, 0))).endsWith("(network)");
  }

  private static String tiedAllReduceStream(llmsim.core.hw.SystemSpec system, ParallelPlan plan) {
    Task t = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 2048, 1, 1, 2, Recompute.NONE, 8, 128,
        Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, plan);
    Trace trace = CollectivesTest.step(system, M, t);
    return trace.streams().get(trace.ops().streams()[Fixtures.op(trace, "pp.tied_embedding_grads.all_reduce")]);
  }

  @Test
  void everyGpuSimulated_agreesWithOneGpuPerStage_onASymmetricPlan() {
    // 16 GPUs: tp 2 x pp 2 x dp 4, ZeRO-1, 4 micro-batches; every GPU with its own resources and synchronised
    // collectives gives the same step as one GPU per stage standing for its peers
    SystemSpecHolder h = new SystemSpecHolder();
    Task one = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 2048, 1, 1, 4, Recompute.NONE, 8, 128,
        Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(2, 2, 4, 1));
    Task all = one.withPlan(one.plan().withAllGpus(true));
    StepResult a = Simulator.simulate(h.system, M, one, SimulatorPhysicsTest.IDEAL);
    StepResult b = Simulator.simulate(h.system, M, all, SimulatorPhysicsTest.IDEAL);
    assertThat(b.trace().size()).isGreaterThan(7 * a.trace().size()); // 8 peers per stage
    assertThat(b.stepTimeSeconds()).isCloseTo(a.stepTimeSeconds(), within(1e-12 * a.stepTimeSeconds()));
    assertThat(b.mfu()).isCloseTo(a.mfu(), within(1e-12));
    assertThat(b.linkBytes()).isCloseTo(a.linkBytes(), within(1e-6 * Math.max(1, a.linkBytes())));
    // the peers act together, so the time by bound (each GPU's own, their mean) is the same too
    for (var e : a.timeByBound().entrySet()) {
      assertThat(b.timeByBound().get(e.getKey())).as(e.getKey().key())
          .isCloseTo(e.getValue(), within(1e-12 * a.stepTimeSeconds()));
    }
  }

  static final class SystemSpecHolder {
    final llmsim.core.hw.SystemSpec system = Fixtures.cluster(2);
  }

  @Test
  void zeroStagesThatPartitionGradients_withPipelineStages_areRefusedAtTheZeroKey() {
    // 2 stages x 4 replicas on one 8-GPU node: ZeRO-1 runs (Megatron's distributed optimizer); ZeRO-2 and 3 would
    // reduce-scatter (and gather) within every micro-batch, which the pipeline schedule does not build
    Task zero1 = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 2048, 1, 1, 8, Recompute.NONE, 8, 128,
        Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(1, 2, 4, 1));
    assertThat(Placement.resolve(Fixtures.cluster(1), M, zero1).plan().zero()).isEqualTo(1);
    for (int zero = 2; zero <= 3; zero++) {
      Task t = zero1.withPlan(new ParallelPlan(1, 2, 4, zero));
      assertThatThrownBy(() -> Placement.resolve(Fixtures.cluster(1), M, t))
          .isInstanceOf(ScenarioKeyException.class).hasMessageContaining("'zero' " + zero)
          .hasMessageContaining("pp 2").satisfies(e -> assertThat(((ScenarioKeyException) e).key())
              .isEqualTo(ScenarioKey.ZERO));
    }
  }
}
