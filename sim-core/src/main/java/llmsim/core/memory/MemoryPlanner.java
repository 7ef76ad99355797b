package llmsim.core.memory;

import java.util.ArrayList;
import java.util.List;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;

/**
 * Decides whether a task fits a system, with which offload, and how far it could grow.
 *
 * <p>Offload placement: {@code OPTIMIZER} (ZeRO-Offload) keeps optimizer state and the fp32 gradients
 * in host memory, one layer's gradients on the device as a bucket; {@code WEIGHTS} additionally keeps the
 * weights in host memory and holds {@link #PREFETCH_LAYERS} layers on the device (the layer in use
 * and the one being prefetched). On unified memory "host" is the part of the pool the GPU may not wire.
 */
public final class MemoryPlanner {

  /** Layers resident on the device while weights stream: current + one prefetched (double buffering). */
  public static final int PREFETCH_LAYERS = 2;

  private static final int MAX_BATCH_SEARCH = 1 << 20;

  private MemoryPlanner() {}

  /**
   * Plan with the task's offload. AUTO picks the least offload that fits; when nothing fits it keeps
   * the most a system can offload (weights streaming on a discrete card, none on unified memory, where
   * offload moves nothing off the shared pool) and the plan reports the shortfall.
   */
  public static MemoryPlan plan(SystemSpec system, ModelSpec model, Task task, SoftwareProfile software) {
    return withLimits(system, model, task, software, choose(system, model, task, software).offload());
  }

  /** The plan {@link #plan} would choose, without the largest-batch and largest-context searches. */
  public static MemoryPlan choose(SystemSpec system, ModelSpec model, Task task, SoftwareProfile software) {
    if (task.offload() != Offload.AUTO) {
      return place(system, model, task, software, task.offload());
    }
    for (Offload o : candidates(system, task)) {
      MemoryPlan p = place(system, model, task, software, o);
      if (p.fits()) {
        return p;
      }
    }
    return place(system, model, task, software, system.unifiedMemory() ? Offload.NONE : Offload.WEIGHTS);
  }

  /** Offloads AUTO tries, least first. Unified memory has no link to stream weights over. */
  public static List<Offload> candidates(SystemSpec system, Task task) {
    List<Offload> out = new ArrayList<>();
    out.add(Offload.NONE);
    if (task.kind().training()) {
      out.add(Offload.OPTIMIZER);
    }
    if (!system.unifiedMemory()) {
      out.add(Offload.WEIGHTS);
    }
    return out;
  }

  static MemoryPlan withLimits(SystemSpec system, ModelSpec model, Task task, SoftwareProfile sw, Offload o) {
    MemoryPlan p = place(system, model, task, sw, o);
    int maxBatch = largest(1, MAX_BATCH_SEARCH, b -> place(system, model, task.withBatch(b), sw, o).fits());
    int maxContext = largest(1, model.maxContext(), c -> place(system, model, task.withContext(c), sw, o).fits());
    return new MemoryPlan(o, p.weightsBytes(), p.gradientsBytes(), p.optimizerBytes(), p.activationsBytes(),
        p.kvCacheBytes(), p.workspaceBytes(), p.capacityBytes(), p.hostBytes(), p.hostCapacityBytes(),
        maxBatch, maxContext);
  }

  /** Place the footprint for one offload choice, without the max-batch/context search. */
  public static MemoryPlan place(SystemSpec system, ModelSpec model, Task task, SoftwareProfile sw, Offload o) {
    Footprint f = Footprint.of(model, task, sw.flashAttention());
    double capacity = system.usableDeviceBytes();
    double hostCapacity = system.unifiedMemory()
        ? system.device().memoryCapacityBytes() - capacity
        : system.host().memoryCapacityBytes();
    double weights = f.weightsBytes();
    double grads = f.gradientsBytes();
    double optimizer = f.optimizerBytes();
    double host = 0;
    if (o == Offload.OPTIMIZER || (o == Offload.WEIGHTS && task.kind().training())) {
      // fp32 gradients and optimizer state live on the host; the device keeps one layer's gradient bucket.
      double hostGrads = f.trainableParameters() * 4;
      host += optimizer + hostGrads;
      optimizer = 0;
      grads = grads / Math.max(1, model.layers());
    }
    if (o == Offload.WEIGHTS) {
      host += weights;
      weights = Math.min(weights, PREFETCH_LAYERS * f.layerWeightBytes());
    }
    return new MemoryPlan(o, weights, grads, optimizer, f.activationsBytes(), f.kvCacheBytes(),
        sw.workspaceBytes(), capacity, host, hostCapacity, 0, 0);
  }

  /** Largest value in [lo, hi] for which {@code fits} holds, assuming it is monotone; 0 if none. */
  static int largest(int lo, int hi, java.util.function.IntPredicate fits) {
    if (!fits.test(lo)) {
      return 0;
    }
    int good = lo;
    int bad = hi + 1;
    if (fits.test(hi)) {
      return hi;
    }
    bad = hi;
    while (bad - good > 1) {
      int mid = good + (bad - good) / 2;
      if (fits.test(mid)) {
        good = mid;
      } else {
        bad = mid;
      }
    }
    return good;
  }
}
