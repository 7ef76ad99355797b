package llmsim.core.hw;

import java.util.List;
import java.util.Optional;
import llmsim.core.util.Checks;

/**
 * A host with its devices and links: a column of the source articles' table.
 *
 * @param hostLink the CPU-GPU link (PCIe, or unified memory)
 * @param gpuMemoryShare the fraction of device memory the GPU may use: about 0.75 on macOS for
 *     unified memory (the GPU wired-memory limit), 1.0 for a discrete card
 */
public record SystemSpec(
    String id,
    String name,
    List<String> aliases,
    Host host,
    Device device,
    int deviceCount,
    Link hostLink,
    Optional<Link> deviceLink,
    double gpuMemoryShare,
    String gpuMemoryShareSource,
    Optional<Price> price) {

  public SystemSpec {
    Checks.notBlank("system id", id);
    aliases = List.copyOf(aliases);
    Checks.notNull("host", host);
    Checks.notNull("device", device);
    Checks.positive("device count", deviceCount);
    Checks.notNull("host link", hostLink);
    Checks.fraction("gpu memory share", gpuMemoryShare);
  }

  public boolean unifiedMemory() {
    return hostLink.unified();
  }

  /** Bytes the GPU may use for weights, state, activations and caches. */
  public double usableDeviceBytes() {
    return device.memoryCapacityBytes() * gpuMemoryShare * deviceCount;
  }
}
