package llmsim.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import llmsim.core.engine.Bound;
import llmsim.core.hw.Device;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.util.Units;
import llmsim.core.workload.Explainer;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.FieldOverride;

/**
 * How one metric of a result comes about, step by step: the catalog inputs with the field and source text they
 * came from, the closed-form formula with its values, and the simulated value beside it where the two differ.
 */
final class Derivation {
  /** One line: a quantity, how it is obtained (a formula with values, or where an input comes from), its value. */
  record Step(String quantity, String how, String value) {}

  static final List<String> METRICS = List.of("decode_tokens_per_s", "prefill_tokens_per_s", "ttft_s", "tpot_s",
      "step_time_s", "mfu", "memory");

  final String metric;
  final List<Step> steps = new ArrayList<>();
  /** The closed form's value and the simulation's, and why they differ (NaN and "" where there is none). */
  double closedForm = Double.NaN;
  double simulated = Double.NaN;
  String difference = "";
  private final StepResult r;
  private final List<FieldOverride> overrides;

  private Derivation(String metric, StepResult r, List<FieldOverride> overrides) {
    this.metric = metric;
    this.r = r;
    this.overrides = overrides;
  }

  static Derivation of(String metric, StepResult r, List<FieldOverride> overrides) {
    Derivation d = new Derivation(metric, r, overrides);
    switch (metric) {
      case "decode_tokens_per_s" -> d.decode(false);
      case "tpot_s" -> d.decode(true);
      case "prefill_tokens_per_s" -> d.prefill(false);
      case "ttft_s" -> d.prefill(true);
      case "step_time_s" -> d.stepTime();
      case "mfu" -> d.mfu();
      case "memory" -> d.memory();
      default -> throw new BadFlagException("METRIC", metric, String.join(", ", METRICS));
    }
    return d;
  }

  private void input(String quantity, String id, String field, String value, String source) {
    String from = overrides.stream().filter(o -> o.target().equals(id) && o.field().equals(field)).findFirst()
        .map(o -> "--set " + id + "." + field + " (catalog: " + o.was() + ")").orElse(id + " " + field + ": " + source);
    steps.add(new Step(quantity, from, value));
  }

  /**
   * The peak a precision runs at, from the catalog field it comes from: an emulated precision is a native peak times
   * the device file's rate, tf32 without tf32 units the fp32 peak. MLX's bf16 on an M2 Ultra read '15.8 TFLOP/s
   * m2-ultra-76 peak_dense_tflops.bf16: ... = 27.2 TFLOP/s ... no bf16 matrix hardware', a field the file lacks.
   */
  private void peakInput(Device d, PrecisionSupport.Resolved peak) {
    var e = d.emulated().get(peak.precision());
    if (d.hasPeak(peak.precision())) {
      input("peak FLOP/s", d.id(), "peak_dense_tflops." + peak.precision().key(), Units.tflops(peak.peakFlops()),
          d.peakSource());
    } else if (e != null && e.via() == peak.gemmPrecision()) {
      input("native peak FLOP/s", d.id(), "peak_dense_tflops." + e.via().key(), Units.tflops(d.peakFlops(e.via())),
          d.peakSource());
      input("emulation rate", d.id(), "emulated_precisions." + peak.precision().key() + ".rate", fraction(e.rate()),
          e.source());
      formula("peak FLOP/s", peak.precision().key() + " emulated by " + r.software().id() + ": native peak x rate",
          Units.tflops(peak.peakFlops()));
    } else {
      input("peak FLOP/s", d.id(), "peak_dense_tflops." + peak.gemmPrecision().key(), Units.tflops(peak.peakFlops()),
          d.peakSource() + " (" + peak.warning() + ")");
    }
  }

  private void formula(String quantity, String how, String value) {
    steps.add(new Step(quantity, how, value));
  }

  private void inferenceOnly() {
    if (r.task().kind().training()) {
      throw new BadFlagException(metric + " is an inference metric; give --task inference (or explain step_time_s, mfu,"
          + " memory)");
    }
  }

  /** Parameters and weight bytes per GPU, from the model's shape and the weight format, in GB (next to bandwidths). */
  private double weights() {
    return weights(false);
  }

