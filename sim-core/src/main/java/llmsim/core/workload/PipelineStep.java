package llmsim.core.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import llmsim.core.engine.OpKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.task.PipelineSchedule;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;

/**
 * A training step under pipeline parallelism: one GPU per stage is simulated (the tensor- and data-parallel peers
 * of a stage do the same work), each with its own streams, memory and links. With one model chunk per GPU the
 * schedule is 1F1B: stage s runs p - s - 1 warm-up forwards, then alternates one forward and one backward, then
 * drains the backwards. With v chunks per GPU (virtual stages; chunk c of GPU g is virtual stage c x p + g) it is
 * Megatron-LM's interleaved 1F1B, which divides the bubble by about v for more sends. GPipe runs every
 * micro-batch's forward, then every backward in reverse order: the same bubble as 1F1B, all activations held. Activations go forward and
 * their gradients back as point-to-point sends between neighbouring virtual stages; the bubble, (p - 1) / (m + p
 * - 1) of the ideal step for 1F1B, comes out of the dependencies.
 */
final class PipelineStep {
  private final WorkloadBuilder w;
  private final Task t;
  private final ModelSpec m;
  private final int gpus;
  private final int chunks;
  private final int virtualStages;
  /** First layer of each virtual stage, and one past the last: as even as the layers allow. */
  private final int[] firstLayer;
  private final StepContext[] cx;
  private final LayerEmitter[] le;
  /** Per virtual stage and micro-batch: ends of forward and backward passes, and the sends. */
  private final int[][] fEnd;
  private final int[][] bEnd;
  private final int[][] actSend;
  private final int[][] gradSend;
  private final boolean[][] fDone;
  private final boolean[][] bDone;
  /** Per GPU: the last gradient reduction and the last op of the compute schedule. */
  private final int[] lastReduction;
  private final int[] lastOnGpu;
  /** Per GPU: the last gradient-accumulation copy under ZeRO-Offload (-1: none). */
  private final int[] lastAccumulation;
  /** Matmul FLOPs of every stage, and those recomputed (divide by the stages for one GPU's share). */
  double totalFlops;
  double recomputeFlops;

  PipelineStep(WorkloadBuilder w, StepContext first, LayerEmitter firstLayers,
      java.util.function.Function<Integer, StepContext> newContext,
      java.util.function.Function<StepContext, LayerEmitter> newEmitter) {
    this.w = w;
    this.t = w.t;
    this.m = w.m;
    this.gpus = t.plan().pp();
    this.chunks = t.plan().virtualStages();
    this.virtualStages = gpus * chunks;
    this.firstLayer = split(m.layers(), virtualStages);
    int mbs = t.microBatches();
    cx = new StepContext[gpus];
    le = new LayerEmitter[gpus];
    cx[0] = first;
    le[0] = firstLayers;
    for (int g = 1; g < gpus; g++) {
      cx[g] = newContext.apply(g);
      le[g] = newEmitter.apply(cx[g]);
    }
    fEnd = new int[virtualStages][mbs];
    bEnd = new int[virtualStages][mbs];
    actSend = new int[virtualStages][mbs];
    gradSend = new int[virtualStages][mbs];
    fDone = new boolean[virtualStages][mbs];
    bDone = new boolean[virtualStages][mbs];
    lastReduction = new int[gpus];
    lastOnGpu = new int[gpus];
    Arrays.fill(lastReduction, -1);
    Arrays.fill(lastOnGpu, -1);
    lastAccumulation = new int[gpus];
    Arrays.fill(lastAccumulation, -1);
  }

  /** Layers over stages as evenly as they go ({@link llmsim.core.task.ParallelPlan#layerSplit}). */
  static int[] split(int layers, int stages) {
    return llmsim.core.task.ParallelPlan.layerSplit(layers, stages);
  }

  /** The 1F1B order of one stage (one chunk per GPU): {1 forward | 0 backward, virtual stage, micro-batch}. */
  static List<int[]> schedule(int stage, int stages, int microBatches) {
    return schedule(stage, stages, 1, microBatches);
  }

