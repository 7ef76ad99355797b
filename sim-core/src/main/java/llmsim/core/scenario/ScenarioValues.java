package llmsim.core.scenario;

import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.cost.CostBasis;
import llmsim.core.cost.Money;
import llmsim.core.cost.Offer;
import llmsim.core.cost.OfferKind;
import llmsim.core.cost.PriceOverride;
import llmsim.core.cost.Rates;
import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Offload;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.PipelineSchedule;
import llmsim.core.task.Recompute;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;

/**
 * Parsed scenario values by key (absent keys take their defaults), and the task and software they describe.
 * Rules that tie keys together are checked here, once, for flags, files and sweeps alike.
 */
public final class ScenarioValues {
  /** The two ways a job is sized: its tokens or requests directly, or epochs over a dataset's tokens. */
  private static final List<ScenarioKey> DIRECT_JOB_SIZE = List.of(ScenarioKey.TOKENS, ScenarioKey.REQUESTS);
  private static final List<ScenarioKey> EPOCH_JOB_SIZE = List.of(ScenarioKey.EPOCHS, ScenarioKey.DATASET_TOKENS);

  private final EnumMap<ScenarioKey, Object> values;

  public ScenarioValues(Map<ScenarioKey, Object> values) {
    this.values = values.isEmpty() ? new EnumMap<>(ScenarioKey.class) : new EnumMap<>(values);
  }

  public static ScenarioValues empty() {
    return new ScenarioValues(Map.of());
  }

  /**
   * These values with {@code over}'s set keys taking precedence (flags over a file). A job size in {@code over}
   * replaces these values' own way of sizing the job: --tokens over a file's epochs x dataset_tokens was refused at the
   * file's line, which no flag can unset ('epochs' or 'dataset_tokens' alone keeps the file's other one).
   */
  public ScenarioValues overriddenBy(ScenarioValues over) {
    EnumMap<ScenarioKey, Object> m = new EnumMap<>(values);
    if (DIRECT_JOB_SIZE.stream().anyMatch(over::has)) {
      DIRECT_JOB_SIZE.forEach(m::remove);
      EPOCH_JOB_SIZE.forEach(m::remove);
    } else if (EPOCH_JOB_SIZE.stream().anyMatch(over::has)) {
      DIRECT_JOB_SIZE.forEach(m::remove);
    }
    m.putAll(over.values);
    return new ScenarioValues(m);
  }

  public boolean has(ScenarioKey k) {
    return values.containsKey(k);
  }

  public Object get(ScenarioKey k) {
    return values.get(k);
  }

  public Map<ScenarioKey, Object> asMap() {
    return Collections.unmodifiableMap(values);
  }

  @SuppressWarnings("unchecked")
  public List<String> hardware() {
    Object v = values.get(ScenarioKey.HARDWARE);
    return v == null ? List.of() : (List<String>) v;
  }

  public String model() {
    return (String) values.get(ScenarioKey.MODEL);
  }

  public SoftwareProfile software() {
    String id = text(ScenarioKey.SOFTWARE, SoftwareProfiles.PYTORCH.id());
    SoftwareProfile sw = SoftwareProfiles.find(id).orElseThrow(() -> new ScenarioKeyException(ScenarioKey.SOFTWARE,
        "'software' must be one of " + String.join(", ", SoftwareProfiles.ids()) + ", was '" + id + "'"));
    boolean fa = Boolean.TRUE.equals(values.get(ScenarioKey.FLASH_ATTENTION));
    if (sw.llamaCpp() == null) {
      if (fa) {
        throw new ScenarioKeyException(ScenarioKey.FLASH_ATTENTION, "'flash_attention' applies to llama.cpp (its -fa); profile '"
            + sw.id() + "' fixes its own attention kernels (leave flash_attention out, or use software: llama.cpp)");
      }
      if (!has(ScenarioKey.SOFTWARE_DATE)) {
        return sw;
      }
      if (sw.mlx() != null) { // MLX's date selects its version's kernels
        try {
          return sw.atBuild(llmsim.core.software.MlxBuild.parse(text(ScenarioKey.SOFTWARE_DATE, null)));
        } catch (IllegalArgumentException e) {
          throw new ScenarioKeyException(ScenarioKey.SOFTWARE_DATE, e.getMessage());
        }
      }
      // a date or a release label (v0.6.1): kept as written, since nothing here reads it
      return sw.withRecordedDate(text(ScenarioKey.SOFTWARE_DATE, null).strip());
    }
    java.time.LocalDate date = sw.llamaCpp().date();
    if (has(ScenarioKey.SOFTWARE_DATE)) {
      try {
        date = llmsim.core.software.LlamaCppBuild.parseDate(text(ScenarioKey.SOFTWARE_DATE, null));
      } catch (IllegalArgumentException e) {
        throw new ScenarioKeyException(ScenarioKey.SOFTWARE_DATE, e.getMessage());
      }
    }
    if (fa && date.isBefore(llmsim.core.software.LlamaCppBuild.FLASH_ATTENTION)) {
      throw new ScenarioKeyException(ScenarioKey.FLASH_ATTENTION, "'flash_attention' needs a llama.cpp build"
          + " from " + llmsim.core.software.LlamaCppBuild.FLASH_ATTENTION + " (-fa, ggml-org/llama.cpp#5021); software_date"
          + " is " + date);
    }
    return sw.atBuild(new llmsim.core.software.LlamaCppBuild(date, fa));
  }

