package llmsim.core.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import llmsim.core.engine.OpKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;

/**
 * A training step under pipeline parallelism with the 1F1B schedule: one GPU per stage is simulated (the
 * tensor- and data-parallel peers of a stage do the same work), each with its own streams, memory and links.
 * Stage s runs p - s - 1 warm-up forwards, then alternates one forward and one backward, then drains the
 * backwards; activations go forward and their gradients back as point-to-point sends between neighbouring
 * stages. The bubble, (p - 1) / (m + p - 1) of the ideal step, comes out of the dependencies.
 */
final class PipelineStep {
  private final WorkloadBuilder w;
  private final Task t;
  private final ModelSpec m;
  private final int stages;
  private final int perStage;
  private final StepContext[] cx;
  private final LayerEmitter[] le;
  /** Ends of forward and backward passes, and the sends, per stage and micro-batch; NONE until emitted. */
  private final int[][] fEnd;
  private final int[][] bEnd;
  private final int[][] actSend;
  private final int[][] gradSend;
  private final boolean[][] fDone;
  private final boolean[][] bDone;
  private final int[] lastReduction;
  private final int[] lastOnStage;
  /** Matmul FLOPs of every stage, and those recomputed (divide by the stages for one GPU's share). */
  double totalFlops;
  double recomputeFlops;

  PipelineStep(WorkloadBuilder w, StepContext first, LayerEmitter firstLayers, java.util.function.Function<Integer, StepContext> newContext,
      java.util.function.Function<StepContext, LayerEmitter> newEmitter) {
    this.w = w;
    this.t = w.t;
    this.m = w.m;
    this.stages = t.plan().pp();
    this.perStage = m.layers() / stages;
    int mbs = t.microBatches();
    cx = new StepContext[stages];
    le = new LayerEmitter[stages];
    cx[0] = first;
    le[0] = firstLayers;
    for (int s = 1; s < stages; s++) {
      cx[s] = newContext.apply(s);
      le[s] = newEmitter.apply(cx[s]);
    }
    fEnd = new int[stages][mbs];
    bEnd = new int[stages][mbs];
    actSend = new int[stages][mbs];
    gradSend = new int[stages][mbs];
    fDone = new boolean[stages][mbs];
    bDone = new boolean[stages][mbs];
    lastReduction = new int[stages];
    lastOnStage = new int[stages];
    Arrays.fill(lastReduction, -1);
    Arrays.fill(lastOnStage, -1);
  }

  /** The 1F1B order of one stage: true for a forward, with its micro-batch. */
  static List<int[]> schedule(int stage, int stages, int microBatches) {
    List<int[]> out = new ArrayList<>();
    int warmup = Math.min(stages - stage - 1, microBatches);
    int f = 0;
    int b = 0;
    for (int i = 0; i < warmup; i++) {
      out.add(new int[] {1, f++});
    }
    while (f < microBatches) {
      out.add(new int[] {1, f++});
      out.add(new int[] {0, b++});
    }
    while (b < microBatches) {
      out.add(new int[] {0, b++});
    }
    return out;
  }

  void build() {
    int mbs = t.microBatches();
    List<List<int[]>> order = new ArrayList<>();
    for (int s = 0; s < stages; s++) {
      order.add(schedule(s, stages, mbs));
    }
    int[] next = new int[stages];
    int remaining = stages * 2 * mbs;
    while (remaining > 0) {
      boolean progress = false;
      for (int s = 0; s < stages; s++) {
        if (next[s] == order.get(s).size()) {
          continue;
        }
        int[] a = order.get(s).get(next[s]);
        int mb = a[1];
        if (a[0] == 1 && (s == 0 || fDone[s - 1][mb])) {
          forward(s, mb);
        } else if (a[0] == 0 && (s == stages - 1 ? fDone[s][mb] : bDone[s + 1][mb])) {
          backward(s, mb);
        } else {
          continue;
        }
        next[s]++;
        remaining--;
        progress = true;
      }
      if (!progress) {
        throw new IllegalStateException("1F1B schedule deadlocked: a bug in the pipeline builder");
      }
    }
    for (int s = 0; s < stages; s++) {
      totalFlops += le[s].totalFlops;
      recomputeFlops += le[s].recomputeFlops;
      w.optimizerForStage(cx[s], WorkloadBuilder.deps(bEnd[s][mbs - 1], lastReduction[s]));
    }
  }

