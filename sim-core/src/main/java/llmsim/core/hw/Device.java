package llmsim.core.hw;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import llmsim.core.util.Checks;

/**
 * An accelerator (GPU, or the GPU of an Apple SoC). All figures dense; sparse figures are not peaks.
 *
 * @param peakFlopsDense dense peak FLOP/s per precision it has
 * @param memoryCapacityBytes device memory (the whole pool for unified memory)
 * @param memoryBandwidthBytesPerSecond device memory bandwidth
 * @param dies number of dies with their own memory in one package (2 for MI250); capacity and
 *     bandwidth and peaks are for the whole package
 */
public record Device(
    String id,
    String name,
    String vendor,
    List<String> aliases,
    Map<Precision, Double> peakFlopsDense,
    String peakSource,
    double memoryCapacityBytes,
    double memoryBandwidthBytesPerSecond,
    String memoryKind,
    String memorySource,
    double cacheBytes,
    String cacheSource,
    double powerWatts,
    String powerSource,
    int dies,
    Optional<Price> price,
    Efficiency efficiency) {

  public Device {
    Checks.notBlank("device id", id);
    Checks.notBlank("device name", name);
    aliases = List.copyOf(aliases);
    if (peakFlopsDense.isEmpty()) {
      throw new IllegalArgumentException("device " + id + " needs at least one dense peak");
    }
    peakFlopsDense.forEach((p, v) -> Checks.positive("peak " + p.key() + " FLOP/s", v));
    peakFlopsDense = Map.copyOf(new EnumMap<>(peakFlopsDense));
    Checks.positive("memory capacity (bytes)", memoryCapacityBytes);
    Checks.positive("memory bandwidth (B/s)", memoryBandwidthBytesPerSecond);
    Checks.nonNegative("cache (bytes)", cacheBytes);
    Checks.positive("power (W)", powerWatts);
    Checks.positive("dies", dies);
    Checks.notNull("efficiency", efficiency);
  }

  public boolean hasPeak(Precision p) {
    return peakFlopsDense.containsKey(p);
  }

  /**
   * Dense peak at {@code p}; a precision the device lacks falls back to the next wider one it has
   * (fp8 -> fp16, bf16 -> fp16 -> fp32, tf32 -> fp32), as the hardware would execute it.
   */
  public double peakFlops(Precision p) {
    Double v = peakFlopsDense.get(p);
    if (v != null) {
      return v;
    }
    for (Precision wider : fallbacks(p)) {
      Double w = peakFlopsDense.get(wider);
      if (w != null) {
        return w;
      }
    }
    throw new IllegalArgumentException("device " + id + " has no peak for " + p.key() + " or a wider precision");
  }

  private static List<Precision> fallbacks(Precision p) {
    switch (p) {
      case INT8:
        return List.of(Precision.FP8, Precision.FP16, Precision.BF16, Precision.FP32);
      case FP8:
        return List.of(Precision.FP16, Precision.BF16, Precision.FP32);
      case BF16:
        return List.of(Precision.FP16, Precision.FP32);
      case FP16:
        return List.of(Precision.BF16, Precision.FP32);
      case TF32:
        return List.of(Precision.FP32);
      default:
        return List.of();
    }
  }

  public double ridgePoint(Precision p) {
    return peakFlops(p) / memoryBandwidthBytesPerSecond;
  }
}
