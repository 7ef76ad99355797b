package llmsim.core.workload;

import llmsim.core.engine.Simulation;
import llmsim.core.hw.Precision;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;

/**
 * A collective alone, as nccl-tests runs it: an all-reduce or an all-to-all of {@code bytes} over every GPU of a
 * system, simulated the way a training step's collectives are, and reported as nccl-tests reports it (bus
 * bandwidth).
 */
public final class CollectiveBench {
  private CollectiveBench() {}

  /** No framework in the way: the collective alone. */
  private static final SoftwareProfile NONE = SoftwareProfile.builder("nccl-tests", "a collective alone")
      .launchSeconds(0).kernelsPerLayer(1).flashAttention(true).workspaceBytes(0).source("nccl-tests").build();

  /** Bus bandwidth (bytes/s) of an all-reduce of {@code bytes} over all of {@code s}'s GPUs: 2(n-1)/n x S / time. */
  public static double allReduceBusBandwidth(SystemSpec s, double bytes) {
    return allReduceBusBandwidth(s, bytes, CollectiveAlgorithm.AUTO);
  }

  /**
   * As {@link #allReduceBusBandwidth(SystemSpec, double)} with the algorithms NCCL_ALGO allows; a tree needs GPUs
   * on more than one node (NCCL's double binary tree spans nodes; inside one node it is a chain, not modelled).
   */
  public static double allReduceBusBandwidth(SystemSpec s, double bytes, CollectiveAlgorithm algorithm) {
    int n = gpus(s, "an all-reduce");
    if (algorithm == CollectiveAlgorithm.TREE && s.nodes() < 2) {
      throw new IllegalArgumentException("algorithm 'tree' is NCCL's double binary tree across nodes; " + s.id()
          + " has its " + n + " GPUs on one node (inside a node NCCL's tree is a chain, which is not modelled)");
    }
    Simulation sim = new Simulation();
    StepContext ctx = context(s, sim);
    ctx.collectives.algorithm = algorithm;
    ctx.collectives.dataParallel("all_reduce", Collectives.Kind.ALL_REDUCE, bytes);
    double seconds = sim.run().makespan();
    return 2.0 * (n - 1) / n * bytes / seconds;
  }

  /**
   * Bus bandwidth (bytes/s) of an all-to-all in which every one of {@code s}'s GPUs sends {@code bytes} in all,
   * bytes / n to each GPU: (n-1)/n x S / time, as nccl-tests' alltoall_perf reports it.
   */
  public static double allToAllBusBandwidth(SystemSpec s, double bytes) {
    int n = gpus(s, "an all-to-all");
    Simulation sim = new Simulation();
    StepContext ctx = context(s, sim);
    ctx.collectives.allToAll("all_to_all", bytes);
    double seconds = sim.run().makespan();
    return (double) (n - 1) / n * bytes / seconds;
  }

  private static int gpus(SystemSpec s, String what) {
    int n = s.totalDevices();
    if (n < 2) {
      throw new IllegalArgumentException(what + " needs at least 2 GPUs; " + s.id() + " has " + n);
    }
    return n;
  }

  /** One GPU of {@code s} in a data-parallel group of all of them, with nothing but the collective to run. */
  private static StepContext context(SystemSpec s, Simulation sim) {
    int n = s.totalDevices();
    Precision p = s.device().hasPeak(Precision.BF16) ? Precision.BF16 : Precision.FP16;
    PrecisionSupport.resolve(s.device(), p, NONE);
    Task t = new Task(TaskKind.TRAIN, p, WeightFormat.BF16, 1, 1, 1, 1, 1, Recompute.NONE, 8, 128, Offload.NONE, 0,
        KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(1, 1, n, 0));
    return new StepContext(s, t, NONE, sim, 1);
  }
}
