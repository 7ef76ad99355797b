package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.engine.OpSink;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
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
 * A decode kernel that loads keys and values once per query head (TensorRT-LLM's masked MHA before XQA) reads a
 * GQA model's KV cache (query heads / KV heads) times per step on each GPU; prefill and MHA models are unchanged.
 * The expected bytes are worked out here from the shapes, not taken from the program.
 */
class DecodeKvReadsTest {
  static final int HEADS = 64;
  static final int KV_HEADS = 8;
  static final int HEAD_DIM = 128;
  static final int BATCH = 4;
  static final int PROMPT = 100;

  static SoftwareProfile profile(boolean perQueryHead) {
    SoftwareProfile p = SoftwareProfile.builder("t", "test").launchSeconds(0).kernelsPerLayer(1).flashAttention(true)
        .workspaceBytes(0).source("test").build();
    return perQueryHead ? p.withDecodeKvPerQueryHead() : p;
  }

  /** Two layers of a LLaMA-2-70B-shaped model: 64 query heads sharing 8 KV heads. */
  static ModelSpec gqa() {
    return new ModelSpec("gqa", "GQA test", "llama", List.of(), 2, HEADS * HEAD_DIM, HEADS, KV_HEADS, HEAD_DIM, 28672,
        FfnKind.SWIGLU, 32000, false, 4096, NormKind.RMSNORM, false, false, false, false, 2, 0, "test");
  }

  /** Bytes of every op by name, for a build that keeps names. */
  static final class Recorder implements OpSink {
    final Map<String, Double> bytes = new HashMap<>();
    final Map<String, Double> transferred = new HashMap<>();
    int next;

    @Override
    public int addPool(String name) {
      return next++;
    }

    @Override
    public int addStream(String name, Lane lane) {
      return next++;
    }

    @Override
    public int addGroup(CostGroup g) {
      return next++;
    }

    @Override
    public int addOp(String name, OpKind kind, int stream, int group, double flops, double memBytes, double linkBytes,
        int... deps) {
      bytes.put(name, memBytes);
      transferred.put(name, linkBytes);
      return next++;
    }
  }

  static Map<String, Double> build(SystemSpec s, ModelSpec m, int tp, boolean perQueryHead) {
    Task t = new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, BATCH, PROMPT + 2, PROMPT, 2, 1,
        Recompute.NONE, 8, 128, Offload.NONE, 0, KvCacheFormat.F16, Task.GPU_LAYERS_AUTO,
        new ParallelPlan(tp, 1, 1, 0));
    SoftwareProfile sw = profile(perQueryHead);
    Recorder r = new Recorder();
    new WorkloadBuilder(s, m, t, sw, MemoryPlanner.choose(s, m, t, sw), r).build();
    return r.bytes;
  }

  /** K and V of every sequence over {@code keys} keys, for this GPU's KV heads, in f16. */
  static double kvBytes(int kvHeadsPerGpu, double keys) {
    return 2.0 * BATCH * keys * kvHeadsPerGpu * HEAD_DIM * 2;
  }

  @Test
  void decode_perQueryHead_readsTheCacheOncePerQueryHeadOfTheGpu() {
    // one GPU: 64 query heads over 8 KV heads; the first decode step attends over the prompt and its own token
    double keys = PROMPT + 1;
    Map<String, Double> shared = build(Fixtures.discrete(), gqa(), 1, false);
    Map<String, Double> perHead = build(Fixtures.discrete(), gqa(), 1, true);
    double extra = (HEADS / KV_HEADS - 1) * kvBytes(KV_HEADS, keys);
    assertThat(perHead.get("t1.L0.attention") - shared.get("t1.L0.attention")).isCloseTo(extra,
        org.assertj.core.data.Offset.offset(1e-6 * extra));
    assertThat(perHead.get("prefill.L0.attention")).as("the prefill's flash kernel is not the decode kernel")
        .isEqualTo(shared.get("prefill.L0.attention"));
  }

  @Test
  void decode_perQueryHead_underTensorParallelism_countsTheGpusOwnHeads() {
    double keys = PROMPT + 1;
    // tp 4: 16 query heads over 2 KV heads per GPU, 8 reads of each
    double extra4 = (16 / 2 - 1) * kvBytes(2, keys);
    assertThat(build(Fixtures.cluster(1), gqa(), 4, true).get("t1.L0.attention")
        - build(Fixtures.cluster(1), gqa(), 4, false).get("t1.L0.attention"))
        .isCloseTo(extra4, org.assertj.core.data.Offset.offset(1e-6 * extra4));
    // tp 16 over 8 KV heads: each GPU keeps one KV head (replicated) for its 4 query heads: 4 reads
    double extra16 = (4 - 1) * kvBytes(1, keys);
    assertThat(build(Fixtures.cluster(2), gqa(), 16, true).get("t1.L0.attention")
        - build(Fixtures.cluster(2), gqa(), 16, false).get("t1.L0.attention"))
        .isCloseTo(extra16, org.assertj.core.data.Offset.offset(1e-6 * extra16));
  }

  @Test
  void decode_perQueryHead_changesNothingForMultiHeadAttention() {
    ModelSpec mha = Fixtures.llama7b();
    assertThat(build(Fixtures.discrete(), mha, 1, true)).isEqualTo(build(Fixtures.discrete(), mha, 1, false));
  }
}
