package llmsim.bench;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import llmsim.core.kernel.Kernels;
import llmsim.core.kernel.RooflineKernel;
import llmsim.core.kernel.ScalarRooflineKernel;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * The full roofline kernel (time, attained FLOP/s, intensity, bound class) over N ops, scalar vs Panama,
 * with a STREAM-like triad over the same N in the same run as the machine's bandwidth reference.
 * Bytes per op: the kernel reads 3 and writes 4 doubles (56 B); the triad reads 2 and writes 1 (24 B).
 *
 * <p>Run: {@code bench/run KernelBench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx4g"})
public class KernelBench {
  @Param({"1000", "100000", "10000000"})
  int n;

  double[] flops;
  double[] mem;
  double[] link;
  double[] time;
  double[] attained;
  double[] intensity;
  double[] bound;
  RooflineKernel scalar;
  RooflineKernel panama;
  final RooflineKernel.Coefficients co = RooflineKernel.Coefficients.of(756e12 * 0.8, 2e12 * 0.9, 55e9, 4e-6);

  @Setup(Level.Trial)
  public void setUp() {
    SplittableRandom r = new SplittableRandom(42);
    flops = new double[n];
    mem = new double[n];
    link = new double[n];
    time = new double[n];
    attained = new double[n];
    intensity = new double[n];
    bound = new double[n];
    for (int i = 0; i < n; i++) {
      flops[i] = Math.pow(10, r.nextDouble(6, 14));
      mem[i] = Math.pow(10, r.nextDouble(4, 10));
      link[i] = r.nextInt(4) == 0 ? Math.pow(10, r.nextDouble(4, 9)) : 0;
    }
    scalar = new ScalarRooflineKernel();
    panama = Kernels.loadPanama().orElseThrow(() -> new IllegalStateException("run with --add-modules jdk.incubator.vector"));
  }

  @Benchmark
  public double[] scalar() {
    scalar.evaluate(flops, mem, link, 0, n, co, time, attained, intensity, bound);
    return bound;
  }

  @Benchmark
  public double[] panama() {
    panama.evaluate(flops, mem, link, 0, n, co, time, attained, intensity, bound);
    return bound;
  }

  /** STREAM triad a = b + s * c over the same N: the bandwidth reference. */
  @Benchmark
  public double[] triad() {
    double s = 3.0;
    double[] a = time;
    double[] b = flops;
    double[] c = mem;
    for (int i = 0; i < n; i++) {
      a[i] = b[i] + s * c[i];
    }
    return a;
  }
}
