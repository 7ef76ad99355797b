package llmsim.core.parallel;

import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Task;

/**
 * Puts a task on a system: sizes a cluster template (--nodes, --gpus) and resolves the parallel plan against
 * its GPUs, refusing a plan that cannot run with the reason.
 */
public final class Placement {
  private Placement() {}

  /**
   * The system with the nodes or GPUs asked for (0: as it is); fewer GPUs than a node's, alone or with nodes 1, are
   * that many GPUs of one node.
   */
  public static SystemSpec size(SystemSpec s, int nodes, int gpus) {
    boolean partOfOneNode = nodes <= 1 && gpus > 0 && gpus < s.deviceCount();
    if (nodes > 0 && gpus > 0 && (long) nodes * s.deviceCount() != gpus && !partOfOneNode) {
      throw new ScenarioKeyException(ScenarioKey.GPUS, "'gpus' " + gpus + " and 'nodes' " + nodes + " disagree: " + s.id()
          + " has " + s.deviceCount() + " GPUs per node");
    }
    int n = nodes;
    if (gpus > 0) {
      if (partOfOneNode) {
        return new SystemSpec(s.id(), s.name(), s.aliases(), s.host(), s.device(), gpus, s.hostLink(), s.deviceLink(),
            s.gpuMemoryShare(), s.gpuMemoryShareSource(), s.price(), 1, s.fabric(), s.network());
      }
      if (gpus % s.deviceCount() != 0) {
        throw new ScenarioKeyException(ScenarioKey.GPUS, "'gpus' " + gpus + " is not a whole number of " + s.id()
            + " nodes of " + s.deviceCount() + " GPUs");
      }
      n = gpus / s.deviceCount();
    }
    if (n <= 0 || n == s.nodes()) {
      return s;
    }
    if (n > 1 && s.network().isEmpty()) {
      // say what the system is, so that "--gpus 2 on rtx4090" reads as one GPU per node, not as a missing cluster
      throw new ScenarioKeyException(nodes > 0 ? ScenarioKey.NODES : ScenarioKey.GPUS, s.id() + " has no network"
          + " between nodes and " + s.deviceCount() + (s.deviceCount() == 1 ? " GPU" : " GPUs") + " per node, so "
          + (nodes > 0 ? nodes + " nodes" : gpus + " GPUs") + " cannot be laid out on it; "
          + (s.deviceCount() == 1 ? "use a system with more GPUs of " + s.device().id() + " a node (`llmsim hardware"
              + " list`: the 8x systems take --gpus up to 8) or size" : "size") + " a cluster template"
          + " (a100-80gb-cluster, h100-cluster)");
    }
    return s.withNodes(n);
  }

  /** A tp the model's shape cannot split: the heads, the KV heads and the FFN width each divided over tp. */
  private static void checkTensorParallelOn(ModelSpec m, ParallelPlan p) {
    if (m.heads() % p.tp() != 0) {
      throw new ScenarioKeyException(ScenarioKey.TP, "'tp' " + p.tp() + " does not divide the " + m.heads()
          + " attention heads of " + m.id());
    }
    if (m.kvHeads() % p.tp() != 0 && p.tp() % m.kvHeads() != 0) {
      throw new ScenarioKeyException(ScenarioKey.TP, "'tp' " + p.tp() + " neither divides nor is a multiple of the "
          + m.kvHeads() + " KV heads of " + m.id());
    }
    if (m.ffnHidden() % p.tp() != 0) {
      throw new ScenarioKeyException(ScenarioKey.TP, "'tp' " + p.tp() + " does not divide " + m.id()
          + "'s FFN width of " + m.ffnHidden());
    }
  }

