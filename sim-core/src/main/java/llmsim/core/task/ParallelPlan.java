package llmsim.core.task;

import llmsim.core.util.Checks;

/**
 * How a task is split over the GPUs of a system: tensor parallelism {@code tp} (Megatron column/row split of
 * every layer), pipeline parallelism {@code pp} (layers split into stages), data parallelism {@code dp}
 * (replicas; 0 = every GPU the other two leave), and the ZeRO stage of the data-parallel replicas
 * (1: optimizer state sharded over dp, 2: also gradients, 3: also weights, as FSDP full shard).
 *
 * <p>With {@code hybridShard} (FSDP's HYBRID_SHARD, ZeRO-3 only) the state is sharded over the data-parallel
 * replicas inside one node and replicated across nodes: weights are gathered and gradients reduce-scattered inside
 * the node, and the gradient shards all-reduced across nodes ({@link #shardRanks(int)}).
 *
 * @param overlapGradReduce gradients reduced in per-layer buckets during the backward pass (else after it)
 * @param sequenceParallel Megatron's sequence parallelism alongside tp
 * @param virtualStages model chunks per pipeline GPU (Megatron's interleaved schedule when above 1)
 * @param allGpus simulate every GPU rather than one per pipeline stage standing for its peers
 * @param schedule the pipeline's order of passes: interleaved exactly when there are several virtual stages
 * @param hybridShard ZeRO-3 within each node, replicas across nodes (FSDP hybrid shard); false: over every replica
 */
