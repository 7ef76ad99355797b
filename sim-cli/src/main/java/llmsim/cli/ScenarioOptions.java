package llmsim.cli;

import java.util.List;
import llmsim.core.hw.Precision;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.hw.scenario.ScenarioFile;
import llmsim.hw.scenario.ScenarioFile.Raw;
import picocli.CommandLine.Option;

/**
 * The scenario flags shared by memory, simulate, compare and roofline. Each overrides the same key of a
 * scenario file; anything unset takes the task's default.
 */
final class ScenarioOptions {
  @Option(names = {"-m", "--model"}, paramLabel = "MODEL", description = "Model id or alias, model .yaml, or Hugging Face config.json.")
  String model;

  @Option(names = {"-H", "--hardware"}, paramLabel = "ID[,ID...]", split = ",",
      description = "Systems (or devices, on their default host), or .yaml files; comma-separated.")
  List<String> hardware;

  @Option(names = {"-t", "--task"}, paramLabel = "TASK", description = "train, finetune-full, finetune-lora, finetune-qlora, ptuning-v2, inference (default: inference).")
  String task;

  @Option(names = "--precision", paramLabel = "P", description = "Compute precision: fp32, tf32, fp16, bf16, fp8, int8 (default: bf16 for training, fp16 for inference).")
  String precision;

  @Option(names = "--weights", paramLabel = "FMT", description = "Weight format: f32, f16, bf16, fp8, int8, int4, q8_0, q4_0, nf4 (default: f16; nf4 for QLoRA).")
  String weights;

  @Option(names = "--batch", paramLabel = "N", description = "Sequences per forward pass (micro-batch for training). Default 1.")
  Integer batch;

  @Option(names = "--seq-len", paramLabel = "TOKENS", description = "Tokens per training sequence. Default 2048.")
  Integer seqLen;

  @Option(names = "--prompt-tokens", paramLabel = "TOKENS", description = "Prompt length for inference. Default 512.")
  Integer promptTokens;

  @Option(names = "--generate-tokens", paramLabel = "TOKENS", description = "Generated tokens per sequence for inference. Default 128.")
  Integer generateTokens;

  @Option(names = "--micro-batches", paramLabel = "N", description = "Gradient-accumulation steps per optimizer step. Default 1.")
  Integer microBatches;

  @Option(names = "--activation-checkpointing", paramLabel = "BOOL", arity = "0..1", fallbackValue = "true",
      description = "Recompute activations in the backward pass (true/false). Default false.")
  Boolean activationCheckpointing;

  @Option(names = "--lora-rank", paramLabel = "R", description = "LoRA/QLoRA adapter rank. Default 8.")
  Integer loraRank;

  @Option(names = "--prefix-tokens", paramLabel = "N", description = "P-Tuning v2 prefix length. Default 128.")
  Integer prefixTokens;

  @Option(names = "--offload", paramLabel = "MODE", description = "auto, none, optimizer, weights (default: auto = the least that fits).")
  String offload;

  @Option(names = "--software", paramLabel = "PROFILE", description = "Software profile: pytorch, llama.cpp, tensorrt-llm, megatron, mlx (default: pytorch).")
  String software;

  /** A scenario with flags applied over its file: hardware ids, model id, task and software. */
  record Resolved(List<String> hardware, String model, Task task, SoftwareProfile software) {}

  /** Merge flags over a scenario file (either may be absent). */
  Resolved resolve(Raw file, boolean hardwareRequired) {
    Raw base = file == null ? ScenarioFile.EMPTY : file;
    String m = model != null ? model : base.model();
    if (m == null) {
      throw new BadFlagException("--model is required (a catalog id such as llama-7b, a model .yaml or a config.json); `llmsim models list` shows the catalog");
    }
    List<String> hw = hardware != null ? hardware : base.hardware();
    if (hardwareRequired && (hw == null || hw.isEmpty())) {
      throw new BadFlagException("--hardware is required (for example m2-ultra,13900ks-h100); `llmsim hardware list` shows the catalog");
    }
    TaskKind kind = parse("--task", task, base.task(), TaskKind::fromKey, TaskKind.INFERENCE, TaskKind.allowed());
    Task d = Task.defaults(kind);
    Precision p = parse("--precision", precision, base.precision(), Precision::fromKey, d.precision(), "fp32, tf32, fp16, bf16, fp8, int8");
    WeightFormat w = parse("--weights", weights, base.weights(), WeightFormat::fromKey, d.weights(), WeightFormat.allowed());
    Offload o = parse("--offload", offload, base.offload(), Offload::fromKey, d.offload(), "auto, none, optimizer, weights");
    if (o == Offload.OPTIMIZER && !kind.training()) {
      throw new BadFlagException("--offload", "optimizer", "auto, none, weights (inference has no optimizer)");
    }
    String swId = software != null ? software : (base.software() != null ? base.software() : SoftwareProfiles.PYTORCH.id());
    SoftwareProfile sw = SoftwareProfiles.find(swId)
        .orElseThrow(() -> new BadFlagException("--software", swId, String.join(", ", SoftwareProfiles.ids())));
    Task t;
    try {
      t = new Task(kind, p, w,
          pick(batch, base.batch(), d.batch()), pick(seqLen, base.seqLen(), d.seqLen()),
          pick(promptTokens, base.promptTokens(), d.promptTokens()), pick(generateTokens, base.generateTokens(), d.generateTokens()),
          pick(microBatches, base.microBatches(), d.microBatches()),
          activationCheckpointing != null ? activationCheckpointing
              : (base.activationCheckpointing() != null ? base.activationCheckpointing() : d.activationCheckpointing()),
          pick(loraRank, base.loraRank(), d.loraRank()), pick(prefixTokens, base.prefixTokens(), d.prefixTokens()), o);
    } catch (IllegalArgumentException e) {
      throw new BadFlagException("--" + e.getMessage().replace('_', '-'));
    }
    return new Resolved(hw == null ? List.of() : hw, m, t, sw);
  }

  private static int pick(Integer flag, Integer file, int dflt) {
    return flag != null ? flag : (file != null ? file : dflt);
  }

  private static <T> T parse(String flag, String value, String fileValue, java.util.function.Function<String, T> f,
      T dflt, String allowed) {
    String v = value != null ? value : fileValue;
    if (v == null) {
      return dflt;
    }
    try {
      return f.apply(v);
    } catch (IllegalArgumentException e) {
      throw new BadFlagException(flag, v, allowed);
    }
  }
}
