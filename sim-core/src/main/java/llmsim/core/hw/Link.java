package llmsim.core.hw;

import java.util.List;
import llmsim.core.util.Checks;

/**
 * A link between host and device, or between devices.
 *
 * @param nominalBytesPerSecondPerDirection signalling rate of one direction
 * @param measuredBytesPerSecondPerDirection what a copy-engine benchmark reaches in one direction
 * @param latencySeconds one-way latency of a small transfer
 * @param nvlsBytesPerSecondPerDirection where the switch reduces in-network (NVLink SHARP, "NVLS"): the rate per
 *     direction at which an all-reduce's multimem traffic flows through one GPU's link; 0 where it cannot
 * @param nvlsLatencySeconds the fixed time of one NVLS all-reduce, whatever its size (the small-message floor
 *     nccl-tests measures with the NVLS algorithm forced); 0 where the switch does not reduce
 * @param ncclChannels the channels (CTAs, each alone on an SM while the collective runs) NCCL's ring and tree
 *     collectives use on this link: the intra-node fabric's for a communicator within one node, the NIC's for one
 *     spanning nodes; 0 where no source gives it (then no SMs are taken from compute)
 * @param nvlsChannels the channels NCCL's NVLS all-reduce uses on this fabric; 0 where unknown or no NVLS
 * @param ringCurves the ring collectives' measured all-reduce bus bandwidth by message size on this link, one table
 *     or one per measured rank count, which sets a collective's size-dependent time ({@link BusBandwidthCurves}:
 *     the table at the collective's rank count, else the nearest measured); empty where none is sourced (then a
 *     ring phase costs its bytes at the measured rate and its steps' latency)
 * @param nvlsCurve the NVLS all-reduce's measured bus bandwidth by message size, whose shape sets an NVLS
 *     all-reduce's size-dependent time as {@code ringCurves} does a ring's (one table, read at every rank count); empty where none is sourced (then it costs
 *     its bytes at the NVLS rate and its fixed latency)
 */