public record ParallelPlan(int tp, int pp, int dp, int zero, boolean overlapGradReduce, boolean sequenceParallel,
    int virtualStages, boolean allGpus, PipelineSchedule schedule, boolean hybridShard) {

  public static final ParallelPlan SINGLE = new ParallelPlan(1, 1, 0, 0);

  public ParallelPlan {
    if (tp < 1 || pp < 1 || dp < 0 || zero < 0 || zero > 3 || virtualStages < 1) {
      throw new IllegalArgumentException("parallel plan needs tp >= 1, pp >= 1, dp >= 0, zero 0-3 and virtual stages"
          + " >= 1, was tp " + tp + ", pp " + pp + ", dp " + dp + ", zero " + zero + ", virtual stages " + virtualStages);
    }
    if (hybridShard && zero != 3) {
      throw new IllegalArgumentException("hybrid shard is ZeRO-3 within a node; it needs zero 3, was zero " + zero);
    }
    Checks.notNull("schedule", schedule);
    if ((schedule == PipelineSchedule.INTERLEAVED) != (virtualStages > 1)) {
      throw new IllegalArgumentException("the interleaved schedule goes with virtual stages > 1 and only with them,"
          + " was " + schedule.key() + " over " + virtualStages + " virtual stages");
    }
  }

  /** A plan sharding (if at all) over every data-parallel replica. */
  public ParallelPlan(int tp, int pp, int dp, int zero, boolean overlapGradReduce, boolean sequenceParallel,
      int virtualStages, boolean allGpus, PipelineSchedule schedule) {
    this(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, virtualStages, allGpus, schedule, false);
  }

  /** A plan with bucketed gradient reductions, one chunk per pipeline GPU, one GPU simulated per stage. */
  public ParallelPlan(int tp, int pp, int dp, int zero) {
    this(tp, pp, dp, zero, true, false, 1, false, PipelineSchedule.ONE_F_ONE_B);
  }

  /** This plan with another layout (tp, pp, dp, ZeRO stage), its other settings kept. */
  public ParallelPlan withLayout(int t, int p, int d, int z) {
    return new ParallelPlan(t, p, d, z, overlapGradReduce, sequenceParallel, virtualStages, allGpus, schedule,
        hybridShard && z == 3);
  }

  /** This ZeRO-3 plan sharding within each node (FSDP's HYBRID_SHARD). */
  public ParallelPlan withHybridShard() {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, virtualStages, allGpus, schedule, true);
  }

  /** This plan with {@code dp} fixed. */
  public ParallelPlan withDp(int d) {
    return withLayout(tp, pp, d, zero);
  }

  /** This plan with Megatron's sequence parallelism on or off. */
  public ParallelPlan withSequenceParallel(boolean on) {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, on, virtualStages, allGpus, schedule, hybridShard);
  }

  /**
   * This plan with {@code v} model chunks per pipeline GPU: Megatron's interleaved schedule when v > 1, else the
   * plan's own schedule (1F1B where it was interleaved).
   */
  public ParallelPlan withVirtualStages(int v) {
    PipelineSchedule s = v > 1 ? PipelineSchedule.INTERLEAVED
        : schedule == PipelineSchedule.INTERLEAVED ? PipelineSchedule.ONE_F_ONE_B : schedule;
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, v, allGpus, s, hybridShard);
  }

  /** This plan run with GPipe's schedule (one model chunk per GPU). */
  public ParallelPlan withGpipe() {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, 1, allGpus, PipelineSchedule.GPIPE,
        hybridShard);
  }

  /** This plan simulating every GPU (true) or one per pipeline stage standing for its peers (false). */
  public ParallelPlan withAllGpus(boolean all) {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, virtualStages, all, schedule,
        hybridShard);
  }

  /** This plan with ZeRO-3 sharded within each node and replicated across nodes (true), or over every replica. */
  public ParallelPlan withHybridShard(boolean hybrid) {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, virtualStages, allGpus, schedule,
        hybrid);
  }

  /**
   * Data-parallel replicas inside one node of {@code devicesPerNode} GPUs: GPUs are numbered tensor-parallel rank
   * fastest, then data-parallel, so a node holds min(dp, devicesPerNode / tp) replicas (at least 1).
   */
  public int replicasPerNode(int devicesPerNode) {
    return Math.min(Math.max(1, dp), Math.max(1, devicesPerNode / tp));
  }

  /**
   * Replicas a ZeRO stage shards its state over: all dp of them, or under hybrid shard those inside one node of
   * {@code devicesPerNode} GPUs.
   */
  public int shardRanks(int devicesPerNode) {
    return hybridShard ? replicasPerNode(devicesPerNode) : Math.max(1, dp);
  }

  /** GPUs that do the same work as one simulated per stage: the tensor- and data-parallel peers. */
  public int peersPerStage() {
    return Math.multiplyExact(tp, Math.max(1, dp));
  }

  public int gpus() {
    return Math.multiplyExact(Math.multiplyExact(tp, pp), dp);
  }

  public String describe() {
    return "tp " + tp + ", pp " + pp + ", dp " + dp + (zero > 0 ? ", ZeRO-" + zero : "")
        + (hybridShard ? " hybrid shard (within each node)" : "")
        + (tp > 1 && sequenceParallel ? ", sequence parallel" : "")
        + (pp > 1 && virtualStages > 1 ? ", interleaved over " + virtualStages + " chunks per GPU" : "")
        + (pp > 1 && schedule == PipelineSchedule.GPIPE ? ", GPipe schedule" : "")
        + (dp > 1 && !overlapGradReduce ? ", gradients reduced after the backward pass" : "");
  }

  /**
   * The settings of this plan that change nothing on {@code gpus} GPUs, each said in a sentence, since a flag taken
   * without a word reads as a flag that acted. dp 0 is every GPU tp x pp leave.
   */
  public java.util.List<String> noEffectNotes(int gpus) {
    int replicas = dp() > 0 ? dp() : Math.max(1, gpus / (tp() * pp()));
    java.util.List<String> out = new java.util.ArrayList<>();
    if (sequenceParallel() && tp() == 1) {
      out.add("sequence_parallel has no effect at tp 1: it splits the norms and dropout of a tensor-parallel group"
          + " along the sequence, and there is no group to split them over");
    }
    if (zero() > 0 && replicas == 1) {
      out.add("zero " + zero() + " has no effect at dp 1: ZeRO shards the optimizer state"
          + (zero() == 2 ? " and gradients" : "") + (zero() == 3 ? ", gradients and weights" : "")
          + " over the data-parallel replicas, and there is one replica, which holds them all");
    }
    if (!overlapGradReduce() && replicas == 1) {
      out.add("overlap_grad_reduce false has no effect at dp 1: it moves the data-parallel gradient reduction after"
          + " the backward pass, and with one replica there is no reduction");
    }
    if (allGpus() && gpus == 1) {
      out.add("all_gpus has no effect on one GPU: it simulates each of a plan's GPUs on its own resources instead of"
          + " one standing for its peers, and there is one GPU, with no peers");
    }
    if (schedule() == PipelineSchedule.GPIPE && pp() == 1) {
      out.add("schedule gpipe has no effect at pp 1: it orders the micro-batches' passes over pipeline stages, and"
          + " there is one stage (the micro-batches run one after the other, as gradient accumulation)");
    }
    return java.util.List.copyOf(out);
  }

  /**
   * Layers over {@code chunks} pipeline chunks (pp, or pp x v interleaved) as evenly as they go: chunk c starts at
   * layer floor(L c / chunks), so when they do not divide the layers their sizes differ by one at most, as
   * DeepSpeed's uniform partition does; element {@code chunks} is L. The simulation's stages and the memory planner's
   * fullest stage both read it.
   */
  public static int[] layerSplit(int layers, int chunks) {
    int[] first = new int[chunks + 1];
    for (int c = 0; c <= chunks; c++) {
      first[c] = (int) ((long) layers * c / chunks);
    }
    return first;
  }
}
