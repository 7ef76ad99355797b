package llmsim.core.memory;

import llmsim.core.task.Offload;

/**
 * Where the bytes of one task go. Categories are device-resident bytes unless named host.
 *
 * @param offload the offload this plan uses (never AUTO)
 * @param capacityBytes what the GPU may use (device memory, or its share of unified memory)
 * @param hostBytes bytes kept in host memory because of offload (0 without offload)
 * @param hostCapacityBytes host memory (for unified memory: what the CPU side has beyond the GPU share)
 * @param maxBatch largest batch that fits with this offload (0 if none)
 * @param maxContext largest context (tokens) that fits at this batch, capped at the model's max context
 */
public record MemoryPlan(
    Offload offload,
    double weightsBytes,
    double gradientsBytes,
    double optimizerBytes,
    double activationsBytes,
    double kvCacheBytes,
    double workspaceBytes,
    double capacityBytes,
    double hostBytes,
    double hostCapacityBytes,
    int maxBatch,
    int maxContext) {

  public double totalBytes() {
    return weightsBytes + gradientsBytes + optimizerBytes + activationsBytes + kvCacheBytes + workspaceBytes;
  }

  public boolean fitsDevice() {
    return totalBytes() <= capacityBytes;
  }

  public boolean fitsHost() {
    return hostBytes <= hostCapacityBytes;
  }

  public boolean fits() {
    return fitsDevice() && fitsHost();
  }

  /** Bytes missing on the device (0 when it fits). */
  public double shortfallBytes() {
    return Math.max(0, totalBytes() - capacityBytes);
  }
}
