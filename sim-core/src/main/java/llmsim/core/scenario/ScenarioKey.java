package llmsim.core.scenario;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import llmsim.core.cost.Durations;
import llmsim.core.cost.Money;
import llmsim.core.cost.PriceOverride;
import llmsim.core.cost.Rates;
import llmsim.core.hw.Precision;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.PipelineSchedule;
import llmsim.core.task.Recompute;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;

/**
 * The one table of scenario keys. Each key is declared here once, with its type, range, default and help;
 * the command-line flags, the scenario and grid files and their JSON Schemas, the sweep axes and the sweep
 * report columns are all derived from this table. Adding a key touches this file and {@link ScenarioValues}.
 */
public enum ScenarioKey {
  HARDWARE("hardware", "hardware", new String[] {"-H", "--hardware"}, "ID[,ID...]", Type.IDS, null, 0, 0, null,
      "Systems (or devices, on their default host), or .yaml files; comma-separated."),
  MODEL("model", "models", new String[] {"-m", "--model"}, "MODEL", Type.TEXT, null, 0, 0, null,
      "Model id or alias, model .yaml, or Hugging Face config.json."),
  TASK("task", "tasks", new String[] {"-t", "--task"}, "TASK", Type.CHOICE, () -> Arrays.stream(TaskKind.values()).map(TaskKind::key).toList(), 0, 0,
      "inference", "What is done with the model."),
  PRECISION("precision", null, null, "P", Type.CHOICE, () -> Arrays.stream(Precision.values()).map(Precision::key).toList(), 0, 0, null,
      "Compute precision of the GEMMs (default: bf16 for training, fp16 for inference). The device must run it"
          + " natively or by a stated emulation; int8 is for inference only."),
  WEIGHTS("weights", null, null, "FMT", Type.CHOICE, () -> Arrays.stream(WeightFormat.values()).map(WeightFormat::key).toList(), 0, 0, null,
      "Storage format of the (base) weights (default: f16; nf4 for QLoRA); inference and the frozen base of LoRA,"
          + " QLoRA and P-Tuning v2 (train and finetune-full hold the weights they train at the compute precision)."),
  BATCH("batch", null, new String[] {"--micro-batch", "--batch"}, "N", Type.INT, null, 1, 1 << 20, "1",
      "Sequences per forward pass on one GPU: the micro-batch for training (--micro-batch is the same flag)."),
  SEQ_LEN("seq_len", null, null, "TOKENS", Type.INT, null, 1, 1 << 24, "2048",
      "Tokens per training sequence; at most the model's max context."),
  PROMPT_TOKENS("prompt_tokens", null, null, "TOKENS", Type.INT, null, 1, 1 << 24, "512",
      "Prompt length for inference."),
  GENERATE_TOKENS("generate_tokens", null, null, "TOKENS", Type.INT, null, 0, 1 << 24, "128",
      "Generated tokens per sequence for inference."),
  CONTEXT("context", null, null, "TOKENS", Type.INT, null, 1, 1 << 24, null,
      "Tokens the KV cache is sized for (llama.cpp's n_ctx; default: prompt + generated tokens)."),
  KV_CACHE("kv_cache", null, null, "FMT", Type.CHOICE, () -> Arrays.stream(KvCacheFormat.values()).map(KvCacheFormat::key).toList(), 0, 0, "f16",
      "KV-cache storage format (q8_0, q4_0: llama.cpp --cache-type-k/v, with flash_attention; fp8: TensorRT-LLM on an"
          + " fp8 device)."),
  GPU_LAYERS("gpu_layers", null, null, "N|auto", Type.INT_OR_AUTO, null, 0, 100_000, "auto",
      "Transformer layers kept on the GPU when the weights do not all fit (llama.cpp -ngl, Accelerate"
          + " device_map); the rest are computed on the CPU (llama.cpp) or streamed over the link (pytorch)."
          + " auto = as many as fit."),
  NODES("nodes", null, null, "N", Type.INT, null, 1, 65_536, null,
      "Nodes of a multi-node system or cluster template (default: the system's own, 1 for the templates);"
          + " example: --hardware h100-cluster --nodes 8 is 64 GPUs."),
  GPUS("gpus", null, null, "N", Type.INT, null, 1, 1 << 20, null,
      "GPUs in all (default: the system's own, nodes x GPUs per node): a cluster template gets gpus /"
          + " devices-per-node nodes; fewer than a node uses part of it. Example: --hardware h100-cluster --gpus 64"
          + " (8 nodes of 8)."),
  TP("tp", null, null, "N", Type.INT, null, 1, 1024, "1",
      "Tensor-parallel degree: every layer split over N GPUs (Megatron), an all-reduce of the activations twice per"
          + " layer forward and twice backward."),
  PP("pp", null, null, "N", Type.INT, null, 1, 1024, "1", "Pipeline-parallel degree: layers split into N stages."),
  DP("dp", null, null, "N", Type.INT, null, 1, 1 << 20, null,
      "Data-parallel replicas (default: the GPUs tp x pp leave); gradients are all-reduced every step."),
  ZERO("zero", null, null, "STAGE", Type.INT, null, 0, 3, "0",
      "ZeRO stage of the data-parallel replicas: 1 shards optimizer state, 2 also gradients, 3 also weights"
          + " (FSDP full shard)."),
  SHARD("shard", null, null, "SCOPE", Type.CHOICE, () -> List.of("full", "hybrid"), 0, 0, "full",
      "What ZeRO-3 shards over: full = every data-parallel replica (FSDP FULL_SHARD); hybrid = the replicas inside"
          + " one node, replicated across nodes (FSDP HYBRID_SHARD): weights gathered and gradients reduce-scattered"
          + " inside the node, the gradient shards all-reduced across nodes. hybrid needs zero 3 and a data-parallel"
          + " group spanning nodes with several replicas per node."),
  VIRTUAL_STAGES("virtual_stages", null, null, "V", Type.INT, null, 1, 64, "1",
      "Model chunks per pipeline GPU: above 1, Megatron's interleaved 1F1B (the bubble shrinks about v-fold);"
          + " the micro-batches must be a multiple of pp."),
  SCHEDULE("schedule", null, null, "NAME", Type.CHOICE,
      () -> Arrays.stream(PipelineSchedule.values()).map(PipelineSchedule::key).toList(), 0, 0, null,
      "Pipeline schedule (training, pp > 1): 1f1b runs at most pp micro-batches in flight on the first stage;"
          + " gpipe runs every micro-batch's forward, then every backward, so a stage holds the activations of all"
          + " micro_batches (the same bubble); interleaved is Megatron's with virtual_stages > 1 chunks per GPU."
          + " Default: 1f1b, or interleaved when virtual_stages > 1. Example: schedule: gpipe."),
  SEQUENCE_PARALLEL("sequence_parallel", null, null, "BOOL", Type.BOOL, () -> List.of("true", "false"), 0, 0, "false",
      "Megatron sequence parallelism: with tp, norms and residuals run on 1/tp of the tokens and each all-reduce"
          + " becomes a reduce-scatter and an all-gather of the same volume."),
  ALL_GPUS("all_gpus", null, null, "BOOL", Type.BOOL, () -> List.of("true", "false"), 0, 0, "false",
      "Simulate every GPU, each with its own resources, its collectives synchronised with its peers', instead of"
          + " one GPU per pipeline stage standing for its tensor- and data-parallel peers (the same on symmetric plans);"
          + " reports draw a GPU that ran in step with another once, as that GPU's '+N in step'."),
  PLAN("plan", null, null, "MODE", Type.CHOICE, () -> List.of("given", "auto"), 0, 0, "given",
      "given: run tp, pp, dp and zero as set; auto: try every plan the model and system allow (tp within a node,"
          + " pp dividing the layers, ZeRO 0-3), keep those that fit per-GPU memory, and run the fastest (a pipeline"
          + " plan at 4 micro-batches per stage unless micro_batches or global_batch is given); tp, pp, dp, zero and"
          + " virtual_stages are then its to choose and refused when given."),
  OVERLAP_GRAD_REDUCE("overlap_grad_reduce", null, null, "BOOL", Type.BOOL, () -> List.of("true", "false"), 0, 0,
      "true", "Reduce gradients in per-layer buckets while the backward pass runs (PyTorch DDP, FSDP, Megatron's"
          + " --overlap-grad-reduce); false reduces them all after it (DeepSpeed without bucketing)."),
  MICRO_BATCHES("micro_batches", null, null, "N", Type.INT, null, 1, 1 << 20, "1",
      "Gradient-accumulation steps per optimizer step (training): micro-batches each GPU runs before the optimizer."),
  GLOBAL_BATCH("global_batch", null, null, "SEQUENCES", Type.INT, null, 1, 1 << 30, null,
      "Sequences per optimizer step over every data-parallel replica (training), such as 1024: micro_batches becomes"
          + " global_batch / (batch x dp), which must be whole (dp as given, derived from the GPUs, or chosen by"
          + " --plan auto). Default: batch x micro_batches x dp."),
  RECOMPUTE("recompute", null, null, "MODE", Type.CHOICE, () -> Arrays.stream(Recompute.values()).map(Recompute::key).toList(),
      0, 0, "none", "Activations recomputed in the backward pass instead of kept (training): full keeps each layer's"
          + " input and runs the layer's forward again before its backward (activation checkpointing, Megatron"
          + " --recompute-granularity full); selective recomputes the attention core only (QK^T, softmax, attention x"
          + " V), so its batch x heads x seq_len^2 scores are never kept (Korthikanti et al. 2022); with FlashAttention"
          + " they never are, and selective changes nothing; full_offload is full with each layer's input kept in host"
          + " memory, copied out in the forward and back before the recomputed forward over the host link, in the"
          + " compute stream's order (Unsloth's use_gradient_checkpointing=\"unsloth\"). Example: recompute: full."),
  LORA_RANK("lora_rank", null, null, "R", Type.INT, null, 1, 65_536, "8", "LoRA/QLoRA adapter rank."),
  LORA_TARGETS("lora_targets", null, null, "LIST", Type.TEXT, null, 0, 0, "q,v",
      "Layers the LoRA/QLoRA adapters attach to: q,v (PEFT's default for LLaMA-family models), all (every projection:"
          + " q,k,v,o,gate,up,down, PEFT's all-linear), or any comma-separated subset, such as q,k,v,o. Each adapter is"
          + " two small GEMMs and their kernels forward and backward, and its parameters train."),
  PREFIX_TOKENS("prefix_tokens", null, null, "N", Type.INT, null, 1, 65_536, "128", "P-Tuning v2 prefix length."),
  OFFLOAD("offload", null, null, "MODE", Type.CHOICE, () -> Arrays.stream(Offload.values()).map(Offload::key).toList(), 0, 0, "auto",
      "Where state goes when the device is too small: auto (the least that fits), none, optimizer"
          + " (ZeRO-Offload; training on a discrete card; with several GPUs under zero 1-3), weights (streamed over"
          + " the link; with several GPUs, ZeRO-3 parameter offload)."),
  OPTIMIZER("optimizer", null, null, "NAME", Type.CHOICE, llmsim.core.task.TrainingOptimizer.Kind::keys, 0, 0, "adamw",
      "Optimizer of a training step: adamw (fp32 moments; the weights' 16-bit dtype without master weights),"
          + " adamw-8bit (bitsandbytes AdamW8bit: 8-bit blockwise moments, about 2 bytes per parameter),"
          + " paged-adamw-8bit (bitsandbytes PagedAdamW8bit: the same state in CUDA unified memory, paged to host"
          + " memory over the link when the device is full)."),
  MASTER_WEIGHTS("master_weights", null, null, "BOOL", Type.BOOL, () -> List.of("true", "false"), 0, 0, "true",
      "Whether full training keeps fp32 master weights beside the 16-bit ones (mixed precision); false trains the"
          + " weights in the compute precision itself, as torchtune's dtype bf16 does."),
  OPTIMIZER_IN_BACKWARD("optimizer_in_backward", null, null, "BOOL", Type.BOOL, () -> List.of("true", "false"), 0, 0,
      "false", "Update each parameter inside the backward pass as soon as its gradient is ready, and free the"
          + " gradient (torchtune's optimizer_in_bwd): no full gradient buffer; one GPU, one micro-batch."),
  SOFTWARE("software", null, null, "PROFILE", Type.CHOICE, ScenarioKey::softwareNames, 0, 0, "pytorch",
      "Software profile: how the framework uses the hardware."),
  FLASH_ATTENTION("flash_attention", null, null, "BOOL", Type.BOOL, () -> List.of("true", "false"), 0, 0, "false",
      "llama.cpp's -fa: attention as one fused kernel (ggml_flash_attn_ext, llama.cpp builds from 2024-04-30), so no"
          + " score matrix goes through memory. Other profiles fix their own attention kernels."),
  TOKENS("tokens", null, null, "N", Type.COUNT, null, 1, 10_000_000_000_000_000L, null,
      "Tokens of the whole job (trained on, or generated for inference), such as 1.4T or 50M: turns a step"
          + " into the job's wall time and GPU-hours."),
  EPOCHS("epochs", null, null, "E", Type.INT, null, 1, 1_000_000, null,
      "Passes over the dataset (training), with dataset_tokens: the job trains epochs x dataset_tokens tokens, as if"
          + " --tokens said so. Default: 1 when dataset_tokens is given. Example: --epochs 3 --dataset-tokens 50B."),
  DATASET_TOKENS("dataset_tokens", null, null, "N", Type.COUNT, null, 1, 10_000_000_000_000_000L, null,
      "Tokens in the training dataset, such as 50B: with epochs, the job's tokens (instead of --tokens)."),
  REQUESTS("requests", null, null, "N", Type.COUNT, null, 1, 10_000_000_000_000_000L, null,
      "Inference requests of the whole job, each the scenario's prompt and generated tokens (such as 2M): turns a run"
          + " into the job's wall time, GPU-hours, energy and cost; cost per 1M tokens counts the generated ones."),
  PRICING("pricing", null, null, "KIND", Type.CHOICE, () -> List.of("on-demand", "spot", "reserved", "own"), 0, 0,
      "on-demand", "How the GPUs are paid for: rented at the price catalog's on-demand, spot or reserved rate per"
          + " GPU-hour (`llmsim hardware prices`), or own: the purchase price over --amortization plus --electricity at"
          + " the device's TDP."),
  PROVIDER("provider", null, null, "NAME[,NAME...]", Type.TEXT, null, 0, 0, null,
      "Use only these providers' offers (aws, gcp, azure, lambda, runpod, vast, alibaba, tencent, volcano); default:"
          + " the cheapest offer of any."),
  PRICE("price", null, null, "DEVICE=PRICE|FILE", Type.PRICES, null, 0, 0, null,
      "Prices, comma-separated: DEVICE=AMOUNTCUR/h rents one GPU per hour (a100-sxm-80gb=1.89usd/h) and"
          + " DEVICE=AMOUNTCUR buys one (rtx4090=1599usd), both winning over the catalog; FILE.yaml adds its offers to"
          + " the catalog's, the cheapest of which is used unless --provider names the file's provider"
          + " (`llmsim hardware schema prices`)."),
  CURRENCY("currency", null, null, "CUR", Type.TEXT, null, 0, 0, "usd",
      "Currency costs are reported in (a three-letter code); prices in another currency need --rate."),
  RATE("rate", null, null, "CUR=AMOUNTCUR", Type.RATES, null, 0, 0, null,
      "Exchange rates you give, comma-separated (nothing is fetched): cny=0.14usd means one CNY is 0.14 USD."),
  ELECTRICITY("electricity", null, null, "AMOUNTCUR/kWh", Type.PER_KWH, null, 0, 0, null,
      "Price of a kWh for owned hardware (--pricing own), such as 0.15usd/kwh."),
  AMORTIZATION("amortization", null, null, "SPAN", Type.DURATION, null, 0, 0, "3y",
      "Period an owned device's purchase price is spread over (s, min, h, d, w, y; a year is 365 days); 3 years is"
          + " a common straight-line depreciation period, not a measurement."),
  SOFTWARE_DATE("software_date", null, null, "YYYY-MM", Type.TEXT, null, 0, 0, null,
      "When the software was built. For llama.cpp (YYYY-MM or YYYY-MM-DD, from 2023-03, its first release) it"
          + " selects the build's kernels: Metal's attention matmuls before 2023-09-15, CUDA graphs from 2024-05-08, CUDA's dequantise-then-cuBLAS prefill of"
          + " quantised weights from 2023-10-27 to 2024-06-22 (default: a build after all of them). For mlx (YYYY-MM or"
          + " YYYY-MM-DD, from 2023-12, MLX's first release) a date before 2024-03-21 (MLX 0.8's mx.fast norms) selects"
          + " the single-op modules of MLX 0.0.x-0.7: scores materialised in the activation dtype, unfused norms"
          + " (default: today's MLX). MLX training's attention is unfused at every date, today's included (Metal's fused"
          + " SDPA has no backward, and since 2025-04-08 is skipped under gradient tracing). The other profiles have one version each, so there it is recorded and the result"
          + " warns that it changes nothing.");

