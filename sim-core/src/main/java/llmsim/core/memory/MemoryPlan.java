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
 * @param gpuLayers transformer layers whose weights stay on the device (all of them without weight offload)
 * @param layers transformer layers of the model
 * @param cpuRunsHostLayers whether the layers left in host memory are computed by the CPU (llama.cpp) rather
 *     than streamed to the GPU
 * @param neededBytes device bytes the task would need with nothing offloaded
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
    int maxContext,
    int gpuLayers,
    int layers,
    boolean cpuRunsHostLayers,
    double neededBytes) {

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

  /** Bytes missing in host memory (0 when the offloaded state fits there). */
  public double hostShortfallBytes() {
    return Math.max(0, hostBytes - hostCapacityBytes);
  }

  /** Layers whose weights live in host memory (computed there, or streamed to the GPU). */
  public int hostLayers() {
    return layers - gpuLayers;
  }

  /** Whether only some layers are on the device and the rest in host memory (llama.cpp -ngl, device_map). */
  public boolean partialOffload() {
    return offload == Offload.WEIGHTS && gpuLayers > 0 && gpuLayers < layers;
  }

  MemoryPlan withLimits(int batch, int context) {
    return new MemoryPlan(offload, weightsBytes, gradientsBytes, optimizerBytes, activationsBytes, kvCacheBytes,
        workspaceBytes, capacityBytes, hostBytes, hostCapacityBytes, batch, context, gpuLayers, layers,
        cpuRunsHostLayers, neededBytes);
  }
}