  /** The same, in GiB when {@code binary} (next to the memory rows, which are in GiB as capacities are). */
  private double weights(boolean binary) {
    var m = r.model();
    formula("parameters P", String.format(Locale.US, "from %s's shape (%d layers, hidden %d, ffn %d, vocab %d); published:"
        + " %s", m.id(), m.layers(), m.hidden(), m.ffnHidden(), m.vocab(), m.publishedSource()), count(m.parameterCount()));
    double w = r.memory().weightsBytes();
    var f = r.task().weights();
    // 4-bit formats leave the embedding table and the LM head in 16 bits (Footprint.baseWeightBytes): 'P x 0.516
    // bytes (nf4)' is 3.2 GiB of LLaMA-7B, where W is 3.6
    double e = m.embeddingParameters() + m.unembeddingParameters();
    var t = r.task();
    // full training holds the weights it trains at the compute precision: fp32 training's 25.1 GiB read 'P x 2.00
    // bytes (f16)', the default format of a key that does not apply there
    String base = t.kind().training() && !t.kind().frozenBase() ? String.format(Locale.US, "P x %d byte%s (%s, the"
        + " compute precision: the weights it trains)", t.precision().bytes(), t.precision().bytes() == 1 ? "" : "s",
        t.precision().key())
        : f == llmsim.core.task.WeightFormat.NF4 || f == llmsim.core.task.WeightFormat.INT4
        ? String.format(Locale.US, "(P - E) x %.3g bytes (%s) + E x 2 bytes, E = %s embedding and LM-head parameters"
            + " kept in 16 bits", f.bytesPerWeight(), f.key(), count(e))
        : String.format(Locale.US, "P x %.3g bytes (%s)", f.bytesPerWeight(), f.key());
    formula("weights W", base + trained() + resident(r.memory()) + (r.system().totalDevices() > 1 ? ", this GPU's share ("
        + r.task().plan().describe() + ")" : "") + gatheredLayers(), binary ? Units.gib(w) : Units.gb(w));
    return w;
  }

  /**
   * What ZeRO-3 holds beside its weight shard (MemoryPlanner): the layers it has gathered, one ahead of the one it
   * computes. Empty where it holds none. LLaMA-2-70B at tp 2, ZeRO-3 over 4 replicas read 17.7 GiB beside 'P x 2
   * bytes ..., this GPU's share', which is 16.1.
   */
  private String gatheredLayers() {
    MemoryPlan p = r.memory();
    var f = footprint();
    double extra = p.weightsBytes() - f.weightsBytes();
    if (!r.task().kind().training() || r.task().plan().zero() < 3 || extra <= 0
        || p.offload() == llmsim.core.task.Offload.WEIGHTS) {
      return "";
    }
    return String.format(Locale.US, " + %d gathered layers of %s each (ZeRO-3 gathers a layer's shards one layer"
        + " ahead of the one it computes)", Math.round(extra / f.layerWeightBytes()), Units.gib(f.layerWeightBytes()));
  }

  /**
   * What ZeRO-2/3 holds beside its gradient shard (MemoryPlanner): the layer whose gradients the backward has just
   * produced whole, until its reduce-scatter is done; under offload, the one layer's gradients the device keeps as the
   * bucket its copies to the host leave from, which is then the whole figure. Empty where it holds none.
   */
  private String gradientBucket() {
    MemoryPlan p = r.memory();
    if (r.task().kind().training() && p.offload() != llmsim.core.task.Offload.NONE && p.gradientsBytes() > 0) {
      // the planner's figure is then the device's bucket, not the share the formula names (MemoryPlanner)
      return "; under offload " + p.offload().key() + " the gradients go to host memory as the backward makes them:"
          + " this GPU keeps one layer's, " + Units.gib(p.gradientsBytes()) + ", as the bucket the copies leave from";
    }
    double extra = p.gradientsBytes() - footprint().gradientsBytes();
    if (!r.task().kind().training() || r.task().plan().zero() < 2 || extra <= 0) {
      return "";
    }
    return " + one layer's unsharded gradients, " + Units.gib(extra) + ", until its reduce-scatter (ZeRO-2/3 reduce"
        + " layer by layer)";
  }

