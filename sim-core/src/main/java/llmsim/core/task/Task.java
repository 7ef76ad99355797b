package llmsim.core.task;

import llmsim.core.hw.Precision;
import llmsim.core.util.Checks;

/**
 * One task on one model: everything in a scenario except the hardware, the model and the software.
 *
 * @param precision compute precision of GEMMs (mixed-precision training keeps fp32 master weights)
 * @param weights storage format of the (base) weights
 * @param batch sequences per forward pass (the micro-batch for training)
 * @param seqLen tokens per training sequence
 * @param promptTokens prompt length for inference
 * @param generateTokens generated tokens per sequence for inference
 * @param microBatches gradient-accumulation steps per optimizer step
 * @param recompute activations recomputed in the backward pass instead of kept
 * @param loraRank adapter rank for LoRA and QLoRA
 * @param prefixTokens P-Tuning v2 prefix length per layer
 * @param context tokens the KV cache is sized for (llama.cpp's n_ctx); 0 means prompt + generated tokens
 * @param kvCache storage format of the KV cache
 * @param gpuLayers transformer layers kept on the GPU when weights do not all fit (llama.cpp's -ngl,
 *     Accelerate's device_map); {@link #GPU_LAYERS_AUTO} means as many as fit
 * @param plan how the task is split over the system's GPUs (dp 0 until resolved against a system)
 * @param globalBatch sequences per optimizer step over every data-parallel replica, 0 when not given; when given,
 *     micro_batches is global_batch / (batch x dp), set (or checked, when also given) once dp is known, and
 *     {@code microBatches} is 0 until then if it was not given
 * @param optimizer the optimizer a training step runs and the state it keeps
 */
