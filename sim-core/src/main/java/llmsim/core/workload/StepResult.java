package llmsim.core.workload;

import java.util.Map;
import llmsim.core.engine.Bound;
import llmsim.core.engine.Trace;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;

/**
 * One simulated step (training) or run (inference) on one system, with the metrics users ask for.
 * Times in seconds, rates per second, fractions in [0, 1]. Inference-only fields are NaN for training.
 *
 * @param stepTimeSeconds the makespan: one optimizer step, or prefill plus all decode steps
 * @param tokensPerSecond training tokens per second, or generated tokens per second for inference
 * @param mfu model FLOPs (recomputation excluded) / (time x dense peak at the compute precision)
 * @param mbu decode bytes per token / (TPOT x peak memory bandwidth)
 * @param linkBytes bytes that crossed the host link during the step (both directions)
 * @param warnings what the result must say about how it was obtained (an emulated precision, a changed default)
 * @param jobTokens tokens of the whole job (--tokens), 0 when none was given
 */
public record StepResult(
    SystemSpec system,
    ModelSpec model,
    Task task,
    SoftwareProfile software,
    MemoryPlan memory,
    Trace trace,
    double stepTimeSeconds,
    double tokensPerSecond,
    double prefillTokensPerSecond,
    double decodeTokensPerSecond,
    double ttftSeconds,
    double tpotSeconds,
    double modelFlops,
    double hardwareFlops,
    double mfu,
    double mbu,
    double linkBytes,
    double decodeBytesPerToken,
    Map<Bound, Double> timeByBound,
    Bound bound,
    String explanation,
    java.util.List<String> warnings,
    double jobTokens) {

  public StepResult {
    warnings = java.util.List.copyOf(warnings);
  }

  /** Hardware FLOPs (recomputation counted) / (time x dense peak): Megatron's "% of peak". */
  public double hfu() {
    return modelFlops > 0 ? mfu * hardwareFlops / modelFlops : 0;
  }

  /** This result with one more warning. */
  public StepResult withWarning(String w) {
    java.util.List<String> all = new java.util.ArrayList<>(warnings);
    all.add(w);
    return new StepResult(system, model, task, software, memory, trace, stepTimeSeconds, tokensPerSecond,
        prefillTokensPerSecond, decodeTokensPerSecond, ttftSeconds, tpotSeconds, modelFlops, hardwareFlops, mfu, mbu,
        linkBytes, decodeBytesPerToken, timeByBound, bound, explanation, all, jobTokens);
  }

  /** This result for a job of {@code tokens} tokens. */
  public StepResult withJobTokens(double tokens) {
    return new StepResult(system, model, task, software, memory, trace, stepTimeSeconds, tokensPerSecond,
        prefillTokensPerSecond, decodeTokensPerSecond, ttftSeconds, tpotSeconds, modelFlops, hardwareFlops, mfu, mbu,
        linkBytes, decodeBytesPerToken, timeByBound, bound, explanation, warnings, tokens);
  }

  /** Wall-clock seconds of the whole job: its tokens at this rate (NaN without a job). */
  public double jobSeconds() {
    return jobTokens > 0 && tokensPerSecond > 0 ? jobTokens / tokensPerSecond : Double.NaN;
  }

  /** GPU-hours of the whole job: every GPU of the system for its wall time. */
  public double jobGpuHours() {
    return jobSeconds() * system.totalDevices() / 3600;
  }
}
