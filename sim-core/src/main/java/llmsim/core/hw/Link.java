package llmsim.core.hw;

import java.util.List;
import llmsim.core.util.Checks;

/**
 * A link between host and device, or between devices.
 *
 * @param nominalBytesPerSecondPerDirection signalling rate of one direction
 * @param measuredBytesPerSecondPerDirection what a copy-engine benchmark reaches in one direction
 * @param latencySeconds one-way latency of a small transfer
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
    String latencySource) {

  public Link {
    Checks.notBlank("link id", id);
    aliases = List.copyOf(aliases);
    Checks.positive("nominal bandwidth (B/s)", nominalBytesPerSecondPerDirection);
    Checks.positive("measured bandwidth (B/s)", measuredBytesPerSecondPerDirection);
    Checks.nonNegative("latency (s)", latencySeconds);
    if (measuredBytesPerSecondPerDirection > nominalBytesPerSecondPerDirection * 1.0001) {
      throw new IllegalArgumentException("link " + id + ": measured bandwidth " + measuredBytesPerSecondPerDirection
          + " B/s exceeds nominal " + nominalBytesPerSecondPerDirection + " B/s");
    }
  }

  public boolean unified() {
    return kind == LinkKind.UNIFIED;
  }

  /** Measured / nominal: the achievable fraction of the link. */
  public double efficiency() {
    return measuredBytesPerSecondPerDirection / nominalBytesPerSecondPerDirection;
  }
}
