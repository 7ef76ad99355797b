package llmsim.core.workload;

import java.util.List;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpSink;
import llmsim.core.hw.Device;
import llmsim.core.hw.Precision;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.GemmTiles;
import llmsim.core.software.LlamaCppBuild;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.PipelineSchedule;
import llmsim.core.task.Task;

/**
 * The resources of one system for one software profile: memory pools, link directions, streams and
 * the cost groups ops are charged to. On unified memory the host and device pools are one pool, and
 * there is no copy engine: nothing crosses a link.
 */
final class StepContext {
  /** Fraction of the host memory bandwidth a CPU optimizer sustains (STREAM-like; docs/CALIBRATION.md). */
  static final double HOST_STREAM_EFFICIENCY = 0.7;

  final OpSink sink;
  /** Names this GPU's resources apart from another simulated GPU's. */
  final String label;
  final SystemSpec system;
  final SoftwareProfile software;
  final boolean unified;
  final int devicePool;
  final int hostPool;
  final int compute;
  final int h2d;
  final int d2h;
  final int cpu;
  final int gemm;
  final int gemmQuantised;
  /**
   * The output head's GEMM: {@link #gemm}, except under Transformer Engine's fp8 recipe, where Megatron-Core's output
   * layer (its own tensor_parallel.ColumnParallelLinear, not a TE module) runs in bf16 at the bf16 GEMM fraction.
   */
  final int outputGemm;
  /**
   * The backward pass's GEMMs and element-wise ops: the same resources, the launch overhead of the profile's
   * backward kernel count spread over a backward layer's ops.
   */
  final int gemmBackward;
  final int elementwiseBackward;
  /**
   * The attention core (QK^T, softmax, attention x V, or one flash kernel), forward and backward: at the device's
   * FlashAttention-2 fractions (forward, backward) where the profile runs FA2's kernels, else at the GEMM fraction;
   * in 16-bit when a
   * training step's GEMMs run in fp8 (Transformer Engine's fp8 recipes keep attention in bf16).
   */
  final int attention;
  final int attentionBackward;
  final int elementwise;
  /**
   * bitsandbytes' NF4 dequantisation of one weight matrix to bf16 (QLoRA), forward and backward: memory-bound, and
   * {@link #NF4_DEQUANT_KERNELS} launches of its own rather than a share of the layer's kernel count.
   */
  final int dequantNf4;
  /**
   * Kernels one NF4 dequantisation launches with double quantisation (QLoRA's default): the nested absmax
   * dequantised ({@code cdequantize_blockwise_fp32}), its offset added ({@code absmax += offset}), then the 4-bit
   * weights ({@code cdequantize_blockwise_bf16_nf4}); bitsandbytes' {@code dequantize_4bit} and Unsloth's
   * {@code fast_dequantize} issue the same three (docs/CALIBRATION.md).
   */
  static final int NF4_DEQUANT_KERNELS = 3;
  final int copyIn;
  final int copyOut;
  final int cpuGroup;
  final double peakFlops;
  /** What a result must say about the software build on this device (a build not modelled), or null. */
  final String softwareWarning;
  /** Set when fp8 training runs under a profile without a modelled fp8 recipe (its casts and scaling not costed). */
  final String fp8RecipeWarning;
  /**
   * What the plan asks for that has nothing to act on (sequence parallelism without tp, a ZeRO stage or unbucketed
   * gradient reductions without data-parallel replicas, GPipe's schedule without pipeline stages); empty when none.
   */
  final List<String> planWarnings;
  /** How the task's precision runs on this device (native, emulated with a warning). */
  final PrecisionSupport.Resolved precision;
  /** Whether the step runs Transformer Engine's fp8 recipe ({@link TransformerEngineFp8}). */
  final boolean transformerEngineFp8;

  StepContext(SystemSpec system, Task task, SoftwareProfile sw, OpSink sink, int opsPerLayer) {
    this(system, task, sw, sink, opsPerLayer, opsPerLayer, "");
  }

  /**
   * {@code opsPerLayer} and {@code backwardOpsPerLayer} are the ops a layer's forward and backward emit, over which
   * the profile's kernel counts are spread; {@code label} prefixes this GPU's streams and pools ("stage 2 " for a
   * pipeline stage's GPU).
   */
  StepContext(SystemSpec system, Task task, SoftwareProfile sw, OpSink sink, int opsPerLayer, int backwardOpsPerLayer,
      String label) {
    this(system, task, sw, sink, opsPerLayer, backwardOpsPerLayer, sw.kernelsPerLayer(), sw.backwardKernelsPerLayer(),
        label);
  }

