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

  /** Costs of {@code n} rows in the workspace's arrays (grown to {@code n} where shorter; every entry is written). */
  private Costs(int n, Workspace ws) {
    double[][] d = ws.costDoubles;
    for (int i = 0; i < d.length; i++) {
      d[i] = Workspace.doubles(d[i], n);
    }
    int[][] k = ws.costInts;
    for (int i = 0; i < k.length; i++) {
      k[i] = Workspace.ints(k[i], n);
    }
    tCompute = d[0];
    tMemory = d[1];
    tLink = d[2];
    time = d[3];
    launch = d[4];
    attained = d[5];
    intensity = d[6];
    bound = d[7];
    memPool = k[0];
    linkPool = k[1];
    smPool = k[2];
    smsHeld = k[3];
    smsOfDevice = k[4];
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

  /**
   * Costs per row of {@code ops} (an op's are its row's, see the class comment). Each group's ops are gathered into
   * buffers the size of the largest group, costed there by the kernel from index 0 (its vector and scalar parts
   * split by the group's size alone, as when the whole table was gathered at once) and spread back to their rows:
   * the buffers stay in cache, and the run allocates a dozen arrays per group's size rather than per op.
   */
  static Costs evaluate(RooflineKernel kernel, OpTable ops, List<CostGroup> groups, Workspace ws) {
    int n = ops.rows();
    Costs c = ws == null ? new Costs(n) : new Costs(n, ws);
    int g = groups.size();
    int[] start = new int[g + 1];
    int[] grp = ops.groups();
    for (int i = 0; i < n; i++) {
      start[grp[i] + 1]++;
    }
    int largest = 0;
    for (int k = 0; k < g; k++) {
      largest = Math.max(largest, start[k + 1]);
      start[k + 1] += start[k];
    }
    int[] order = ws == null ? new int[n] : (ws.order = Workspace.ints(ws.order, n));
    int[] fill = start.clone();
    for (int i = 0; i < n; i++) {
      order[fill[grp[i]]++] = i;
    }
    double[] flops = ops.flops();
    double[] memBytes = ops.memBytes();
    double[] linkBytes = ops.linkBytes();
    double[] gemmM = ops.gemmM();
    double[] gemmN = ops.gemmN();
    double[] gemmK = ops.gemmK();
    // a workspace's buffers may be longer than the largest group: the kernel reads and writes 0..size alone
    double[][] buf = ws == null ? new double[12][] : ws.groupBuffers;
    for (int i = 0; i < buf.length; i++) {
      buf[i] = ws == null ? new double[largest] : Workspace.doubles(buf[i], largest);
    }
    double[] f = buf[0];
    double[] mb = buf[1];
    double[] lb = buf[2];
    double[] gm = buf[3];
    double[] gn = buf[4];
    double[] gk = buf[5];
    double[] shape = buf[6];
    double[] floor = buf[7];
    double[] t = buf[8];
    double[] a = buf[9];
    double[] in = buf[10];
    double[] b = buf[11];
    for (int k = 0; k < g; k++) {
      CostGroup cg = groups.get(k);
      RooflineKernel.Coefficients co = RooflineKernel.Coefficients.of(cg.effectivePeakFlops(),
          cg.effectiveMemBandwidth(), cg.effectiveLinkBandwidth(), cg.launchSeconds());
      int from = start[k];
      int size = start[k + 1] - from;
      for (int j = 0; j < size; j++) {
        int op = order[from + j];
        f[j] = flops[op];
        mb[j] = memBytes[op];
        lb[j] = linkBytes[op];
        gm[j] = gemmM[op];
        gn[j] = gemmN[op];
        gk[j] = gemmK[op];
      }
      kernel.shapeFactors(gm, gn, gk, 0, size, cg.computeUnits(), shape);
      kernel.gemmFloors(f, gm, gn, gk, 0, size, cg.gemmFloorSeconds(), floor);
      kernel.evaluate(f, shape, floor, mb, lb, 0, size, co, t, a, in, b);
      int memPool = cg.memPool();
      int linkPool = cg.linkPool();
      int smPool = cg.smsHeld() > 0 ? cg.smPool() : -1;
      int smsHeld = cg.smsHeld();
      int smsOfDevice = cg.smsOfDevice();
      for (int j = 0; j < size; j++) {
        int op = order[from + j];
        c.time[op] = t[j];
        c.attained[op] = a[j];
        c.intensity[op] = in[j];
        c.bound[op] = b[j];
        c.tCompute[op] = f[j] * co.invPeakFlops() / shape[j] + floor[j];
        c.tMemory[op] = mb[j] * co.invDeviceBandwidth();
        c.tLink[op] = lb[j] * co.invLinkBandwidth();
        c.launch[op] = co.launchSeconds();
        c.memPool[op] = mb[j] > 0 ? memPool : -1;
        c.linkPool[op] = lb[j] > 0 ? linkPool : -1;
        c.smPool[op] = smPool;
        c.smsHeld[op] = smsHeld;
        c.smsOfDevice[op] = smsOfDevice;
      }
    }
    return c;
  }
}
