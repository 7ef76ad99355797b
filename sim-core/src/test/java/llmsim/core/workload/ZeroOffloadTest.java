package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import llmsim.core.engine.Lane;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.parallel.Placement;
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

/**
 * ZeRO-Offload under data parallelism (DeepSpeed's {@code offload_optimizer: cpu} with ZeRO-1/2): each rank keeps
 * and steps its 1 / dp shard of the optimizer state on the host, on its share of the node's CPU, and moves only its
 * shard over its host link. Expected values come from the parameter count, the shard count and the fixture's host.
 */
class ZeroOffloadTest {
  static final ModelSpec M = Fixtures.llama7b();
  /** {@link Fixtures#cluster}: 8 GPUs a node on one host of 24 cores, 2.4 TFLOP/s fp32, 89.6 GB/s, 128 GiB. */
  static final int GPUS_PER_NODE = 8;
  static final double HOST_FLOPS = 2.4e12;
  static final double HOST_BYTES_PER_SECOND = 89.6e9;
  static final double HOST_MEMORY = 128.0 * (1L << 30);
  /** Bytes of an fp32 and of a bf16 element. */
  static final double FP32 = Float.BYTES;
  static final double BF16 = 2;
  /** Token ids and labels, 8 bytes a token, for each micro-batch's 2048 tokens. */
  static final double INPUT_BYTES = 2048 * 8.0;