  /** The bytes the run's model and task hold before the planner places them (per GPU, by its plan). */
  private llmsim.core.memory.Footprint footprint() {
    var sw = r.software();
    return llmsim.core.memory.Footprint.of(r.model(), r.task(), sw.forTask(r.task().kind().training()).flashAttention(),
        sw.promptChunkTokens(), r.system().deviceCount());
  }

  /**
   * The adapters or prefixes a frozen-base task trains, held beside the base in fp32 (empty for other tasks):
   * P-Tuning v2's 512-token prefixes on LLaMA-7B, 134M parameters, made W 13.1 GiB beside 'P x 2.00 bytes (f16)'.
   */
  private String trained() {
    var t = r.task();
    if (t.kind() == llmsim.core.task.TaskKind.PTUNING_V2) {
      return " + " + count(llmsim.core.memory.Footprint.prefixParameters(r.model(), t)) + " prefix parameters x 4 bytes"
          + " (fp32, trained)";
    }
    if (t.kind() == llmsim.core.task.TaskKind.FINETUNE_LORA || t.kind() == llmsim.core.task.TaskKind.FINETUNE_QLORA) {
      return " + " + count(llmsim.core.memory.Footprint.loraParameters(r.model(), t.loraRank(), t.loraTargets()))
          + " adapter parameters x 4 bytes (fp32, trained)";
    }
    return "";
  }

  /**
   * The share of the weights offload leaves on the GPU, as a factor of P x bytes (empty where every layer is there):
   * 16 of LLaMA-7B's 32 layers read 'P x 2.00 bytes (f16)' beside 7.1 GiB, half of what that says.
   */
  private static String resident(MemoryPlan p) {
    if (p.hostLayers() <= 0) {
      return "";
    }
    return String.format(Locale.US, " x %d / %d layers on the GPU (the other %d in host memory, %s)", p.gpuLayers(),
        p.layers(), p.hostLayers(), p.cpuRunsHostLayers() ? "computed by the CPU"
            : "streamed to the GPU through a buffer of " + MemoryPlanner.PREFETCH_LAYERS + " layers, counted here");
  }

  private void decode(boolean perToken) {
    inferenceOnly();
    if (r.task().generateTokens() <= 1) { // no decode step: every number below would be NaN
      throw new BadFlagException(metric + ": generate_tokens is " + r.task().generateTokens() + (r.task()
          .generateTokens() == 0 ? "" : ", a token the prefill itself gives") + ", so the run has no decode step to"
          + " explain; give --generate-tokens 2 or more (or explain ttft_s, prefill_tokens_per_s)");
    }
    Device d = r.system().device();
    double w = weights();
    double bytes = r.decodeBytesPerToken();
    var m = r.model();
    // a decode step reads every matrix but the input embedding table (one row a token): B - W read as "12.5 GB +
    // -54465.5 kB" where that table outweighed the KV cache and activations
    double read = w * m.gemmParameterCount() / m.parameterCount();
    formula("weights read per step", "W x GEMM parameters / P: every matrix but the input embedding table, of which"
        + " each token reads one row", Units.gb(read));
    var mem = r.memory();
    String rest = "KV cache read + activations" + (mem.hostBytes() > 0 ? " + the weights kept in host memory ("
        + Units.gb(mem.hostBytes()) + ", " + (mem.cpuRunsHostLayers() ? "read by the CPU" : "streamed over the link")
        + ")" : "");
    formula("bytes per decode step B", "weights read + " + rest + " = " + Units.gb(read) + " + " + Units.gb(bytes - read),
        Units.gb(bytes));
    if (r.software().decodeKvPerQueryHead() && m.heads() != m.kvHeads()) {
      double reads = r.software().decodeKvReads(m.heads(), m.kvHeads(), r.task().plan().tp());
      formula("KV cache reads per step", String.format(Locale.US, "software profile %s loads keys and values once per query"
          + " head (%d query heads share %d KV heads): each KV head of this GPU is read (heads / tp) / (kv_heads /"
          + " min(tp, kv_heads)) times, counted in the KV cache read above", r.software().id(), m.heads(), m.kvHeads()),
          String.format(Locale.US, "%.3g", reads));
    }
    input("peak bandwidth BW", d.id(), "memory.bandwidth_gb_per_s", Units.bandwidth(d.memoryBandwidthBytesPerSecond()),
        d.memorySource());
    input("streaming fraction e", d.id(), "efficiency.memory_streaming", fraction(d.efficiency().memoryStreaming()),
        d.efficiency().memorySource());
    double scale = r.software().streamScale() * (r.task().weights().dequantised() ? r.software().dequantScale() : 1);
    formula("software factor s", "software profile " + r.software().id() + ": " + r.software().source(), fraction(scale));
    double eff = d.memoryBandwidthBytesPerSecond() * d.efficiency().memoryStreaming() * scale;
    formula("effective bandwidth", "BW x e x s", Units.bandwidth(eff));
    int batch = r.task().batch();
    if (perToken) {
      closedForm = bytes / eff;
      simulated = r.tpotSeconds();
      formula("TPOT (closed form)", "B / (BW x e x s) = " + Units.gb(bytes) + " / " + Units.bandwidth(eff),
          seconds(closedForm));
    } else {
      // the run's decode tokens/s are its data-parallel replicas' sum, each reading its own copy of the weights
      int replicas = r.task().replicas();
      closedForm = replicas * batch * eff / bytes;
      simulated = r.decodeTokensPerSecond();
      formula("decode tokens/s (closed form)", (replicas > 1 ? "replicas x " : "") + "batch x BW x e x s / B = "
          + (replicas > 1 ? replicas + " x " : "") + batch + " x " + Units.bandwidth(eff) + " / " + Units.gb(bytes),
          num(closedForm) + " tokens/s");
    }
    explainDifference();
  }

