package llmsim.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Locale;
import llmsim.core.engine.Trace;

/**
 * EngineBench's and ClusterBench's work timed in CPU time of the running thread rather than wall time: on a machine
 * shared with other builds, wall time counts the time the thread waited for a core. Collection on other threads is
 * left out. Prints each run after {@code warm-up} untimed ones.
 *
 * <p>Run: {@code java --add-modules jdk.incubator.vector -Xmx6g -cp sim-bench/target/benchmarks.jar
 * llmsim.bench.CpuTimes [runs]}; {@code CpuTimes RUNS every-gpu} times ClusterBench's step with every GPU
 * simulated instead (default heap: leave out -Xmx).
 */
public final class CpuTimes {
  private CpuTimes() {}

  public static void main(String[] args) {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 6;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    if (args.length > 1 && args[1].equals("every-gpu")) {
      // ClusterBench's step with every GPU simulated: one untimed run, then each run's CPU time and wall time
      ClusterBench cluster = new ClusterBench();
      cluster.setUp();
      for (int i = 0; i < runs + 1; i++) {
        long c0 = mx.getCurrentThreadCpuTime();
        long w0 = System.nanoTime();
        cluster.llama65bOn2048A100EveryGpu();
        long cpu = mx.getCurrentThreadCpuTime() - c0;
        long wall = System.nanoTime() - w0;
        if (i >= 1) {
          System.out.printf(Locale.ROOT, "ClusterBench, every GPU: %.2f s of CPU, %.2f s wall per step%n", cpu / 1e9,
              wall / 1e9);
        }
      }
      return;
    }
    EngineBench engine = new EngineBench();
    engine.streams = 100_000;
    engine.setUp();
    for (int i = 0; i < runs + 2; i++) {
      long c0 = mx.getCurrentThreadCpuTime();
      Trace t = engine.sim.run();
      long cpu = mx.getCurrentThreadCpuTime() - c0;
      if (i >= 2) {
        System.out.printf(Locale.ROOT, "EngineBench: %d events in %.0f ms of CPU, %.2f M events per CPU-second%n",
            t.events(), cpu / 1e6, t.events() / (cpu / 1e3));
      }
    }
    ClusterBench cluster = new ClusterBench();
    cluster.setUp();
    for (int i = 0; i < runs + 20; i++) {
      long c0 = mx.getCurrentThreadCpuTime();
      cluster.llama65bOn2048A100Tp8Pp4Dp64();
      long cpu = mx.getCurrentThreadCpuTime() - c0;
      if (i >= 20) {
        System.out.printf(Locale.ROOT, "ClusterBench: %.2f ms of CPU per step%n", cpu / 1e6);
      }
    }
  }
}
