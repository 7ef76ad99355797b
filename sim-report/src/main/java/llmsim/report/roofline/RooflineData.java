package llmsim.report.roofline;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Device;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;

/**
 * What a roofline chart shows for one system: compute ceilings per precision, the device-memory roof,
 * the host-link roof, and (with a workload) its ops grouped by kind at their intensity and attained FLOP/s.
 */
public record RooflineData(String system, Map<Precision, Double> ceilings, double memoryBytesPerSecond,
    double linkBytesPerSecond, String linkName, List<Point> points) {

  /** One labelled point: total FLOPs over total bytes, and over total busy time. */
  public record Point(String label, double intensity, double flopsPerSecond) {}

  public static RooflineData of(SystemSpec s, Trace trace, boolean inference, int prefillEndOp) {
    Device d = s.device();
    Map<Precision, Double> ceilings = new EnumMap<>(Precision.class);
    d.peakFlopsDense().forEach(ceilings::put); // one GPU: ops are one GPU's share of the work
    double link = s.unifiedMemory() ? s.hostLink().nominalBytesPerSecondPerDirection()
        : s.hostLink().nominalBytesPerSecondPerDirection();
    List<Point> points = trace == null ? List.of() : points(trace, inference, prefillEndOp);
    return new RooflineData(s.id(), ceilings, d.memoryBandwidthBytesPerSecond(), link,
        s.hostLink().name(), points);
  }

  static List<Point> points(Trace t, boolean inference, int prefillEndOp) {
    List<Point> out = new ArrayList<>();
    int phases = inference && prefillEndOp >= 0 && prefillEndOp < t.size() - 1 ? 2 : 1;
    for (int phase = 0; phase < phases; phase++) {
      Map<OpKind, double[]> acc = new EnumMap<>(OpKind.class);
      for (int i = 0; i < t.size(); i++) {
        boolean inPhase = phases == 1 || (phase == 0 ? i <= prefillEndOp : i > prefillEndOp);
        if (!inPhase || t.lanes().get(t.ops().streams()[i]) != Lane.COMPUTE || t.ops().flops()[i] <= 0) {
          continue;
        }
        double[] a = acc.computeIfAbsent(t.ops().kinds()[i], k -> new double[3]);
        a[0] += t.ops().flops()[i];
        a[1] += t.ops().memBytes()[i] + t.ops().linkBytes()[i];
        a[2] += t.duration(i);
      }
      String suffix = phases == 1 ? "" : phase == 0 ? " (prefill)" : " (decode)";
      acc.forEach((k, a) -> {
        if (a[1] > 0 && a[2] > 0) {
          out.add(new Point(k.label() + suffix, a[0] / a[1], a[0] / a[2]));
        }
      });
    }
    double flops = 0;
    double linkBytes = 0;
    double memBytes = 0;
    for (int i = 0; i < t.size(); i++) {
      flops += t.ops().flops()[i];
      linkBytes += t.ops().linkBytes()[i];
      memBytes += t.ops().memBytes()[i];
    }
    // only when the link carries real traffic (offload), not just prompts and logits
    if (linkBytes > 0.01 * memBytes && t.makespan() > 0) {
      out.add(new Point("whole step vs host-link bytes", flops / linkBytes, flops / t.makespan()));
    }
    return out;
  }
}
