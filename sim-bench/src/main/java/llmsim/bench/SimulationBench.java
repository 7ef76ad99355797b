package llmsim.bench;

import java.util.concurrent.TimeUnit;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.workload.Estimate;
import llmsim.core.workload.Estimator;
import llmsim.core.kernel.Kernels;
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
 * Whole simulations, fully event-simulated: LLaMA-65B training step on 13900ks-h100 (weights streamed,
 * optimizer on the CPU) and on m2-ultra; LLaMA-7B generating 128 tokens on m2-ultra with llama.cpp.
 *
 * <p>Run: {@code bench/run SimulationBench}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx4g"})
public class SimulationBench {
  SystemSpec h100;
  SystemSpec mac;
  ModelSpec llama65b;
  ModelSpec llama7b;
  Task train;
  Task generate;
  Estimator estimator;

  @Setup(Level.Trial)
  public void setUp() {
    Catalog c = Catalog.bundled();
    h100 = c.system("13900ks-h100", "bench");
    mac = c.system("m2-ultra", "bench");
    llama65b = c.model("llama-65b", "bench");
    llama7b = c.model("llama-7b", "bench");
    train = Task.defaults(TaskKind.TRAIN).withOffload(Offload.AUTO);
    Task d = Task.defaults(TaskKind.INFERENCE);
    generate = new Task(d.kind(), d.precision(), d.weights(), 1, d.seqLen(), 128, 128, 1, false, 8, 128, Offload.AUTO);
    estimator = new Estimator(Kernels.get());
  }

  @Benchmark
  public Estimate llama65bTrainStepOn13900ksH100WithOffload() {
    return estimator.simulated(h100, llama65b, train, SoftwareProfiles.PYTORCH);
  }

  @Benchmark
  public Estimate llama65bTrainStepOnM2Ultra() {
    return estimator.simulated(mac, llama65b, train, SoftwareProfiles.PYTORCH);
  }

  @Benchmark
  public Estimate llama7bGenerate128TokensOnM2Ultra() {
    return estimator.simulated(mac, llama7b, generate, SoftwareProfiles.LLAMA_CPP);
  }
}
