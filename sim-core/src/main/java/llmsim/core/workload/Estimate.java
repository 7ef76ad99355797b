package llmsim.core.workload;

import llmsim.core.engine.Bound;
import llmsim.core.memory.MemoryPlan;

/**
 * A sweep point's figures, from either the closed form or a simulation. NaN where a figure does not
 * apply (TTFT for training).
 */
public record Estimate(double stepTimeSeconds, double tokensPerSecond, double ttftSeconds, double tpotSeconds,
    double mfu, Bound bound, double[] secondsByBound, MemoryPlan memory) {}