  private void prefill(boolean ttft) {
    inferenceOnly();
    Device d = r.system().device();
    weights();
    double p = r.model().parameterCount();
    formula("FLOPs per token", "2 x P", count(2 * p));
    // the closed form leaves attention out; over a long prompt it is not "a little" (32K tokens of a 6B model: +59%)
    long prompt = r.task().promptTokens();
    double attention = 2.0 * r.model().layers() * r.model().qDim() * prompt;
    formula("attention FLOPs per token", String.format(Locale.US, "QK^T and attention x V over the causal half of the"
        + " prompt, 4 x layers x heads x head_dim x prompt / 2 = 4 x %d x %d x %d / 2: %.1f%% of 2 x P, left out of"
        + " the closed form below", r.model().layers(), r.model().qDim(), prompt, 100 * attention / (2 * p)),
        count(attention));
    var peak = PrecisionSupport.resolve(d, r.task().precision(), r.software());
    double gemm = gemmInputs(d, peak);
    llamaCppBuild(gemm);
    // a replica's tp GPUs each compute 2P / tp per token, and the run's prefill tokens/s are its replicas' sum
    int tp = r.task().plan().tp();
    int replicas = r.task().replicas();
    double rate = tp * peak.peakFlops() * gemm * r.software().gemmScale() / (2 * p);
    String tpTimes = tp > 1 ? "tp x " : "";
    String factors = gemmFactors(d, peak);
    int tokens = r.task().batch() * r.task().promptTokens();
    if (ttft) {
      closedForm = tokens / rate;
      simulated = r.ttftSeconds();
      formula("TTFT (closed form)", String.format(Locale.US, "batch x prompt x 2P / (%speak x %s) = %d tokens / %s"
          + " tokens/s", tpTimes, factors, tokens, num(rate)), seconds(closedForm));
    } else {
      closedForm = replicas * rate;
      simulated = r.prefillTokensPerSecond();
      formula("prefill tokens/s (closed form)", (replicas > 1 ? "replicas x " : "") + tpTimes + "peak x " + factors + " / (2 x P)"
          + " = " + (replicas > 1 ? replicas + " x " : "") + (tp > 1 ? tp + " x " : "") + Units.tflops(peak.peakFlops())
          + " x " + fraction(gemm * r.software().gemmScale()) + " / " + count(2 * p), num(closedForm) + " tokens/s");
    }
    explainDifference();
  }