public record Task(
    TaskKind kind,
    Precision precision,
    WeightFormat weights,
    int batch,
    int seqLen,
    int promptTokens,
    int generateTokens,
    int microBatches,
    Recompute recompute,
    int loraRank,
    int prefixTokens,
    Offload offload,
    int context,
    KvCacheFormat kvCache,
    int gpuLayers,
    ParallelPlan plan,
    int globalBatch,
    java.util.Set<LoraTarget> loraTargets,
    TrainingOptimizer optimizer) {

  /** {@code gpu_layers: auto}: as many layers as fit on the device. */
  public static final int GPU_LAYERS_AUTO = -1;

  /**
   * A task with the KV cache sized for prompt + generated tokens, an f16 cache and automatic layer placement;
   * {@code fullRecompute}: activation checkpointing (else nothing recomputed).
   */
  public Task(TaskKind kind, Precision precision, WeightFormat weights, int batch, int seqLen, int promptTokens,
      int generateTokens, int microBatches, boolean fullRecompute, int loraRank, int prefixTokens,
      Offload offload) {
    this(kind, precision, weights, batch, seqLen, promptTokens, generateTokens, microBatches, fullRecompute,
        loraRank, prefixTokens, offload, 0, KvCacheFormat.F16, GPU_LAYERS_AUTO);
  }

  /** A task on one GPU's worth of plan (tp 1, pp 1, dp from the system). */
  public Task(TaskKind kind, Precision precision, WeightFormat weights, int batch, int seqLen, int promptTokens,
      int generateTokens, int microBatches, boolean fullRecompute, int loraRank, int prefixTokens,
      Offload offload, int context, KvCacheFormat kvCache, int gpuLayers) {
    this(kind, precision, weights, batch, seqLen, promptTokens, generateTokens, microBatches,
        fullRecompute ? Recompute.FULL : Recompute.NONE, loraRank, prefixTokens, offload, context, kvCache, gpuLayers,
        ParallelPlan.SINGLE);
  }

  /** A task with the default optimizer (mixed-precision AdamW after the backward). */
  public Task(TaskKind kind, Precision precision, WeightFormat weights, int batch, int seqLen, int promptTokens,
      int generateTokens, int microBatches, Recompute recompute, int loraRank, int prefixTokens, Offload offload,
      int context, KvCacheFormat kvCache, int gpuLayers, ParallelPlan plan, int globalBatch,
      java.util.Set<LoraTarget> loraTargets) {
    this(kind, precision, weights, batch, seqLen, promptTokens, generateTokens, microBatches, recompute, loraRank,
        prefixTokens, offload, context, kvCache, gpuLayers, plan, globalBatch, loraTargets, TrainingOptimizer.DEFAULT);
  }

  /** A task with PEFT's default LoRA targets (q and v). */
  public Task(TaskKind kind, Precision precision, WeightFormat weights, int batch, int seqLen, int promptTokens,
      int generateTokens, int microBatches, Recompute recompute, int loraRank, int prefixTokens, Offload offload,
      int context, KvCacheFormat kvCache, int gpuLayers, ParallelPlan plan, int globalBatch) {
    this(kind, precision, weights, batch, seqLen, promptTokens, generateTokens, microBatches, recompute, loraRank,
        prefixTokens, offload, context, kvCache, gpuLayers, plan, globalBatch, LoraTarget.DEFAULT);
  }

  /** A task whose micro-batch count is given directly (no global batch). */
  public Task(TaskKind kind, Precision precision, WeightFormat weights, int batch, int seqLen, int promptTokens,
      int generateTokens, int microBatches, Recompute recompute, int loraRank, int prefixTokens, Offload offload,
      int context, KvCacheFormat kvCache, int gpuLayers, ParallelPlan plan) {
    this(kind, precision, weights, batch, seqLen, promptTokens, generateTokens, microBatches, recompute, loraRank,
        prefixTokens, offload, context, kvCache, gpuLayers, plan, 0);
  }

  public Task {
    Checks.notNull("task", kind);
    Checks.notNull("precision", precision);
    Checks.notNull("weights", weights);
    Checks.positive("batch", batch);
    Checks.positive("seq_len", seqLen);
    Checks.positive("prompt_tokens", promptTokens);
    if (generateTokens < 0) {
      throw new IllegalArgumentException("generate_tokens must be >= 0, was " + generateTokens);
    }
    if (globalBatch < 0) {
      throw new IllegalArgumentException("global_batch must be >= 0, was " + globalBatch);
    }
    if (microBatches < (globalBatch > 0 ? 0 : 1)) {
      throw new IllegalArgumentException("micro_batches must be >= 1, was " + microBatches);
    }
    Checks.notNull("recompute", recompute);
    Checks.positive("lora_rank", loraRank);
    Checks.positive("prefix_tokens", prefixTokens);
    Checks.notNull("offload", offload);
    if (context < 0) {
      throw new IllegalArgumentException("context must be >= 0, was " + context);
    }
    Checks.notNull("kv_cache", kvCache);
    Checks.notNull("plan", plan);
    Checks.notNull("lora_targets", loraTargets);
    if (loraTargets.isEmpty()) {
      throw new IllegalArgumentException("lora_targets must name at least one layer");
    }
    loraTargets = java.util.Collections.unmodifiableSet(java.util.EnumSet.copyOf(loraTargets));
    Checks.notNull("optimizer", optimizer);
    if (gpuLayers < GPU_LAYERS_AUTO) {
      throw new IllegalArgumentException("gpu_layers must be auto or >= 0, was " + gpuLayers);
    }
  }

  /** Defaults for a task kind: bf16 mixed precision for training, f16 weights for inference. */
  public static Task defaults(TaskKind kind) {
    WeightFormat w = kind == TaskKind.FINETUNE_QLORA ? WeightFormat.NF4 : WeightFormat.F16;
    Precision p = kind.training() ? Precision.BF16 : Precision.FP16;
    return new Task(kind, p, w, 1, 2048, 512, 128, 1, false, 8, 128, Offload.AUTO);
  }

  public Task withBatch(int b) {
    return with(f -> f.batch = b);
  }

  public Task withGpuLayers(int layers) {
    return with(f -> f.gpuLayers = layers);
  }

  public Task withContext(int tokens) {
    if (kind.training()) {
      return with(f -> f.seqLen = tokens);
    }
    if (context > 0) {
      return with(f -> f.context = tokens);
    }
    int prompt = Math.max(1, tokens - generateTokens);
    return with(f -> {
      f.promptTokens = prompt;
      f.generateTokens = tokens - prompt;
    });
  }

  public Task withPrecision(Precision p) {
    return with(f -> f.precision = p);
  }

  public Task withWeights(WeightFormat w) {
    return with(f -> f.weights = w);
  }

  public Task withPlan(ParallelPlan p) {
    return with(f -> f.plan = p);
  }

  public Task withRecompute(Recompute r) {
    return with(f -> f.recompute = r);
  }

  /** This task with {@code n} micro-batches per optimizer step. */
  public Task withMicroBatches(int n) {
    return with(f -> f.microBatches = n);
  }

  public Task withLoraTargets(java.util.Set<LoraTarget> targets) {
    return with(f -> f.loraTargets = targets);
  }

  public Task withOptimizer(TrainingOptimizer o) {
    return with(f -> f.optimizer = o);
  }

  public Task withOffload(Offload o) {
    return with(f -> f.offload = o);
  }

  /** This task with the fields {@code change} sets changed, checked as a new task is. */
  private Task with(java.util.function.Consumer<Fields> change) {
    Fields f = new Fields(this);
    change.accept(f);
    return new Task(f.kind, f.precision, f.weights, f.batch, f.seqLen, f.promptTokens, f.generateTokens,
        f.microBatches, f.recompute, f.loraRank, f.prefixTokens, f.offload, f.context, f.kvCache, f.gpuLayers, f.plan,
        f.globalBatch, f.loraTargets, f.optimizer);
  }

  /** A task's fields, to change some of them (the with- methods) and make a task of them again. */
  private static final class Fields {
    TaskKind kind;
    Precision precision;
    WeightFormat weights;
    int batch;
    int seqLen;
    int promptTokens;
    int generateTokens;
    int microBatches;
    Recompute recompute;
    int loraRank;
    int prefixTokens;
    Offload offload;
    int context;
    KvCacheFormat kvCache;
    int gpuLayers;
    ParallelPlan plan;
    int globalBatch;
    java.util.Set<LoraTarget> loraTargets;
    TrainingOptimizer optimizer;

    Fields(Task t) {
      kind = t.kind;
      precision = t.precision;
      weights = t.weights;
      batch = t.batch;
      seqLen = t.seqLen;
      promptTokens = t.promptTokens;
      generateTokens = t.generateTokens;
      microBatches = t.microBatches;
      recompute = t.recompute;
      loraRank = t.loraRank;
      prefixTokens = t.prefixTokens;
      offload = t.offload;
      context = t.context;
      kvCache = t.kvCache;
      gpuLayers = t.gpuLayers;
      plan = t.plan;
      globalBatch = t.globalBatch;
      loraTargets = t.loraTargets;
      optimizer = t.optimizer;
    }
  }

  /**
   * Tokens of context a sequence holds: seq_len for training; for inference the context the KV cache is
   * sized for ({@code context}, at least prompt + generated), or prompt + generated when unset.
   */
  public int contextTokens() {
    if (kind.training()) {
      return seqLen;
    }
    int used = promptTokens + generateTokens;
    return context > 0 ? Math.max(context, used) : used;
  }

  /** Data-parallel replicas (1 until the plan is resolved against a system). */
  public int replicas() {
    return Math.max(1, plan.dp());
  }

  /**
   * Tokens processed per optimizer step (training, over every data-parallel replica) or generated per run
   * (inference, every replica).
   */
  public long tokensPerStep() {
    return kind.training() ? sequencesPerStep() * seqLen : (long) batch * generateTokens * replicas();
  }

  /** Sequences per optimizer step over every data-parallel replica (training's global batch): batch x micro-batches x dp. */
  public long sequencesPerStep() {
    return (long) batch * microBatches * replicas();
  }

  /**
   * Optimizer steps (inference: runs of the batch) a job of {@code jobTokens} takes: its tokens over a step's, but at
   * least one, since a job smaller than a step still runs a whole one (one token of training still runs a step's
   * batch; one request at batch 8 still waits out the batch's run). Above one step the count is not rounded: a
   * partial last step is timed pro rata (a job of 1.5 steps' tokens is 1.5 steps), at most one step's time off for
   * a job that would end it short (the JSON's {@code steps} says so by its fraction). NaN where a step makes no
   * tokens.
   */
  public double jobSteps(double jobTokens) {
    long perStep = tokensPerStep();
    return perStep > 0 ? Math.max(1, jobTokens / perStep) : Double.NaN;
  }
}
