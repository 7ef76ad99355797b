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
 * @param emulated precisions without native units that some software runs at a stated rate
 * @param computeUnits streaming multiprocessors (NVIDIA) or compute units (AMD) that GEMM tiles are spread over, for
 *     the whole package; 0 when unknown or when no tile model applies (Apple GPUs), which leaves GEMM efficiency
 *     independent of shape
 * @param computeUnitsSource where {@code computeUnits} came from
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
    Efficiency efficiency,
    Map<Precision, Emulation> emulated,
    int computeUnits,
    String computeUnitsSource) {

  /** A device without a compute-unit count: GEMM efficiency does not depend on shape. */
  public Device(String id, String name, String vendor, List<String> aliases, Map<Precision, Double> peakFlopsDense,
      String peakSource, double memoryCapacityBytes, double memoryBandwidthBytesPerSecond, String memoryKind,
      String memorySource, double cacheBytes, String cacheSource, double powerWatts, String powerSource, int dies,
      Optional<Price> price, Efficiency efficiency, Map<Precision, Emulation> emulated) {
    this(id, name, vendor, aliases, peakFlopsDense, peakSource, memoryCapacityBytes, memoryBandwidthBytesPerSecond,
        memoryKind, memorySource, cacheBytes, cacheSource, powerWatts, powerSource, dies, price, efficiency, emulated,
        0, "");
  }

  /** A device whose precisions are all native (nothing emulated). */
  public Device(String id, String name, String vendor, List<String> aliases, Map<Precision, Double> peakFlopsDense,
      String peakSource, double memoryCapacityBytes, double memoryBandwidthBytesPerSecond, String memoryKind,
      String memorySource, double cacheBytes, String cacheSource, double powerWatts, String powerSource, int dies,
      Optional<Price> price, Efficiency efficiency) {
    this(id, name, vendor, aliases, peakFlopsDense, peakSource, memoryCapacityBytes, memoryBandwidthBytesPerSecond,
        memoryKind, memorySource, cacheBytes, cacheSource, powerWatts, powerSource, dies, price, efficiency, Map.of());
  }

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
    emulated = emulated.isEmpty() ? Map.of() : Map.copyOf(new EnumMap<>(emulated));
    Checks.nonNegative("compute units", computeUnits);
    if (computeUnits > 0) {
      Checks.notBlank("compute units source", computeUnitsSource);
    }
    for (Precision p : emulated.keySet()) {
      if (peakFlopsDense.containsKey(p)) {
        throw new IllegalArgumentException("device " + id + ": " + p.key() + " has a native peak and cannot be emulated");
      }
    }
  }

  public boolean hasPeak(Precision p) {
    return peakFlopsDense.containsKey(p);
  }

  /**
   * Dense peak at a precision the device runs natively. A precision it lacks has no peak: see
   * {@link PrecisionSupport} for emulation and refusal.
   */
  public double peakFlops(Precision p) {
    Double v = peakFlopsDense.get(p);
    if (v == null) {
      throw new IllegalArgumentException("device " + id + " has no native " + p.key() + " (it runs "
          + PrecisionSupport.nativeList(this) + ")");
    }
    return v;
  }

  public double ridgePoint(Precision p) {
    return peakFlops(p) / memoryBandwidthBytesPerSecond;
  }
}
