package llmsim.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.LoraTarget;
import llmsim.core.task.ParallelPlan;
import llmsim.core.task.PipelineSchedule;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.TrainingOptimizer;
import llmsim.core.workload.StepResult;

/**
 * The scenario a result ran, as keys of the one table ({@link ScenarioKey}) with their values as a scenario file
 * writes them: written back as a file, or given as the flags of {@link #command}, it runs the same step to the same
 * bytes. Plan auto's and advise's choices come out as the plan they chose. A key is left out where it does not apply
 * to the step or stands at its default for the task; the job's keys (its size and prices) are not the step's and are
 * left out too. Hardware and model are their ids: a result of a user's .yaml file names the file's id, not its path.
 */
final class ScenarioEcho {
  private ScenarioEcho() {}

  /** The keys and values, in the table's order, each value as a file writes it. */
  static Map<ScenarioKey, Object> of(StepResult r) {
    Map<ScenarioKey, Object> m = new LinkedHashMap<>();
    for (ScenarioKey k : ScenarioKey.values()) {
      Object v = value(k, r);
      if (v != null) {
        m.put(k, v);
      }
    }
    return m;
  }

  /** As {@link #of}, keyed by the file's keys: the JSON's {@code scenario}. */
  static Map<String, Object> json(StepResult r) {
    Map<String, Object> m = new LinkedHashMap<>();
    of(r).forEach((k, v) -> m.put(k.key(), v));
    return m;
  }

  /** The command line that runs the step again: {@code llmsim simulate --hardware ... --model ...}. */
  static String command(StepResult r) {
    List<String> words = new ArrayList<>(List.of("llmsim", "simulate"));
    of(r).forEach((k, v) -> {
      words.add(k.flag());
      words.add(String.valueOf(v));
    });
    return String.join(" ", words);
  }

  /** Key {@code k}'s value in {@code r}'s step, or null where it is left out (see the class comment). */
  private static Object value(ScenarioKey k, StepResult r) {
    Task t = r.task();
    Task d = Task.defaults(t.kind());
    ParallelPlan p = t.plan();
    boolean training = t.kind().training();
    boolean lora = t.kind() == TaskKind.FINETUNE_LORA || t.kind() == TaskKind.FINETUNE_QLORA;
    TrainingOptimizer o = t.optimizer();
    SoftwareProfile sw = r.software();
    return switch (k) {
      case HARDWARE -> r.system().id();
      case MODEL -> r.model().id();
      case TASK -> t.kind().key();
      case PRECISION -> t.precision().key();
      case WEIGHTS -> ResultFormat.weights(t);
      case BATCH -> t.batch();
      case SEQ_LEN -> training ? t.seqLen() : null;
      case PROMPT_TOKENS -> training ? null : t.promptTokens();
      case GENERATE_TOKENS -> training ? null : t.generateTokens();
      case CONTEXT -> t.context() > 0 ? t.context() : null;
      case KV_CACHE -> t.kvCache() != d.kvCache() ? t.kvCache().key() : null;
      case GPU_LAYERS -> t.gpuLayers() != Task.GPU_LAYERS_AUTO ? t.gpuLayers() : null;
      case NODES, PLAN, GLOBAL_BATCH -> null; // gpus says the size; the plan is written out; micro_batches says it
      case GPUS -> r.system().totalDevices();
      case TP -> p.tp();
      case PP -> p.pp();
      case DP -> p.dp();
      case ZERO -> p.zero() > 0 ? p.zero() : null;
      case SHARD -> p.zero() == 3 && p.hybridShard() ? "hybrid" : null;
      case VIRTUAL_STAGES -> p.virtualStages() > 1 ? p.virtualStages() : null;
      // the default is interleaved exactly with virtual stages, else 1F1B
      case SCHEDULE -> training && p.schedule() != (p.virtualStages() > 1 ? PipelineSchedule.INTERLEAVED
          : PipelineSchedule.ONE_F_ONE_B) ? p.schedule().key() : null;
      case SEQUENCE_PARALLEL -> p.sequenceParallel() && p.tp() > 1 ? true : null;
      case ALL_GPUS -> p.allGpus() ? true : null;
      case OVERLAP_GRAD_REDUCE -> training && !p.overlapGradReduce() ? false : null;
      case MICRO_BATCHES -> training && t.microBatches() != 1 ? t.microBatches() : null;
      case RECOMPUTE -> training && t.recompute() != d.recompute() ? t.recompute().key() : null;
      case LORA_RANK -> lora && t.loraRank() != d.loraRank() ? t.loraRank() : null;
      case LORA_TARGETS -> lora && !t.loraTargets().equals(LoraTarget.DEFAULT) ? LoraTarget.describe(t.loraTargets())
          : null;
      case PREFIX_TOKENS -> t.kind() == TaskKind.PTUNING_V2 && t.prefixTokens() != d.prefixTokens()
          ? t.prefixTokens() : null;
      case OFFLOAD -> t.offload() != d.offload() ? t.offload().key() : null;
      case OPTIMIZER -> training && o.kind() != TrainingOptimizer.DEFAULT.kind() ? o.kind().key() : null;
      case MASTER_WEIGHTS -> training && o.masterWeights() != TrainingOptimizer.DEFAULT.masterWeights()
          ? o.masterWeights() : null;
      case OPTIMIZER_IN_BACKWARD -> training && o.inBackward() != TrainingOptimizer.DEFAULT.inBackward()
          ? o.inBackward() : null;
      case SOFTWARE -> sw.id();
      case FLASH_ATTENTION -> sw.llamaCpp() != null && sw.llamaCpp().flashAttention() ? true : null;
      case SOFTWARE_DATE -> softwareDate(sw);
      case TOKENS, EPOCHS, DATASET_TOKENS, REQUESTS, PRICING, PROVIDER, PRICE, CURRENCY, RATE, ELECTRICITY,
          AMORTIZATION -> null; // the job's, not the step's
    };
  }

  /** The build a dated profile ran at, where it is not the profile's own; a date recorded on another profile. */
  private static String softwareDate(SoftwareProfile sw) {
    SoftwareProfile own = SoftwareProfiles.find(sw.id()).orElse(sw);
    if (sw.llamaCpp() != null) {
      return sw.llamaCpp().date().equals(own.llamaCpp().date()) ? null : sw.llamaCpp().date().toString();
    }
    if (sw.mlx() != null && !sw.mlx().equals(own.mlx())) {
      return sw.mlx().date().toString();
    }
    return sw.recordedDate();
  }
}