  private String name(int s, int mb, String what) {
    return cx[s].sink.keepsNames() ? "s" + s + ".mb" + mb + "." + what : what;
  }

  private double activationBytes() {
    return (double) t.batch() * t.seqLen() * m.hidden() * t.precision().bytes();
  }

  private void forward(int s, int mb) {
    StepContext c = cx[s];
    int prev;
    if (s == 0) {
      int input = w.copyIn(c, name(s, mb, "input_batch"), t.batch() * t.seqLen() * 8.0, lastOnStage[s]);
      prev = c.sink.addOp(name(s, mb, "embedding"), OpKind.OUTPUT, c.compute, c.elementwise, 0,
          t.batch() * t.seqLen() * m.hidden() * 2.0 * t.precision().bytes(), 0, WorkloadBuilder.deps(input));
    } else {
      prev = actSend[s - 1][mb];
    }
    long keys = t.seqLen() + (t.kind() == TaskKind.PTUNING_V2 ? t.prefixTokens() : 0);
    for (int l = s * perStage; l < (s + 1) * perStage; l++) {
      prev = le[s].forward(name(s, mb, "L" + l + "."), t.batch(), t.seqLen(), keys, false, WorkloadBuilder.deps(prev));
    }
    if (s == stages - 1) {
      prev = w.lmHead(c, le[s], name(s, mb, ""), t.batch() * t.seqLen(), prev, 1);
    } else {
      actSend[s][mb] = c.collectives.pointToPoint(name(s, mb, "pp.send_activations"), activationBytes(), prev);
    }
    fEnd[s][mb] = prev;
    fDone[s][mb] = true;
    lastOnStage[s] = prev;
  }

  private void backward(int s, int mb) {
    StepContext c = cx[s];
    boolean frozen = t.kind().frozenBase();
    int prev = s == stages - 1 ? w.lmHead(c, le[s], name(s, mb, "bwd."), t.batch() * t.seqLen(), fEnd[s][mb],
        frozen ? 1 : 2) : gradSend[s + 1][mb];
    long keys = t.seqLen() + (t.kind() == TaskKind.PTUNING_V2 ? t.prefixTokens() : 0);
    boolean lastMb = mb == t.microBatches() - 1;
    for (int l = (s + 1) * perStage - 1; l >= s * perStage; l--) {
      if (t.activationCheckpointing()) {
        prev = le[s].forward(name(s, mb, "L" + l + ".recompute."), t.batch(), t.seqLen(), keys, true,
            WorkloadBuilder.deps(prev));
      }
      prev = le[s].backward(name(s, mb, "L" + l + "."), t.batch(), t.seqLen(), keys, frozen, WorkloadBuilder.deps(prev));
      if (lastMb && w.dp && w.overlapGrads) {
        lastReduction[s] = w.reduceGradients(c, name(s, mb, "L" + l + ".grads"), prev, lastReduction[s]);
      }
    }
    if (lastMb && w.dp && !w.overlapGrads) {
      for (int l = s * perStage; l < (s + 1) * perStage; l++) {
        lastReduction[s] = w.reduceGradients(c, name(s, mb, "L" + l + ".grads"), prev, lastReduction[s]);
      }
    }
    if (s > 0) {
      gradSend[s][mb] = c.collectives.pointToPoint(name(s, mb, "pp.send_gradients"), activationBytes(), prev);
    }
    bEnd[s][mb] = prev;
    bDone[s][mb] = true;
    lastOnStage[s] = prev;
  }
}