  /** How a key's value is written and checked. */
  public enum Type { IDS, TEXT, CHOICE, INT, INT_OR_AUTO, BOOL, COUNT, PRICES, RATES, PER_KWH, DURATION }

  /** The value {@code auto} of an {@link Type#INT_OR_AUTO} key. */
  public static final int AUTO = -1;

  /** The keys that lay a model out over the GPUs; plan auto and advise choose them per candidate themselves. */
  public static final java.util.List<ScenarioKey> LAYOUT = java.util.List.of(TP, PP, DP, ZERO, VIRTUAL_STAGES);

  /** Keys that were renamed, with what a file should say instead (their schemas point a reader there). */
  public static final java.util.Map<String, String> RENAMED = java.util.Map.of(
      "activation_checkpointing", "recompute: full (true) or recompute: none (false)");

  private final String key;
  private final String gridKey;
  private final String[] flagNames;
  private final String paramLabel;
  private final Type type;
  private final Supplier<List<String>> choices;
  private final long min;
  private final long max;
  private final String defaultText;
  private final String help;

  ScenarioKey(String key, String gridKey, String[] flagNames, String paramLabel, Type type,
      Supplier<List<String>> choices, long min, long max, String defaultText, String help) {
    this.key = key;
    this.gridKey = gridKey == null ? key : gridKey;
    this.flagNames = flagNames == null ? new String[] {"--" + key.replace('_', '-')} : flagNames;
    this.paramLabel = paramLabel;
    this.type = type;
    this.choices = choices;
    this.min = min;
    this.max = max;
    this.defaultText = defaultText;
    this.help = help;
  }

