package llmsim.core.engine;

import java.util.List;
import llmsim.core.kernel.RooflineKernel;

/**
 * Every op's standalone roofline cost, evaluated in bulk by the kernel, one call per cost group over
 * the group's ops gathered into contiguous arrays. The components (compute, memory and link time
 * without launch) are what the engine scales when a pool is shared.
 *
 * <p>Costs are evaluated per row of the {@link OpTable}: the copies of a replicated op have the same cost (their
 * groups differ only in the pools they name, copy j's pools being the first copy's plus j), so each is costed once,
 * at the position in its group the first copy has among the first copies' ops. {@link #perOp} spreads them over
 * every copy.
 */
public final class Costs {
  final double[] tCompute;
  final double[] tMemory;
  final double[] tLink;
  /** Standalone service time including launch overhead. */
  public final double[] time;
  /** The launch and dispatch part of {@link #time}: paid before the work starts. */
  public final double[] launch;
  /** FLOP/s attained standalone. */
  public final double[] attained;
  /** FLOP per byte over all bytes the op moves. */
  public final double[] intensity;
  /** {@link RooflineKernel#COMPUTE}, {@link RooflineKernel#MEMORY} or {@link RooflineKernel#LINK}. */
  public final double[] bound;
  private final int[] memPool;
  private final int[] linkPool;
  /** The memory pool of the GPU whose SMs the op holds while it runs (-1: none), and how many (see {@link CostGroup}). */
  final int[] smPool;
  final int[] smsHeld;
  final int[] smsOfDevice;

  private Costs(int n) {
    tCompute = new double[n];
    tMemory = new double[n];
    tLink = new double[n];
    time = new double[n];
    launch = new double[n];
    attained = new double[n];
    intensity = new double[n];
    bound = new double[n];
    memPool = new int[n];
    linkPool = new int[n];
    smPool = new int[n];
    smsHeld = new int[n];
    smsOfDevice = new int[n];
  }

  int memPool(int op) {
    return memPool[op];
  }

  int linkPool(int op) {
    return linkPool[op];
  }

  /** The same costs with one entry per op, every copy of a row its own (pools offset by the copy). */
  Costs perOp(OpTable ops) {
    if (!ops.replicated()) {
      return this;
    }
    int n = ops.size();
    Costs c = new Costs(n);
    for (int i = 0; i < n; i++) {
      int r = ops.row(i);
      int j = i - ops.first(r);
      c.tCompute[i] = tCompute[r];
      c.tMemory[i] = tMemory[r];
      c.tLink[i] = tLink[r];
      c.time[i] = time[r];
      c.launch[i] = launch[r];
      c.attained[i] = attained[r];
      c.intensity[i] = intensity[r];
      c.bound[i] = bound[r];
      c.memPool[i] = memPool[r] < 0 ? -1 : memPool[r] + j;
      c.linkPool[i] = linkPool[r] < 0 ? -1 : linkPool[r] + j;
      c.smPool[i] = smPool[r] < 0 ? -1 : smPool[r] + j;
      c.smsHeld[i] = smsHeld[r];
      c.smsOfDevice[i] = smsOfDevice[r];
    }
    return c;
  }

  /** Costs per row of {@code ops} (an op's are its row's, see the class comment). */
  static Costs evaluate(RooflineKernel kernel, OpTable ops, List<CostGroup> groups) {
    int n = ops.rows();
    Costs c = new Costs(n);
    int g = groups.size();
    int[] start = new int[g + 1];
    int[] grp = ops.groups();
    for (int i = 0; i < n; i++) {
      start[grp[i] + 1]++;
    }
    for (int k = 0; k < g; k++) {
      start[k + 1] += start[k];
    }
    int[] order = new int[n];
    int[] fill = start.clone();
    for (int i = 0; i < n; i++) {
      order[fill[grp[i]]++] = i;
    }
    double[] f = gather(ops.flops(), order);
    double[] mb = gather(ops.memBytes(), order);
    double[] lb = gather(ops.linkBytes(), order);
    double[] gm = gather(ops.gemmM(), order);
    double[] gn = gather(ops.gemmN(), order);
    double[] gk = gather(ops.gemmK(), order);
    double[] shape = new double[n];
    double[] floor = new double[n];
    double[] t = new double[n];
    double[] a = new double[n];
    double[] in = new double[n];
    double[] b = new double[n];
    for (int k = 0; k < g; k++) {
      CostGroup cg = groups.get(k);
      RooflineKernel.Coefficients co = RooflineKernel.Coefficients.of(cg.effectivePeakFlops(),
          cg.effectiveMemBandwidth(), cg.effectiveLinkBandwidth(), cg.launchSeconds());
      kernel.shapeFactors(gm, gn, gk, start[k], start[k + 1], cg.computeUnits(), shape);
      kernel.gemmFloors(f, gm, gn, gk, start[k], start[k + 1], cg.gemmFloorSeconds(), floor);
      kernel.evaluate(f, shape, floor, mb, lb, start[k], start[k + 1], co, t, a, in, b);
      for (int j = start[k]; j < start[k + 1]; j++) {
        int op = order[j];
        c.time[op] = t[j];
        c.attained[op] = a[j];
        c.intensity[op] = in[j];
        c.bound[op] = b[j];
        c.tCompute[op] = f[j] * co.invPeakFlops() / shape[j] + floor[j];
        c.tMemory[op] = mb[j] * co.invDeviceBandwidth();
        c.tLink[op] = lb[j] * co.invLinkBandwidth();
        c.launch[op] = co.launchSeconds();
        c.memPool[op] = mb[j] > 0 ? cg.memPool() : -1;
        c.linkPool[op] = lb[j] > 0 ? cg.linkPool() : -1;
        c.smPool[op] = cg.smsHeld() > 0 ? cg.smPool() : -1;
        c.smsHeld[op] = cg.smsHeld();
        c.smsOfDevice[op] = cg.smsOfDevice();
      }
    }
    return c;
  }

  private static double[] gather(double[] src, int[] order) {
    double[] out = new double[order.length];
    for (int j = 0; j < order.length; j++) {
      out[j] = src[order[j]];
    }
    return out;
  }
}
