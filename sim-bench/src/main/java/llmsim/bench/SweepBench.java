package llmsim.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.Kernels;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.workload.Estimate;
import llmsim.core.workload.Estimator;
import llmsim.hw.catalog.Catalog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Sweep throughput on one core: configurations per second, analytic (closed form through the kernel)
 * and simulated (the event engine), cycling through a mixed grid of systems, models, tasks and batches.
 * Multiply by the cores for a whole sweep.
 *
 * <p>Run: {@code bench/run SweepBench}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx4g"})
public class SweepBench {
  record Config(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw) {}

  List<Config> configs;
  Estimator estimator;
  int i;

  @Setup(Level.Trial)
  public void setUp() {
    Catalog c = Catalog.bundled();
    configs = new ArrayList<>();
    for (String h : List.of("m2-ultra", "13900ks-h100", "13900ks-rtx4090", "h100-sxm")) {
      for (String m : List.of("llama-7b", "llama-13b", "llama2-70b")) {
        for (TaskKind k : List.of(TaskKind.INFERENCE, TaskKind.TRAIN, TaskKind.FINETUNE_LORA)) {
          for (int b : new int[] {1, 8, 64}) {
            Task d = Task.defaults(k);
            Task t = new Task(k, d.precision(), d.weights(), b, 2048, 512, 128, 1, false, 8, 128, Offload.AUTO);
            SystemSpec s = c.system(h, "bench");
            // the default precision adapted to what the device runs, as the command line does (the M2 Ultra has no
            // bf16: fp16), else Estimator refuses the configuration
            t = llmsim.core.hw.PrecisionSupport.adapt(t, s.device(), SoftwareProfiles.PYTORCH, false).task();
            configs.add(new Config(s, c.model(m, "bench"), t, SoftwareProfiles.PYTORCH));
          }
        }
      }
    }
    estimator = new Estimator(Kernels.get());
  }

  @Benchmark
  public Estimate analytic() {
    Config c = configs.get(i++ % configs.size());
    return estimator.analytic(c.s(), c.m(), c.t(), c.sw());
  }

  @Benchmark
  public Estimate simulatedTraining() {
    Config c;
    do {
      c = configs.get(i++ % configs.size());
    } while (!c.t().kind().training());
    return estimator.simulated(c.s(), c.m(), c.t(), c.sw());
  }
}
