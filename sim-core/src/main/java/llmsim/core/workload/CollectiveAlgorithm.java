package llmsim.core.workload;

import java.util.Locale;

/**
 * Which algorithm an all-reduce may take, as NCCL_ALGO restricts it: {@code AUTO} picks per collective the
 * fastest of ring, double binary tree (across nodes) and NVLS (inside a node whose switch reduces), as NCCL's tuner
 * does; {@code RING} allows rings only (NCCL_ALGO=Ring, or NCCL_NVLS_ENABLE=0 inside one node); {@code TREE} runs
 * every all-reduce across nodes as a double binary tree (NCCL_ALGO=Tree).
 */
public enum CollectiveAlgorithm {
  AUTO, RING, TREE;

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static CollectiveAlgorithm fromKey(String key) {
    for (CollectiveAlgorithm a : values()) {
      if (a.key().equals(key)) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown collective algorithm '" + key + "' (allowed: auto, ring, tree)");
  }
}
