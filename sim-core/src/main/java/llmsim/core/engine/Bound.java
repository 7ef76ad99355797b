package llmsim.core.engine;

/**
 * What limits a step or an op. JSON keys are the snake_case names. {@code OVERHEAD} is launch and dispatch:
 * the fixed cost per kernel the framework pays before any work, and GPU time with nothing running.
 */
public enum Bound {
  COMPUTE("compute"), DEVICE_MEMORY("device_memory"), HOST_LINK("host_link"), HOST("host"), OVERHEAD("overhead");

  private final String key;

  Bound(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }
}
