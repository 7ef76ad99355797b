package llmsim.core.hw;

/** What a link is made of; unified memory is the absence of a copy. */
public enum LinkKind {
  PCIE, UNIFIED, NVLINK, INFINITY_FABRIC, INFINIBAND, ETHERNET;

  public String key() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }
}