  /**
   * The factors {@link #gemmInputs}' product stands for, as a formula names them: g x h x s where the device holds a
   * share at the power limit, else g x s ('peak x g x s' read beside an H100's 0.763, which is g x h x s).
   */
  private static String gemmFactors(Device d, PrecisionSupport.Resolved peak) {
    return d.efficiency().sustainedScale(peak.gemmPrecision()) != 1 ? "g x h x s" : "g x s";
  }

  /**
   * The inputs of a compute-bound closed form, each with its catalog field: the peak, the GEMM fraction g, the share
   * held at the power limit h (where it is not 1) and the software factor s. Returns g x h.
   */
  private double gemmInputs(Device d, PrecisionSupport.Resolved peak) {
    peakInput(d, peak);
    double gemm = d.efficiency().gemmAt(peak.gemmPrecision());
    // fp8 and int8 GEMMs reach their own fraction (Efficiency.gemmAt): it read 'efficiency.gemm: E03: mamf-finder bf16
    // ... = 0.803' beside the fp8 figure, 0.709
    boolean eight = peak.gemmPrecision() == llmsim.core.hw.Precision.FP8
        || peak.gemmPrecision() == llmsim.core.hw.Precision.INT8;
    input("GEMM fraction g", d.id(), eight ? "efficiency.gemm_fp8" : "efficiency.gemm", fraction(gemm),
        eight ? d.efficiency().gemmFp8Source() : d.efficiency().gemmSource());
    double held = d.efficiency().sustainedScale(peak.gemmPrecision());
    if (held != 1) {
      input("share held at the power limit h", d.id(), eight ? "efficiency.gemm_fp8_sustained / gemm_fp8"
          : "efficiency.gemm_sustained / gemm", fraction(held), d.efficiency().sustainedSource());
      gemm *= held;
    }
    formula("software factor s", "software profile " + r.software().id() + ": " + r.software().source(),
        fraction(r.software().gemmScale()));
    return gemm;
  }

  /** llama.cpp's build-dependent kernels on this device, which the simulation charges and the closed form leaves out. */
  private void llamaCppBuild(double gemm) {
    var build = r.software().llamaCpp();
    if (build == null) {
      return;
    }
    var backend = llmsim.core.software.LlamaCppBuild.Backend.of(r.system().device().vendor());
    double d = build.dequantPerFlop(backend, r.task().weights());
    if (d > 0) {
      formula("llama.cpp dequantisation d", "ALU work per weight-GEMM FLOP for " + r.task().weights().key() + " on "
          + backend.name().toLowerCase(Locale.ROOT) + " (docs/CALIBRATION.md#llamacpp): quantised GEMMs run at g / (1 + d x g)"
          + " = " + fraction(gemm / (1 + d * gemm)), fraction(d));
    }
    double attention = build.attentionPeakFraction(backend);
    if (attention > 0) {
      formula("llama.cpp attention kernel", "KQ and KQV of a " + build.date() + " build run at this fraction of peak"
          + " (docs/CALIBRATION.md#llamacpp)", fraction(attention));
    }
  }

  private void stepTime() {
    for (Bound b : Bound.values()) {
      double t = r.timeByBound().getOrDefault(b, 0.0);
      if (t > 0) {
        formula("time bound by " + b.key(), r.trace().gpus() > 1
            ? "simulated: the instants at which " + b.key() + " held a GPU, the mean over the " + r.trace().gpus()
                + " simulated GPUs"
            : "simulated: the instants at which " + b.key() + " limited the run", seconds(t));
      }
    }
    simulated = r.stepTimeSeconds();
    formula("step time", "sum of the above (the engine's makespan)", seconds(simulated));
    if (r.task().kind().training()) {
      var peak = PrecisionSupport.resolve(r.system().device(), r.task().precision(), r.software());
      // the closed form's inputs, each with its catalog field and source, as prefill's are: they appeared only as
      // their product in the formula's line ('989.4 TFLOP/s x 0.763')
      double g = gemmInputs(r.system().device(), peak) * r.software().gemmScale();
      formula("hardware FLOPs", passFlops() + " (+ attention, + recomputation), this GPU", count(r.hardwareFlops()));
      closedForm = r.hardwareFlops() / (peak.peakFlops() * g);
      formula("compute-only time (closed form)", "hardware FLOPs / (peak x " + gemmFactors(r.system().device(), peak)
          + ") = " + count(r.hardwareFlops()) + " / ("
          + Units.tflops(peak.peakFlops()) + " x " + fraction(g) + ")", seconds(closedForm));
    } else if (r.task().generateTokens() <= 1) { // the run is the prefill alone: there is no TPOT to add
      closedForm = r.ttftSeconds();
      // its 'how' was the value again ('0.09741 s'), no derivation
      formula(r.task().generateTokens() == 0 ? "TTFT (no tokens generated)" : "TTFT (its one token is the prefill's)",
          "simulated: the prefill, to its first token", seconds(closedForm));
    } else {
      closedForm = r.ttftSeconds() + (r.task().generateTokens() - 1) * r.tpotSeconds();
      formula("TTFT + (generated - 1) x TPOT", seconds(r.ttftSeconds()) + " + " + (r.task().generateTokens() - 1) + " x "
          + seconds(r.tpotSeconds()), seconds(closedForm));
    }
    explainDifference();
  }

