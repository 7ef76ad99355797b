package llmsim.core.task;

/**
 * How a task is split over the GPUs of a system: tensor parallelism {@code tp} (Megatron column/row split of
 * every layer), pipeline parallelism {@code pp} (layers split into stages), data parallelism {@code dp}
 * (replicas; 0 = every GPU the other two leave), and the ZeRO stage of the data-parallel replicas
 * (1: optimizer state sharded over dp, 2: also gradients, 3: also weights, as FSDP full shard).
 */
public record ParallelPlan(int tp, int pp, int dp, int zero, boolean overlapGradReduce, boolean sequenceParallel,
    int virtualStages, boolean allGpus) {

  public ParallelPlan(int tp, int pp, int dp, int zero, boolean overlapGradReduce, boolean sequenceParallel,
      int virtualStages) {
    this(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, virtualStages, false);
  }

  /** This plan simulating every GPU (true) or one per pipeline stage standing for its peers (false). */
  public ParallelPlan withAllGpus(boolean all) {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, virtualStages, all);
  }

  /** GPUs that do the same work as one simulated per stage: the tensor- and data-parallel peers. */
  public int peersPerStage() {
    return Math.multiplyExact(tp, Math.max(1, dp));
  }

  public static final ParallelPlan SINGLE = new ParallelPlan(1, 1, 0, 0);

  /** A plan whose gradient reductions overlap the backward pass (bucketed, as PyTorch DDP and FSDP do). */
  public ParallelPlan(int tp, int pp, int dp, int zero) {
    this(tp, pp, dp, zero, true, false, 1);
  }

  public ParallelPlan(int tp, int pp, int dp, int zero, boolean overlapGradReduce) {
    this(tp, pp, dp, zero, overlapGradReduce, false, 1);
  }

  public ParallelPlan(int tp, int pp, int dp, int zero, boolean overlapGradReduce, boolean sequenceParallel) {
    this(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, 1);
  }

  /** This plan with Megatron's sequence parallelism on or off. */
  public ParallelPlan withSequenceParallel(boolean on) {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, on, virtualStages, allGpus);
  }

  /** This plan with {@code v} model chunks per pipeline GPU (Megatron's interleaved schedule when v > 1). */
  public ParallelPlan withVirtualStages(int v) {
    return new ParallelPlan(tp, pp, dp, zero, overlapGradReduce, sequenceParallel, v, allGpus);
  }

  public ParallelPlan {
    if (tp < 1 || pp < 1 || dp < 0 || zero < 0 || zero > 3 || virtualStages < 1) {
      throw new IllegalArgumentException("parallel plan needs tp >= 1, pp >= 1, dp >= 0 and zero 0-3, was tp " + tp
          + ", pp " + pp + ", dp " + dp + ", zero " + zero);
    }
  }

  /** This plan with {@code dp} fixed. */
  public ParallelPlan withDp(int d) {
    return new ParallelPlan(tp, pp, d, zero, overlapGradReduce, sequenceParallel, virtualStages, allGpus);
  }

  public int gpus() {
    return Math.multiplyExact(Math.multiplyExact(tp, pp), dp);
  }

  public String describe() {
    return "tp " + tp + ", pp " + pp + ", dp " + dp + (zero > 0 ? ", ZeRO-" + zero : "")
        + (tp > 1 && sequenceParallel ? ", sequence parallel" : "")
        + (pp > 1 && virtualStages > 1 ? ", interleaved over " + virtualStages + " chunks per GPU" : "")
        + (dp > 1 && !overlapGradReduce ? ", gradients reduced after the backward pass" : "");
  }
}
