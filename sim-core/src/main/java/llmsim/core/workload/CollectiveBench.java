package llmsim.core.workload;

import java.util.List;
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
 * A collective alone, as nccl-tests runs it: an all-reduce of {@code bytes} over every GPU of a system, simulated
 * the way a training step's collectives are, and reported as nccl-tests reports it (bus bandwidth).
 */
public final class CollectiveBench {
  private CollectiveBench() {}

  /** No framework in the way: the collective alone. */
  private static final SoftwareProfile NONE = new SoftwareProfile("nccl-tests", "a collective alone", List.of(), 1, 1, 0,
      1, true, 8, 0, 1, false, 0, "nccl-tests");

  /** Bus bandwidth (bytes/s) of an all-reduce of {@code bytes} over all of {@code s}'s GPUs: 2(n-1)/n x S / time. */
  public static double allReduceBusBandwidth(SystemSpec s, double bytes) {
    return allReduceBusBandwidth(s, bytes, false);
  }

  /** As {@link #allReduceBusBandwidth(SystemSpec, double)}; {@code ringOnly} as NCCL_NVLS_ENABLE=0 runs it. */
  public static double allReduceBusBandwidth(SystemSpec s, double bytes, boolean ringOnly) {
    int n = s.totalDevices();
    if (n < 2) {
      throw new IllegalArgumentException("an all-reduce needs at least 2 GPUs; " + s.id() + " has " + n);
    }
    Precision p = s.device().hasPeak(Precision.BF16) ? Precision.BF16 : Precision.FP16;
    PrecisionSupport.resolve(s.device(), p, NONE);
    Task t = new Task(TaskKind.TRAIN, p, WeightFormat.BF16, 1, 1, 1, 1, 1, Recompute.NONE, 8, 128, Offload.NONE, 0,
        KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(1, 1, n, 0));
    Simulation sim = new Simulation();
    StepContext ctx = new StepContext(s, t, NONE, sim, 1);
    ctx.collectives.ringOnly = ringOnly;
    ctx.collectives.dataParallel("all_reduce", Collectives.Kind.ALL_REDUCE, bytes);
    double seconds = sim.run().makespan();
    return 2.0 * (n - 1) / n * bytes / seconds;
  }
}