  /**
   * As above, with the kernels a layer launches forward and backward where they differ from the profile's counts (an
   * eager profile's LoRA adapters launch kernels of their own).
   */
  StepContext(SystemSpec system, Task task, SoftwareProfile sw, OpSink sink, int opsPerLayer, int backwardOpsPerLayer,
      int kernelsPerLayer, int backwardKernelsPerLayer, String label) {
    this.label = label;
    this.sink = sink;
    this.system = system;
    this.software = sw;
    this.unified = system.unifiedMemory();
    Device d = system.device();
    precision = PrecisionSupport.resolve(d, task.precision(), sw);
    peakFlops = precision.peakFlops();
    transformerEngineFp8 = TransformerEngineFp8.applies(sw, task, precision.gemmPrecision());
    fp8RecipeWarning = task.kind().training() && precision.gemmPrecision() == Precision.FP8 && !transformerEngineFp8
        ? "precision fp8 under software " + sw.id() + ": its GEMMs run at the fp8 peak, but the casts, amax and"
            + " scaling of an fp8 training recipe are not costed for this profile (they are for Transformer Engine's,"
            + " --software megatron), so the step is optimistic by their cost"
        : null;
    planWarnings = Simulator.noEffectNotes(task, sw, system.totalDevices());
    devicePool = sink.addPool(label + (unified ? "unified memory" : "device memory"));
    hostPool = unified ? devicePool : sink.addPool(label + "host memory");
    int h2dPool = unified ? -1 : sink.addPool(label + "host link H2D");
    int d2hPool = unified ? -1 : sink.addPool(label + "host link D2H");
    compute = sink.addStream(label + "GPU compute", Lane.COMPUTE, -1);
    h2d = unified ? -1 : sink.addStream(label + "H2D copy", Lane.H2D, compute);
    d2h = unified ? -1 : sink.addStream(label + "D2H copy", Lane.D2H, compute);
    cpu = sink.addStream(label + "CPU", Lane.CPU, compute);
    double memBw = d.memoryBandwidthBytesPerSecond() * d.efficiency().memoryStreaming() * sw.streamScale();
    // a workload computes for seconds on end, so at the rate the device sustains at its power limit, not a burst's
    double gemmFraction = d.efficiency().gemmAt(precision.gemmPrecision())
        * d.efficiency().sustainedScale(precision.gemmPrecision()) * sw.gemmScale();
    double gemmPeak = peakFlops * gemmFraction;
    // llama.cpp's build (software_date) and backend decide its launch cost, attention kernels and dequantisation
    LlamaCppBuild build = sw.llamaCpp();
    LlamaCppBuild.Backend backend = LlamaCppBuild.Backend.of(d.vendor());
    double launchSeconds = build == null ? sw.launchSeconds() : build.launchSeconds(backend);
    softwareWarning = build == null ? sw.dateWarning() : build.warning(backend, task.weights());
    llamaCpp = build;
    llamaCppBackend = backend;
    weights = task.weights();
    // a profile whose host thread issues the layer passes ahead of the GPU pays its launches there, not per kernel
    double launch = sw.hostDispatch() ? 0 : launchSeconds * kernelsPerLayer / Math.max(1, opsPerLayer);
    // dense GEMMs tile the device's SMs; block-quantised ones run the framework's own kernels (no tile model),
    // which may spend ALU work dequantising inside the matmul: time = flops / peak x (1 / g + d)
    double dequant = build == null ? 0 : build.dequantPerFlop(backend, task.weights());
    // a GEMM kernel's fixed GPU time on a device with SMs; llama.cpp's launch charge already holds a small kernel's
    // minimum duration for every kernel, GEMMs included, so its GEMMs add only the rest (docs/CALIBRATION.md)
    double gemmFloor = Math.max(0, GemmTiles.kernelFloorSeconds(d.computeUnits())
        - (build == null ? 0 : build.minimumKernelSeconds()));
    gemm = sink.addGroup(new CostGroup("gemm", gemmPeak, devicePool, memBw, -1, 1, launch, d.computeUnits(),
        gemmFloor));
    gemmQuantised = sink.addGroup(new CostGroup("gemm (block-quantised weights)", gemmPeak / (1 + dequant * gemmFraction),
        devicePool, memBw * sw.dequantScale(), -1, 1, launch));
    elementwise = sink.addGroup(new CostGroup("element-wise", gemmPeak, devicePool, memBw, -1, 1, launch));
    dequantNf4 = sink.addGroup(new CostGroup("dequantise (NF4)", gemmPeak, devicePool, memBw, -1, 1,
        sw.hostDispatch() ? 0 : launchSeconds * NF4_DEQUANT_KERNELS));
    Precision sixteenBit = d.hasPeak(Precision.BF16) ? Precision.BF16 : Precision.FP16;
    outputGemm = transformerEngineFp8 ? sink.addGroup(new CostGroup("gemm (output head, bf16)",
        d.peakFlops(sixteenBit) * d.efficiency().gemmAt(sixteenBit) * d.efficiency().sustainedScale(sixteenBit)
            * sw.gemmScale(), devicePool, memBw, -1, 1, launch,
        d.computeUnits(), gemmFloor)) : gemm;
    elementwisePeak = gemmPeak;
    elementwiseBandwidth = memBw;
    double launchBackward = sw.hostDispatch() ? 0
        : launchSeconds * backwardKernelsPerLayer / Math.max(1, backwardOpsPerLayer);
    gemmBackward = sink.addGroup(new CostGroup("gemm (backward)", gemmPeak, devicePool, memBw, -1, 1, launchBackward,
        d.computeUnits(), gemmFloor));
    elementwiseBackward = sink.addGroup(new CostGroup("element-wise (backward)", gemmPeak, devicePool, memBw, -1, 1,
        launchBackward));
    Precision attentionPrecision = task.kind().training() && precision.gemmPrecision() == Precision.FP8
        ? (d.hasPeak(Precision.BF16) ? Precision.BF16 : Precision.FP16) : precision.gemmPrecision();
    double attentionFraction = build == null ? -1 : build.attentionPeakFraction(backend);
    double attentionPeak = (attentionPrecision == precision.gemmPrecision() ? peakFlops : d.peakFlops(attentionPrecision))
        * d.efficiency().sustainedScale(attentionPrecision) * (attentionFraction > 0 ? attentionFraction
            : (sw.flashAttention2() ? d.efficiency().flashAttention() * sw.flashAttentionSpeed()
                : d.efficiency().gemmAt(attentionPrecision)) * sw.gemmScale());
    attention = sink.addGroup(new CostGroup("attention", attentionPeak, devicePool, memBw, -1, 1, launch));
    // FlashAttention-2's backward kernel reaches its own fraction where one is published
    double attentionBackwardPeak = attentionFraction <= 0 && sw.flashAttention2()
        ? attentionPeak * d.efficiency().flashAttentionBackward() / d.efficiency().flashAttention() : attentionPeak;
    attentionBackward = sink.addGroup(new CostGroup("attention (backward)", attentionBackwardPeak, devicePool, memBw,
        -1, 1, launchBackward));
    double link = system.hostLink().measuredBytesPerSecondPerDirection();
    double latency = system.hostLink().latencySeconds();
    copyIn = unified ? -1 : sink.addGroup(new CostGroup("H2D copy", 1, -1, 1, h2dPool, link, latency));
    copyOut = unified ? -1 : sink.addGroup(new CostGroup("D2H copy", 1, -1, 1, d2hPool, link, latency));
    // a node's host memory serves all of its GPUs: each simulated GPU gets its share
    double hostBw = system.host().memoryBandwidthBytesPerSecond() * HOST_STREAM_EFFICIENCY / system.deviceCount();
    cpuGroup = sink.addGroup(new CostGroup("CPU", system.host().cpuPeakFlopsFp32() / system.deviceCount(), hostPool,
        hostBw, -1, 1, 0));
    hostDispatch = sw.hostDispatch()
        ? sink.addGroup(new CostGroup("host dispatch", 1, -1, 1, -1, 1, sw.hostSecondsPerLayerPass())) : -1;
    hostWait = sw.hostDispatch() ? sink.addGroup(new CostGroup("host wait", 1, -1, 1, -1, 1, 0)) : -1;
    // a forward pass stopped by a host sync before its MLP: its host time in two parts, either side of the wait
    boolean mlpSync = sw.mlpHostSyncShare() > 0; // the profile refuses a share without host dispatch
    hostDispatchBeforeMlp = mlpSync ? sink.addGroup(new CostGroup(HOST_BEFORE_MLP_SYNC, 1, -1, 1, -1, 1,
        sw.hostSecondsPerLayerPass() * sw.mlpHostSyncShare())) : -1;
    hostDispatchMlp = mlpSync ? sink.addGroup(new CostGroup(HOST_MLP_AFTER_SYNC, 1, -1, 1, -1, 1,
        sw.hostSecondsPerLayerPass() * (1 - sw.mlpHostSyncShare()))) : -1;
    hostUnfusedSoftmax = sw.hostDispatch() && sw.megatronFusedSoftmax()
        ? sink.addGroup(new CostGroup("host dispatch (unfused softmax)", 1, -1, 1, -1, 1,
            UNFUSED_SOFTMAX_EXTRA_CALLS * llmsim.core.software.SoftwareProfiles.EAGER_CALL_HOST_SECONDS))
        : -1;
    collectives = new Collectives(this, task.plan());
  }