public record Link(
    String id,
    String name,
    List<String> aliases,
    LinkKind kind,
    double nominalBytesPerSecondPerDirection,
    String nominalSource,
    double measuredBytesPerSecondPerDirection,
    String measuredSource,
    double latencySeconds,
    String latencySource,
    double nvlsBytesPerSecondPerDirection,
    String nvlsSource,
    double nvlsLatencySeconds,
    String nvlsLatencySource,
    int ncclChannels,
    String ncclChannelsSource,
    int nvlsChannels,
    String nvlsChannelsSource,
    java.util.Optional<BusBandwidthCurves> ringCurves,
    java.util.Optional<BusBandwidthCurve> nvlsCurve) {

  /** A link without in-switch reduction. */
  public Link(String id, String name, List<String> aliases, LinkKind kind, double nominalBytesPerSecondPerDirection,
      String nominalSource, double measuredBytesPerSecondPerDirection, String measuredSource, double latencySeconds,
      String latencySource) {
    this(id, name, aliases, kind, nominalBytesPerSecondPerDirection, nominalSource, measuredBytesPerSecondPerDirection,
        measuredSource, latencySeconds, latencySource, 0, "", 0, "");
  }

  /** A link whose NCCL channel counts are not known. */
  public Link(String id, String name, List<String> aliases, LinkKind kind, double nominalBytesPerSecondPerDirection,
      String nominalSource, double measuredBytesPerSecondPerDirection, String measuredSource, double latencySeconds,
      String latencySource, double nvlsBytesPerSecondPerDirection, String nvlsSource, double nvlsLatencySeconds,
      String nvlsLatencySource) {
    this(id, name, aliases, kind, nominalBytesPerSecondPerDirection, nominalSource, measuredBytesPerSecondPerDirection,
        measuredSource, latencySeconds, latencySource, nvlsBytesPerSecondPerDirection, nvlsSource, nvlsLatencySeconds,
        nvlsLatencySource, 0, "", 0, "", java.util.Optional.empty(), java.util.Optional.empty());
  }

  /** The same link with NCCL's channel counts on it (0: unknown), each with its source. */
  public Link withChannels(int ring, String ringSource, int nvlsRing, String nvlsRingSource) {
    return new Link(id, name, aliases, kind, nominalBytesPerSecondPerDirection, nominalSource,
        measuredBytesPerSecondPerDirection, measuredSource, latencySeconds, latencySource,
        nvlsBytesPerSecondPerDirection, nvlsSource, nvlsLatencySeconds, nvlsLatencySource, ring, ringSource, nvlsRing,
        nvlsRingSource, ringCurves, nvlsCurve);
  }

  /** The same link with its ring collectives' measured bus bandwidth by size, one table ({@code null}: none). */
  public Link withRingCurve(BusBandwidthCurve curve) {
    return withRingCurves(curve == null ? null : BusBandwidthCurves.of(curve));
  }

  /** The same link with its ring collectives' measured bus bandwidth by size and rank count ({@code null}: none). */
  public Link withRingCurves(BusBandwidthCurves curves) {
    return new Link(id, name, aliases, kind, nominalBytesPerSecondPerDirection, nominalSource,
        measuredBytesPerSecondPerDirection, measuredSource, latencySeconds, latencySource,
        nvlsBytesPerSecondPerDirection, nvlsSource, nvlsLatencySeconds, nvlsLatencySource, ncclChannels,
        ncclChannelsSource, nvlsChannels, nvlsChannelsSource, java.util.Optional.ofNullable(curves), nvlsCurve);
  }

  /** The same link with its NVLS all-reduce's measured bus bandwidth by size ({@code null}: none). */
  public Link withNvlsCurve(BusBandwidthCurve curve) {
    return new Link(id, name, aliases, kind, nominalBytesPerSecondPerDirection, nominalSource,
        measuredBytesPerSecondPerDirection, measuredSource, latencySeconds, latencySource,
        nvlsBytesPerSecondPerDirection, nvlsSource, nvlsLatencySeconds, nvlsLatencySource, ncclChannels,
        ncclChannelsSource, nvlsChannels, nvlsChannelsSource, ringCurves, java.util.Optional.ofNullable(curve));
  }

  public Link {
    Checks.notBlank("link id", id);
    aliases = List.copyOf(aliases);
    Checks.positive("nominal bandwidth (B/s)", nominalBytesPerSecondPerDirection);
    Checks.positive("measured bandwidth (B/s)", measuredBytesPerSecondPerDirection);
    Checks.nonNegative("latency (s)", latencySeconds);
    Checks.nonNegative("NVLS bandwidth (B/s)", nvlsBytesPerSecondPerDirection);
    Checks.nonNegative("NVLS latency (s)", nvlsLatencySeconds);
    Checks.nonNegative("NCCL channels", ncclChannels);
    Checks.nonNegative("NVLS channels", nvlsChannels);
    java.util.Objects.requireNonNull(ringCurves, "ringCurves");
    java.util.Objects.requireNonNull(nvlsCurve, "nvlsCurve");
    if (nvlsCurve.isPresent() && !(nvlsBytesPerSecondPerDirection > 0)) {
      throw new IllegalArgumentException("link " + id + ": an NVLS curve on a link without NVLS");
    }
    if (nvlsChannels > 0 && !(nvlsBytesPerSecondPerDirection > 0)) {
      throw new IllegalArgumentException("link " + id + ": NVLS channels on a link without NVLS");
    }
    if (nvlsBytesPerSecondPerDirection > 0 && !(nvlsLatencySeconds > 0)) {
      throw new IllegalArgumentException("link " + id + ": an NVLS link needs its NVLS all-reduce latency (> 0)");
    }
    if (nvlsBytesPerSecondPerDirection > nominalBytesPerSecondPerDirection * 1.0001) {
      throw new IllegalArgumentException("link " + id + ": NVLS bandwidth " + nvlsBytesPerSecondPerDirection
          + " B/s exceeds nominal " + nominalBytesPerSecondPerDirection + " B/s");
    }
    if (measuredBytesPerSecondPerDirection > nominalBytesPerSecondPerDirection * 1.0001) {
      throw new IllegalArgumentException("link " + id + ": measured bandwidth " + measuredBytesPerSecondPerDirection
          + " B/s exceeds nominal " + nominalBytesPerSecondPerDirection + " B/s");
    }
  }

  /** Whether the switch behind this link reduces in-network (NVLink SHARP). */
  public boolean nvls() {
    return nvlsBytesPerSecondPerDirection > 0;
  }

  public boolean unified() {
    return kind == LinkKind.UNIFIED;
  }

  /** Measured / nominal: the achievable fraction of the link. */
  public double efficiency() {
    return measuredBytesPerSecondPerDirection / nominalBytesPerSecondPerDirection;
  }
}
