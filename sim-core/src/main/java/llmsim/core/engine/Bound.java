package llmsim.core.engine;

/**
 * What limits a step or an op. JSON keys are the snake_case names. {@code OVERHEAD} is launch and dispatch:
 * the fixed cost per kernel the framework pays before any work, and, on one GPU, its time with nothing running.
 * {@code PIPELINE_BUBBLE} is a GPU's time with nothing of its own running where several are simulated: a pipeline
 * stage waiting on its neighbours (the schedule's fill and drain, and their transfers to it in flight).
 */
public enum Bound {
  COMPUTE("compute"), DEVICE_MEMORY("device_memory"), HOST_LINK("host_link"), HOST("host"), OVERHEAD("overhead"),
  INTRA_NODE_LINK("intra_node_link"), NETWORK("network"), PIPELINE_BUBBLE("pipeline_bubble");

  /** The bound a transfer on {@code lane} is charged to when nothing runs on the GPU, or null for none. */
  public static Bound ofTransferLane(Lane lane) {
    return switch (lane) {
      case H2D, D2H -> HOST_LINK;
      case FABRIC -> INTRA_NODE_LINK;
      case NETWORK -> NETWORK;
      default -> null;
    };
  }

  private final String key;

  Bound(String key) {
    this.key = key;
  }

  public String key() {
    return key;
  }
}