  /**
   * The cost group of one layer pass's host-side issue (its time is the profile's host seconds per layer pass), or
   * -1 where the profile pays its launches per kernel on the GPU's stream.
   */
  final int hostDispatch;
  /**
   * Megatron's softmax without its fused kernel: float(), the scale, masked_fill_, softmax and half() instead of one
   * fused call, 4 tensor calls more per pass (forward: the calls; backward: their autograd nodes).
   */
  static final int UNFUSED_SOFTMAX_EXTRA_CALLS = 4;
  /** The host's extra time for a layer pass whose softmax is unfused, or -1 for profiles without it. */
  final int hostUnfusedSoftmax;
  private final int hostWait;
  /**
   * Where the profile's host stops before each forward layer pass's MLP ({@link
   * llmsim.core.software.SoftwareProfile#mlpHostSyncShare}): the cost groups of the host's issue before and after
   * that wait; -1 for profiles without it, whose forward passes are issued as one ({@link #hostDispatch}).
   */
  final int hostDispatchBeforeMlp;
  /** The names of those two cost groups, by which the closed form finds the passes ({@link RooflineSum}). */
  static final String HOST_BEFORE_MLP_SYNC = "host dispatch (to the MLP's sync)";
  static final String HOST_MLP_AFTER_SYNC = "host dispatch (the MLP, after its sync)";
  final int hostDispatchMlp;