  /**
   * The order of GPU {@code g}'s passes: 1F1B for one chunk; for {@code v} chunks, Megatron-LM's interleaved
   * schedule (forward_backward_pipelining_with_interleaving): (p - g - 1) x 2 + (v - 1) x p warm-up forwards,
   * then one forward and one backward in turn, then the remaining backwards; the k-th forward runs chunk
   * (k / p) mod v on micro-batch (k / (p v)) p + k mod p, the k-th backward the chunks in reverse.
   */
  static List<int[]> schedule(int g, int p, int v, int microBatches) {
    List<int[]> out = new ArrayList<>();
    int total = microBatches * v;
    int warmup = v == 1 ? Math.min(p - g - 1, microBatches) : Math.min((p - g - 1) * 2 + (v - 1) * p, total);
    for (int k = 0; k < warmup; k++) {
      out.add(pass(1, k, g, p, v));
    }
    for (int i = 0; i < total - warmup; i++) {
      out.add(pass(1, warmup + i, g, p, v));
      out.add(pass(0, i, g, p, v));
    }
    for (int k = total - warmup; k < total; k++) {
      out.add(pass(0, k, g, p, v));
    }
    return out;
  }

  /** GPipe's order on stage {@code g}: every micro-batch's forward, then every backward in reverse order. */
  static List<int[]> gpipe(int g, int microBatches) {
    List<int[]> out = new ArrayList<>();
    for (int mb = 0; mb < microBatches; mb++) {
      out.add(new int[] {1, g, mb});
    }
    for (int mb = microBatches - 1; mb >= 0; mb--) {
      out.add(new int[] {0, g, mb});
    }
    return out;
  }

  private static int[] pass(int forward, int k, int g, int p, int v) {
    int chunk = (k / p) % v;
    if (forward == 0) {
      chunk = v - 1 - chunk;
    }
    int mb = v == 1 ? k : (k / (p * v)) * p + k % p;
    return new int[] {forward, chunk * p + g, mb};
  }

  void build() {
    int mbs = t.microBatches();
    boolean gpipe = t.plan().schedule() == PipelineSchedule.GPIPE;
    List<List<int[]>> order = new ArrayList<>();
    for (int g = 0; g < gpus; g++) {
      order.add(gpipe ? gpipe(g, mbs) : schedule(g, gpus, chunks, mbs));
    }
    int[] next = new int[gpus];
    int remaining = virtualStages * 2 * mbs;
    while (remaining > 0) {
      boolean progress = false;
      for (int g = 0; g < gpus; g++) {
        if (next[g] == order.get(g).size()) {
          continue;
        }
        int[] a = order.get(g).get(next[g]);
        int vs = a[1];
        int mb = a[2];
        if (a[0] == 1 && (vs == 0 || fDone[vs - 1][mb])) {
          forward(vs, mb);
        } else if (a[0] == 0 && (vs == virtualStages - 1 ? fDone[vs][mb] : bDone[vs + 1][mb])) {
          backward(vs, mb);
        } else {
          continue;
        }
        next[g]++;
        remaining--;
        progress = true;
      }
      if (!progress) {
        throw new IllegalStateException("pipeline schedule deadlocked: a bug in the pipeline builder");
      }
    }
    if (m.tiedEmbeddings() && gpus > 1 && !t.kind().frozenBase()) {
      // the first stage's embedding and the last stage's copy of it for the head sum their gradients before the
      // optimizer (Megatron's embedding group; DeepSpeed's allreduce_tied_weight_gradients)
      int tied = cx[0].collectives.firstToLastStage(cx[0].sink.keepsNames() ? "pp.tied_embedding_grads.all_reduce" : "",
          w.embeddingGradientBytes(cx[0]), lastOnGpu[0], lastOnGpu[gpus - 1]);
      lastOnGpu[0] = tied;
      lastOnGpu[gpus - 1] = tied;
    }
    for (int g = 0; g < gpus; g++) {
      totalFlops += le[g].totalFlops;
      recomputeFlops += le[g].recomputeFlops;
      if (w.cpuOptimizer) {
        // ZeRO-Offload: the stage's layers' gradients (their shards, with replicas) go to the host once the stage's
        // backward and its reductions are done (ZeRO-1 reduces at the step's end), and its CPU steps them
        int layers = 0;
        for (int vs = g; vs < virtualStages; vs += gpus) {
          layers += firstLayer[vs + 1] - firstLayer[vs];
        }
        int[] ready = new int[layers];
        Arrays.fill(ready, lastReduction[g] >= 0 ? lastReduction[g] : lastOnGpu[g]);
        int[] accumulated = new int[layers];
        Arrays.fill(accumulated, lastAccumulation[g]);
        w.cpuOptimizerStep(cx[g], ready, accumulated, cx[g].sink.keepsNames() ? "s" + g + "." : "");
      } else {
        w.optimizerForStage(cx[g], WorkloadBuilder.deps(lastOnGpu[g], lastReduction[g]));
      }
    }
  }

