package llmsim.cli;

import llmsim.core.sweep.ChunkedJob;
import llmsim.core.workload.OpBudget;

/**
 * The ops each point of a simulated sweep would add, counted in the sweep's own chunks on its own backend: walking
 * a point's step to count its ops costs a few milliseconds on a 512-GPU plan, which on one thread before the sweep
 * (the way it was done first) was seconds of serial work ahead of any worker, and with a cluster took the client's
 * CPU from the workers. The counts come back to the caller, which checks them against its budget before any row.
 *
 * @param sweep the sweep whose points are counted (its grid is built once per process, as for the sweep itself)
 */
record OpCountJob(SweepJob sweep) implements ChunkedJob<long[]> {
  private static final long serialVersionUID = 1L;

  @Override
  public long chunks() {
    return sweep.chunks();
  }

  /** The op count of each point of chunk {@code c}, in index order. */
  @Override
  public long[] compute(long c) {
    SweepGrid grid = sweep.grid();
    long start = sweep.start(c);
    long end = sweep.end(c);
    long[] ops = new long[(int) (end - start)];
    for (long i = start; i < end; i++) {
      SweepGrid.Point p = grid.point(i);
      // a point a rule refuses is skipped: it builds nothing
      ops[(int) (i - start)] = p == null ? 0 : OpBudget.ops(p.system(), p.model(), p.task(), p.software());
    }
    return ops;
  }
}