  /** The key in scenario files ({@code seq_len}). */
  public String key() {
    return key;
  }

  /** The key in sweep grid files and the sweep's flag ({@code models} for {@code model}). */
  public String gridKey() {
    return gridKey;
  }

  /** Flag names, the long one last ({@code -m}, {@code --model}). */
  public List<String> flagNames() {
    return List.of(flagNames);
  }

  /** The long flag ({@code --seq-len}). */
  public String flag() {
    return flagNames[flagNames.length - 1];
  }

  /** The sweep's long flag ({@code --models}). */
  public String gridFlag() {
    return "--" + gridKey.replace('_', '-');
  }

  public String paramLabel() {
    return paramLabel;
  }

  public Type type() {
    return type;
  }

  /** Allowed values of a {@link Type#CHOICE} or {@link Type#BOOL} key; empty for others. */
  public List<String> choices() {
    return choices == null ? List.of() : choices.get();
  }

  public long min() {
    return min;
  }

  public long max() {
    return max;
  }

  /** The default as text, or empty when it depends on other keys (then {@link #help()} says how). */
  public Optional<String> defaultText() {
    return Optional.ofNullable(defaultText);
  }

  public String help() {
    return help;
  }

  /** Help with the allowed values or range and the default, for {@code --help}. */
  public String longHelp() {
    StringBuilder sb = new StringBuilder(help);
    switch (type) {
      case CHOICE, BOOL -> sb.append(" One of: ").append(String.join(", ", choices())).append('.');
      case INT -> sb.append(String.format(Locale.US, " %d to %,d.", min, max));
      case COUNT -> sb.append(" A whole number, or one with a suffix K, M, B or T (1e3, 1e6, 1e9, 1e12).");
      case INT_OR_AUTO -> sb.append(String.format(Locale.US, " auto or %d to %,d.", min, max));
      default -> { }
    }
    defaultText().ifPresent(d -> sb.append(" Default: ").append(d).append('.'));
    return sb.toString();
  }