  private String name(int vs, int mb, String what) {
    return cx[vs % gpus].sink.keepsNames() ? "s" + vs + ".mb" + mb + "." + what : what;
  }

  private double activationBytes() {
    return (double) t.batch() * t.seqLen() * m.hidden() * t.precision().bytes();
  }

  /**
   * Whether each tensor-parallel rank sends only its 1 / tp share of a stage's activation (or gradient) and the
   * receiving stage all-gathers it over its tensor-parallel group ({@link
   * llmsim.core.software.SoftwareProfile#pipelineScatterGather}); not under sequence parallelism, whose
   * activations are already split.
   */
  private boolean scatterGather(StepContext c) {
    return c.software.pipelineScatterGather() && t.plan().tp() > 1 && !t.plan().sequenceParallel();
  }

  /** Bytes one rank sends to the neighbouring stage: the activation, or its 1 / tp share under scatter-gather. */
  private double sendBytes(StepContext c) {
    return scatterGather(c) ? activationBytes() / t.plan().tp() : activationBytes();
  }

  /**
   * After a receive (and the host's synchronisation on it), the all-gather that rebuilds the whole tensor from the
   * tensor-parallel ranks' shares under scatter-gather ({@code gather_split_1d_tensor}); else {@code received}.
   */
  private int gathered(StepContext c, String name, int received) {
    return scatterGather(c)
        ? c.collectives.tensorParallel(name, Collectives.Kind.ALL_GATHER, activationBytes(), received) : received;
  }

  private void forward(int vs, int mb) {
    int g = vs % gpus;
    StepContext c = cx[g];
    int prev;
    if (vs == 0) {
      // Megatron's get_batch broadcasts the batch's sizes and reads them back (sizes_cuda.cpu()): the host waits for
      // the work queued before it
      c.hostWaitsFor(name(vs, mb, "get_batch.host_sync"), lastOnGpu[g]);
      int input = w.copyIn(c, name(vs, mb, "input_batch"), t.batch() * t.seqLen() * 8.0, lastOnGpu[g]);
      prev = c.sink.addOp(name(vs, mb, "embedding"), OpKind.OUTPUT, c.compute, c.elementwise, 0,
          t.batch() * t.seqLen() * m.hidden() * 2.0 * t.precision().bytes(), 0,
          le[g].hostPass(name(vs, mb, "embedding."), WorkloadBuilder.deps(input)));
    } else {
      prev = actSend[vs - 1][mb];
      // torch.cuda.synchronize() after the receive: the transfer and everything queued on this GPU
      c.hostWaitsFor(name(vs, mb, "pp.recv_activations.host_sync"), prev, lastOnGpu[g]);
      prev = gathered(c, name(vs, mb, "pp.recv_activations.all_gather"), prev);
    }
    long keys = t.seqLen() + (t.kind() == TaskKind.PTUNING_V2 ? t.prefixTokens() : 0);
    for (int l = firstLayer[vs]; l < firstLayer[vs + 1]; l++) {
      String layer = name(vs, mb, "L" + l + ".");
      int saved = w.checkpointToHost(c, layer, prev);
      prev = le[g].forward(l, layer, t.batch(), t.seqLen(), keys, false, WorkloadBuilder.deps(prev, saved));
    }
    if (vs == virtualStages - 1) {
      prev = w.headAndLoss(c, le[g], name(vs, mb, ""), t.batch() * t.seqLen(), prev);
    } else {
      actSend[vs][mb] = c.collectives.pointToPoint(name(vs, mb, "pp.send_activations"), sendBytes(c), prev);
      c.hostWaitsFor(name(vs, mb, "pp.send_activations.host_sync"), actSend[vs][mb]);
    }
    fEnd[vs][mb] = prev;
    fDone[vs][mb] = true;
    lastOnGpu[g] = prev;
  }

