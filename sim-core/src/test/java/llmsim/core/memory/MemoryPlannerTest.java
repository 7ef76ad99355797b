package llmsim.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.data.Offset.offset;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import llmsim.core.util.Units;
import org.junit.jupiter.api.Test;

class MemoryPlannerTest {
  final ModelSpec llama7b = Fixtures.llama7b();
  final ModelSpec llama65b = Fixtures.llama65b();

  @Test
  void fullTraining_mixedPrecisionAdamW_keeps16BytesPerParameter() {
    Footprint f = Footprint.of(llama7b, Task.defaults(TaskKind.TRAIN), true);
    double p = llama7b.parameterCount();
    // 2 (bf16 weights) + 2 (bf16 grads) + 4 (fp32 master) + 4 (m) + 4 (v)
    assertThat(f.weightsBytes() + f.gradientsBytes() + f.optimizerBytes()).isEqualTo(16 * p);
    assertThat(f.optimizerBytes()).isEqualTo(12 * p);
  }

  @Test
  void fp32Training_keeps16BytesPerParameterWithoutMasterCopy() {
    Task t = new Task(TaskKind.TRAIN, Precision.FP32, WeightFormat.F32, 1, 512, 1, 1, 1, false, 8, 128, Offload.NONE);
    Footprint f = Footprint.of(llama7b, t, true);
    double p = llama7b.parameterCount();
    assertThat(f.weightsBytes()).isEqualTo(4 * p);
    assertThat(f.gradientsBytes()).isEqualTo(4 * p);
    assertThat(f.optimizerBytes()).isEqualTo(8 * p);
  }

  @Test
  void kvCache_is2xLayersxKvHeadsxHeadDimxContextxBatchx2Bytes() {
    Task t = Task.defaults(TaskKind.INFERENCE).withBatch(4);
    Footprint f = Footprint.of(llama7b, t, true);
    long context = 512 + 128;
    double expected = 2.0 * 32 * 32 * 128 * context * 4 * 2;
    assertThat(f.kvCacheBytes()).isEqualTo(expected);
  }

  @Test
  void lora_trainsOnlyAdaptersOnQueryAndValue() {
    Task t = Task.defaults(TaskKind.FINETUNE_LORA);
    Footprint f = Footprint.of(llama7b, t, true);
    // rank 8 on q (4096 -> 4096) and v (4096 -> 4096): r * (in + out) each, 32 layers
    double adapters = 32 * (8.0 * (4096 + 4096) + 8.0 * (4096 + 4096));
    assertThat(f.trainableParameters()).isEqualTo(adapters);
    assertThat(f.gradientsBytes()).isEqualTo(4 * adapters);
    assertThat(f.optimizerBytes()).isEqualTo(8 * adapters);
    assertThat(f.weightsBytes()).isEqualTo(2.0 * llama7b.parameterCount() + 4 * adapters);
  }

  @Test
  void qlora_storesLinearWeightsIn4127BitsAndEmbeddingsIn16() {
    Footprint f = Footprint.of(llama7b, Task.defaults(TaskKind.FINETUNE_QLORA), true);
    double embeddings = 2.0 * 32000 * 4096;
    double base = (llama7b.parameterCount() - embeddings) * 4.127 / 8 + embeddings * 2;
    assertThat(f.weightsBytes() - 4 * f.trainableParameters()).isCloseTo(base, offset(1.0));
  }

  @Test
  void llamaCppQ4_0_is4point5BitsPerWeight() {
    assertThat(Footprint.baseWeightBytes(llama7b, WeightFormat.Q4_0)).isEqualTo(llama7b.parameterCount() * 4.5 / 8);
    assertThat(Footprint.baseWeightBytes(llama7b, WeightFormat.Q8_0)).isEqualTo(llama7b.parameterCount() * 8.5 / 8);
  }