  /**
   * The task with its plan resolved on {@code s}: dp defaults to the GPUs tp x pp leave, and every rule a real
   * run would break is refused naming its key.
   */
  public static Task resolve(SystemSpec s, ModelSpec m, Task t) {
    ParallelPlan p = t.plan();
    if (p.pp() > m.layers()) {
      // before the GPUs: more GPUs (the hint below) would not make it run
      throw new ScenarioKeyException(ScenarioKey.PP, "'pp' " + p.pp() + " is more stages than the " + m.layers()
          + " layers of " + m.id());
    }
    int gpus = s.totalDevices();
    int tpPp = p.tp() * p.pp();
    if (tpPp > gpus || gpus % tpPp != 0) {
      // more than the GPUs the system has, where --gpus or --nodes could give it more (as for dp below)
      boolean sizable = tpPp > gpus && (s.network().isPresent() || tpPp <= s.deviceCount());
      if (sizable) {
        checkTensorParallelOn(m, p); // a tp the model cannot split runs on no number of GPUs: say that, not to size it
      }
      throw new ScenarioKeyException(p.tp() > 1 ? ScenarioKey.TP : ScenarioKey.PP, "tp x pp = " + tpPp
          + " does not divide the " + gpus + (gpus == 1 ? " GPU of " : " GPUs of ") + s.id()
          + (sizable ? " (size it with --gpus or --nodes)" : ""));
    }
    int dp = p.dp() == 0 ? gpus / tpPp : p.dp();
    if ((long) tpPp * dp != gpus) {
      long need = (long) tpPp * dp;
      // --gpus and --nodes size a system only within a node or over its network: on one without, they are refused
      boolean sizable = s.network().isPresent() || need <= s.deviceCount();
      throw new ScenarioKeyException(ScenarioKey.DP, "tp x pp x dp = " + p.tp() + " x " + p.pp() + " x " + dp + " = "
          + need + ", but " + s.id() + " has " + gpus + (gpus == 1 ? " GPU" : " GPUs") + (sizable
              ? " (size it with --gpus or --nodes)" : " and no network between nodes to add more; use a system with"
                  + " more GPUs or a cluster template (a100-80gb-cluster, h100-cluster)"));
    }
    t = withAccumulation(t, dp);
    // dp derived from the GPUs, or micro-batches from a global batch, may break a rule the values as given kept
    llmsim.core.scenario.ScenarioValues.checkOptimizerInBackward(t.optimizer().inBackward(), t.microBatches(),
        p.withDp(dp));
    checkTensorParallelOn(m, p);
    if (p.pp() > 1) {
      if (!t.kind().training()) {
        throw new ScenarioKeyException(ScenarioKey.PP, "pipeline-parallel inference is not simulated yet (pp > 1 is"
            + " modelled for training with the 1F1B schedule); use tp");
      }
      if (p.zero() >= 2) {
        // DeepSpeed's pipeline engine refuses the same ("ZeRO-2 and ZeRO-3 are incompatible with pipeline
        // parallelism", deepspeed/runtime/pipe/engine.py); the pipeline step is built for ZeRO-1 (Megatron's
        // distributed optimizer): no per-layer weight gathers, one gradient reduction at the step's end
        throw new ScenarioKeyException(ScenarioKey.ZERO, "'zero' " + p.zero() + " with pipeline stages (pp "
            + p.pp() + ") is not simulated: ZeRO-2/3 partition gradients (and ZeRO-3 weights) within each"
            + " micro-batch, which the pipeline schedule does not model, and DeepSpeed's pipeline engine refuses"
            + " it; use zero 1 (Megatron's distributed optimizer) or pp 1");
      }
      int v = p.virtualStages();
      if (v > 1 && m.layers() % (p.pp() * v) != 0) {
        throw new ScenarioKeyException(ScenarioKey.VIRTUAL_STAGES, "'virtual_stages' " + v + " x pp " + p.pp()
            + " does not divide the " + m.layers() + " layers of " + m.id());
      }
      if (v > 1 && t.microBatches() % p.pp() != 0) {
        throw new ScenarioKeyException(ScenarioKey.VIRTUAL_STAGES, "the interleaved schedule needs micro_batches a"
            + " multiple of pp (" + p.pp() + "), was " + t.microBatches());
      }
    }
    if (p.virtualStages() > 1 && p.pp() == 1) {
      throw new ScenarioKeyException(ScenarioKey.VIRTUAL_STAGES, "'virtual_stages' needs pipeline stages (pp > 1)");
    }
    if (p.zero() > 0 && !t.kind().training()) {
      throw new ScenarioKeyException(ScenarioKey.ZERO, "'zero' applies to training (it shards optimizer state,"
          + " gradients and weights over data-parallel replicas)");
    }
    if (p.hybridShard()) {
      refuseHybridShard(s, p.withDp(dp));
    }
    if (t.recompute() == llmsim.core.task.Recompute.FULL_OFFLOAD && s.unifiedMemory()) {
      // the layer inputs would move within the one memory: no copy, and no device memory freed
      throw new ScenarioKeyException(ScenarioKey.RECOMPUTE, "'recompute: full_offload' keeps each layer's input in"
          + " host memory, but " + s.id() + " has unified memory (host and GPU share it): nothing is freed or"
          + " copied; use recompute: full");
    }
    if (gpus > 1 && t.offload() != llmsim.core.task.Offload.AUTO && t.offload() != llmsim.core.task.Offload.NONE) {
      refuseOffload(t, p.withDp(dp));
    }
    if (gpus > 1 && !t.kind().training() && t.gpuLayers() != llmsim.core.task.Task.GPU_LAYERS_AUTO
        && t.gpuLayers() < m.layers()) {
      // gpu_layers below the model's layers offloads weights under offload auto: eight H100s streamed LLaMA-7B's
      // layers from the host, the offload that 'offload: weights' there is refused for
      throw new ScenarioKeyException(ScenarioKey.GPU_LAYERS, "'gpu_layers' " + t.gpuLayers() + " of " + m.layers()
          + " keeps layers in host memory, which on " + gpus + " GPUs (" + p.withDp(dp).describe() + ") is not"
          + " simulated for inference (with several GPUs offload is simulated for training, as ZeRO runs it); leave"
          + " gpu_layers at auto, and split the model with tensor parallelism");
    }
    return t.withPlan(p.withDp(dp));
  }