  /** Whether the sweep takes this key as an axis (every key but the recorded software date and the job's size). */
  public boolean sweepable() {
    return this != SOFTWARE_DATE && !jobKey();
  }

  /** Whether the key is about the job's size or price rather than the step (the sweep does not take them). */
  public boolean jobKey() {
    return this == TOKENS || this == EPOCHS || this == DATASET_TOKENS || this == REQUESTS || priceKey();
  }

  /** Whether the key says how the GPUs are paid for. */
  public boolean priceKey() {
    return this == PRICING || this == PROVIDER || this == PRICE || this == CURRENCY || this == RATE
        || this == ELECTRICITY || this == AMORTIZATION;
  }

  /**
   * Parse one value written as text (a flag, or a scalar in a file).
   *
   * @return a {@code String} ({@link Type#TEXT}, {@link Type#CHOICE}), a {@code List<String>}
   *     ({@link Type#IDS}), an {@code Integer} ({@link Type#INT}; {@link #AUTO} for auto) or a {@code Boolean}
   * @throws IllegalArgumentException naming the key's rule and the value
   */
  public Object parse(String text) {
    String v = text == null ? "" : text.strip();
    switch (type) {
      case IDS -> {
        if (v.isEmpty()) {
          throw new IllegalArgumentException("the value is empty; give a hardware id or a .yaml file");
        }
        List<String> out = new ArrayList<>();
        for (String part : v.split(",", -1)) {
          if (part.isBlank()) {
            throw new IllegalArgumentException("'" + key + "' has an empty entry in '" + text + "'");
          }
          out.add(part.strip());
        }
        return List.copyOf(out);
      }
      case TEXT -> {
        if (v.isEmpty()) {
          throw new IllegalArgumentException(this == MODEL
              ? "the value is empty; give a model id, a .yaml file or a config.json" : "'" + key + "' must not be empty");
        }
        return v;
      }
      case CHOICE, BOOL -> {
        String lower = v.toLowerCase(Locale.ROOT);
        if (!choices().contains(lower)) {
          throw new IllegalArgumentException("'" + key + "' must be one of " + String.join(", ", choices())
              + ", was '" + text + "'");
        }
        return type == Type.BOOL ? Boolean.valueOf(lower) : lower;
      }
      case INT, INT_OR_AUTO -> {
        if (type == Type.INT_OR_AUTO && v.equalsIgnoreCase("auto")) {
          return AUTO;
        }
        long n;
        try {
          n = Long.parseLong(v.replace("_", ""));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("'" + key + "' must be a whole number" + (type == Type.INT_OR_AUTO
              ? " or auto" : "") + ", was '" + text + "'");
        }
        if (n < min) {
          throw new IllegalArgumentException("'" + key + "' must be >= " + min + ", was " + v);
        }
        if (n > max) {
          throw new IllegalArgumentException(String.format(Locale.US, "'%s' must be <= %d, was %s", key, max, v));
        }
        return (int) n;
      }
      case COUNT -> {
        return count(v, text);
      }
      case PRICES -> {
        return costValue(() -> PriceOverride.parse(v));
      }
      case RATES -> {
        return costValue(() -> Rates.parse(v));
      }
      case PER_KWH -> {
        return costValue(() -> Money.parse(v, "/kwh", "0.15usd/kwh"));
      }
      case DURATION -> {
        return costValue(() -> Durations.seconds(v));
      }
      default -> throw new AssertionError(type);
    }
  }

