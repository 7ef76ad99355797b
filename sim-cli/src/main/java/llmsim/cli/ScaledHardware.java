package llmsim.cli;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import llmsim.core.hw.Device;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;

/**
 * A system whose device has its memory bandwidth, compute peaks and memory capacity multiplied by factors, for the
 * page's "what if" sliders: a what-if device, not a catalog one, so its name says how it was scaled.
 */
final class ScaledHardware {
  private ScaledHardware() {}

  /** The smallest and largest factor a slider may ask for. */
  static final double MIN_FACTOR = 0.1;
  static final double MAX_FACTOR = 10;

  static SystemSpec scale(SystemSpec s, double bandwidth, double compute, double memory) {
    check("bandwidth", bandwidth);
    check("compute", compute);
    check("memory", memory);
    if (bandwidth == 1 && compute == 1 && memory == 1) {
      return s;
    }
    Device d = s.device();
    Map<Precision, Double> peaks = new EnumMap<>(Precision.class);
    d.peakFlopsDense().forEach((p, v) -> peaks.put(p, v * compute));
    String how = String.format(Locale.US, " (x%.2f bandwidth, x%.2f compute, x%.2f memory)", bandwidth, compute, memory);
    Device scaled = new Device(d.id(), d.name() + how, d.vendor(), d.aliases(), peaks, d.peakSource() + how,
        d.memoryCapacityBytes() * memory, d.memoryBandwidthBytesPerSecond() * bandwidth, d.memoryKind(),
        d.memorySource() + how, d.cacheBytes(), d.cacheSource(), d.powerWatts(), d.powerSource(), d.dies(), d.price(),
        d.efficiency(), d.emulated(), d.computeUnits(), d.computeUnitsSource());
    return new SystemSpec(s.id(), s.name() + how, s.aliases(), s.host(), scaled, s.deviceCount(), s.hostLink(),
        s.deviceLink(), s.gpuMemoryShare(), s.gpuMemoryShareSource(), s.price(), s.nodes(), s.fabric(), s.network());
  }

  private static void check(String what, double factor) {
    if (!(factor >= MIN_FACTOR && factor <= MAX_FACTOR)) {
      throw new BadFlagException(what + ": the factor must be " + MIN_FACTOR + " to " + MAX_FACTOR + ", was " + factor);
    }
  }
}