  private void backward(int vs, int mb) {
    int g = vs % gpus;
    StepContext c = cx[g];
    boolean frozen = t.kind().frozenBase();
    int prev = vs == virtualStages - 1 ? w.headAndLossBackward(c, le[g], name(vs, mb, "bwd."),
        t.batch() * t.seqLen(), fEnd[vs][mb], frozen) : gradSend[vs + 1][mb];
    if (vs < virtualStages - 1) {
      c.hostWaitsFor(name(vs, mb, "pp.recv_gradients.host_sync"), prev, lastOnGpu[g]);
      prev = gathered(c, name(vs, mb, "pp.recv_gradients.all_gather"), prev);
    }
    long keys = t.seqLen() + (t.kind() == TaskKind.PTUNING_V2 ? t.prefixTokens() : 0);
    // the stage's last backward: GPipe runs them in reverse order
    boolean lastMb = mb == (t.plan().schedule() == PipelineSchedule.GPIPE ? 0 : t.microBatches() - 1);
    boolean firstMb = mb == (t.plan().schedule() == PipelineSchedule.GPIPE ? t.microBatches() - 1 : 0);
    for (int l = firstLayer[vs + 1] - 1; l >= firstLayer[vs]; l--) {
      String layer = name(vs, mb, "L" + l + ".");
      if (t.recompute().recomputesLayers()) {
        int restored = w.checkpointFromHost(c, layer, prev);
        String recomputed = c.sink.keepsNames() ? layer + "recompute." : layer;
        prev = le[g].forward(l, recomputed, t.batch(), t.seqLen(), keys, true, WorkloadBuilder.deps(prev, restored));
      }
      prev = le[g].backward(l, layer, t.batch(), t.seqLen(), keys, frozen,
          t.recompute() == Recompute.SELECTIVE, WorkloadBuilder.deps(prev));
      int acc = w.accumulateOnHost(c, layer, firstMb, prev);
      lastAccumulation[g] = acc >= 0 ? acc : lastAccumulation[g];
      if (lastMb && w.dp && w.overlapGrads) {
        lastReduction[g] = w.reduceGradients(c, name(vs, mb, "L" + l + ".grads"), prev, lastReduction[g]);
      }
    }
    if (lastMb && w.dp && !w.overlapGrads) {
      for (int l = firstLayer[vs]; l < firstLayer[vs + 1]; l++) {
        lastReduction[g] = w.reduceGradients(c, name(vs, mb, "L" + l + ".grads"), prev, lastReduction[g]);
      }
    }
    if (vs == 0 && !frozen) {
      // the head's copy of a tied weight sits on the last stage (Megatron's initialize_word_embeddings), not here
      prev = w.embeddingBackward(c, name(vs, mb, "bwd."), t.batch() * t.seqLen(), m.tiedEmbeddings() && gpus == 1,
          prev);
    }
    if (vs > 0) {
      gradSend[vs][mb] = c.collectives.pointToPoint(name(vs, mb, "pp.send_gradients"), sendBytes(c), prev);
      c.hostWaitsFor(name(vs, mb, "pp.send_gradients.host_sync"), gradSend[vs][mb]);
    }
    bEnd[vs][mb] = prev;
    bDone[vs][mb] = true;
    lastOnGpu[g] = prev;
  }
}