  /**
   * A training step's GEMM FLOPs per token as a multiple of P: 6 where the weights train (forward 2, the backward's
   * input and weight gradients 2 each), 4 where the base is frozen, whose backward computes input gradients only
   * (LoRA's adapters add their own GEMMs; P-Tuning v2's prefixes are keys and values, in the attention). LoRA on LLaMA-7B read '6 x P x tokens' beside 6.08e13 FLOPs for 2,048
   * tokens, which is 4.4 x P x tokens.
   */
  private String passFlops() {
    var k = r.task().kind();
    if (!k.frozenBase()) {
      return "6 x P x tokens";
    }
    return "4 x P x tokens (the frozen base: forward and input gradients, no weight gradients)"
        + (k == llmsim.core.task.TaskKind.PTUNING_V2 ? "" : " + the adapters' forward and backward");
  }

  private void mfu() {
    var peak = PrecisionSupport.resolve(r.system().device(), r.task().precision(), r.software());
    // a GPU's share on several (tp and pp split the work, each replica its own tokens): MFU is per GPU's peak
    formula("model FLOPs", (r.task().kind().training() ? passFlops() + " + attention (recomputation not counted)"
        : "2 x P x tokens + attention") + (r.system().totalDevices() > 1 ? ", this GPU's share ("
            + r.task().plan().describe() + ")" : ""), count(r.modelFlops()));
    formula("step time", "simulated", seconds(r.stepTimeSeconds()));
    peakInput(r.system().device(), peak);
    closedForm = r.modelFlops() / (r.stepTimeSeconds() * peak.peakFlops());
    simulated = r.mfu();
    formula("MFU", "model FLOPs / (step time x peak)", fraction(closedForm));
    explainDifference();
  }

  private void memory() {
    MemoryPlan p = r.memory();
    weights(true);
    String share = r.system().totalDevices() > 1 ? ", this GPU's share (" + r.task().plan().describe() + ")" : "";
    formula("gradients", "trainable parameters x gradient bytes" + share + gradientBucket(), held(p.gradientsBytes()));
    formula("optimizer state", optimizerHow() + share + (r.task().kind().training() && p.optimizerBytes() == 0
        && p.hostBytes() > 0 ? "; in host memory (offload " + p.offload().key() + ")" : ""), held(p.optimizerBytes()));
    formula("activations", "batch x seq x hidden x layers (Korthikanti et al. 2022)" + share,
        held(p.activationsBytes()));
    formula("KV cache", "2 x layers x kv_heads x head_dim x context x batch x bytes" + (p.cpuRunsHostLayers()
        && p.hostLayers() > 0 ? String.format(Locale.US, " x %d / %d layers on the GPU (llama.cpp keeps a CPU layer's"
            + " cache beside it in host memory)", p.gpuLayers(), p.layers()) : "") + share, held(p.kvCacheBytes()));
    formula("workspace", "software profile " + r.software().id(), held(p.workspaceBytes()));
    simulated = p.totalBytes();
    formula("total on this GPU", "the sum" + (p.offload().key().equals("none") ? "" : ", after offload="
        + p.offload().key()), Units.gib(simulated));
    input("device memory", r.system().device().id(), "memory.capacity_gib",
        Units.gib(r.system().device().memoryCapacityBytes()), r.system().device().memorySource());
    formula("usable share", r.system().gpuMemoryShareSource(), fraction(r.system().gpuMemoryShare()));
    formula("usable capacity", "capacity x share", Units.gib(p.capacityBytes()));
    formula("fits", "total <= usable" + (p.fitsHost() ? "" : ", and host memory"), p.fits() ? "yes" : "no");
  }

