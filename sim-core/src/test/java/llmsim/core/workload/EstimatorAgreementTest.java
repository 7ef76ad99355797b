package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.ArrayList;
import java.util.List;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.Kernels;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Where the engine adds nothing (one stream, no overlap, no offload), the closed form equals the simulation. */
class EstimatorAgreementTest {
  final Estimator estimator = new Estimator(Kernels.get());

  @Test
  void analyticAndSimulatedModes_agreeAcrossAGrid() {
    List<String> checked = new ArrayList<>();
    for (SystemSpec s : List.of(Fixtures.unified(), Fixtures.discrete(), Fixtures.discrete(114))) {
      for (ModelSpec m : List.of(Fixtures.llama7b(), Fixtures.llama65b())) {
        for (SoftwareProfile sw : List.of(SoftwareProfiles.PYTORCH, SoftwareProfiles.LLAMA_CPP)) {
          for (Task t : tasks()) {
            Estimate a = estimator.analytic(s, m, t, sw);
            Estimate e = estimator.simulated(s, m, t, sw);
            String what = s.id() + "/" + m.id() + "/" + sw.id() + "/" + t;
            assertThat(a.stepTimeSeconds()).as(what).isCloseTo(e.stepTimeSeconds(), withPercentage(1e-6));
            if (!t.kind().training()) {
              assertThat(a.ttftSeconds()).as(what).isCloseTo(e.ttftSeconds(), withPercentage(1e-6));
              assertThat(a.tpotSeconds()).as(what).isCloseTo(e.tpotSeconds(), withPercentage(1e-6));
            }
            assertThat(a.mfu()).as(what).isCloseTo(e.mfu(), withPercentage(1e-6));
            assertThat(a.bound()).as(what).isEqualTo(e.bound());
            checked.add(what);
          }
        }
      }
    }
    assertThat(checked).hasSize(3 * 2 * 2 * tasks().size());
  }

  static List<Task> tasks() {
    return List.of(
        new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, 2048, 512, 64, 1, false, 8, 128, Offload.NONE),
        new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.Q4_0, 8, 2048, 128, 33, 1, false, 8, 128, Offload.NONE),
        new Task(TaskKind.TRAIN, Precision.FP16, WeightFormat.F16, 2, 1024, 1, 1, 2, false, 8, 128, Offload.NONE),
        new Task(TaskKind.TRAIN, Precision.FP16, WeightFormat.F16, 1, 2048, 1, 1, 1, true, 8, 128, Offload.NONE),
        new Task(TaskKind.FINETUNE_LORA, Precision.FP16, WeightFormat.F16, 4, 512, 1, 1, 1, false, 16, 128, Offload.NONE));
  }
}
