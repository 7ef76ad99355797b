package llmsim.core.memory;

import java.util.ArrayList;
import java.util.List;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;

/**
 * Decides whether a task fits a system, with which offload, and how far it could grow.
 *
 * <p>Offload placement: {@code OPTIMIZER} (ZeRO-Offload) keeps optimizer state and the fp32 gradients in host
 * memory, one layer's gradients on the device as a bucket. {@code WEIGHTS} for training additionally keeps the
 * weights in host memory and holds {@link #PREFETCH_LAYERS} layers on the device (the layer in use and the one
 * being prefetched). {@code WEIGHTS} for inference keeps {@code gpu_layers} layers on the device and the rest
 * in host memory: computed there by the CPU when the software does so (llama.cpp, whose KV cache is split the
 * same way), or streamed to the GPU through a {@link #PREFETCH_LAYERS}-layer buffer (Accelerate).
 *
 * <p>Unified memory has no host to offload to: the CPU and GPU share the pool, so only {@code NONE} applies.
 */
public final class MemoryPlanner {

  /** Layers resident on the device while weights stream: current + one prefetched (double buffering). */
  public static final int PREFETCH_LAYERS = 2;

  private static final int MAX_BATCH_SEARCH = 1 << 20;

  private MemoryPlanner() {}

  /**
   * Refuse an offload the system cannot do: on unified memory CPU and GPU share one pool, so moving state
   * "to the host" frees nothing.
   */
  public static void checkOffload(SystemSpec system, Task task) {
    Offload o = task.offload();
    if (task.kind().training() && gpuOptimizer(task) && (o == Offload.OPTIMIZER || o == Offload.WEIGHTS)) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload' " + o.key() + " runs the optimizer on the CPU;"
          + " optimizer " + task.optimizer().kind().key() + " (bitsandbytes) runs on the GPU only, and"
          + " paged-adamw-8bit pages its state to the host itself; use auto or none");
    }
    if (system.unifiedMemory() && (o == Offload.OPTIMIZER || o == Offload.WEIGHTS)) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload' " + o.key() + " does not apply to " + system.id()
          + ": its CPU and GPU share one unified memory, so offloading frees nothing; use auto or none");
    }
  }

  /** Refuse what a placement asks and the system cannot do: {@link #checkOffload}, and layers kept off the GPU. */
  public static void checkPlacement(SystemSpec system, ModelSpec model, Task task) {
    checkOffload(system, task);
    checkGpuLayers(system, model, task);
  }

  /**
   * Refuse layers kept off the GPU on unified memory: there is no separate memory to keep them in (the same
   * reason offload optimizer/weights is refused), and llama.cpp's CPU-computed layers are not simulated there (the
   * workload runs every layer on the GPU), so a result would say "the rest on the CPU" while timing them on the GPU.
   */
  private static void checkGpuLayers(SystemSpec system, ModelSpec model, Task task) {
    if (system.unifiedMemory() && !task.kind().training() && task.gpuLayers() != Task.GPU_LAYERS_AUTO
        && task.gpuLayers() < model.layers()) {
      throw new ScenarioKeyException(ScenarioKey.GPU_LAYERS, "'gpu_layers' " + task.gpuLayers() + " of "
          + model.layers() + " does not apply to " + system.id() + ": its CPU and GPU share one unified memory, so"
          + " keeping layers off the GPU frees nothing, and layers computed on its CPU (llama.cpp's -ngl below all)"
          + " are not simulated there; leave gpu_layers at auto");
    }
  }

  /**
   * Plan with the task's offload. AUTO takes the least offload under which the model fits at batch 1 (the
   * model's state is what offload moves), and within it the most layers on the GPU that fit at the asked batch;
   * a batch, KV cache or activations too large for it is reported as a shortfall with the largest batch that
   * fits, never answered by offloading more. When the model fits under no offload, the most offload a system
   * can do is kept and the plan reports the shortfall.
   */
  public static MemoryPlan plan(SystemSpec system, ModelSpec model, Task task, SoftwareProfile software) {
    MemoryPlan chosen = choose(system, model, task, software);
    return withLimits(system, model, task.withGpuLayers(chosen.gpuLayers()), software, chosen);
  }

  /** The plan {@link #plan} would choose, without the largest-batch and largest-context searches. */
  public static MemoryPlan choose(SystemSpec system, ModelSpec model, Task task, SoftwareProfile software) {
    if (task.offload() != Offload.AUTO) {
      return place(system, model, task, software, task.offload());
    }
    if (task.gpuLayers() != Task.GPU_LAYERS_AUTO && task.gpuLayers() < model.layers() && !task.kind().training()) {
      return place(system, model, task, software, Offload.WEIGHTS);
    }
    List<Offload> candidates = candidates(system, task);
    Task one = task.withBatch(1);
    for (Offload o : candidates) {
      MemoryPlan atOne = place(system, model, one, software, o);
      if (atOne.fits()) {
        MemoryPlan asked = place(system, model, task, software, o);
        if (asked.fits() || o != Offload.WEIGHTS || task.kind().training()) {
          return asked;
        }
        // no split fits the asked batch: keep the split that fits batch 1 and report the shortfall
        return place(system, model, task.withGpuLayers(atOne.gpuLayers()), software, o);
      }
    }
    return place(system, model, task, software, candidates.get(candidates.size() - 1));
  }

  /** Whether the task's optimizer runs on the GPU only (bitsandbytes' 8-bit optimizers: CUDA kernels). */
  static boolean gpuOptimizer(Task task) {
    return task.optimizer().kind() != llmsim.core.task.TrainingOptimizer.Kind.ADAMW;
  }

  /** Offloads AUTO tries, least first. Unified memory has no host side to offload to. */
  public static List<Offload> candidates(SystemSpec system, Task task) {
    List<Offload> out = new ArrayList<>();
    out.add(Offload.NONE);
    if (system.unifiedMemory() || task.plan().gpus() > 1) {
      // nothing to offload to; or several GPUs, where ZeRO, tensor parallelism or more GPUs come first and
      // offload: optimizer (ZeRO-Offload) is simulated when asked for
      return out;
    }
    if (task.kind().training() && gpuOptimizer(task)) {
      return out; // bitsandbytes' optimizers run on the GPU only: no CPU optimizer to offload to
    }
    if (task.kind().training()) {
      out.add(Offload.OPTIMIZER);
    }
    out.add(Offload.WEIGHTS);
    return out;
  }

  static MemoryPlan withLimits(SystemSpec system, ModelSpec model, Task task, SoftwareProfile sw, MemoryPlan p) {
    Offload o = p.offload();
    int maxBatch = largest(1, MAX_BATCH_SEARCH, b -> place(system, model, task.withBatch(b), sw, o).fits());
    int maxContext = largest(1, model.maxContext(), c -> place(system, model, task.withContext(c), sw, o).fits());
    return p.withLimits(maxBatch, maxContext);
  }

  /**
   * Place the footprint for one offload choice, without the max-batch/context search. For inference with
   * {@code WEIGHTS} and {@code gpu_layers: auto}, the most layers on the GPU that fit (0 when none do).
   */
  public static MemoryPlan place(SystemSpec system, ModelSpec model, Task task, SoftwareProfile sw, Offload o) {
    if (o == Offload.WEIGHTS && !task.kind().training() && task.gpuLayers() == Task.GPU_LAYERS_AUTO) {
      int k = largest(0, model.layers(), n -> placeLayers(system, model, task, sw, o, n).fits());
      return placeLayers(system, model, task, sw, o, Math.max(0, k));
    }
    int k = o != Offload.WEIGHTS ? model.layers() : task.kind().training() ? 0 : task.gpuLayers();
    return placeLayers(system, model, task, sw, o, k);
  }

  private static MemoryPlan placeLayers(SystemSpec system, ModelSpec model, Task task, SoftwareProfile sw, Offload o,
      int gpuLayers) {
    // MLX trains through classic attention (SoftwareProfile.forTask): its scores are stored
    Footprint f = Footprint.of(model, task, sw.forTask(task.kind().training()).flashAttention(), sw.promptChunkTokens(),
        system.deviceCount());
    double capacity = system.usableDeviceBytes();
    double hostCapacity = system.unifiedMemory()
        ? system.device().memoryCapacityBytes() - capacity
        : system.host().memoryCapacityBytes() / system.deviceCount(); // a node's GPUs share its host memory
    int layers = Math.max(1, model.layers());
    double weights = f.weightsBytes();
    double grads = f.gradientsBytes();
    double optimizer = f.optimizerBytes();
    double kv = f.kvCacheBytes();
    boolean training = task.kind().training();
    // ZeRO-3 holds the layers it has gathered beside its own shards: two at once, as its gathers run one layer
    // ahead (FSDP's limit_all_gathers; WorkloadBuilder). Under parameter offload the streaming buffer below is that.
    double gathered = training && task.plan().zero() >= 3 && zeroShards(system, task) > 1
        ? Math.min(PREFETCH_LAYERS, layers) * f.layerWeightBytes() : 0;
    // ZeRO-2/3 keep only their shard of the gradients, and beside it the layer whose gradients the backward has just
    // produced whole, until its reduce-scatter is done (FSDP reduce-scatters layer by layer; DeepSpeed's buckets are
    // larger): a layer's mean share of the unsharded gradients
    int shards = zeroShards(system, task);
    double gradientBucket = training && task.plan().zero() >= 2 && shards > 1 ? grads * shards / layers : 0;
    double needed = weights + gathered + grads + gradientBucket + optimizer + f.activationsBytes() + kv
        + sw.workspaceBytes();
    if (o != Offload.WEIGHTS) {
      weights += gathered;
    }
    grads += gradientBucket;
    double host = 0;
    boolean cpuLayers = sw.cpuRunsHostLayers() && !training;
    if (training && (o == Offload.OPTIMIZER || o == Offload.WEIGHTS)) {
      // fp32 gradients and optimizer state live on the host; the device keeps one layer's gradient bucket. With
      // data-parallel replicas (ZeRO-1/2) each rank's host holds its shard of both: the optimizer state comes
      // sharded, the fp32 gradients are divided here. The host capacity is the GPU's share of the node's, so this
      // checks the node's GPUs' host state together against the node's host memory.
      host += optimizer + f.trainableParameters() * 4 / shards;
      optimizer = 0;
      grads = gradientBucket > 0 ? gradientBucket : grads / layers;
    }
    if (training && o != Offload.OPTIMIZER && o != Offload.WEIGHTS) {
      // a paged optimizer's state takes the device memory left and the driver pages the rest to the host
      double paged = f.pagedOptimizerBytes(task);
      double over = weights + grads + optimizer + f.activationsBytes() + kv + sw.workspaceBytes() - capacity;
      double out = Math.max(0, Math.min(paged, over));
      optimizer -= out;
      host += out;
    }
    if (!system.unifiedMemory()) {
      host += Footprint.hostCheckpointBytes(model, task); // recompute full_offload's layer inputs
    }
    if (o == Offload.WEIGHTS && gpuLayers < model.layers()) {
      double hostShare = (double) (model.layers() - gpuLayers) / layers;
      double hostWeights = weights * hostShare;
      host += hostWeights;
      weights -= hostWeights;
      if (cpuLayers) {
        host += kv * hostShare; // llama.cpp keeps a CPU layer's KV cache beside it
        kv -= kv * hostShare;
      } else {
        weights += Math.min(hostWeights, PREFETCH_LAYERS * f.layerWeightBytes()); // the streaming buffer
      }
    }
    return new MemoryPlan(o, weights, grads, optimizer, f.activationsBytes(), kv, sw.workspaceBytes(), capacity, host,
        hostCapacity, 0, 0, o == Offload.WEIGHTS ? gpuLayers : model.layers(), model.layers(), cpuLayers, needed);
  }

  /** Replicas a ZeRO stage shards the optimizer state over (1 without ZeRO), as {@link Footprint#of} divides it. */
  static int zeroShards(SystemSpec system, Task task) {
    return task.plan().zero() >= 1
        ? Math.min(task.replicas(), task.plan().shardRanks(system.deviceCount())) : 1;
  }

  /** Largest value in [lo, hi] for which {@code fits} holds, assuming it is monotone; lo - 1 if none. */
  static int largest(int lo, int hi, java.util.function.IntPredicate fits) {
    if (!fits.test(lo)) {
      return lo - 1;
    }
    if (fits.test(hi)) {
      return hi;
    }
    int good = lo;
    int bad = hi;
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