  /**
   * With several GPUs, offload is simulated as DeepSpeed runs it with ZeRO (training): {@code offload: optimizer} is
   * ZeRO-Offload ({@code offload_optimizer: cpu}, ZeRO stage 1, 2 or 3: the optimizer state and step on the host,
   * sharded over the data-parallel replicas), and {@code offload: weights} under ZeRO-3 is parameter offload as well
   * (DeepSpeed's {@code offload_param}, FSDP's {@code CPUOffload(offload_params=True)}: each rank's weight shard also
   * lives on the host and crosses its host link before every gather). What else a user could ask is refused with
   * the reason.
   */
  private static void refuseOffload(Task t, ParallelPlan p) {
    String on = " on " + p.gpus() + " GPUs (" + p.describe() + ")";
    if (!t.kind().training()) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload: " + t.offload().key() + "'" + on + " is not"
          + " simulated for inference (with several GPUs offload is simulated for training, as ZeRO runs it); use"
          + " tensor parallelism or more GPUs");
    }
    if (p.hybridShard()) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload: " + t.offload().key() + "' with shard: hybrid"
          + " is not simulated; use shard: full (zero 3), or zero 1 or 2 with offload: optimizer");
    }
    if (t.offload() == llmsim.core.task.Offload.WEIGHTS && p.zero() < 3) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload: weights'" + on + " is simulated as ZeRO-3/FSDP"
          + " parameter offload, whose replicas each keep a shard of the weights on the host: set zero: 3 (with zero"
          + " 1 or 2, offload: optimizer is ZeRO-Offload)");
    }
    if (p.dp() > 1 && p.zero() == 0) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload: optimizer' with dp " + p.dp() + " shards the"
          + " optimizer state over the replicas, as DeepSpeed's ZeRO-Offload does (offload_optimizer is an option of"
          + " ZeRO stages 1-3); set zero: 1, 2 or 3");
    }
  }

  /**
   * Hybrid shard shards within a node and replicates across nodes: it needs several replicas in a node to shard
   * over and a data-parallel group that leaves the node (else it is full shard, or nothing).
   */
  private static void refuseHybridShard(SystemSpec s, ParallelPlan p) {
    int perNode = p.replicasPerNode(s.deviceCount());
    if (s.nodes() == 1) {
      throw new ScenarioKeyException(ScenarioKey.SHARD, "'shard: hybrid' shards within a node and replicates across"
          + " nodes, but " + s.id() + " is one node; use shard: full (or more nodes with --nodes)");
    }
    if (perNode < 2) {
      throw new ScenarioKeyException(ScenarioKey.SHARD, "'shard: hybrid' needs several data-parallel replicas in a"
          + " node to shard over; with tp " + p.tp() + " a node of " + s.deviceCount() + " GPUs holds "
          + perNode + " (use shard: full)");
    }
    if (p.dp() <= perNode) {
      throw new ScenarioKeyException(ScenarioKey.SHARD, "'shard: hybrid' replicates across nodes, but the " + p.dp()
          + " data-parallel replicas fit in one node of " + s.deviceCount() + " GPUs; it would be full shard (use"
          + " shard: full)");
    }
  }

  /**
   * The micro-batches a global batch asks for once dp is known: global_batch / (batch x dp), whole, and the same
   * as micro_batches when both are given.
   */
  static Task withAccumulation(Task t, int dp) {
    int global = t.globalBatch();
    if (global == 0) {
      return t;
    }
    long perRound = (long) t.batch() * dp;
    if (global % perRound != 0) {
      throw new ScenarioKeyException(ScenarioKey.GLOBAL_BATCH, "'global_batch' " + global + " is not a multiple of"
          + " micro_batch " + t.batch() + " x dp " + dp + " = " + perRound);
    }
    int microBatches = (int) (global / perRound);
    if (t.microBatches() != 0 && t.microBatches() != microBatches) {
      throw new ScenarioKeyException(ScenarioKey.MICRO_BATCHES, "'micro_batches' " + t.microBatches() + " disagrees"
          + " with global_batch " + global + " / (micro_batch " + t.batch() + " x dp " + dp + ") = " + microBatches
          + "; give one of them");
    }
    return t.withMicroBatches(microBatches);
  }
}
