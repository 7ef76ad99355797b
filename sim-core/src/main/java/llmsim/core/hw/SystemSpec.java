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
 * @param deviceCount devices per node
 * @param deviceLink the intra-node fabric's link (per device, per direction), when the node has more than one device
 * @param nodes nodes of this system (a cluster template is sized with --nodes or --gpus)
 * @param network the network between nodes, when there can be more than one
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
    Optional<Price> price,
    int nodes,
    FabricKind fabric,
    Optional<Network> network) {

  /** A single-node system (nodes 1, no network); the fabric, if any devices share one, is a switch. */
  public SystemSpec(String id, String name, List<String> aliases, Host host, Device device, int deviceCount,
      Link hostLink, Optional<Link> deviceLink, double gpuMemoryShare, String gpuMemoryShareSource,
      Optional<Price> price) {
    this(id, name, aliases, host, device, deviceCount, hostLink, deviceLink, gpuMemoryShare, gpuMemoryShareSource,
        price, 1, FabricKind.SWITCH, Optional.empty());
  }

  public SystemSpec {
    Checks.notBlank("system id", id);
    aliases = List.copyOf(aliases);
    Checks.notNull("host", host);
    Checks.notNull("device", device);
    Checks.positive("device count", deviceCount);
    Checks.notNull("host link", hostLink);
    Checks.fraction("gpu memory share", gpuMemoryShare);
    Checks.positive("nodes", nodes);
    Checks.notNull("fabric", fabric);
    if (deviceCount > 1 && deviceLink.isEmpty()) {
      throw new IllegalArgumentException("system " + id + " has " + deviceCount + " devices per node but no device_link");
    }
    if (nodes > 1 && network.isEmpty()) {
      throw new IllegalArgumentException("system " + id + " has " + nodes + " nodes but no network");
    }
  }

  /** Every device of every node. */
  public int totalDevices() {
    return Math.multiplyExact(nodes, deviceCount);
  }

  /** This system with {@code n} nodes (a cluster template sized by --nodes or --gpus). */
  public SystemSpec withNodes(int n) {
    return new SystemSpec(id, name, aliases, host, device, deviceCount, hostLink, deviceLink, gpuMemoryShare,
        gpuMemoryShareSource, price, n, fabric, network);
  }

  public boolean unifiedMemory() {
    return hostLink.unified();
  }

  /** Bytes one GPU may use for weights, state, activations and caches (never pooled across devices). */
  public double usableDeviceBytes() {
    return device.memoryCapacityBytes() * gpuMemoryShare;
  }
}
