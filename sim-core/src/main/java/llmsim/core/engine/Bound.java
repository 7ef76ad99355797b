package llmsim.core.engine;

/** What limits a step or an op. JSON keys are the snake_case names. */
public enum Bound {
  COMPUTE("compute"), DEVICE_MEMORY("device_memory"), HOST_LINK("host_link"), HOST("host");

  private final String key;

  Bound(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }
}
