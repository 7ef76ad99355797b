package llmsim.core.memory;

import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.FfnKind;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.PipelineSchedule;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.TrainingOptimizer;
import llmsim.core.task.WeightFormat;

/**
 * Bytes of every category a task needs, before deciding where they live. Formulas:
 * <ul>
 *   <li>mixed-precision AdamW: 2 (weights) + 2 (grads) + 12 (fp32 master, m, v) = 16 bytes/param;
 *       fp32 training: 4 + 4 + 8; without master weights (pure bf16) 2 + 2 + 4; bitsandbytes' 8-bit AdamW keeps
 *       2 bytes of moments (and an fp32 absmax per 256) in place of 8; updated inside the backward, only the
 *       largest tensor's gradient is held;
 *   <li>adapters and prefixes train in fp32: 4 + 4 + 8 bytes per trainable parameter;
 *   <li>activations per layer and token, 16-bit: inputs of the two norms and of the two block
 *       inputs (4h), Q and attention output (2 q_dim), K and V (2 kv_dim), and the FFN intermediates
 *       (GELU: pre- and post-activation, 2f; SwiGLU: gate, up, act(gate), product, 4f) — Korthikanti et
 *       al. 2022 (arXiv:2205.05198) sec. 4.1 without dropout; attention scores add 2 bytes x heads x s^2
 *       per sequence unless FlashAttention keeps them on chip; the loss keeps logits in 16 and 32 bit
 *       (6 bytes x vocab per token);
 *   <li>full recomputation (activation checkpointing) keeps each layer's input (2h bytes per token) plus one
 *       layer being recomputed; selective recomputation keeps everything but the attention scores, which the
 *       backward recomputes: Korthikanti et al.'s 34sbh + 5as^2b bytes per layer become 34sbh (here: the
 *       attention-score term is dropped, as FlashAttention drops it);
 *   <li>KV cache = 2 x layers x kv_heads x head_dim x context x batch x bytes per element of the cache
 *       format (2 for f16, 1 for fp8, 34/32 for q8_0, 18/32 for q4_0);
 *   <li>inference activations are those of one layer for the tokens evaluated at once: the whole prompt,
 *       or a chunk of it where the runtime evaluates prompts in chunks (llama.cpp's n_batch).
 * </ul>
 */
