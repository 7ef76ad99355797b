package llmsim.bench;

import java.util.concurrent.TimeUnit;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.Kernels;
import llmsim.core.model.ModelSpec;
import llmsim.core.parallel.Placement;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.workload.Estimate;
import llmsim.core.workload.Estimator;
import llmsim.hw.catalog.Catalog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One training step of LLaMA-65B on 2048 A100-80GB (a100-80gb-cluster, tp 8, pp 4, dp 64, 1F1B, 32
 * micro-batches of 1 x 2048 tokens, full recomputation), event-simulated with one GPU per pipeline stage (the
 * symmetry the issue asks for: every data- and tensor-parallel peer of a stage does the same work), and with every
 * GPU simulated ({@code --all-gpus}: 512 peers per stage, each with its own streams and links, 46 M ops), the
 * latter in a JVM of the default heap.
 *
 * <p>Run: {@code bench/run ClusterBench}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx4g"})
public class ClusterBench {
  SystemSpec cluster;
  ModelSpec llama65b;
  Task step;
  Task everyGpu;
  Estimator estimator;

  @Setup(Level.Trial)
  public void setUp() {
    Catalog c = Catalog.bundled();
    cluster = Placement.size(c.system("a100-80gb-cluster", "bench"), 0, 2048);
    llama65b = c.model("llama-65b", "bench");
    Task d = Task.defaults(TaskKind.TRAIN);
    step = Placement.resolve(cluster, llama65b, new Task(d.kind(), d.precision(), d.weights(), 1, 2048, 1, 1, 32,
        Recompute.FULL, 8, 128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(8, 4, 64, 0)));
    everyGpu = step.withPlan(step.plan().withAllGpus(true));
    estimator = new Estimator(Kernels.get());
  }

  @Benchmark
  public Estimate llama65bOn2048A100Tp8Pp4Dp64() {
    return estimator.simulated(cluster, llama65b, step, SoftwareProfiles.MEGATRON);
  }

  /** The same step with every one of the 2048 GPUs simulated; the default heap (no -Xmx). */
  @Benchmark
  @Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector"})
  @Warmup(iterations = 1)
  @Measurement(iterations = 3)
  public Estimate llama65bOn2048A100EveryGpu() {
    return estimator.simulated(cluster, llama65b, everyGpu, SoftwareProfiles.MEGATRON);
  }
}