  /**
   * The host's sync before a forward pass's MLP and its issue of the rest of the pass: a wait on the CPU lane until
   * {@code gpuDeps} (the GPU's last op before the MLP) have completed, in program order after what the host issued
   * before it, then the host's issue of the MLP. Returns the id of that issue, which the MLP's first kernel waits
   * for, or -1 where the profile has no such sync.
   */
  int hostSyncBeforeMlp(String prefix, int[] gpuDeps) {
    if (hostDispatchMlp < 0) {
      return -1;
    }
    hostWaitsFor(sink.keepsNames() ? prefix + "host_sync.mlp_bias" : "", gpuDeps);
    return sink.addOp(prefix, "host_dispatch.mlp", llmsim.core.engine.OpKind.DISPATCH, cpu, hostDispatchMlp, 0, 0, 0);
  }

  /**
   * Where the host issues ahead of the GPU: the host thread stops until {@code ops} have completed before it issues
   * anything more (a {@code torch.cuda.synchronize()}, or a device-to-host copy), so the passes it issues next
   * start from there. Nothing otherwise; ops below 0 are none.
   */
  void hostWaitsFor(String name, int... ops) {
    if (hostDispatch < 0) {
      return;
    }
    int[] deps = java.util.Arrays.stream(ops).filter(o -> o >= 0).toArray();
    if (deps.length > 0) {
      sink.addOp(sink.keepsNames() ? name : "", llmsim.core.engine.OpKind.DISPATCH, cpu, hostWait, 0, 0, 0, deps);
    }
  }

  /**
   * A cost group of element-wise work (this GPU's memory bandwidth) whose op pays {@code launchSeconds} of launches:
   * an optimizer step launched as many kernels.
   */
  int launchGroup(String name, double launchSeconds) {
    return sink.addGroup(new CostGroup(name, elementwisePeak, devicePool, elementwiseBandwidth, -1, 1, launchSeconds));
  }

  private final double elementwisePeak;
  private final double elementwiseBandwidth;

  /** The tensor- and data-parallel collectives of this GPU (nothing when the plan is one GPU). */
  final Collectives collectives;

  /** The group a backward pass charges an op to that its forward charges to {@code group}. */
  int backwardOf(int group) {
    return group == gemm ? gemmBackward : group == elementwise ? elementwiseBackward
        : group == attention ? attentionBackward : group;
  }

  /** Whether ops of {@code group} are element-wise (costed, but not counted in MFU's FLOPs). */
  boolean elementwiseGroup(int group) {
    return group == elementwise || group == elementwiseBackward || group == dequantNf4;
  }

  private final LlamaCppBuild llamaCpp;
  private final LlamaCppBuild.Backend llamaCppBackend;
  private final llmsim.core.task.WeightFormat weights;

  /**
   * Whether a quantised-weight GEMM over {@code rows} activation rows runs as llama.cpp's dequantise-to-f16 kernel
   * then an f16 GEMM on the copy (CUDA builds between #3776 and #8075; {@link LlamaCppBuild#dequantisesToF16}).
   */
  boolean dequantisesToF16(double rows) {
    return llamaCpp != null && llamaCpp.dequantisesToF16(llamaCppBackend, weights, rows);
  }

  int gemmGroup(boolean quantisedWeights) {
    return quantisedWeights ? gemmQuantised : gemm;
  }
}