  /** A cost key's value; its parser's message gains the key's name, as the other types' messages have it. */
  private Object costValue(Supplier<Object> parser) {
    try {
      return parser.get();
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("'" + key + "' " + e.getMessage(), e);
    }
  }

  private Long count(String v, String text) {
    double scale = 1;
    String digits = v.replace("_", "");
    if (!digits.isEmpty()) {
      switch (Character.toUpperCase(digits.charAt(digits.length() - 1))) {
        case 'K' -> scale = 1e3;
        case 'M' -> scale = 1e6;
        case 'B', 'G' -> scale = 1e9;
        case 'T' -> scale = 1e12;
        default -> { }
      }
    }
    if (scale > 1) {
      digits = digits.substring(0, digits.length() - 1);
    }
    double n;
    try {
      if (!digits.strip().matches("[+-]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][+-]?[0-9]+)?")) {
        // Double.parseDouble also takes Java's 20d, 20f and 0x10p0: --tokens 20d was 20 tokens, not a typo refused
        throw new NumberFormatException(digits);
      }
      n = Double.parseDouble(digits) * scale;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("'" + key + "' must be a whole number such as 1400000000000 or 1.4T, was '"
          + text + "'");
    }
    if (n >= min && n != Math.rint(n)) { // 1.23456789K is above the minimum: what it is not is whole
      throw new IllegalArgumentException(String.format(Locale.US, "'%s' must be a whole number, was %s%s", key, v,
          scale == 1 ? "" : " (" + new java.math.BigDecimal(digits.strip()).multiply(java.math.BigDecimal.valueOf(
              (long) scale)).stripTrailingZeros().toPlainString() + ")"));
    }
    if (!(n >= min)) {
      throw new IllegalArgumentException("'" + key + "' must be a whole number >= " + min + ", was " + v);
    }
    if (n > max) {
      throw new IllegalArgumentException(String.format(Locale.US, "'%s' must be <= %d, was %s", key, max, v));
    }
    return (long) n;
  }

  /** The key named in a file or grid ({@code seq_len}, or {@code models} when {@code grid}). */
  public static Optional<ScenarioKey> byKey(String name, boolean grid) {
    for (ScenarioKey k : values()) {
      if ((grid ? k.gridKey : k.key).equals(name)) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  private static List<String> softwareNames() {
    List<String> out = new ArrayList<>();
    for (SoftwareProfile p : SoftwareProfiles.ALL) {
      out.add(p.id());
      out.addAll(p.aliases());
    }
    return out;
  }
}