public record Footprint(
    double weightsBytes,
    double gradientsBytes,
    double optimizerBytes,
    double activationsBytes,
    double kvCacheBytes,
    double trainableParameters,
    double layerWeightBytes) {

  static final double LOGIT_BYTES_PER_VOCAB_ENTRY = 6;
  public static Footprint of(ModelSpec m, Task t, boolean flashAttention) {
    return of(m, t, flashAttention, 0);
  }

  /** {@code promptChunkTokens}: tokens per sequence evaluated at once in prefill (0: the whole prompt). */
  public static Footprint of(ModelSpec m, Task t, boolean flashAttention, int promptChunkTokens) {
    return of(m, t, flashAttention, promptChunkTokens, 0);
  }

  /**
   * As {@link #of(ModelSpec, Task, boolean, int)} on nodes of {@code devicesPerNode} GPUs, which a hybrid-shard plan
   * needs (its ZeRO-3 shards span one node's replicas); 0 where no plan needs it.
   */
  public static Footprint of(ModelSpec m, Task t, boolean flashAttention, int promptChunkTokens, int devicesPerNode) {
    double params = m.parameterCount();
    double weights;
    double trainable;
    double grads;
    double optimizer;
    TaskKind kind = t.kind();
    if (!kind.training()) {
      weights = baseWeightBytes(m, t.weights());
      trainable = 0;
      grads = 0;
      optimizer = 0;
    } else if (!kind.frozenBase()) {
      double bytes = t.precision().bytes();
      weights = params * bytes;
      trainable = params;
      // updated inside the backward, each gradient is freed after its step: the largest tensor's at a time
      grads = t.optimizer().inBackward() ? largestTensorParameters(m) * bytes : params * bytes;
      optimizer = params * (t.optimizer().masterBytesPerParameter(t.precision())
          + t.optimizer().stateBytesPerParameter(bytes));
    } else {
      trainable = kind == TaskKind.PTUNING_V2 ? prefixParameters(m, t) : loraParameters(m, t.loraRank(), t.loraTargets());
      weights = baseWeightBytes(m, t.weights()) + 4 * trainable;
      grads = 4 * trainable;
      optimizer = ADAPTER_STATE.withKind(t.optimizer()).stateBytesPerParameter(4) * trainable;
    }
    double activations = kind.training() ? trainingActivations(m, t, flashAttention)
        : inferenceActivations(m, t, flashAttention, promptChunkTokens);
    double kv = kind.training() ? 0 : kvCacheBytes(m, t.batch(), t.contextTokens(), t.kvCache().bytesPerElement());
    // per GPU under the plan: tensor parallelism splits every layer; ZeRO shards state over the replicas
    int tp = t.plan().tp();
    int dp = t.replicas();
    int zero = t.plan().zero();
    int pp = t.plan().pp();
    // a pipeline stage holds its own layers, the first the embedding and the last the final norm and head: the
    // fullest stage's share is what must fit (its layers as the simulation splits them)
    double layerWeights = weights / tp / Math.max(1, m.layers());
    double share = fullestStageShare(m, pp, t.plan().virtualStages()) / tp;
    weights *= share;
    trainable /= tp * pp; // the mean stage's, as the simulation's per-layer and per-stage work reads it
    grads *= share;
    optimizer *= share;
    // the replicas a ZeRO stage shards over: all of them, or under hybrid shard those in one node
    if (t.plan().hybridShard() && devicesPerNode < 1) {
      throw new IllegalArgumentException("a hybrid-shard plan's memory needs the GPUs per node");
    }
    int shards = zero >= 1 ? Math.min(dp, t.plan().shardRanks(devicesPerNode)) : 1;
    optimizer /= shards;
    if (zero >= 2) {
      grads /= shards;
    }
    if (zero >= 3) {
      weights /= shards;
    }
    kv /= Math.min(tp, m.kvHeads());
    return new Footprint(weights, grads, optimizer, activations, kv, trainable, layerWeights);
  }

  /**
   * The parameters of the plan's fullest pipeline stage over the model's: the layers of its chunks as
   * {@link ParallelPlan#layerSplit} gives them (stage g holds chunks g, g + pp, ...), the embedding on the first stage,
   * the final norm and the head on the last (a copy of the embedding where the two are tied); 1 without stages.
   */
  static double fullestStageShare(ModelSpec m, int pp, int v) {
    if (pp <= 1) {
      return 1;
    }
    int chunks = pp * Math.max(1, v);
    int[] first = ParallelPlan.layerSplit(m.layers(), chunks);
    double most = 0;
    for (int g = 0; g < pp; g++) {
      long layers = 0;
      for (int c = g; c < chunks; c += pp) {
        layers += first[c + 1] - first[c];
      }
      double p = layers * (double) m.parametersPerLayer();
      if (g == 0) {
        p += m.embeddingParameters();
      }
      if (g == pp - 1) {
        // tied embeddings: the last stage keeps its own copy of the word embedding for the head (DeepSpeed's and
        // Megatron's tied stages, docs/CALIBRATION.md "Tied word embeddings under pipeline stages")
        p += (double) m.normKind().paramsPerChannel() * m.hidden()
            + (m.tiedEmbeddings() ? (double) m.vocab() * m.hidden() : m.unembeddingParameters());
      }
      most = Math.max(most, p);
    }
    return most / m.parameterCount();
  }

  /** Adapters and prefixes train in fp32 with no master copy. */
  static final TrainingOptimizer ADAPTER_STATE = new TrainingOptimizer(TrainingOptimizer.Kind.ADAMW, false, false);

  /** The largest weight tensor: the embedding or output head, or one of a layer's matrices. */
  static double largestTensorParameters(ModelSpec m) {
    double ffn = (double) m.hidden() * m.ffnHidden();
    double attention = (double) m.hidden() * Math.max(m.qDim(), m.hidden());
    return Math.max(Math.max(m.embeddingParameters(), m.unembeddingParameters()), Math.max(ffn, attention));
  }

  /**
   * Of {@link #optimizerBytes}, the moment state a paged optimizer keeps in CUDA unified memory (bitsandbytes pages
   * its state buffers, not the weights or master copies); 0 for an optimizer that is not paged.
   */
  public double pagedOptimizerBytes(Task t) {
    TrainingOptimizer o = t.optimizer();
    if (!o.paged() || !t.kind().training()) {
      return 0;
    }
    if (t.kind().frozenBase()) {
      return optimizerBytes;
    }
    double state = o.stateBytesPerParameter(t.precision().bytes());
    return optimizerBytes * state / (state + o.masterBytesPerParameter(t.precision()));
  }

  /** Base weights in their storage format; block-quantised formats leave embeddings in 16 bit. */
  public static double baseWeightBytes(ModelSpec m, WeightFormat f) {
    double params = m.parameterCount();
    if (f == WeightFormat.NF4 || f == WeightFormat.INT4) {
      double embeddings = m.embeddingParameters() + m.unembeddingParameters();
      return (params - embeddings) * f.bytesPerWeight() + embeddings * 2;
    }
    return params * f.bytesPerWeight();
  }

  /** LoRA on the query and value projections (PEFT's default targets for LLaMA-family models). */
  public static double loraParameters(ModelSpec m, int rank) {
    return loraParameters(m, rank, llmsim.core.task.LoraTarget.DEFAULT);
  }

  /** LoRA adapters of rank r on {@code targets}: r x (in + out) parameters each, in every layer. */
  public static double loraParameters(ModelSpec m, int rank, java.util.Set<llmsim.core.task.LoraTarget> targets) {
    double perLayer = 0;
    for (llmsim.core.task.LoraTarget target : targets) {
      long[] shape = loraShape(m, target);
      perLayer += (double) rank * (shape[0] + shape[1]);
    }
    return perLayer * m.layers();
  }

  /**
   * The input and output width of the layer {@code target} names ({0, 0} for a gate in an MLP without one):
   * q h -> q_dim, k and v h -> kv_dim, o q_dim -> h, gate and up h -> ffn, down ffn -> h.
   */
  public static long[] loraShape(ModelSpec m, llmsim.core.task.LoraTarget target) {
    return switch (target) {
      case Q -> new long[] {m.hidden(), m.qDim()};
      case K, V -> new long[] {m.hidden(), m.kvDim()};
      case O -> new long[] {m.qDim(), m.hidden()};
      case GATE -> m.ffnKind() == llmsim.core.model.FfnKind.SWIGLU ? new long[] {m.hidden(), m.ffnHidden()}
          : new long[] {0, 0};
      case UP -> new long[] {m.hidden(), m.ffnHidden()};
      case DOWN -> new long[] {m.ffnHidden(), m.hidden()};
    };
  }

  /** Adapters a layer carries: the targets that exist in this model (no gate without a gated MLP). */
  public static int loraAdapters(ModelSpec m, java.util.Set<llmsim.core.task.LoraTarget> targets) {
    int n = 0;
    for (llmsim.core.task.LoraTarget target : targets) {
      n += loraShape(m, target)[0] > 0 ? 1 : 0;
    }
    return n;
  }

  /**
   * LoRA modules a layer carries: {@link #loraAdapters}, or where q, k and v are one Linear with one LoRA module for
   * the enabled ones ({@code fusedQkv}: LitGPT's LoRAQKVLinear), those counted once.
   */
  public static int loraModules(ModelSpec m, java.util.Set<llmsim.core.task.LoraTarget> targets, boolean fusedQkv) {
    int n = loraAdapters(m, targets);
    if (!fusedQkv) {
      return n;
    }
    int qkv = 0;
    for (llmsim.core.task.LoraTarget target : targets) {
      if (target == llmsim.core.task.LoraTarget.Q || target == llmsim.core.task.LoraTarget.K
          || target == llmsim.core.task.LoraTarget.V) {
        qkv++;
      }
    }
    return qkv > 1 ? n - qkv + 1 : n;
  }

  /** P-Tuning v2: a key and a value prefix of prefix_tokens per layer (no reparameterisation). */
  public static double prefixParameters(ModelSpec m, Task t) {
    return 2.0 * m.layers() * t.prefixTokens() * m.kvDim();
  }

  public static double kvCacheBytes(ModelSpec m, int batch, long contextTokens, double bytesPerElement) {
    return 2.0 * m.layers() * m.kvDim() * contextTokens * batch * bytesPerElement;
  }

  /**
   * Activation bytes per token per layer for 16-bit activations (see class doc), per GPU under tensor
   * parallelism {@code tp}: Q, K, V, the attention output and the FFN intermediates are split (K and V over
   * min(tp, kv_heads)); the 4h of norm and block inputs are replicated, or split too with sequence parallelism
   * (Korthikanti et al. 2022 sec. 4.2 and 4.2.2).
   */
  public static double activationBytesPerTokenPerLayer(ModelSpec m, int tp, boolean sequenceParallel) {
    int ffnTensors = m.ffnKind() == FfnKind.SWIGLU ? 4 : 2;
    double kvSplit = Math.min(tp, m.kvHeads());
    return 2.0 * (4.0 * m.hidden() / (sequenceParallel ? tp : 1)
        + (2.0 * m.qDim() + (double) ffnTensors * m.ffnHidden()) / tp + 2.0 * m.kvDim() / kvSplit);
  }

  static double scoreBytesPerLayer(ModelSpec m, int batch, long queries, long keys, boolean flash, int tp) {
    return flash ? 0 : 2.0 * m.heads() / tp * queries * keys * batch;
  }

  static double trainingActivations(ModelSpec m, Task t, boolean flash) {
    double scale = t.precision().bytes() / 2.0;
    long tokens = (long) t.batch() * t.seqLen();
    long keys = t.seqLen() + (t.kind() == TaskKind.PTUNING_V2 ? t.prefixTokens() : 0);
    int tp = t.plan().tp();
    boolean scoresKept = !flash && t.recompute() != Recompute.SELECTIVE;
    double perLayer = tokens * activationBytesPerTokenPerLayer(m, tp, t.plan().sequenceParallel()) * scale
        + scoreBytesPerLayer(m, t.batch(), t.seqLen(), keys, !scoresKept, tp);
    double logits = tokens * (double) m.vocab() / tp * LOGIT_BYTES_PER_VOCAB_ENTRY;
    int pp = t.plan().pp();
    double inFlightLayers = inFlightLayers(m, t);
    if (t.recompute() == Recompute.FULL) {
      return inFlightLayers * layerInputBytes(m, t) + perLayer + (pp > 1 ? 0 : logits);
    }
    if (t.recompute() == Recompute.FULL_OFFLOAD) {
      // the layer inputs wait in host memory; one is back on the device while its layer recomputes
      return layerInputBytes(m, t) + perLayer + (pp > 1 ? 0 : logits);
    }
    return inFlightLayers * perLayer + (pp > 1 ? 0 : logits);
  }

  /**
   * Layer activations the first (fullest) pipeline stage holds at its peak, in layers' worth. Pipeline stages hold
   * their layers; 1F1B keeps up to pp micro-batches in flight on the first stage, GPipe every micro-batch (all
   * forwards run before the first backward). Interleaved 1F1B runs (pp - 1) x 2 + (v - 1) x pp warm-up forwards of a
   * model chunk (pp x v chunks, L / (pp x v) layers each) on the first stage before its first backward, and one more
   * in steady state: that many chunks' activations at its peak, against 1F1B's pp whole stages (Megatron's
   * forward_backward_pipelining_with_interleaving; PipelineStep's schedule).
   */
  static double inFlightLayers(ModelSpec m, Task t) {
    int pp = t.plan().pp();
    int v = t.plan().virtualStages();
    double layers = Math.ceil((double) m.layers() / pp); // the fullest stage, when the stages are uneven
    if (pp == 1) {
      return layers;
    }
    if (t.plan().schedule() == PipelineSchedule.GPIPE) {
      return t.microBatches() * layers;
    }
    if (v > 1) {
      long chunks = Math.min((pp - 1) * 2L + (v - 1L) * pp + 1, (long) t.microBatches() * v);
      return chunks * (double) m.layers() / ((double) pp * v);
    }
    return Math.min(pp, t.microBatches()) * layers;
  }

  /**
   * Under {@link Recompute#FULL_OFFLOAD}, the layer inputs a GPU parks in host memory until its backward recomputes
   * them: what {@link Recompute#FULL} keeps on the device (each in-flight layer's input, tokens x hidden at the
   * compute precision); 0 otherwise.
   */
  public static double hostCheckpointBytes(ModelSpec m, Task t) {
    if (!t.kind().training() || t.recompute() != Recompute.FULL_OFFLOAD) {
      return 0;
    }
    return inFlightLayers(m, t) * layerInputBytes(m, t);
  }

  /** One layer's input, the checkpoint full recomputation keeps: tokens x hidden at the compute precision. */
  static double layerInputBytes(ModelSpec m, Task t) {
    return (double) t.batch() * t.seqLen() * m.hidden() * t.precision().bytes();
  }

  static double inferenceActivations(ModelSpec m, Task t, boolean flash, int promptChunkTokens) {
    int queries = promptChunkTokens > 0 ? Math.min(t.promptTokens(), promptChunkTokens) : t.promptTokens();
    long tokens = (long) t.batch() * queries;
    int tp = t.plan().tp();
    double oneLayer = tokens * activationBytesPerTokenPerLayer(m, tp, false)
        + scoreBytesPerLayer(m, t.batch(), queries, t.promptTokens(), flash, tp);
    double logits = (double) t.batch() * m.vocab() * 4;
    return oneLayer + logits;
  }
}