  /**
   * A memory row in GiB as {@code llmsim memory} gives it: a LoRA adapter's 16 MiB of gradients to two significant
   * digits, where one decimal read 0.0 GiB, as if there were none, beside a KV cache that is none.
   */
  private static String held(double bytes) {
    return MemoryCommand.gib(bytes) + " GiB";
  }

  /**
   * The optimizer state's bytes per trainable parameter, as the memory planner counts them: fp32 master weights (in
   * mixed precision, unless master_weights is off) and two moments at the master's width, or bitsandbytes' 8-bit
   * moments; adapters and prefixes train in fp32 without a master copy. It said "AdamW: 12 bytes per trainable
   * parameter (master, m, v)" whatever the task and optimizer.
   */
  private String optimizerHow() {
    var t = r.task();
    if (!t.kind().training()) {
      return "inference keeps no optimizer state";
    }
    var o = t.optimizer();
    boolean adapters = t.kind().frozenBase();
    double master = adapters ? 0 : o.masterBytesPerParameter(t.precision());
    double state = adapters ? new llmsim.core.task.TrainingOptimizer(o.kind(), false, false).stateBytesPerParameter(4)
        : o.stateBytesPerParameter(t.precision().bytes());
    String moments = o.kind() != llmsim.core.task.TrainingOptimizer.Kind.ADAMW ? "8-bit m, v with their absmax"
        : (adapters || master > 0 ? "fp32 " : t.precision().key() + " ") + "m, v";
    return String.format(Locale.US, "%s: %.3g bytes per trainable parameter (%s%s)%s", o.kind().key(), master + state,
        master > 0 ? "fp32 master, " : "", moments, adapters ? " of the " + (t.kind() == llmsim.core.task.TaskKind.PTUNING_V2
            ? "prefixes" : "adapters") : "");
  }

  private void explainDifference() {
    if (Double.isNaN(closedForm) || Double.isNaN(simulated)) {
      return;
    }
    double gap = simulated / closedForm - 1;
    if (Math.abs(gap) < 0.01) {
      difference = "the simulation agrees with the closed form (within 1%)";
      return;
    }
    Map<Bound, Double> by = r.timeByBound();
    double overhead = by.getOrDefault(Bound.OVERHEAD, 0.0) / r.stepTimeSeconds();
    // the bounds are the whole run's: for a prefill metric, decode's launch-bound steps are in that share too
    boolean prefill = metric.equals("ttft_s") || metric.equals("prefill_tokens_per_s");
    difference = String.format(Locale.US, "the simulation gives %s, %+.0f%% from the closed form: it also counts"
        + " launch and dispatch overhead (%.0f%% of the %s)%s%s, the ops the formula leaves out, and overlap between"
        + " them; the %s is bound by %s", value(simulated), 100 * gap, 100 * overhead,
        prefill ? "whole run, decode included" : "run", collectives(by) + hostSide(by), bubble(),
        prefill ? "whole run" : "run", r.bound().key());
  }

  /**
   * The time the run waited on the host link and on the host (its CPU and memory), as a clause (empty where neither
   * held it): offloaded weights or optimizer state cross the link and run on the CPU, which the closed form, one
   * device's bytes or FLOPs over its own rates, has no term for. ZeRO-Offload's LLaMA-7B step on an H100, 66% on the
   * link, was '+397% from the closed form: it also counts launch and dispatch overhead (10% of the run), the ops the
   * formula leaves out, and overlap', the link named only as the bound.
   */
  private String hostSide(Map<Bound, Double> by) {
    List<String> parts = new ArrayList<>();
    double link = by.getOrDefault(Bound.HOST_LINK, 0.0);
    double host = by.getOrDefault(Bound.HOST, 0.0);
    if (link > 0.005 * r.stepTimeSeconds()) {
      parts.add(String.format(Locale.US, "%s %.0f%%", r.system().hostLink().name(), 100 * link / r.stepTimeSeconds()));
    }
    if (host > 0.005 * r.stepTimeSeconds()) {
      parts.add(String.format(Locale.US, "the host's CPU and memory %.0f%%", 100 * host / r.stepTimeSeconds()));
    }
    return parts.isEmpty() ? "" : ", the host it waits on (" + String.join(", ", parts) + " of the run)";
  }

