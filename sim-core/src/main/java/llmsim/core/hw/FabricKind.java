package llmsim.core.hw;

import java.util.Locale;

/**
 * How the devices of one node reach each other. The fabric link's measured figure is the all-reduce bus
 * bandwidth NCCL/RCCL reach on it, so a ring collective over the node runs at that rate per device.
 */
public enum FabricKind {
  /** A switch (NVSwitch) gives every device its full link bandwidth to any other. */
  SWITCH,
  /** Devices fully connected by point-to-point links (AMD xGMI / Infinity Fabric mesh). */
  MESH,
  /** No peer-to-peer path: traffic goes through the host's PCIe root complex and memory (consumer cards). */
  PCIE_HOST;

  public String key() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static FabricKind fromKey(String key) {
    for (FabricKind k : values()) {
      if (k.key().equals(key)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown fabric '" + key + "' (allowed: switch, mesh, pcie-host)");
  }
}
