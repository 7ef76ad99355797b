package llmsim.core.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.kernel.RooflineKernel;

/**
 * The closed form: the same ops a simulation would run, each costed through the roofline kernel in
 * bulk and weighted by how often it repeats, summed as if nothing overlapped, except a host issuing
 * layer passes ahead of the GPU (a host-dispatch profile): in each phase only its time beyond the GPU's compute
 * lane counts, the longer of the two as the engine finds it in steady state. A forward layer pass whose host stops
 * before the MLP ({@link llmsim.core.software.SoftwareProfile#mlpHostSyncShare}) takes, in steady state, the longer
 * of the host's issue up to the sync and the previous pass's MLP on the GPU, then the GPU's work up to the sync, then
 * the host's issue of the MLP: max(a, g_mlp) + g_attn + b. Where the engine adds nothing (one stream, no offload)
 * this equals the simulated makespan. Reusable: {@link #reset()}.
 */
public final class RooflineSum extends ClosedFormSink {
  /**
   * Groups smaller than this go through the scalar kernel: a vector loop over a handful of ops is all
   * tail and set-up (the same choice Lucene makes for short vectors).
   */
  static final int SMALL = 32;

  private final RooflineKernel small = new llmsim.core.kernel.ScalarRooflineKernel();
  private final List<CostGroup> groups = new ArrayList<>();
  private final List<Lane> lanes = new ArrayList<>();
  private double[] flops = new double[64];
  private double[] mem = new double[64];
  private double[] link = new double[64];
  /** GEMM shapes (rows 0: no shape). */
  private double[] gemmM = new double[64];
  private double[] gemmN = new double[64];
  private double[] gemmK = new double[64];
  private double[] weight = new double[64];
  private int[] group = new int[64];
  private int[] stream = new int[64];
  private int[] phase = new int[64];
  /** Ops of the host issuing ahead of the GPU ({@link OpKind#DISPATCH}). */
  private boolean[] hostIssue = new boolean[64];
  private int size;
  private int currentPhase;
  // results
  private final double[] phaseSeconds = new double[2];
  private final double[] boundSeconds = new double[llmsim.core.engine.Bound.values().length];
  private double totalSeconds;

  public RooflineSum() {
    reset();
  }

  public void reset() {
    groups.clear();
    lanes.clear();
    size = 0;
    resetRepeats();
    currentPhase = 0;
  }

  @Override
  public int addPool(String name) {
    return 0;
  }

  @Override
  public int addStream(String name, Lane lane) {
    lanes.add(lane);
    return lanes.size() - 1;
  }

  @Override
  public int addGroup(CostGroup g) {
    groups.add(g);
    return groups.size() - 1;
  }

  @Override
  public int addOp(String name, OpKind kind, int s, int g, double f, double m, double l, int... deps) {
    int id = add(s, g, f, m, l, 0, 0, 0);
    hostIssue[size - 1] = kind == OpKind.DISPATCH;
    return id;
  }

  @Override
  public int addGemm(String name, OpKind kind, int s, int g, double f, double m, double rows, double cols,
      double reduction, int... deps) {
    llmsim.core.kernel.GemmTiles.checkShape(name, rows, cols, reduction);
    return add(s, g, f, m, 0, rows, cols, reduction);
  }

  private int add(int s, int g, double f, double m, double l, double rows, double cols, double reduction) {
    if (size == flops.length) {
      int c = size * 2;
      flops = Arrays.copyOf(flops, c);
      mem = Arrays.copyOf(mem, c);
      link = Arrays.copyOf(link, c);
      gemmM = Arrays.copyOf(gemmM, c);
      gemmN = Arrays.copyOf(gemmN, c);
      gemmK = Arrays.copyOf(gemmK, c);
      weight = Arrays.copyOf(weight, c);
      group = Arrays.copyOf(group, c);
      stream = Arrays.copyOf(stream, c);
      phase = Arrays.copyOf(phase, c);
      hostIssue = Arrays.copyOf(hostIssue, c);
    }
    flops[size] = f;
    mem[size] = m;
    link[size] = l;
    gemmM[size] = rows;
    gemmN[size] = cols;
    gemmK[size] = reduction;
    weight[size] = weight();
    group[size] = g;
    stream[size] = s;
    phase[size] = currentPhase;
    hostIssue[size] = false;
    size++;
    return -1;
  }


  @Override
  public void phase(int index) {
    currentPhase = index;
  }

