package llmsim.core.engine;

/** What kind of resource a stream is: the GPU's compute queue, a copy engine direction, or the CPU. */
public enum Lane {
  COMPUTE("compute"), H2D("host-to-device"), D2H("device-to-host"), CPU("cpu");

  private final String label;

  Lane(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
