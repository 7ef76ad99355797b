package llmsim.core.workload;

import java.util.ArrayList;
import java.util.List;
import llmsim.core.engine.Lane;
import llmsim.core.engine.Simulation;
import llmsim.core.engine.Trace;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.Kernels;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;

/**
 * One decode step at batch 1, 2, 4, ...: where it sits on the roofline (FLOPs over the bytes it moves, and over
 * its simulated time), and the critical batch size, where its intensity reaches the ridge point (peak FLOP/s of
 * the work's precision over device-memory bandwidth) and decode turns compute-bound.
 *
 * <p>A decode step's FLOPs and bytes are affine in the batch: every sequence adds its GEMM FLOPs and its KV-cache
 * reads, while the weights are read once however many sequences share them. The critical batch comes from that
 * line, fitted through the simulated steps at batch 1 and 2: b* = (R W0 - F0) / (F1 - R W1) for FLOPs F0 + F1 b,
 * bytes W0 + W1 b and ridge R. When each sequence adds more bytes x R than FLOPs (a long context's KV cache), the
 * step never turns compute-bound and the critical batch is infinite.
 *
 * @param ridgeFlopsPerByte peak FLOP/s at the work's precision over the device-memory bandwidth
 * @param criticalBatch batch where the decode step's intensity equals the ridge; +infinity when it never does
 */
public record DecodeTrajectory(List<Point> points, double ridgeFlopsPerByte, double criticalBatch) {

  /**
   * One simulated decode step.
   *
   * @param fits whether the model, its KV cache and activations fit the device at this batch
   */
  public record Point(int batch, double flops, double bytes, double seconds, boolean fits) {
    public double intensity() {
      return flops / bytes;
    }

    public double flopsPerSecond() {
      return flops / seconds;
    }
  }

  public DecodeTrajectory {
    points = List.copyOf(points);
  }

  /** Decode at batch 1, 2, 4, ... up to {@code maxBatch}, each as one step after the task's prompt. */
  public static DecodeTrajectory of(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw, int maxBatch) {
    if (t.kind().training()) {
      throw new IllegalArgumentException("a decode trajectory needs an inference task, was " + t.kind().key());
    }
    double peak = PrecisionSupport.resolve(s.device(), t.precision(), sw).peakFlops();
    double ridge = peak / s.device().memoryBandwidthBytesPerSecond();
    List<Point> points = new ArrayList<>();
    for (int b = 1; b <= Math.max(2, maxBatch); b *= 2) {
      points.add(step(s, m, oneDecodeStep(t, b), sw));
    }
    return new DecodeTrajectory(points, ridge, criticalBatch(points.get(0), points.get(1), ridge));
  }

  /** b* from the affine line through the steps at batch 1 and 2 (see the class comment). */
  static double criticalBatch(Point one, Point two, double ridge) {
    double f1 = two.flops() - one.flops();
    double f0 = one.flops() - f1;
    double w1 = two.bytes() - one.bytes();
    double w0 = one.bytes() - w1;
    double denominator = f1 - ridge * w1;
    if (denominator <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    return Math.max(1, (ridge * w0 - f0) / denominator);
  }

  /** The task at batch {@code b} generating two tokens: the prompt's, then one decode step. */
  static Task oneDecodeStep(Task t, int b) {
    return new Task(t.kind(), t.precision(), t.weights(), b, t.seqLen(), t.promptTokens(), 2, t.microBatches(),
        t.recompute(), t.loraRank(), t.prefixTokens(), t.offload(), t.context(), t.kvCache(), t.gpuLayers(),
        t.plan(), t.globalBatch());
  }

  static Point step(SystemSpec s, ModelSpec m, Task t, SoftwareProfile sw) {
    MemoryPlan plan = MemoryPlanner.plan(s, m, t, sw);
    Simulation sim = new Simulation(Kernels.get());
    WorkloadBuilder w = new WorkloadBuilder(s, m, t, sw, plan, sim);
    w.build();
    Trace trace = sim.run();
    double flops = 0;
    double bytes = 0;
    for (int i = w.prefillEnd + 1; i < trace.size(); i++) {
      Lane lane = trace.lanes().get(trace.ops().streams()[i]);
      flops += trace.ops().flops()[i];
      bytes += trace.ops().memBytes()[i] + (lane.hostLink() ? trace.ops().linkBytes()[i] : 0);
    }
    return new Point(t.batch(), flops, bytes, w.tpot(trace), plan.fits());
  }
}
