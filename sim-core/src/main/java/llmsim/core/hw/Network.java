package llmsim.core.hw;

import llmsim.core.util.Checks;

/**
 * The network between nodes: {@code nicsPerNode} NICs of one kind per node. With {@code railOptimized} (one NIC
 * per GPU, each on its own switch rail) every GPU sends through its own NIC; otherwise the node's GPUs share them.
 *
 * @param nic the NIC's link; its measured figure is the all-reduce bus bandwidth reached per NIC
 */
public record Network(Link nic, int nicsPerNode, boolean railOptimized, String source) {
  public Network {
    Checks.notNull("nic", nic);
    Checks.positive("NICs per node", nicsPerNode);
    Checks.notBlank("network source", source);
  }

  /** Network bus bandwidth one device of a node can use when all of them send at once (bytes/s). */
  public double bytesPerSecondPerDevice(int devicesPerNode) {
    return nic.measuredBytesPerSecondPerDirection() * nicsPerNode / devicesPerNode;
  }
}
