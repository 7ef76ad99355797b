package llmsim.core.engine;

/**
 * What kind of resource a stream is: the GPU's compute queue, a copy engine direction, the CPU, or a
 * communication queue whose transfers cross the intra-node fabric or the network between nodes.
 */
public enum Lane {
  COMPUTE("compute"), H2D("host-to-device"), D2H("device-to-host"), CPU("cpu"), FABRIC("intra-node link"),
  NETWORK("network");

  private final String label;

  Lane(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }

  /** Whether this lane's ops are collectives or sends between GPUs (the intra-node link or the network). */
  public boolean communication() {
    return this == FABRIC || this == NETWORK;
  }

  /** Whether transfers on this lane cross the CPU-GPU link (a copy engine direction). */
  public boolean hostLink() {
    return this == H2D || this == D2H;
  }
}
