package llmsim.distributed;

import java.io.Serializable;
import java.util.concurrent.Callable;
import llmsim.core.sweep.ChunkedJob;

/** One chunk index of a job, as a task a member runs: the job (its grid's axes, not its points) travels with it. */
record ChunkTask<R extends Serializable>(ChunkedJob<R> job, long chunk) implements Callable<R>, Serializable {
  private static final long serialVersionUID = 1L;

  @Override
  public R call() {
    return job.compute(chunk);
  }
}
