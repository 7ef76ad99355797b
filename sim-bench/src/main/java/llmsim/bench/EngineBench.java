package llmsim.bench;

import java.util.concurrent.TimeUnit;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.kernel.Kernels;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * The whole engine: {@code streams} streams run chains of ops at once, so about that many events are
 * pending; every other op is a transfer on one of many link pools shared by four streams, so starts and
 * ends re-share bandwidth. Reported as events per second (the "events" counter / time).
 *
 * <p>Run: {@code bench/run EngineBench}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx6g"})
public class EngineBench {
  @Param({"100000"})
  int streams;

  static final int OPS_PER_STREAM = 8;
  Simulation sim;

  @AuxCounters(AuxCounters.Type.OPERATIONS)
  @State(Scope.Thread)
  public static class Events {
    public long events;
  }

  @Setup(Level.Trial)
  public void setUp() {
    sim = new Simulation(Kernels.get());
    int pools = streams / 4;
    int[] linkGroups = new int[pools];
    for (int p = 0; p < pools; p++) {
      int pool = sim.addPool("link" + p);
      linkGroups[p] = sim.addGroup(new CostGroup("copy" + p, 1, -1, 1, pool, 25e9, 1e-6));
    }
    int gpu = sim.addGroup(new CostGroup("gpu", 100e12, -1, 1, -1, 1, 2e-6));
    for (int s = 0; s < streams; s++) {
      int stream = sim.addStream("s" + s, s % 2 == 0 ? Lane.COMPUTE : Lane.H2D);
      int prev = -1;
      for (int k = 0; k < OPS_PER_STREAM; k++) {
        double jitter = 1 + (s * 7919 + k * 104729) % 1000 / 1000.0;
        boolean transfer = k % 2 == 1;
        int[] deps = prev < 0 ? new int[0] : new int[] {prev};
        prev = transfer
            ? sim.addOp("x", OpKind.TRANSFER, stream, linkGroups[s / 4], 0, 0, 1e6 * jitter, deps)
            : sim.addOp("c", OpKind.MLP, stream, gpu, 1e9 * jitter, 0, 0, deps);
      }
    }
  }

  @Benchmark
  public Trace run(Events counter) {
    Trace t = sim.run();
    counter.events += t.events();
    return t;
  }
}
