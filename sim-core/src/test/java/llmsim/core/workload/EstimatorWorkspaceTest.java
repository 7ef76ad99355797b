package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.Kernels;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/**
 * An {@link Estimator} keeps its simulations' arrays from one point to the next ({@link llmsim.core.engine.Workspace}):
 * each point, run after larger and smaller ones, replicated and not, must come out exactly as on fresh arrays.
 */
class EstimatorWorkspaceTest {
  record Point(SystemSpec system, ModelSpec model, Task task, SoftwareProfile software) {}

  @Test
  void pointsRunOnKeptArrays_equalPointsRunOnFreshOnes() {
    SystemSpec cluster = Fixtures.cluster(2);
    Task pipeline = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 2048, 1, 1, 8, Recompute.NONE, 8,
        128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(2, 4, 2, 0));
    Task symmetric = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 1, 2048, 1, 1, 4, Recompute.NONE, 8,
        128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO, new ParallelPlan(2, 2, 4, 1));
    Task everyGpu = symmetric.withPlan(symmetric.plan().withAllGpus(true));
    Task decode = new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, 512, 64, 16, 1, false, 8, 128,
        Offload.NONE);
    Task train = new Task(TaskKind.TRAIN, Precision.FP16, WeightFormat.F16, 2, 1024, 1, 1, 2, false, 8, 128,
        Offload.NONE);
    ModelSpec m = PipelineTest.M;
    // largest first, then smaller ones on longer arrays, a replicated run between unreplicated ones, and back
    List<Point> points = List.of(
        new Point(cluster, m, pipeline, SoftwareProfiles.MEGATRON),
        new Point(Fixtures.discrete(), Fixtures.llama7b(), decode, SoftwareProfiles.PYTORCH),
        new Point(cluster, m, everyGpu, SoftwareProfiles.MEGATRON),
        new Point(cluster, m, symmetric, SoftwareProfiles.MEGATRON),
        new Point(Fixtures.discrete(), Fixtures.llama7b(), train, SoftwareProfiles.PYTORCH),
        new Point(cluster, m, everyGpu, SoftwareProfiles.MEGATRON),
        new Point(cluster, m, pipeline, SoftwareProfiles.MEGATRON),
        new Point(Fixtures.discrete(), Fixtures.llama7b(), decode, SoftwareProfiles.PYTORCH));
    Estimator kept = new Estimator(Kernels.get());
    for (Point p : points) {
      Estimate e = kept.simulated(p.system(), p.model(), p.task(), p.software());
      Estimate fresh = new Estimator(Kernels.get()).simulated(p.system(), p.model(), p.task(), p.software());
      // and the simulator's step, which builds its own arrays
      StepResult r = Simulator.simulate(p.system(), p.model(), p.task(), p.software());
      String what = p.task().toString();
      assertThat(e.stepTimeSeconds()).as(what).isPositive().isEqualTo(fresh.stepTimeSeconds())
          .isEqualTo(r.stepTimeSeconds());
      // bit for bit (NaN for a training step)
      assertThat(Double.doubleToLongBits(e.ttftSeconds())).as(what).isEqualTo(Double.doubleToLongBits(fresh.ttftSeconds()));
      assertThat(Double.doubleToLongBits(e.tpotSeconds())).as(what).isEqualTo(Double.doubleToLongBits(fresh.tpotSeconds()));
      assertThat(e.mfu()).as(what).isEqualTo(fresh.mfu());
      assertThat(e.secondsByBound()).as(what).containsExactly(fresh.secondsByBound());
      assertThat(e.bound()).as(what).isEqualTo(fresh.bound());
      if (!p.task().kind().training()) {
        assertThat(e.ttftSeconds()).as(what).isPositive().isEqualTo(r.ttftSeconds());
      }
    }
  }
}
