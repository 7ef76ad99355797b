package llmsim.core.engine;

/**
 * The arrays a simulation's op table, costs and run use, kept from one run to the next (as the closed form keeps
 * its {@code RooflineSum}): a cluster step allocated and first touched some 56 MB per run for them, which on a
 * machine slow to touch new memory was most of building and setting up the run (docs/PERFORMANCE.md, "the cluster
 * step"). Each array is sized to the largest run seen and overwritten, or cleared, before it is read.
 *
 * <p>Not thread-safe: one per thread (or per {@code Estimator}, itself one per thread). A {@link Simulation} built
 * on a workspace returns a {@link Trace} that reads the workspace's arrays, valid until the next simulation built
 * on the same workspace runs: use it for runs whose trace is read and dropped before the next (sweep points).
 */
public final class Workspace {
  final OpTable table = new OpTable();
  double[] start = new double[0];
  double[] end = new double[0];
  long[] state = new long[0];
  long[] rows = new long[0];
  int[] pendingDeps = new int[0];
  int[] dependentsStart = new int[0];
  int[] dependents = new int[0];
  byte[] phase = new byte[0];
  /** Costs per row ({@link Costs}), and its group order. */
  final double[][] costDoubles = new double[8][0];
  final int[][] costInts = new int[5][0];
  int[] order = new int[0];
  /** The buffers costs are gathered into per group ({@link Costs#evaluate}). */
  final double[][] groupBuffers = new double[12][0];
  /** Per stream: its ops, in order, of an unreplicated run (a list may be longer than the stream's count). */
  int[][] queues = new int[0][];
  /** The bound sweep's stacks' arrays, every GPU's in one (empty until a run has made them). */
  long[] stackEntries = new long[0];
  double[] stackFrom = new double[0];

  /** The op table, emptied, for a new simulation. */
  OpTable table() {
    table.reset();
    return table;
  }

  static double[] doubles(double[] a, int n) {
    return a.length >= n ? a : new double[n];
  }

  static long[] longs(long[] a, int n) {
    return a.length >= n ? a : new long[n];
  }

  static int[] ints(int[] a, int n) {
    return a.length >= n ? a : new int[n];
  }
}