  /**
   * The time the run waited on collectives and sends between GPUs, by the link they cross, as a clause (empty where
   * none): the closed form has no communication in it, so on several GPUs it is often most of the gap.
   */
  private String collectives(Map<Bound, Double> by) {
    List<String> parts = new ArrayList<>();
    double fabric = by.getOrDefault(Bound.INTRA_NODE_LINK, 0.0);
    double network = by.getOrDefault(Bound.NETWORK, 0.0);
    boolean training = r.task().kind().training();
    if (fabric > 0.005 * r.stepTimeSeconds()) {
      parts.add(String.format(Locale.US, "%s over %s %.0f%%",
          Explainer.collectivesOn(r.system(), r.task().plan(), false, training),
          r.system().deviceLink().map(l -> l.name()).orElse("the intra-node link"), 100 * fabric / r.stepTimeSeconds()));
    }
    if (network > 0.005 * r.stepTimeSeconds()) {
      parts.add(String.format(Locale.US, "%s over %s %.0f%%",
          Explainer.collectivesOn(r.system(), r.task().plan(), true, training),
          r.system().network().map(n -> n.nic().name()).orElse("the network"), 100 * network / r.stepTimeSeconds()));
    }
    return parts.isEmpty() ? "" : ", the collectives and sends between GPUs it waits on (" + String.join("; ", parts)
        + " of the run)";
  }

  /**
   * A pipeline's bubble, as a clause (empty without stages): the time a stage's GPU waited on its neighbours, as
   * simulated, beside the schedule's own (p - 1) / v of m + (p - 1) / v micro-batch slots; the closed form, one GPU's
   * FLOPs over its peak, has no room for either.
   */
  private String bubble() {
    if (r.task().plan().pp() <= 1 || !r.task().kind().training()) {
      return "";
    }
    return String.format(Locale.US, ", the pipeline bubble (each of the %d stages' GPUs waits on its neighbours %.0f%%"
        + " of the step; %s)", r.task().plan().pp(), 100 * r.pipelineBubbleShare(), r.scheduleBubble());
  }

  private String value(double v) {
    return metric.endsWith("_s") && !metric.endsWith("per_s") ? seconds(v) : metric.equals("mfu") ? fraction(v)
        : metric.equals("memory") ? Units.gib(v) : metric.endsWith("tokens_per_s") ? num(v) + " " + unit() : num(v);
  }

  /** The unit of the metric's closed-form and simulated values: memory's are bytes, though its table shows GiB. */
  private String unit() {
    return metric.equals("memory") ? "bytes" : metric.equals("mfu") ? "ratio"
        : metric.endsWith("tokens_per_s") ? "tokens/s" : "s";
  }

  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("metric", metric);
    m.put("unit", unit());
    m.put("hardware", r.system().id());
    m.put("model", r.model().id());
    m.put("task", r.task().kind().key());
    // the plan the derivation is of, as memory --format json gives it (plan auto's choice was only in a warning)
    m.put("plan", ResultFormat.planJson(r.system(), r.task()));
    m.put("steps", steps.stream().map(s -> Json.object("quantity", s.quantity(), "how", s.how(), "value", s.value())).toList());
    m.put("closed_form", Double.isNaN(closedForm) ? null : closedForm);
    m.put("simulated", Double.isNaN(simulated) ? null : simulated);
    m.put("difference", difference);
    m.put("warnings", r.warnings());
    return m;
  }

  static String num(double v) {
    return String.format(Locale.US, "%.4g", v);
  }

  static String count(double v) {
    return String.format(Locale.US, "%.4g", v);
  }

  static String fraction(double v) {
    return String.format(Locale.US, "%.3f", v);
  }

  static String seconds(double v) {
    return String.format(Locale.US, "%.4g s", v);
  }
}