  @Test
  void activationCheckpointing_shrinksTrainingActivations() {
    Task on = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 4, 2048, 1, 1, 1, true, 8, 128, Offload.NONE);
    Task off = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 4, 2048, 1, 1, 1, false, 8, 128, Offload.NONE);
    double withCkpt = Footprint.of(llama7b, on, true).activationsBytes();
    double without = Footprint.of(llama7b, off, true).activationsBytes();
    double logits = 4 * 2048 * 32000 * 6.0;
    // per layer per token: 2 x (4h + 2 q + 2 kv + 4 f) bytes without; 2h bytes with checkpointing (+ one layer)
    double perTokenLayer = 2.0 * (4 * 4096 + 2 * 4096 + 2 * 4096 + 4 * 11008);
    assertThat(without).isEqualTo(32 * 4 * 2048 * perTokenLayer + logits);
    assertThat(withCkpt).isEqualTo(32 * 4 * 2048 * 2.0 * 4096 + 4 * 2048 * perTokenLayer + logits);
    assertThat(withCkpt).isLessThan(without / 3);
  }

  @Test
  void selectiveRecompute_dropsTheAttentionScoresOnly() {
    Task none = new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, 4, 2048, 1, 1, 1, false, 8, 128, Offload.NONE);
    Task selective = none.withRecompute(Recompute.SELECTIVE);
    // without FlashAttention each layer keeps its softmax output, 2 bytes x heads x s^2 per sequence (Korthikanti
    // et al.'s 5as^2b counts the softmax input and dropout mask as well; no dropout here); selective drops them
    double scores = 32 * 2.0 * 32 * 2048 * 2048 * 4;
    assertThat(Footprint.of(llama7b, none, false).activationsBytes() - Footprint.of(llama7b, selective, false)
        .activationsBytes()).isCloseTo(scores, withPercentage(1e-9));
    // FlashAttention never keeps them: selective changes nothing
    assertThat(Footprint.of(llama7b, selective, true).activationsBytes())
        .isEqualTo(Footprint.of(llama7b, none, true).activationsBytes());
  }

  @Test
  void recomputeFullOffload_parksEveryLayerInputInHostMemory() {
    // LLaMA-7B, batch 1 x 2048 tokens in bf16: each of the 32 layers' input, 2048 x 4096 x 2 bytes, waits in host
    // memory until its recomputation; 'in host memory' read 0 while the device's activations dropped by as much
    SystemSpec h100 = Fixtures.discrete();
    Task full = Task.defaults(TaskKind.TRAIN).withOffload(Offload.NONE).withRecompute(Recompute.FULL);
    Task parked = full.withRecompute(Recompute.FULL_OFFLOAD);
    MemoryPlan onDevice = MemoryPlanner.plan(h100, llama7b, full, SoftwareProfiles.PYTORCH);
    MemoryPlan onHost = MemoryPlanner.plan(h100, llama7b, parked, SoftwareProfiles.PYTORCH);
    double inputs = 32 * 2048.0 * 4096 * 2;
    assertThat(onHost.hostBytes() - onDevice.hostBytes()).isCloseTo(inputs, within(1.0));
    // the device keeps the one input its recomputing layer reads back
    assertThat(onDevice.activationsBytes() - onHost.activationsBytes()).isCloseTo(inputs - inputs / 32, within(1.0));
  }

  @Test
  void memoryPlan_llama65bInferenceOnH100Class_doesNotFitWithoutOffload() {
    SystemSpec h100 = Fixtures.discrete();
    Task t = Task.defaults(TaskKind.INFERENCE).withOffload(Offload.NONE);
    MemoryPlan p = MemoryPlanner.plan(h100, llama65b, t, SoftwareProfiles.PYTORCH);
    assertThat(p.weightsBytes()).isEqualTo(2.0 * llama65b.parameterCount());
    assertThat(p.weightsBytes() / 1e9).isBetween(125.0, 135.0); // "65B in f16 is ~130 GB"
    assertThat(p.fits()).isFalse();
    assertThat(p.shortfallBytes()).isEqualTo(p.totalBytes() - 80 * Units.GIB);
    assertThat(p.maxBatch()).isZero();
  }

  @Test
  void memoryPlan_llama65bInferenceOnUnified_fitsTheGpuShare() {
    SystemSpec mac = Fixtures.unified();
    MemoryPlan p = MemoryPlanner.plan(mac, llama65b, Task.defaults(TaskKind.INFERENCE), SoftwareProfiles.PYTORCH);
    assertThat(p.capacityBytes()).isEqualTo(0.75 * 192 * Units.GIB);
    assertThat(p.offload()).isEqualTo(Offload.NONE);
    assertThat(p.fits()).isTrue();
  }

  @Test
  void autoOffload_onDiscrete_keepsAsManyLayersAsFit_andStreamsTheRest() {
    SystemSpec gpu = Fixtures.discrete();
    MemoryPlan p = MemoryPlanner.plan(gpu, llama65b, Task.defaults(TaskKind.INFERENCE), SoftwareProfiles.PYTORCH);
    assertThat(p.offload()).isEqualTo(Offload.WEIGHTS);
    assertThat(p.fits()).isTrue();
    double layer = 2.0 * llama65b.parameterCount() / 80;
    int k = p.gpuLayers();
    assertThat(k).isBetween(1, 79);
    assertThat(p.hostBytes()).isCloseTo((80 - k) * layer, within(1.0));
    // k resident layers plus a two-layer streaming buffer
    assertThat(p.weightsBytes()).isCloseTo((k + MemoryPlanner.PREFETCH_LAYERS) * layer, within(1.0));
    // one more layer would not fit: k is the most that does
    double rest = p.activationsBytes() + p.kvCacheBytes() + p.workspaceBytes();
    assertThat((k + 1 + MemoryPlanner.PREFETCH_LAYERS) * layer + rest).isGreaterThan(80 * Units.GIB);
    assertThat(p.neededBytes()).isCloseTo(80 * layer + rest, within(1.0));
  }

  @Test
  void llama13bF16On24GiB_withLlamaCpp_keepsMostLayersOnTheGpu_andTheCpuComputesTheRest() {
    SystemSpec card = Fixtures.discrete24GiB();
    Task t = Task.defaults(TaskKind.INFERENCE);
    MemoryPlan p = MemoryPlanner.plan(card, Fixtures.llama13b(), t, SoftwareProfiles.LLAMA_CPP);
    assertThat(p.offload()).isEqualTo(Offload.WEIGHTS);
    assertThat(p.cpuRunsHostLayers()).isTrue();
    // 40 layers of 0.65 GB in 24 GiB less KV, activations and 0.5 GiB workspace: all but a few fit
    assertThat(p.gpuLayers()).isBetween(33, 39);
    assertThat(p.hostLayers()).isEqualTo(40 - p.gpuLayers());
    assertThat(p.fits()).isTrue();
  }

  @Test
  void kvCacheTooLargeForTheBatch_isReportedAsAShortfall_notAnsweredByStreamingWeights() {
    // llama-7b fits at batch 1; at batch 512 the KV cache outgrows the card: auto keeps the weights resident
    SystemSpec gpu = Fixtures.discrete();
    Task t = new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 512, 2048, 128, 128, 1, false, 8, 128,
        Offload.AUTO);
    MemoryPlan p = MemoryPlanner.plan(gpu, Fixtures.llama7b(), t, SoftwareProfiles.PYTORCH);
    assertThat(p.offload()).isEqualTo(Offload.NONE);
    assertThat(p.fits()).isFalse();
    // KV cache: 2 x 32 layers x 4096 x 256 tokens x 2 B per sequence
    double kvPerSequence = 2.0 * 32 * 4096 * 256 * 2;
    assertThat(p.kvCacheBytes()).isEqualTo(512 * kvPerSequence);
    assertThat(p.maxBatch()).isBetween(1, 511);
    assertThat(MemoryPlanner.place(gpu, Fixtures.llama7b(), t.withBatch(p.maxBatch()), SoftwareProfiles.PYTORCH,
        Offload.NONE).fits()).isTrue();
  }

  @Test
  void unifiedMemory_neverOffloads_andRefusesAnAskedOffload() {
    SystemSpec mac = Fixtures.unified();
    Task train = Task.defaults(TaskKind.TRAIN);
    assertThat(MemoryPlanner.candidates(mac, train)).containsExactly(Offload.NONE);
    assertThat(MemoryPlanner.plan(mac, llama65b, train, SoftwareProfiles.PYTORCH).offload()).isEqualTo(Offload.NONE);
    assertThatThrownBy(() -> MemoryPlanner.checkOffload(mac, train.withOffload(Offload.OPTIMIZER)))
        .hasMessageContaining("share one unified memory");
  }

  @Test
  void maxBatch_isTheLargestBatchThatFits() {
    SystemSpec mac = Fixtures.unified();
    Task t = Task.defaults(TaskKind.INFERENCE).withOffload(Offload.NONE);
    MemoryPlan p = MemoryPlanner.plan(mac, llama7b, t, SoftwareProfiles.PYTORCH);
    assertThat(p.maxBatch()).isPositive();
    assertThat(MemoryPlanner.place(mac, llama7b, t.withBatch(p.maxBatch()), SoftwareProfiles.PYTORCH, Offload.NONE).fits()).isTrue();
    assertThat(MemoryPlanner.place(mac, llama7b, t.withBatch(p.maxBatch() + 1), SoftwareProfiles.PYTORCH, Offload.NONE).fits()).isFalse();
  }
}
