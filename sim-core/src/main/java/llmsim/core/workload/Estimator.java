package llmsim.core.workload;

import llmsim.core.engine.Bound;
import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.engine.Workspace;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.RooflineKernel;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;

/**
 * Sweep points, two ways over the same op list: {@link #analytic} sums the kernel's costs in closed
 * form (no event simulation); {@link #simulated} runs the discrete-event engine. One instance per thread.
 */
public final class Estimator {
  private final RooflineKernel kernel;
  private final RooflineSum sum = new RooflineSum();
  /** The simulated path's arrays, kept from one point to the next (its traces are read and dropped in between). */
  private final Workspace workspace = new Workspace();

  public Estimator(RooflineKernel kernel) {
    this.kernel = kernel;
  }

  public Estimate analytic(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw) {
    if (t.plan().pp() > 1) {
      throw new llmsim.core.scenario.ScenarioKeyException(llmsim.core.scenario.ScenarioKey.PP, "the closed form sums ops"
          + " as if nothing overlapped, which a pipeline's stages do by design: sweep pp > 1 with --mode simulate");
    }
    MemoryPlan plan = MemoryPlanner.choose(s, m, t, sw);
    sum.reset();
    WorkloadBuilder w = new WorkloadBuilder(s, m, t, sw, plan, sum);
    w.build();
    sum.evaluate(kernel);
    double step = sum.totalSeconds();
    double[] byBound = new double[Bound.values().length];
    for (int i = 0; i < byBound.length; i++) {
      byBound[i] = sum.boundSeconds(i);
    }
    double ttft = Double.NaN;
    double tpot = Double.NaN;
    if (!t.kind().training()) {
      ttft = sum.phaseSeconds(0);
      int steps = Math.max(0, t.generateTokens() - 1);
      tpot = steps > 0 ? sum.phaseSeconds(1) / steps : Double.NaN;
    }
    return finish(s, t, plan, w, step, ttft, tpot, byBound);
  }

  public Estimate simulated(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw) {
    MemoryPlan plan = MemoryPlanner.choose(s, m, t, sw);
    Simulation sim = new Simulation(kernel, workspace);
    int peers = t.plan().allGpus() ? t.plan().peersPerStage() : 1;
    WorkloadBuilder w = new WorkloadBuilder(s, m, t, sw, plan,
        peers > 1 ? new llmsim.core.engine.ReplicatedSink(sim, peers) : sim);
    w.build();
    Trace trace = sim.run();
    double step = trace.makespan();
    double ttft = Double.NaN;
    double tpot = Double.NaN;
    if (!t.kind().training()) {
      ttft = w.ttft(trace);
      tpot = w.tpot(trace);
    }
    var map = trace.timeByBound();
    double[] byBound = new double[Bound.values().length];
    for (Bound b : Bound.values()) {
      byBound[b.ordinal()] = map.get(b);
    }
    return finish(s, t, plan, w, step, ttft, tpot, byBound);
  }

  private static Estimate finish(SystemSpec s, Task t, MemoryPlan plan, WorkloadBuilder w, double step, double ttft,
      double tpot, double[] byBound) {
    double tokens = t.kind().training() ? t.tokensPerStep() / step
        : t.generateTokens() == 0 ? 0 : (double) t.tokensPerStep() / step;
    double modelFlops = w.modelFlopsPerGpu();
    double mfu = modelFlops / (step * w.ctx.peakFlops);
    int best = 0;
    for (int i = 1; i < byBound.length; i++) {
      if (byBound[i] > byBound[best]) {
        best = i;
      }
    }
    return new Estimate(step, tokens, ttft, tpot, mfu, Bound.values()[best], byBound, plan);
  }
}
