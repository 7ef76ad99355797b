package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;

import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
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
 * The tensor-parallel all-reduce carries the row-parallel GEMM's 16-bit output even when the GEMMs take fp8
 * inputs (one byte per activation): the payload is tokens x hidden x 2 bytes, and a ring over tp 2 moves
 * 2(n-1)/n = 1 times it through each GPU's link.
 */
class TensorParallelReduceBytesTest {
  static final long TOKENS = 64;

  static double reducedBytes(double actBytes) {
    ModelSpec m = Fixtures.llama7b();
    Task t = new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, (int) TOKENS + 1, (int) TOKENS, 1, 1,
        Recompute.NONE, 8, 128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO,
        new ParallelPlan(2, 1, 1, 0));
    SoftwareProfile sw = DecodeKvReadsTest.profile(false);
    DecodeKvReadsTest.Recorder r = new DecodeKvReadsTest.Recorder();
    StepContext ctx = new StepContext(Fixtures.cluster(1), t, sw, r, LayerEmitter.opsPerLayer(m, true, 0));
    LayerEmitter le = new LayerEmitter(ctx, m, actBytes, 2, false, false, true, 8, 0, java.util.Set.of(), 2);
    le.forward(0, "L0.", 1, TOKENS, TOKENS, false);
    return r.transferred.get("L0.mlp.tp_all_reduce");
  }

  @Test
  void allReduce_afterFp8Gemms_carriesSixteenBitActivations() {
    double sixteenBit = TOKENS * Fixtures.llama7b().hidden() * 2.0;
    assertThat(reducedBytes(2)).isEqualTo(sixteenBit);
    assertThat(reducedBytes(1)).as("fp8 GEMM inputs, 16-bit outputs").isEqualTo(sixteenBit);
    assertThat(reducedBytes(4)).as("fp32 activations stay fp32").isEqualTo(2 * sixteenBit);
  }
}
