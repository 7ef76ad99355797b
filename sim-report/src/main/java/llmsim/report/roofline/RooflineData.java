package llmsim.report.roofline;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Device;
import llmsim.core.hw.Precision;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.workload.DecodeTrajectory;
import llmsim.core.workload.StepResult;

/**
 * What a roofline chart shows for one system: compute ceilings per precision the device runs natively, the
 * device-memory roof, the host-link roof, and (with a workload) the precision the work runs at, its ops grouped by
 * kind and phase at their intensity and attained FLOP/s, and for inference the decode step at batch 1, 2, 4, ...
 *
 * @param work the work's precision and the ceiling it runs under; null without a workload
 * @param trajectory decode steps at growing batch; empty for training or without a workload
 * @param criticalBatch batch where decode turns compute-bound (+infinity: never); NaN without a trajectory
 */
public record RooflineData(String system, Map<Precision, Double> ceilings, double memoryBytesPerSecond,
    double linkBytesPerSecond, String linkName, List<Point> points, Work work, List<Step> trajectory,
    double criticalBatch) {

  /**
   * One op class in one phase: total FLOPs over total bytes, and over total busy time.
   *
   * @param kind null for the whole step measured against host-link bytes
   * @param launchBound more than half of its ops' time is launch and dispatch overhead, which holds it below the roof
   */
  public record Point(String label, OpKind kind, boolean decode, double intensity, double flopsPerSecond,
      boolean launchBound) {}

  /** The precision the work computes in and the peak it runs at; {@code note} says how when it is not native. */
  public record Work(Precision precision, double peakFlops, String note) {}

  /** One decode step at {@code batch} sequences; {@code fits}: its memory fits the device. */
  public record Step(int batch, double intensity, double flopsPerSecond, boolean fits) {}

  public RooflineData {
    ceilings = Map.copyOf(ceilings);
    points = List.copyOf(points);
    trajectory = List.copyOf(trajectory);
  }

  /** The device alone: every native ceiling, no work. */
  public static RooflineData of(SystemSpec s) {
    return new RooflineData(s.id(), ceilings(s.device()), s.device().memoryBandwidthBytesPerSecond(),
        s.hostLink().nominalBytesPerSecondPerDirection(), s.hostLink().name(), List.of(), null, List.of(), Double.NaN);
  }

  /**
   * A simulated run: its ops (prefill and decode apart for inference, split after op {@code prefillEndOp}), the
   * ceiling of the precision it ran at, and the decode trajectory when one is given (null: none).
   */
  public static RooflineData of(StepResult r, int prefillEndOp, DecodeTrajectory decode) {
    SystemSpec s = r.system();
    PrecisionSupport.Resolved p = PrecisionSupport.resolve(s.device(), r.task().precision(), r.software());
    Work work = new Work(p.precision(), p.peakFlops(), p.warning() == null ? null
        : String.format(Locale.US, "%s, not native: runs at %.2fx %s", p.precision().key(),
            p.peakFlops() / s.device().peakFlops(p.gemmPrecision()), p.gemmPrecision().key()));
    List<Step> steps = decode == null ? List.of() : decode.points().stream()
        .map(d -> new Step(d.batch(), d.intensity(), d.flopsPerSecond(), d.fits())).toList();
    return new RooflineData(s.id(), ceilings(s.device()), s.device().memoryBandwidthBytesPerSecond(),
        s.hostLink().nominalBytesPerSecondPerDirection(), s.hostLink().name(),
        points(r.trace(), !r.task().kind().training(), prefillEndOp, simulatedGpus(r)), work, steps,
        decode == null ? Double.NaN : decode.criticalBatch());
  }

  /** The ridge point of the work's ceiling (or the highest one without work) against device memory. */
  public double ridge() {
    return RooflineMath.ridgePoint(work != null ? work.peakFlops() : topPeak(), memoryBytesPerSecond);
  }

  double topPeak() {
    return ceilings.values().stream().mapToDouble(Double::doubleValue).max().orElse(1);
  }

  static Map<Precision, Double> ceilings(Device d) {
    Map<Precision, Double> ceilings = new EnumMap<>(Precision.class);
    d.peakFlopsDense().forEach(ceilings::put); // native peaks only; one GPU: ops are one GPU's share of the work
    return ceilings;
  }

  /** A point's ops are launch-bound when more than this share of their standalone time is launch overhead. */
  static final double LAUNCH_BOUND_SHARE = 0.5;

  /**
   * The GPUs whose ops the trace holds: one per pipeline stage, and with every GPU simulated each stage's tensor- and
   * data-parallel peers too.
   */
  static int simulatedGpus(StepResult r) {
    var plan = r.task().plan();
    return (plan.allGpus() ? plan.peersPerStage() : 1) * plan.pp();
  }

  static List<Point> points(Trace t, boolean inference, int prefillEndOp) {
    return points(t, inference, prefillEndOp, 1);
  }

  /**
   * The op classes' points, and the whole step's against the host link's bytes where offload sends real traffic over
   * it: one GPU's, the trace's {@code gpus} GPUs' work over the step shared among them (it summed every simulated
   * GPU's FLOPs, drawing eight GPUs' work above one device's roof, and counted the fabric's collective bytes as the
   * host link's).
   */
  static List<Point> points(Trace t, boolean inference, int prefillEndOp, int gpus) {
    List<Point> out = new ArrayList<>();
    int phases = inference && prefillEndOp >= 0 && prefillEndOp < t.size() - 1 ? 2 : 1;
    // each op counted for every GPU it stands for: a GPU that ran in step with another is that GPU's ops again
    int[] weight = new int[t.streams().size()];
    java.util.Arrays.setAll(weight, s -> t.standsFor(t.gpuOf(s)));
    for (int phase = 0; phase < phases; phase++) {
      Map<OpKind, double[]> acc = new EnumMap<>(OpKind.class);
      for (int i = 0; i < t.size(); i++) {
        boolean inPhase = phases == 1 || (phase == 0 ? i <= prefillEndOp : i > prefillEndOp);
        int s = t.stream(i);
        if (!inPhase || weight[s] == 0 || t.lanes().get(s) != Lane.COMPUTE || t.flops(i) <= 0) {
          continue;
        }
        int w = weight[s];
        double[] a = acc.computeIfAbsent(t.kind(i), k -> new double[5]);
        a[0] += w * t.flops(i);
        a[1] += w * (t.memBytes(i) + t.linkBytes(i));
        a[2] += w * t.duration(i);
        a[3] += w * t.launchSeconds(i);
        a[4] += w * t.standaloneSeconds(i);
      }
      boolean decode = phases == 2 && phase == 1;
      String suffix = phases == 1 ? "" : decode ? " (decode)" : " (prefill)";
      acc.forEach((k, a) -> {
        if (a[1] > 0 && a[2] > 0) {
          boolean launchBound = a[4] > 0 && a[3] / a[4] > LAUNCH_BOUND_SHARE;
          out.add(new Point(k.label() + suffix, k, decode, a[0] / a[1], a[0] / a[2], launchBound));
        }
      });
    }
    double flops = 0;
    double h2dBytes = 0;
    double d2hBytes = 0;
    double memBytes = 0;
    for (int i = 0; i < t.size(); i++) {
      int s = t.stream(i);
      int w = weight[s];
      if (w == 0) {
        continue;
      }
      flops += w * t.flops(i);
      // collectives cross the fabric and network, not the host link
      Lane lane = t.lanes().get(s);
      h2dBytes += lane == Lane.H2D ? w * t.linkBytes(i) : 0;
      d2hBytes += lane == Lane.D2H ? w * t.linkBytes(i) : 0;
      memBytes += w * t.memBytes(i);
    }
    // only when the link carries real traffic (offload), not just prompts and logits; the roof is one direction's
    // bandwidth, so the bytes are the busier direction's (both directions' summed put ZeRO-Offload's step above it)
    double linkBytes = Math.max(h2dBytes, d2hBytes);
    if (h2dBytes + d2hBytes > 0.01 * memBytes && t.makespan() > 0) {
      out.add(new Point("whole step vs host-link bytes (busier direction)", null, false, flops / linkBytes,
          flops / Math.max(1, gpus) / t.makespan(), false));
    }
    return out;
  }
}