  /** The task these values describe, each unset key at its default for the task kind. */
  public Task task() {
    TaskKind kind = TaskKind.fromKey(text(ScenarioKey.TASK, TaskKind.INFERENCE.key()));
    Task d = Task.defaults(kind);
    Precision p = has(ScenarioKey.PRECISION) ? Precision.fromKey(text(ScenarioKey.PRECISION, null)) : d.precision();
    WeightFormat w = has(ScenarioKey.WEIGHTS) ? WeightFormat.fromKey(text(ScenarioKey.WEIGHTS, null)) : d.weights();
    if (kind.training() && p == Precision.INT8) {
      // int8 GEMMs are an inference recipe (W8A8, SmoothQuant in TensorRT-LLM); none of the profiles trains with
      // them, so a training step at the int8 peak would be a capability the simulator does not have
      throw new ScenarioKeyException(ScenarioKey.PRECISION, "'precision' int8 is not simulated for " + kind.key()
          + ": no software profile trains with int8 GEMMs (int8 compute is an inference recipe); use bf16 or fp16,"
          + " fp8 where the device runs it, or weights: int8 for an 8-bit base under LoRA");
    }
    Offload o = Offload.fromKey(text(ScenarioKey.OFFLOAD, d.offload().key()));
    if (o == Offload.OPTIMIZER && !kind.training()) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD,
          "'offload' optimizer applies to training only (inference has no optimizer); allowed: auto, none, weights");
    }
    if (kind == TaskKind.FINETUNE_QLORA && has(ScenarioKey.WEIGHTS) && w != WeightFormat.NF4) {
      throw new ScenarioKeyException(ScenarioKey.WEIGHTS,
          "'weights' must be nf4 for finetune-qlora (QLoRA stores the base weights in NF4), was '" + w.key() + "'");
    }
    KvCacheFormat kv = KvCacheFormat.fromKey(text(ScenarioKey.KV_CACHE, KvCacheFormat.F16.key()));
    if (kind.training() && has(ScenarioKey.KV_CACHE)) {
      // a training step keeps no KV cache (each pass attends over its own sequence), so the key would change nothing
      throw new ScenarioKeyException(ScenarioKey.KV_CACHE, "'kv_cache' applies to inference (a training step keeps"
          + " no KV cache); leave it out for " + kind.key());
    }
    int context = integer(ScenarioKey.CONTEXT, 0);
    int prompt = integer(ScenarioKey.PROMPT_TOKENS, d.promptTokens());
    int generate = integer(ScenarioKey.GENERATE_TOKENS, d.generateTokens());
    if (context > 0 && !kind.training() && context < (long) prompt + generate) {
      throw new ScenarioKeyException(ScenarioKey.CONTEXT, "'context' " + context + " must hold the prompt and the"
          + " generated tokens (" + prompt + " + " + generate + " = " + (prompt + generate) + ")");
    }
    int gpuLayers = integer(ScenarioKey.GPU_LAYERS, Task.GPU_LAYERS_AUTO);
    if (kind.training() && gpuLayers != Task.GPU_LAYERS_AUTO) {
      throw new ScenarioKeyException(ScenarioKey.GPU_LAYERS, "'gpu_layers' applies to inference (a training step with"
          + " offload=weights streams every layer); leave it at auto for " + kind.key());
    }
    Recompute recompute = Recompute.fromKey(text(ScenarioKey.RECOMPUTE, d.recompute().key()));
    int globalBatch = integer(ScenarioKey.GLOBAL_BATCH, 0);
    if (globalBatch > 0 && !kind.training()) {
      throw new ScenarioKeyException(ScenarioKey.GLOBAL_BATCH, "'global_batch' applies to training (sequences per"
          + " optimizer step); use batch for " + kind.key());
    }
    // with a global batch and no micro_batches, the count waits for dp (0 until the plan is resolved)
    int microBatches = integer(ScenarioKey.MICRO_BATCHES, globalBatch > 0 ? 0 : d.microBatches());
    boolean overlap = !values.containsKey(ScenarioKey.OVERLAP_GRAD_REDUCE)
        || (Boolean) values.get(ScenarioKey.OVERLAP_GRAD_REDUCE);
    int virtualStages = integer(ScenarioKey.VIRTUAL_STAGES, 1);
    boolean hybrid = hybridShard();
    int zero = integer(ScenarioKey.ZERO, 0);
    if (hybrid && planAuto()) {
      hybrid = false; // the search makes its ZeRO-3 candidates hybrid (zero is its to choose, refused when given)
    } else if (hybrid && zero != 3) {
      throw new ScenarioKeyException(ScenarioKey.SHARD, "'shard: hybrid' is ZeRO-3 within a node (FSDP hybrid shard);"
          + " it needs zero 3, was zero " + zero);
    } else if (has(ScenarioKey.SHARD) && zero != 3 && !planAuto()) {
      // 'full' is the default scope of ZeRO-3's shards: given with another stage it would change nothing, silently
      throw new ScenarioKeyException(ScenarioKey.SHARD, "'shard' applies with zero 3 (it is what ZeRO-3 shards over),"
          + " was zero " + zero + "; leave it out, or set zero 3");
    }
    if (planAuto()) {
      refuseLayoutWithPlanAuto(o);
    }
    ParallelPlan plan = new ParallelPlan(integer(ScenarioKey.TP, 1), integer(ScenarioKey.PP, 1),
        integer(ScenarioKey.DP, 0), zero, overlap,
        Boolean.TRUE.equals(values.get(ScenarioKey.SEQUENCE_PARALLEL)), virtualStages,
        Boolean.TRUE.equals(values.get(ScenarioKey.ALL_GPUS)), schedule(virtualStages), hybrid);
    return new Task(kind, p, w, integer(ScenarioKey.BATCH, d.batch()), integer(ScenarioKey.SEQ_LEN, d.seqLen()),
        prompt, generate, microBatches, recompute,
        integer(ScenarioKey.LORA_RANK, d.loraRank()), integer(ScenarioKey.PREFIX_TOKENS, d.prefixTokens()), o,
        context, kv, gpuLayers, plan, globalBatch, loraTargets(), optimizer(kind, microBatches, plan));
  }

  /** The training optimizer: the keys apply to training; the optimizer in the backward to one GPU and micro-batch. */
  private llmsim.core.task.TrainingOptimizer optimizer(TaskKind kind, int microBatches, ParallelPlan plan) {
    llmsim.core.task.TrainingOptimizer d = llmsim.core.task.TrainingOptimizer.DEFAULT;
    for (ScenarioKey k : new ScenarioKey[] {ScenarioKey.OPTIMIZER, ScenarioKey.MASTER_WEIGHTS,
        ScenarioKey.OPTIMIZER_IN_BACKWARD}) {
      if (has(k) && !kind.training()) {
        throw new ScenarioKeyException(k, "'" + k.key() + "' applies to training (" + kind.key() + " has no optimizer)");
      }
    }
    llmsim.core.task.TrainingOptimizer.Kind opt =
        llmsim.core.task.TrainingOptimizer.Kind.fromKey(text(ScenarioKey.OPTIMIZER, d.kind().key()));
    boolean master = !values.containsKey(ScenarioKey.MASTER_WEIGHTS)
        || (Boolean) values.get(ScenarioKey.MASTER_WEIGHTS);
    boolean inBackward = Boolean.TRUE.equals(values.get(ScenarioKey.OPTIMIZER_IN_BACKWARD));
    if (!master && kind.frozenBase()) {
      throw new ScenarioKeyException(ScenarioKey.MASTER_WEIGHTS, "'master_weights' applies to full training ("
          + kind.key() + " trains fp32 adapters or prefixes and keeps no master copy)");
    }
    checkOptimizerInBackward(inBackward, microBatches, plan);
    return new llmsim.core.task.TrainingOptimizer(opt, master, inBackward);
  }

  /**
   * The optimizer in the backward pass is modelled on one GPU with one micro-batch. Checked here on the values as
   * given, and again by {@link llmsim.core.parallel.Placement#resolve} once dp (derived from the GPUs) and the
   * micro-batches (derived from a global batch) are known, which the values alone do not say (0 until then).
   */
  public static void checkOptimizerInBackward(boolean inBackward, int microBatches, ParallelPlan plan) {
    if (inBackward && (microBatches > 1 || plan.tp() > 1 || plan.pp() > 1 || plan.dp() > 1)) {
      throw new ScenarioKeyException(ScenarioKey.OPTIMIZER_IN_BACKWARD, "'optimizer_in_backward' is modelled on one"
          + " GPU with one micro-batch (torchtune refuses gradient accumulation with it); was micro_batches "
          + microBatches + ", tp " + plan.tp() + ", pp " + plan.pp() + (plan.dp() > 0 ? ", dp " + plan.dp() : ""));
    }
  }

  /**
   * {@code plan: auto} chooses tp, pp, dp, ZeRO and the chunks per pipeline GPU itself, and searches plans without
   * offload: a value given for one of them would be dropped without a word, and the plan reported would not be the
   * one asked for, so it is refused (the search's own plan is named in the result).
   */
  private void refuseLayoutWithPlanAuto(Offload o) {
    for (ScenarioKey k : ScenarioKey.LAYOUT) {
      if (has(k)) {
        throw new ScenarioKeyException(k, "'" + k.key() + "' cannot go with plan: auto, which chooses tp, pp, dp, zero"
            + " and virtual_stages itself (and names the plan it ran); leave " + k.key() + " out, or use plan: given");
      }
    }
    if (o == Offload.OPTIMIZER || o == Offload.WEIGHTS) {
      throw new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload' " + o.key() + " cannot go with plan: auto, which"
          + " searches the plans that fit per-GPU memory without offload; use plan: given with the zero stage and"
          + " offload to run");
    }
  }

  /** The LoRA targets: q,v unless given; a name that is not a target is refused. */
  private java.util.Set<llmsim.core.task.LoraTarget> loraTargets() {
    String text = text(ScenarioKey.LORA_TARGETS, null);
    if (text == null) {
      return llmsim.core.task.LoraTarget.DEFAULT;
    }
    try {
      return llmsim.core.task.LoraTarget.parse(text);
    } catch (IllegalArgumentException e) {
      throw new ScenarioKeyException(ScenarioKey.LORA_TARGETS, "'lora_targets' " + e.getMessage());
    }
  }

  /** The pipeline schedule: as given, else interleaved exactly when there are virtual stages. */
  private PipelineSchedule schedule(int virtualStages) {
    if (!has(ScenarioKey.SCHEDULE)) {
      return virtualStages > 1 ? PipelineSchedule.INTERLEAVED : PipelineSchedule.ONE_F_ONE_B;
    }
    PipelineSchedule s = PipelineSchedule.fromKey(text(ScenarioKey.SCHEDULE, null));
    if (s == PipelineSchedule.INTERLEAVED && virtualStages == 1) {
      // plan: auto refuses virtual_stages: pointing there would send the user to a second refusal
      throw new ScenarioKeyException(ScenarioKey.SCHEDULE, "'schedule' interleaved needs virtual_stages > 1 (model"
          + " chunks per pipeline GPU)" + (planAuto() ? ", which plan: auto does not choose (its pipelines run 1f1b,"
              + " or gpipe if given); use plan: given with pp and virtual_stages" : ""));
    }
    if (s != PipelineSchedule.INTERLEAVED && virtualStages > 1) {
      throw new ScenarioKeyException(ScenarioKey.SCHEDULE, "'schedule' " + s.key() + " runs one model chunk per GPU,"
          + " but virtual_stages is " + virtualStages + " (Megatron's interleaved schedule); drop one of them");
    }
    return s;
  }

  /** Nodes asked for with --nodes, or 0. */
  public int nodes() {
    return integer(ScenarioKey.NODES, 0);
  }

  /** Whether shard is hybrid: FSDP's HYBRID_SHARD for a ZeRO-3 plan, or for plan auto's ZeRO-3 candidates. */
  public boolean hybridShard() {
    return text(ScenarioKey.SHARD, "full").equals("hybrid");
  }

  /** Whether the plan is to be searched (--plan auto). */
  public boolean planAuto() {
    return "auto".equals(values.get(ScenarioKey.PLAN));
  }

  /** Whether any key says how the GPUs are paid for ({@link ScenarioKey#priceKey}). */
  public boolean pricesGiven() {
    return java.util.Arrays.stream(ScenarioKey.values()).anyMatch(k -> k.priceKey() && has(k));
  }

  /** Tokens of the whole job (--tokens, or --epochs x --dataset-tokens), or 0. */
  public long tokens() {
    Object v = values.get(ScenarioKey.TOKENS);
    boolean epochs = has(ScenarioKey.EPOCHS);
    if (!epochs && !has(ScenarioKey.DATASET_TOKENS)) {
      return v == null ? 0 : (Long) v;
    }
    if (v != null) {
      throw new ScenarioKeyException(epochs ? ScenarioKey.EPOCHS : ScenarioKey.DATASET_TOKENS, "'"
          + (epochs ? "epochs" : "dataset_tokens") + "' cannot go with tokens, which also sizes the job; give tokens,"
          + " or epochs and dataset_tokens (tokens = epochs x dataset_tokens)");
    }
    if (!has(ScenarioKey.DATASET_TOKENS)) {
      throw new ScenarioKeyException(ScenarioKey.EPOCHS, "'epochs' needs dataset_tokens, the tokens of one pass"
          + " (such as --dataset-tokens 50B)");
    }
    long dataset = (Long) values.get(ScenarioKey.DATASET_TOKENS);
    int passes = integer(ScenarioKey.EPOCHS, 1);
    if (dataset > ScenarioKey.TOKENS.max() / passes) {
      throw new ScenarioKeyException(ScenarioKey.EPOCHS, String.format(java.util.Locale.US, "'epochs' %d x"
          + " dataset_tokens %d exceeds the %d tokens a job may have", passes, dataset, ScenarioKey.TOKENS.max()));
    }
    return dataset * passes;
  }

  /**
   * Tokens of {@code t}'s job: --tokens, epochs x dataset_tokens, or --requests x its generated tokens; 0 without a
   * job. epochs and dataset_tokens size a training job (passes over the tokens trained on) and are refused for
   * inference, whose job is sized by its generated tokens: they were taken as that many tokens generated.
   */
  public long jobTokens(Task t) {
    long requested = requestTokens(t); // checked even beside --tokens: one job size, not two
    if (!t.kind().training()) {
      for (ScenarioKey k : EPOCH_JOB_SIZE) {
        if (has(k)) {
          throw new ScenarioKeyException(k, "'" + k.key() + "' applies to training (passes over the tokens trained on);"
              + " the job of " + t.kind().key() + " is --requests (requests x generate_tokens) or --tokens (the tokens"
              + " generated)");
        }
      }
    }
    long tokens = tokens();
    return tokens > 0 ? tokens : requested;
  }

  /**
   * Generated tokens of the --requests job (requests x the task's generated tokens per request), or 0 without one;
   * refused for training (whose job is --tokens) and beside --tokens (one job size, not two).
   */
  public long requestTokens(Task t) {
    Object v = values.get(ScenarioKey.REQUESTS);
    if (v == null) {
      return 0;
    }
    if (t.kind().training()) {
      throw new ScenarioKeyException(ScenarioKey.REQUESTS, "'requests' applies to inference; the job of "
          + t.kind().key() + " is --tokens (the tokens trained on)");
    }
    if (has(ScenarioKey.TOKENS)) {
      throw new ScenarioKeyException(ScenarioKey.REQUESTS, "'requests' cannot be given with 'tokens': both size the job; give one");
    }
    if (t.generateTokens() == 0) {
      // the job is sized and priced by its generated tokens, of which a prefill-only run has none: it would be dropped
      throw new ScenarioKeyException(ScenarioKey.REQUESTS, "'requests' sizes the job by its generated tokens (requests x"
          + " generate_tokens), and generate_tokens is 0: there is no job to time or price; give generate_tokens >= 1");
    }
    double tokens = (double) (Long) v * t.generateTokens();
    if (tokens > ScenarioKey.TOKENS.max()) {
      throw new ScenarioKeyException(ScenarioKey.REQUESTS, "'requests' " + v + " x " + t.generateTokens()
          + " generated tokens exceeds " + ScenarioKey.TOKENS.max() + " tokens");
    }
    return (long) tokens;
  }

  /** How the job is paid for: the cost keys, each at its default when unset. */
  public CostBasis costBasis() {
    String currency;
    try {
      currency = Offer.currency(text(ScenarioKey.CURRENCY, "usd"));
    } catch (IllegalArgumentException e) {
      throw new ScenarioKeyException(ScenarioKey.CURRENCY, "'currency' must be a three-letter code such as usd or"
          + " cny, was '" + values.get(ScenarioKey.CURRENCY) + "'");
    }
    String pricing = text(ScenarioKey.PRICING, "on-demand");
    OfferKind kind = pricing.equals("own") ? OfferKind.PURCHASE : OfferKind.fromKey(pricing);
    List<String> providers = has(ScenarioKey.PROVIDER) ? java.util.Arrays.stream(text(ScenarioKey.PROVIDER, "")
        .split(",")).map(p -> p.strip().toLowerCase(java.util.Locale.ROOT)).filter(p -> !p.isEmpty()).toList()
        : List.of();
    // what prices owned hardware alone: on a rented GPU-hour (power and the hardware's cost included) it changed nothing
    for (ScenarioKey own : List.of(ScenarioKey.ELECTRICITY, ScenarioKey.AMORTIZATION)) {
      if (kind != OfferKind.PURCHASE && has(own)) {
        throw new ScenarioKeyException(own, "'" + own.key() + "' prices owned hardware (pricing: own), and the job is"
            + " rented (pricing: " + pricing + "), its GPU-hour price covering the hardware and its power; give"
            + " --pricing own, or leave it out");
      }
    }
    PriceOverride.Entries prices = priceEntries();
    Object amort = values.get(ScenarioKey.AMORTIZATION);
    return new CostBasis(kind, providers, currency, has(ScenarioKey.RATE) ? (Rates) values.get(ScenarioKey.RATE)
        : Rates.NONE, (Money) values.get(ScenarioKey.ELECTRICITY),
        amort == null ? CostBasis.DEFAULT_AMORTISATION_SECONDS : (Double) amort, prices.overrides());
  }

  /** The --price entries: overrides and price files. */
  public PriceOverride.Entries priceEntries() {
    Object v = values.get(ScenarioKey.PRICE);
    return v == null ? PriceOverride.Entries.NONE : (PriceOverride.Entries) v;
  }

  /** GPUs asked for with --gpus, or 0. */
  public int gpus() {
    return integer(ScenarioKey.GPUS, 0);
  }

  /**
   * Rules between the task and the model: sequences no longer than the model's context window, LoRA targets the
   * model has, and at most as many GPU layers as the model has.
   */
  public static void checkAgainstModel(Task t, ModelSpec m) {
    checkAgainstModel(t, m, k -> false);
  }

  /**
   * As above; {@code given} says which keys the user set, so that prompt and generated tokens too many together are
   * refused at the one of them that was given, not at a default never typed.
   */
  public static void checkAgainstModel(Task t, ModelSpec m, java.util.function.Predicate<ScenarioKey> given) {
    long max = m.maxContext();
    if (t.kind().training() && t.seqLen() > max) {
      throw new ScenarioKeyException(ScenarioKey.SEQ_LEN, "'seq_len' " + t.seqLen() + " exceeds " + m.id()
          + "'s max context of " + max + " tokens");
    }
    if (!t.kind().training() && (long) t.promptTokens() + t.generateTokens() > max) {
      boolean prompt = given.test(ScenarioKey.PROMPT_TOKENS);
      boolean generated = given.test(ScenarioKey.GENERATE_TOKENS);
      // the prompt alone too long, or the prompt the only one of the two given (generate_tokens is its default)
      throw new ScenarioKeyException(t.promptTokens() > max || prompt && !generated ? ScenarioKey.PROMPT_TOKENS
          : ScenarioKey.GENERATE_TOKENS,
          "prompt + generated tokens (" + t.promptTokens() + " + " + t.generateTokens() + ") exceed " + m.id()
              + "'s max context of " + max + " tokens");
    }
    if (!t.kind().training() && t.context() > max) {
      throw new ScenarioKeyException(ScenarioKey.CONTEXT, "'context' " + t.context() + " exceeds " + m.id()
          + "'s max context of " + max + " tokens");
    }
    java.util.Set<llmsim.core.task.LoraTarget> targets = t.loraTargets();
    boolean lora = t.kind() == TaskKind.FINETUNE_LORA || t.kind() == TaskKind.FINETUNE_QLORA;
    if (lora && m.ffnKind() != llmsim.core.model.FfnKind.SWIGLU && targets.contains(llmsim.core.task.LoraTarget.GATE)
        && targets.size() < llmsim.core.task.LoraTarget.values().length) {
      // all takes the layers the model has; a gate named alone got no adapter, and q,gate trained q only
      throw new ScenarioKeyException(ScenarioKey.LORA_TARGETS, "'lora_targets' names gate, which " + m.id()
          + " does not have: its MLP is " + m.ffnKind().key() + " (up and down); only a gated MLP (swiglu) has a gate"
          + " projection. Leave gate out, or give all");
    }
    if (t.gpuLayers() > m.layers()) {
      throw new ScenarioKeyException(ScenarioKey.GPU_LAYERS, "'gpu_layers' " + t.gpuLayers() + " exceeds the "
          + m.layers() + " layers of " + m.id());
    }
    if (t.offload() == Offload.NONE && t.gpuLayers() != Task.GPU_LAYERS_AUTO && t.gpuLayers() < m.layers()) {
      throw new ScenarioKeyException(ScenarioKey.GPU_LAYERS, "'gpu_layers' " + t.gpuLayers() + " leaves layers in"
          + " host memory, which offload=none forbids; use offload auto or weights");
    }
  }

  /**
   * The value of every key a task and software describe, as a report shows it: text for choices, numbers
   * for counts, "auto" for an automatic layer split, null where a key does not apply to the task.
   */
  public static EnumMap<ScenarioKey, Object> describe(Task t, SoftwareProfile sw) {
    return describeTask(t, sw);
  }

  /**
   * The keys whose use depends on the task kind ({@link #describe} gives null where one does not apply), with what
   * the task uses instead.
   */
  private static final Map<ScenarioKey, String> TASK_KEYS = taskKeys();

  private static Map<ScenarioKey, String> taskKeys() {
    EnumMap<ScenarioKey, String> m = new EnumMap<>(ScenarioKey.class);
    m.put(ScenarioKey.SEQ_LEN, "inference's lengths are prompt_tokens and generate_tokens");
    m.put(ScenarioKey.PROMPT_TOKENS, "a training step's length is seq_len");
    m.put(ScenarioKey.GENERATE_TOKENS, "a training step's length is seq_len");
    m.put(ScenarioKey.CONTEXT, "a training step keeps no KV cache; its length is seq_len");
    m.put(ScenarioKey.MICRO_BATCHES, "inference has no optimizer step to accumulate gradients for; use batch");
    m.put(ScenarioKey.RECOMPUTE, "inference keeps no activations for a backward pass");
    m.put(ScenarioKey.LORA_RANK, "it is finetune-lora's and finetune-qlora's");
    m.put(ScenarioKey.LORA_TARGETS, "it is finetune-lora's and finetune-qlora's");
    m.put(ScenarioKey.PREFIX_TOKENS, "it is ptuning-v2's");
    // full training updates every weight: they are kept at the compute precision (bf16, or fp32) with fp32 masters in
    // the optimizer state, so a stored format (int4, f32 ...) changed neither bytes nor time
    m.put(ScenarioKey.WEIGHTS, "the weights it trains are held at the compute precision; set precision, or use a"
        + " task with a frozen base: finetune-lora, finetune-qlora, ptuning-v2");
    m.put(ScenarioKey.SCHEDULE, "pipeline-parallel inference is not simulated");
    m.put(ScenarioKey.OVERLAP_GRAD_REDUCE, "inference reduces no gradients");
    return java.util.Collections.unmodifiableMap(m);
  }

  /**
   * Refuse a key given that {@code t}'s kind does not use: it would be dropped without a word (seq_len for inference,
   * prompt_tokens for training, lora_rank outside LoRA). Only the keys {@code checked} accepts are checked (a scenario
   * file's keys for its own task stay when a flag changes the task). A grid ({@code sweep}) sets its axes on every
   * point and does not call this.
   */
  public void checkApplies(Task t, java.util.function.Predicate<ScenarioKey> checked) {
    EnumMap<ScenarioKey, Object> used = describeTask(t, llmsim.core.software.SoftwareProfiles.PYTORCH);
    for (Map.Entry<ScenarioKey, String> e : TASK_KEYS.entrySet()) {
      if (has(e.getKey()) && checked.test(e.getKey()) && used.get(e.getKey()) == null) {
        throw new ScenarioKeyException(e.getKey(), "'" + e.getKey().key() + "' does not apply to " + t.kind().key()
            + " (" + e.getValue() + "); leave it out");
      }
    }
  }

  private static EnumMap<ScenarioKey, Object> describeTask(Task t, SoftwareProfile sw) {
    EnumMap<ScenarioKey, Object> m = new EnumMap<>(ScenarioKey.class);
    boolean training = t.kind().training();
    m.put(ScenarioKey.TASK, t.kind().key());
    m.put(ScenarioKey.PRECISION, t.precision().key());
    m.put(ScenarioKey.WEIGHTS, training && !t.kind().frozenBase() ? null : t.weights().key());
    m.put(ScenarioKey.BATCH, t.batch());
    m.put(ScenarioKey.SEQ_LEN, training ? t.seqLen() : null);
    m.put(ScenarioKey.PROMPT_TOKENS, training ? null : t.promptTokens());
    m.put(ScenarioKey.GENERATE_TOKENS, training ? null : t.generateTokens());
    m.put(ScenarioKey.CONTEXT, training ? null : t.contextTokens());
    m.put(ScenarioKey.KV_CACHE, training ? null : t.kvCache().key());
    m.put(ScenarioKey.GPU_LAYERS, t.gpuLayers() == Task.GPU_LAYERS_AUTO ? "auto" : t.gpuLayers());
    m.put(ScenarioKey.MICRO_BATCHES, training ? t.microBatches() : null);
    m.put(ScenarioKey.GLOBAL_BATCH, training ? (long) t.batch() * t.microBatches() * t.replicas() : null);
    m.put(ScenarioKey.RECOMPUTE, training ? t.recompute().key() : null);
    boolean lora = t.kind() == TaskKind.FINETUNE_LORA || t.kind() == TaskKind.FINETUNE_QLORA;
    m.put(ScenarioKey.LORA_RANK, lora ? t.loraRank() : null);
    m.put(ScenarioKey.LORA_TARGETS, lora ? llmsim.core.task.LoraTarget.describe(t.loraTargets()) : null);
    m.put(ScenarioKey.PREFIX_TOKENS, t.kind() == TaskKind.PTUNING_V2 ? t.prefixTokens() : null);
    m.put(ScenarioKey.OFFLOAD, t.offload().key());
    m.put(ScenarioKey.OPTIMIZER, training ? t.optimizer().kind().key() : null);
    m.put(ScenarioKey.MASTER_WEIGHTS, training && !t.kind().frozenBase() ? t.optimizer().masterWeights() : null);
    m.put(ScenarioKey.OPTIMIZER_IN_BACKWARD, training ? t.optimizer().inBackward() : null);
    m.put(ScenarioKey.SOFTWARE, sw.id());
    m.put(ScenarioKey.FLASH_ATTENTION, sw.llamaCpp() == null ? null : sw.llamaCpp().flashAttention());
    m.put(ScenarioKey.SOFTWARE_DATE, sw.llamaCpp() != null ? sw.llamaCpp().date().toString()
        : sw.mlx() != null && sw.mlx().date() != null ? sw.mlx().date().toString() : null);
    m.put(ScenarioKey.TP, t.plan().tp());
    m.put(ScenarioKey.PP, t.plan().pp());
    m.put(ScenarioKey.DP, t.replicas());
    m.put(ScenarioKey.ZERO, t.kind().training() ? t.plan().zero() : null);
    m.put(ScenarioKey.SHARD, t.kind().training() && t.plan().zero() == 3 ? (t.plan().hybridShard() ? "hybrid" : "full") : null);
    m.put(ScenarioKey.SEQUENCE_PARALLEL, t.plan().sequenceParallel());
    m.put(ScenarioKey.VIRTUAL_STAGES, t.plan().virtualStages());
    m.put(ScenarioKey.SCHEDULE, training ? t.plan().schedule().key() : null);
    m.put(ScenarioKey.ALL_GPUS, t.plan().allGpus());
    m.put(ScenarioKey.OVERLAP_GRAD_REDUCE, t.kind().training() ? t.plan().overlapGradReduce() : null);
    return m;
  }

  private String text(ScenarioKey k, String dflt) {
    Object v = values.get(k);
    return v == null ? dflt : (String) v;
  }

  private int integer(ScenarioKey k, int dflt) {
    Object v = values.get(k);
    return v == null ? dflt : (Integer) v;
  }
}
