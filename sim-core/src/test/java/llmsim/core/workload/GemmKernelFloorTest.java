package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.engine.OpSink;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.GemmTiles;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Which GEMMs a step pays the GEMM kernel floor on ({@link GemmTiles#KERNEL_FLOOR_SECONDS}), and how much. */
class GemmKernelFloorTest {
  static final Task INFERENCE = new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, 2048, 512, 1, 1,
      false, 8, 128, Offload.NONE);

  /** Keeps the cost groups a step context adds, and no ops. */
  static final class Groups implements OpSink {
    final List<CostGroup> groups = new ArrayList<>();
    int pools;
    int streams;

    @Override
    public int addPool(String name) {
      return pools++;
    }

    @Override
    public int addStream(String name, Lane lane) {
      return streams++;
    }

    @Override
    public int addGroup(CostGroup g) {
      groups.add(g);
      return groups.size() - 1;
    }

    @Override
    public int addOp(String name, OpKind kind, int stream, int group, double flops, double memBytes, double linkBytes,
        int... deps) {
      return -1;
    }

    double floor(String name) {
      return groups.stream().filter(g -> g.name().equals(name)).findFirst().orElseThrow().gemmFloorSeconds();
    }
  }

  static Groups groups(SystemSpec s, SoftwareProfile sw) {
    Groups g = new Groups();
    new StepContext(s, INFERENCE, sw, g, 1, 1, "");
    return g;
  }

  @Test
  void onADeviceWithSms_anEagerProfilesGemmsPayTheWholeFloor_andNoOtherKernelDoes() {
    // eager PyTorch's 12 us per kernel is host time, eager minus CUDA-graph decode: the GPU's floor is not in it
    Groups g = groups(Fixtures.discrete(108), SoftwareProfiles.PYTORCH);
    assertThat(g.floor("gemm")).isEqualTo(GemmTiles.KERNEL_FLOOR_SECONDS);
    assertThat(g.floor("gemm (backward)")).isEqualTo(GemmTiles.KERNEL_FLOOR_SECONDS);
    for (String other : List.of("element-wise", "attention", "gemm (block-quantised weights)", "CPU")) {
      assertThat(g.floor(other)).as(other).isZero();
    }
  }

  @Test
  void llamaCppsGemms_payOnlyThePartOfTheFloorItsLaunchChargeDoesNotHold() {
    // llama.cpp's 4 us per kernel: a 1.1 us launch gap and 2.9 us of a small kernel's minimum duration, GPU time
    // every kernel pays, GEMMs included; the GEMM floor adds the rest on top
    Groups g = groups(Fixtures.discrete(108), SoftwareProfiles.LLAMA_CPP);
    assertThat(g.floor("gemm")).isCloseTo(GemmTiles.KERNEL_FLOOR_SECONDS - (4e-6 - 1.1e-6), within(1e-15));
    assertThat(g.floor("gemm (block-quantised weights)")).isZero();
  }

  @Test
  void withoutAnSmCount_noGemmPaysAFloor() {
    // no tile model (Apple GPUs, or a device whose SMs are not catalogued): no measurement of its GEMM kernels
    for (SystemSpec s : List.of(Fixtures.discrete(), Fixtures.unified())) {
      Groups g = groups(s, SoftwareProfiles.PYTORCH);
      assertThat(g.floor("gemm")).isZero();
      assertThat(g.floor("gemm (backward)")).isZero();
    }
  }
}