  static Task task(ParallelPlan plan, int microBatches) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 2048, 1, 1, microBatches, Recompute.FULL,
        8, 128, Offload.OPTIMIZER, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, plan);
  }

  /** Ops on the host links whose name ends with {@code suffix}: their bytes summed. */
  static double linkBytes(Trace trace, String suffix) {
    String[] names = trace.ops().names();
    double bytes = 0;
    for (int i = 0; i < names.length; i++) {
      if (names[i].endsWith(suffix) && trace.lane(i).hostLink()) {
        bytes += trace.linkBytes(i);
      }
    }
    return bytes;
  }

  /** Bytes of the ops on {@code lane} whose name ends with {@code suffix}. */
  static double laneBytes(Trace trace, String suffix, Lane lane) {
    String[] names = trace.ops().names();
    double bytes = 0;
    for (int i = 0; i < names.length; i++) {
      if (names[i].endsWith(suffix) && trace.lane(i) == lane) {
        bytes += trace.linkBytes(i);
      }
    }
    return bytes;
  }

  /** Seconds the CPU lanes are busy over the run, all simulated GPUs together. */
  static double cpuSeconds(Trace trace) {
    double s = 0;
    for (int i = 0; i < trace.size(); i++) {
      if (trace.lane(i) == Lane.CPU) {
        s += trace.duration(i);
      }
    }
    return s;
  }

  /**
   * One GPU's CPU AdamW over {@code params} parameters, the node's host divided over its GPUs' processes: 12 FLOP and
   * 30 bytes per parameter (fp32 gradient, master, m, v read; master, m, v and the 16-bit weight written) on 1 / N of
   * the host's FP32 peak and of its streamed memory bandwidth.
   */
  static double hostStepSeconds(double params, int gpusPerNode) {
    double flops = WorkloadBuilder.ADAM_FLOPS_PER_PARAM * params / (HOST_FLOPS / gpusPerNode);
    double bytes = WorkloadBuilder.ADAM_CPU_BYTES_PER_PARAM * params
        / (HOST_BYTES_PER_SECOND * StepContext.HOST_STREAM_EFFICIENCY / gpusPerNode);
    return Math.max(flops, bytes);
  }

  /**
   * ZeRO-Offload of the optimizer on 8 replicas of one node at {@code zero}: asserts that each rank moves and steps
   * only its shard, and returns the run for what differs by stage.
   */
  static StepResult eachRankMovesAndStepsItsShard(int zero) {
    SystemSpec node = Fixtures.cluster(1);
    int dp = 8;
    Task t = Placement.resolve(node, M, task(new ParallelPlan(1, 1, dp, zero), 1));
    StepResult r = Simulator.simulate(node, M, t, SimulatorPhysicsTest.IDEAL);
    double shard = M.parameterCount() / dp;
    // the reduced gradients' shard goes down in fp32 (cast on the GPU), the updated 16-bit shard comes back
    assertThat(linkBytes(r.trace(), ".grads_to_host")).isCloseTo(FP32 * shard, within(1e-6 * shard));
    assertThat(linkBytes(r.trace(), ".updated_weights")).isCloseTo(BF16 * shard, within(1e-6 * shard));
    // and nothing else crosses the link but the input batch (token ids and labels, 8 bytes a token)
    assertThat(r.linkBytes()).isCloseTo((FP32 + BF16) * shard + INPUT_BYTES, within(1e-6 * shard));
    // the CPU steps the shard on 1/8 of the host: the layers' steps add up to the whole shard's
    assertThat(cpuSeconds(r.trace())).isCloseTo(hostStepSeconds(shard, GPUS_PER_NODE),
        within(1e-9 * hostStepSeconds(shard, GPUS_PER_NODE)));
    return r;
  }

  @Test
  void eachDataParallelRank_movesAndStepsItsShard_onItsShareOfTheHost() {
    StepResult r = eachRankMovesAndStepsItsShard(2);
    // the replicas gather the updated weights after the step, and no GPU optimizer runs
    assertThat(r.trace().ops().names()).contains("zero.all_gather_weights").doesNotContain("optimizer.adamw");
  }

  @Test
  void theNodesHostDoesTheWholeModelsStep_whateverTheShardCount() {
    // 8 ranks each stepping 1/8 of the state on 1/8 of the host take what one GPU stepping all of it on the whole
    // host takes: the node's host does the same work
    SystemSpec node = Fixtures.cluster(1);
    Task t = Placement.resolve(node, M, task(new ParallelPlan(1, 1, 8, 1), 1));
    double shards = cpuSeconds(Simulator.simulate(node, M, t, SimulatorPhysicsTest.IDEAL).trace());
    assertThat(shards).isCloseTo(hostStepSeconds(M.parameterCount(), 1), within(1e-9 * shards));
    // tensor parallelism splits the state first: tp 2 x dp 4 steps 1/8 of it per GPU too
    Task tp = Placement.resolve(node, M, task(new ParallelPlan(2, 1, 4, 1), 1));
    double both = cpuSeconds(Simulator.simulate(node, M, tp, SimulatorPhysicsTest.IDEAL).trace());
    assertThat(both).isCloseTo(hostStepSeconds(M.parameterCount() / 8, GPUS_PER_NODE), within(1e-9 * both));
  }

  @Test
  void everyGpuSimulated_agreesWithOneStandingForItsPeers() {
    // tp 2 x dp 4 on a node, and tp 2 x pp 2 x dp 4 on two: each peer with its own host link, CPU share and host
    // memory pool gives the step the one GPU standing for them gives, and its CPU steps its shard on its share
    for (Object[] c : new Object[][] {{Fixtures.cluster(1), new ParallelPlan(2, 1, 4, 1), 8},
        {Fixtures.cluster(2), new ParallelPlan(2, 2, 4, 1), 4}}) {
      SystemSpec s = (SystemSpec) c[0];
      ParallelPlan plan = (ParallelPlan) c[1];
      Task one = Placement.resolve(s, M, task(plan, (int) c[2]));
      Task all = one.withPlan(one.plan().withAllGpus(true));
      StepResult a = Simulator.simulate(s, M, one, SimulatorPhysicsTest.IDEAL);
      StepResult b = Simulator.simulate(s, M, all, SimulatorPhysicsTest.IDEAL);
      int peers = plan.tp() * plan.dp();
      assertThat(b.stepTimeSeconds()).as(plan.describe())
          .isCloseTo(a.stepTimeSeconds(), within(1e-12 * a.stepTimeSeconds()));
      assertThat(b.linkBytes()).as(plan.describe()).isCloseTo(a.linkBytes(), within(1e-6 * a.linkBytes()));
      // each GPU steps its tp, pp and ZeRO share on 1/8 of its node's host; pp stages each step theirs
      double perGpu = M.parameterCount() / plan.gpus();
      double expected = hostStepSeconds(perGpu, GPUS_PER_NODE) * plan.pp();
      assertThat(cpuSeconds(a.trace())).as(plan.describe()).isCloseTo(expected, within(1e-9 * expected));
      assertThat(cpuSeconds(b.trace()) / peers).as(plan.describe()).isCloseTo(expected, within(1e-9 * expected));
    }
  }

  @Test
  void theHostHoldsEachRanksShard_andTheNodesRanksTogetherAreCheckedAgainstItsMemory() {
    SystemSpec node = Fixtures.cluster(1);
    // 16 bytes a parameter on the host: fp32 master, m and v (12) and the fp32 gradients (4), each rank its 1/dp
    Task t = Placement.resolve(node, M, task(new ParallelPlan(1, 1, 8, 2), 1));
    MemoryPlan p = MemoryPlanner.place(node, M, t, SimulatorPhysicsTest.IDEAL, Offload.OPTIMIZER);
    assertThat(p.hostBytes()).isCloseTo(16 * M.parameterCount() / 8, within(1.0));
    assertThat(p.optimizerBytes()).isZero();
    assertThat(p.hostCapacityBytes() * GPUS_PER_NODE).isCloseTo(HOST_MEMORY, within(1.0));
    assertThat(p.fitsHost()).isEqualTo(16 * M.parameterCount() <= HOST_MEMORY);
    // LLaMA 65B over tp 4 x dp 2: 16 B x 65.3e9 / 8 per GPU, 8 of them = 1045 GB on a 128 GiB host: refused
    ModelSpec big = Fixtures.llama65b();
    Task bt = Placement.resolve(node, big, task(new ParallelPlan(4, 1, 2, 1), 1));
    MemoryPlan bp = MemoryPlanner.place(node, big, bt, SimulatorPhysicsTest.IDEAL, Offload.OPTIMIZER);
    assertThat(bp.hostBytes() * GPUS_PER_NODE).isCloseTo(16 * big.parameterCount(), within(1e-9 * bp.hostBytes()));
    assertThat(bp.fitsHost()).isFalse();
    StepResult r = Simulator.simulate(node, big, bt, SimulatorPhysicsTest.IDEAL);
    assertThat(r.explanation()).contains("host memory needs").contains("the node's 8 GPUs together need");
  }

  @Test
  void aResult_saysTheHostLinksAreTakenAsEachGpusOwn() {
    SystemSpec node = Fixtures.cluster(1);
    Task t = Placement.resolve(node, M, task(new ParallelPlan(1, 1, 8, 2), 1));
    assertThat(Simulator.simulate(node, M, t, SimulatorPhysicsTest.IDEAL).warnings())
        .anyMatch(w -> w.contains("link of its own") && w.contains("PCIe switch") && w.contains("1/8"));
  }

  @Test
  void whatIsNotSimulated_isRefusedWithTheReason() {
    SystemSpec node = Fixtures.cluster(1);
    assertThatThrownBy(() -> Placement.resolve(node, M,
        task(new ParallelPlan(1, 1, 8, 2), 1).withOffload(Offload.WEIGHTS)))
        .isInstanceOf(ScenarioKeyException.class).hasMessageContaining("'offload: weights' on 8 GPUs")
        .hasMessageContaining("set zero: 3");
    assertThatThrownBy(() -> Placement.resolve(node, M, task(new ParallelPlan(1, 1, 8, 0), 1)))
        .isInstanceOf(ScenarioKeyException.class).hasMessageContaining("with dp 8 shards the optimizer state")
        .hasMessageContaining("set zero: 1, 2 or 3");
    assertThatThrownBy(() -> Placement.resolve(Fixtures.cluster(2), M,
        task(new ParallelPlan(1, 1, 16, 3).withHybridShard(true), 1)))
        .isInstanceOf(ScenarioKeyException.class).hasMessageContaining("with shard: hybrid is not simulated");
    Task inference = new Task(TaskKind.INFERENCE, Precision.BF16, WeightFormat.BF16, 1, 128, 1, 16, 1, Recompute.NONE,
        8, 128, Offload.WEIGHTS, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(8, 1, 1, 0));
    assertThatThrownBy(() -> Placement.resolve(node, M, inference))
        .isInstanceOf(ScenarioKeyException.class).hasMessageContaining("is not simulated for inference");
  }

  @Test
  void zero3_withTheOptimizerOffloaded_movesTheShardBothWays_andGathersNothingAfterTheStep() {
    // DeepSpeed's ZeRO-3 with offload_optimizer: the weights stay sharded on the GPUs (each layer gathered where it
    // runs), so the updated 16-bit shard comes back to the GPU and no all-gather follows the step
    StepResult r = eachRankMovesAndStepsItsShard(3);
    assertThat(r.trace().ops().names()).doesNotContain("zero.all_gather_weights", "optimizer.adamw")
        .contains("L0.zero3_all_gather", "L0.zero3_all_gather.bwd");
  }

  @Test
  void zero3_withTheWeightsOffloaded_bringsEachLayersShardOverTheLinkBeforeEveryGather() {
    // parameter offload (DeepSpeed's offload_param, FSDP's CPUOffload(offload_params=True)): each rank's shard of a
    // layer crosses its host link before the layer's gather, forward and again backward (full recomputation runs
    // on the backward's gather); the gradients' shard goes down; the updated weights stay on the host
    SystemSpec node = Fixtures.cluster(1);
    int dp = 8;
    Task t = Placement.resolve(node, M, task(new ParallelPlan(1, 1, dp, 3), 1).withOffload(Offload.WEIGHTS));
    StepResult r = Simulator.simulate(node, M, t, SimulatorPhysicsTest.IDEAL);
    double layerShard = BF16 * M.parametersPerLayer() * M.layers() / dp;
    assertThat(linkBytes(r.trace(), ".weights")).isCloseTo(layerShard, within(1e-6 * layerShard));
    assertThat(linkBytes(r.trace(), ".weights.bwd")).isCloseTo(layerShard, within(1e-6 * layerShard));
    double shard = M.parameterCount() / dp;
    assertThat(linkBytes(r.trace(), ".grads_to_host")).isCloseTo(FP32 * shard, within(1e-6 * shard));
    assertThat(linkBytes(r.trace(), ".updated_weights")).isZero();
    // each gather waits for its shard's copy
    String[] names = r.trace().ops().names();
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals("L5.zero3_all_gather")) {
        int copy = java.util.Arrays.asList(names).indexOf("L5.weights");
        assertThat(r.trace().start()[i]).isGreaterThanOrEqualTo(r.trace().end()[copy]);
      }
    }
    // the device keeps no weight shards, only the layers being gathered; the host keeps them
    MemoryPlan weights = MemoryPlanner.place(node, M, t, SimulatorPhysicsTest.IDEAL, Offload.WEIGHTS);
    MemoryPlan optimizer = MemoryPlanner.place(node, M, t.withOffload(Offload.OPTIMIZER), SimulatorPhysicsTest.IDEAL,
        Offload.OPTIMIZER);
    assertThat(weights.hostBytes() - optimizer.hostBytes()).isCloseTo(BF16 * M.parameterCount() / dp,
        within(1e-6 * shard));
  }

  @Test
  void tensorParallelismAlone_offloadsEachGpusShare_unsharded() {
    // no replicas, nothing for ZeRO to shard: each of the 8 tensor-parallel GPUs offloads its 1/8 of the model
    SystemSpec node = Fixtures.cluster(1);
    Task t = Placement.resolve(node, M, task(new ParallelPlan(8, 1, 1, 0), 1));
    assertThat(t.plan().dp()).isEqualTo(1);
    double share = M.parameterCount() / 8;
    MemoryPlan p = MemoryPlanner.place(node, M, t, SimulatorPhysicsTest.IDEAL, Offload.OPTIMIZER);
    assertThat(p.hostBytes()).isCloseTo(16 * share, within(1.0));
    StepResult r = Simulator.simulate(node, M, t, SimulatorPhysicsTest.IDEAL);
    assertThat(r.linkBytes()).isCloseTo((FP32 + BF16) * share + 2048 * 8.0, within(1e-6 * share));
    assertThat(cpuSeconds(r.trace())).isCloseTo(hostStepSeconds(share, GPUS_PER_NODE),
        within(1e-9 * hostStepSeconds(share, GPUS_PER_NODE)));
    assertThat(r.trace().ops().names()).doesNotContain("zero.all_gather_weights");
  }

  @Test
  void oneGpu_sendsFp32Gradients_andGetsItsWeightsBackIn16Bits_asDeepSpeedsCodeMovesThem() {
    // ZeRO-Offload on one GPU is the same path with one shard: 4 B of fp32 gradient down and 2 B of bf16 weight up
    // per parameter, where the ZeRO-Offload paper's figure has 2 B each way
    SystemSpec gpu = Fixtures.discrete();
    Task t = Placement.resolve(gpu, M, task(new ParallelPlan(1, 1, 1, 0), 1));
    StepResult r = Simulator.simulate(gpu, M, t, SimulatorPhysicsTest.IDEAL);
    double p = M.parameterCount();
    assertThat(laneBytes(r.trace(), ".grads_to_host", Lane.D2H)).isCloseTo(FP32 * p, within(1e-6 * p));
    assertThat(laneBytes(r.trace(), ".updated_weights", Lane.H2D)).isCloseTo(BF16 * p, within(1e-6 * p));
    assertThat(r.linkBytes()).isCloseTo((FP32 + BF16) * p + INPUT_BYTES, within(1e-6 * p));
    assertThat(r.trace().ops().names()).noneMatch(n -> n.endsWith(".grads_accumulate"));
  }

  @Test
  void gradientAccumulation_underZero2_copiesTheShardToTheHostOnce_andBackEachLaterMicroBatch() {
    // DeepSpeed's async_accumulate_grad_in_cpu_via_gpu: micro-batch 0 sends the shard down in bf16, micro-batches
    // 1..k-1 bring that buffer back to add it on the GPU; the boundary then sends the fp32 shard as without it.
    // One GPU (one shard) and 8 ZeRO-2 replicas (1/8 each) move the same bytes per parameter of their shard.
    int k = 4;
    for (Object[] c : new Object[][] {{Fixtures.discrete(), new ParallelPlan(1, 1, 1, 0), 1},
        {Fixtures.cluster(1), new ParallelPlan(1, 1, 8, 2), 8}}) {
      SystemSpec s = (SystemSpec) c[0];
      ParallelPlan plan = (ParallelPlan) c[1];
      double shard = M.parameterCount() / (int) c[2];
      StepResult r = Simulator.simulate(s, M, Placement.resolve(s, M, task(plan, k)), SimulatorPhysicsTest.IDEAL);
      assertThat(laneBytes(r.trace(), ".grads_accumulate", Lane.D2H)).as(plan.describe())
          .isCloseTo(BF16 * shard, within(1e-6 * shard));
      assertThat(laneBytes(r.trace(), ".grads_accumulate", Lane.H2D)).as(plan.describe())
          .isCloseTo(BF16 * shard * (k - 1), within(1e-6 * shard));
      assertThat(linkBytes(r.trace(), ".grads_to_host")).as(plan.describe())
          .isCloseTo(FP32 * shard, within(1e-6 * shard));
      assertThat(linkBytes(r.trace(), ".updated_weights")).as(plan.describe())
          .isCloseTo(BF16 * shard, within(1e-6 * shard));
      assertThat(r.linkBytes()).as(plan.describe())
          .isCloseTo(BF16 * shard * k + (FP32 + BF16) * shard + k * INPUT_BYTES, within(1e-6 * shard));
    }
  }

  @Test
  void gradientAccumulation_underZero1_copiesOnlyAtTheBoundary() {
    // ZeRO-1 reduces and copies only at the boundary, a later micro-step than the first: DeepSpeed adds its host
    // accumulation buffer back once (bf16 up), then sends the fp32 shard down
    int k = 4;
    SystemSpec node = Fixtures.cluster(1);
    double shard = M.parameterCount() / 8;
    StepResult r = Simulator.simulate(node, M, Placement.resolve(node, M, task(new ParallelPlan(1, 1, 8, 1), k)),
        SimulatorPhysicsTest.IDEAL);
    assertThat(laneBytes(r.trace(), ".grads_accumulate", Lane.D2H)).isZero();
    assertThat(laneBytes(r.trace(), ".grads_accumulate", Lane.H2D)).isCloseTo(BF16 * shard, within(1e-6 * shard));
    assertThat(r.linkBytes()).isCloseTo((BF16 + FP32 + BF16) * shard + k * INPUT_BYTES, within(1e-6 * shard));
  }
}