  /** Cost every op through the kernel, one call per cost group, and sum. */
  public void evaluate(RooflineKernel kernel) {
    Arrays.fill(phaseSeconds, 0);
    Arrays.fill(boundSeconds, 0);
    totalSeconds = 0;
    int n = size;
    double[] f = new double[n];
    double[] m = new double[n];
    double[] l = new double[n];
    double[] gm = new double[n];
    double[] gn = new double[n];
    double[] gk = new double[n];
    double[] shape = new double[n];
    double[] floor = new double[n];
    int[] order = new int[n];
    double[] t = new double[n];
    double[] a = new double[n];
    double[] in = new double[n];
    double[] b = new double[n];
    int k = 0;
    for (int g = 0; g < groups.size(); g++) {
      int from = k;
      for (int i = 0; i < n; i++) {
        if (group[i] == g) {
          order[k] = i;
          f[k] = flops[i];
          m[k] = mem[i];
          l[k] = link[i];
          gm[k] = gemmM[i];
          gn[k] = gemmN[i];
          gk[k] = gemmK[i];
          k++;
        }
      }
      if (k == from) {
        continue;
      }
      CostGroup cg = groups.get(g);
      RooflineKernel kg = k - from < SMALL ? small : kernel;
      kg.shapeFactors(gm, gn, gk, from, k, cg.computeUnits(), shape);
      kg.gemmFloors(f, gm, gn, gk, from, k, cg.gemmFloorSeconds(), floor);
      kg.evaluate(f, shape, floor, m, l, from, k, RooflineKernel.Coefficients.of(cg.effectivePeakFlops(),
          cg.effectiveMemBandwidth(), cg.effectiveLinkBandwidth(), cg.launchSeconds()), t, a, in, b);
    }
    double[] issue = new double[phaseSeconds.length];
    double[] gpu = new double[phaseSeconds.length];
    boolean[] synced = new boolean[n];
    double[] syncExposed = syncedPasses(order, t, k, synced);
    for (int j = 0; j < k; j++) {
      int i = order[j];
      double seconds = t[j] * weight[i];
      Lane lane = lanes.get(stream[i]);
      if (hostIssue[i]) {
        if (!synced[i]) {
          issue[phase[i]] += seconds;
        }
        continue;
      }
      if (lane == Lane.COMPUTE && !synced[i]) {
        gpu[phase[i]] += seconds;
      }
      totalSeconds += seconds;
      phaseSeconds[phase[i]] += seconds;
      double overhead = lane == Lane.COMPUTE ? Math.min(t[j], groups.get(group[i]).launchSeconds()) * weight[i] : 0;
      boundSeconds[boundIndex(lane, b[j])] += seconds - overhead;
      boundSeconds[OVERHEAD] += overhead;
    }
    for (int p = 0; p < issue.length; p++) {
      double exposed = Math.max(0, issue[p] - gpu[p]) + syncExposed[p];
      totalSeconds += exposed;
      phaseSeconds[p] += exposed;
      boundSeconds[boundIndex(Lane.CPU, 0)] += exposed;
    }
  }

  /**
   * The host time the forward passes with a host sync before their MLP expose beyond their GPU compute, per phase:
   * each such pass (in op order: the host's issue up to the sync, the GPU's ops to it, the host's issue of the MLP,
   * the MLP's GPU ops, up to the next issue) takes max(a, g_mlp) + g_attn + b, of which g_attn + g_mlp is GPU time
   * summed already. Marks the ops of those passes in {@code synced}, which the per-phase max then leaves out.
   */
  private double[] syncedPasses(int[] order, double[] t, int k, boolean[] synced) {
    double[] exposed = new double[phaseSeconds.length];
    int before = groupNamed(StepContext.HOST_BEFORE_MLP_SYNC);
    if (before < 0) {
      return exposed; // no such profile: nothing more to do on the closed form's hot path
    }
    int after = groupNamed(StepContext.HOST_MLP_AFTER_SYNC);
    double[] seconds = new double[size];
    for (int j = 0; j < k; j++) {
      seconds[order[j]] = t[j] * weight[order[j]];
    }
    int state = 0; // 0 outside such a pass, 1 before its sync, 2 after it
    double a = 0;
    double gAttn = 0;
    double b = 0;
    double gMlp = 0;
    int p = 0;
    for (int i = 0; i < size; i++) {
      int g = hostIssue[i] ? group[i] : -1;
      if (state > 0 && (g == before || (g >= 0 && state == 2))) { // the host's next issue ends the pass
        exposed[p] += passExposed(state, a, gAttn, b, gMlp);
        state = 0;
      }
      if (g == before) {
        state = 1;
        a = seconds[i];
        gAttn = 0;
        p = phase[i];
      } else if (g == after && state == 1) {
        state = 2;
        b = seconds[i];
        gMlp = 0;
      } else if (g >= 0 && state == 1) {
        a += seconds[i]; // the host's other issue before the sync (the unfused softmax's calls)
      } else if (g < 0 && state > 0 && lanes.get(stream[i]) == Lane.COMPUTE) {
        gAttn += state == 1 ? seconds[i] : 0;
        gMlp += state == 2 ? seconds[i] : 0;
      } else {
        continue; // outside such a pass, or a collective or copy (off the compute lane, as in the per-phase max)
      }
      synced[i] = true;
    }
    if (state > 0) {
      exposed[p] += passExposed(state, a, gAttn, b, gMlp);
    }
    return exposed;
  }

  /** A synced pass's host time beyond its GPU compute: max(a, g_mlp) + b - g_mlp (cut before its MLP: a - g_attn). */
  private static double passExposed(int state, double a, double gAttn, double b, double gMlp) {
    return state == 2 ? Math.max(a, gMlp) + b - gMlp : Math.max(0, a - gAttn);
  }

  /** The cost group of that name, or -1. */
  private int groupNamed(String name) {
    for (int g = 0; g < groups.size(); g++) {
      if (groups.get(g).name().equals(name)) {
        return g;
      }
    }
    return -1;
  }

  private static final int OVERHEAD = llmsim.core.engine.Bound.OVERHEAD.ordinal();

  /** 0 compute, 1 device memory, 2 host link, 3 host: the order of {@code llmsim.core.engine.Bound}. */
  private static int boundIndex(Lane lane, double kernelBound) {
    if (lane == Lane.CPU) {
      return 3;
    }
    llmsim.core.engine.Bound transfer = llmsim.core.engine.Bound.ofTransferLane(lane);
    if (transfer != null) {
      return transfer.ordinal();
    }
    if (kernelBound == RooflineKernel.LINK) {
      return 2;
    }
    return kernelBound == RooflineKernel.COMPUTE ? 0 : 1;
  }

  public double totalSeconds() {
    return totalSeconds;
  }

  public double phaseSeconds(int p) {
    return phaseSeconds[p];
  }

  public double boundSeconds(int bound) {
    return boundSeconds[bound];
  }

  public int rows() {
    return size;
  }
}
