package llmsim.core.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.data.Percentage.withPercentage;

import llmsim.core.engine.Bound;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Offload;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** Each expectation is derived here from the inputs and the physics, not from the program's output. */
class SimulatorPhysicsTest {
  /** No launch overhead and no framework factors: the closed forms hold exactly. */
  static final SoftwareProfile IDEAL = SoftwareProfile.builder("ideal", "test").launchSeconds(0).kernelsPerLayer(1)
      .flashAttention(true).workspaceBytes(0).source("test").build();

  final ModelSpec llama7b = Fixtures.llama7b();
  final SystemSpec mac = Fixtures.unified();
  final SystemSpec gpu = Fixtures.discrete();

  static Task inference(int prompt, int generate) {
    return new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, 2048, prompt, generate, 1, false, 8, 128, Offload.AUTO);
  }

  static Task training(int batch, int seq, boolean checkpointing) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, batch, seq, 1, 1, 1, checkpointing, 8, 128, Offload.NONE);
  }

  @Test
  void decode_llama7bF16OnUnifiedMemory_isBoundByUnifiedMemoryBandwidth() {
    int prompt = 128;
    int generate = 65;
    StepResult r = Simulator.simulate(mac, llama7b, inference(prompt, generate), IDEAL);
    double effectiveBandwidth = 800e9 * 0.775;
    // every decode step reads every GEMM weight once (layers + LM head) plus the KV cache so far
    double weightBytes = 2.0 * llama7b.gemmParameterCount();
    double meanContext = prompt + (generate) / 2.0;
    double kvBytes = 2.0 * 32 * 4096 * meanContext * 2;
    double expectedTokensPerSecond = effectiveBandwidth / (weightBytes + kvBytes);
    assertThat(r.decodeTokensPerSecond()).isCloseTo(expectedTokensPerSecond, withPercentage(2));
    assertThat(r.bound()).isEqualTo(Bound.DEVICE_MEMORY);
    assertThat(r.linkBytes()).isZero();
  }

  @Test
  void prefill_isAbout2xParamsxTokensOverEffectiveFlops() {
    int prompt = 512;
    StepResult r = Simulator.simulate(gpu, llama7b, inference(prompt, 1), IDEAL);
    double effectiveFlops = 756e12 * 0.8;
    double gemmParams = llama7b.gemmParameterCount() - 32000.0 * 4096; // the LM head runs on the last token only
    double expected = 2.0 * gemmParams * prompt / effectiveFlops;
    // the attention core (4 x s^2 x q_dim per layer, 2% here) and memory-bound element-wise ops (norms,
    // residuals, SwiGLU: about 12% of the GEMM time at this bandwidth-to-FLOP ratio) add a little
    assertThat(r.ttftSeconds()).isGreaterThan(expected).isCloseTo(expected, withPercentage(20));
    assertThat(r.bound()).isEqualTo(Bound.COMPUTE);
  }

  @Test
  void trainingFlops_are6xParamsxTokensPlusAttention() {
    int b = 2;
    int s = 1024;
    StepResult r = Simulator.simulate(gpu, llama7b, training(b, s, false), IDEAL);
    double tokens = (double) b * s;
    double attention = 12.0 * 32 * b * (double) s * s * 4096; // 3 x (2 x 2 x b x s^2 x q_dim) per layer
    assertThat(r.modelFlops()).isCloseTo(6.0 * llama7b.gemmParameterCount() * tokens + attention, withPercentage(1e-9));
    assertThat(r.hardwareFlops()).isEqualTo(r.modelFlops());
  }

  @Test
  void activationCheckpointing_addsOneForwardPassOfTheLayers() {
    int b = 1;
    int s = 2048;
    StepResult r = Simulator.simulate(gpu, llama7b, training(b, s, true), IDEAL);
    double tokens = (double) b * s;
    double layerParams = llama7b.gemmParameterCount() - 32000.0 * 4096; // the LM head is not recomputed
    double recompute = 2.0 * layerParams * tokens + 4.0 * 32 * b * (double) s * s * 4096;
    assertThat(r.hardwareFlops() - r.modelFlops()).isCloseTo(recompute, withPercentage(1e-9));
  }

  @Test
  void selectiveRecompute_addsTheAttentionCoresForward_andNothingUnderFlashAttention() {
    int b = 1;
    int s = 2048;
    Task selective = training(b, s, false).withRecompute(Recompute.SELECTIVE);
    SoftwareProfile classic = SoftwareProfile.builder("classic", "test").launchSeconds(0).kernelsPerLayer(1)
        .flashAttention(false).workspaceBytes(0).source("test").build();
    StepResult r = Simulator.simulate(gpu, llama7b, selective, classic);
    // QK^T and attention x V again, 2 x b x s^2 x q_dim FLOPs each, in each of the 32 layers; no GEMM
    double attentionCore = 32 * 4.0 * b * s * (double) s * 4096;
    assertThat(r.hardwareFlops() - r.modelFlops()).isCloseTo(attentionCore, withPercentage(1e-9));
    assertThat(r.modelFlops()).isEqualTo(Simulator.simulate(gpu, llama7b, training(b, s, false), classic).modelFlops());
    // FlashAttention keeps no scores to drop: its backward kernel recomputes them already
    StepResult flash = Simulator.simulate(gpu, llama7b, selective, IDEAL);
    assertThat(flash.hardwareFlops()).isEqualTo(flash.modelFlops());
  }

  @Test
  void trainingMfu_isModelFlopsOverTimeAndPeak() {
    StepResult r = Simulator.simulate(gpu, llama7b, training(1, 2048, false), IDEAL);
    assertThat(r.mfu()).isCloseTo(r.modelFlops() / (r.stepTimeSeconds() * 756e12), within(1e-12));
    // GEMMs run at 80% of peak; memory-bound element-wise ops and the optimizer can only lower it
    assertThat(r.mfu()).isLessThan(0.8).isGreaterThan(0.3);
  }

  @Test
  void sameScenarioTwice_givesIdenticalResults() {
    StepResult a = Simulator.simulate(gpu, Fixtures.llama65b(), Task.defaults(TaskKind.INFERENCE), IDEAL);
    StepResult b = Simulator.simulate(gpu, Fixtures.llama65b(), Task.defaults(TaskKind.INFERENCE), IDEAL);
    assertThat(a.stepTimeSeconds()).isEqualTo(b.stepTimeSeconds());
    assertThat(a.trace().end()).isEqualTo(b.trace().end());
  }

  static Task gpuLayers(int prompt, int generate, int layers) {
    return new Task(TaskKind.INFERENCE, Precision.FP16, WeightFormat.F16, 1, 2048, prompt, generate, 1, false, 8, 128,
        Offload.WEIGHTS, 0, llmsim.core.task.KvCacheFormat.F16, layers);
  }

  @Test
  void weightStreamingDecode_isBoundByTheLink_atBytesOverLinkBandwidth() {
    ModelSpec m = Fixtures.llama65b();
    StepResult r = Simulator.simulate(gpu, m, gpuLayers(16, 3, 0), IDEAL);
    assertThat(r.memory().offload()).isEqualTo(Offload.WEIGHTS);
    assertThat(r.bound()).isEqualTo(Bound.HOST_LINK);
    // each decode step streams every layer's f16 weights over the link at 55 GB/s
    double layerBytes = 2.0 * m.parametersPerLayer() * m.layers();
    assertThat(r.tpotSeconds()).isCloseTo(layerBytes / 55e9, withPercentage(2));
  }

  @Test
  void partialOffloadDecode_onTheCpu_addsHostLayersAtHostBandwidthToGpuLayersAtDeviceBandwidth() {
    // llama.cpp -ngl 60 of 80: 60 layers read at 0.9 x 2 TB/s on the GPU, then 20 read by the CPU at
    // 0.7 x 89.6 GB/s from host memory, one after the other; the link carries only the activations
    ModelSpec m = Fixtures.llama65b();
    SoftwareProfile cpuLayers = SoftwareProfile.builder("ideal-ggml", "test").launchSeconds(0).kernelsPerLayer(1)
        .flashAttention(true).cpuRunsHostLayers(true).workspaceBytes(0).source("test").build();
    StepResult r = Simulator.simulate(gpu, m, gpuLayers(16, 3, 60), cpuLayers);
    assertThat(r.memory().gpuLayers()).isEqualTo(60);
    double layerBytes = 2.0 * m.parametersPerLayer();
    double expected = 60 * layerBytes / (2.0e12 * 0.9) + 20 * layerBytes / (89.6e9 * 0.7);
    assertThat(r.tpotSeconds()).isCloseTo(expected, withPercentage(3));
    assertThat(r.bound()).isEqualTo(Bound.HOST);
  }

  @Test
  void partialOffloadDecode_streamed_isFasterThanStreamingEveryLayer() {
    // Accelerate-style: the 20 host layers cross the link each token; the 60 resident ones do not
    ModelSpec m = Fixtures.llama65b();
    StepResult partial = Simulator.simulate(gpu, m, gpuLayers(16, 3, 60), IDEAL);
    StepResult all = Simulator.simulate(gpu, m, gpuLayers(16, 3, 0), IDEAL);
    double layerBytes = 2.0 * m.parametersPerLayer();
    assertThat(partial.tpotSeconds()).isGreaterThanOrEqualTo(20 * layerBytes / 55e9)
        .isLessThan(20 * layerBytes / 55e9 + 60 * layerBytes / (2.0e12 * 0.9) * 1.05);
    assertThat(all.tpotSeconds() / partial.tpotSeconds()).isGreaterThan(3.5);
  }

  @Test
  void explanations_neverSuggestAPrecisionThatWouldNotSpeedTheDeviceUp() {
    // the unified fixture runs fp16 at its fp32 rate: nothing to suggest; the discrete one has fp16 at 15x fp32
    assertThat(Explainer.fasterPrecision(mac.device(), Precision.FP32)).isEmpty();
    assertThat(Explainer.fasterPrecision(mac.device(), Precision.FP16)).isEmpty();
    assertThat(Explainer.fasterPrecision(gpu.device(), Precision.FP32)).startsWith(" or fp16");
    assertThat(Explainer.fasterPrecision(gpu.device(), Precision.BF16)).isEmpty();
  }
}
