package llmsim.core.task;

import llmsim.core.hw.Precision;
import llmsim.core.util.Checks;

/**
 * One task on one model: everything in a scenario except the hardware, the model and the software.
 *
 * @param precision compute precision of GEMMs (mixed-precision training keeps fp32 master weights)
 * @param weights storage format of the (base) weights
 * @param batch sequences per forward pass (the micro-batch for training)
 * @param seqLen tokens per training sequence
 * @param promptTokens prompt length for inference
 * @param generateTokens generated tokens per sequence for inference
 * @param microBatches gradient-accumulation steps per optimizer step
 * @param loraRank adapter rank for LoRA and QLoRA
 * @param prefixTokens P-Tuning v2 prefix length per layer
 */
public record Task(
    TaskKind kind,
    Precision precision,
    WeightFormat weights,
    int batch,
    int seqLen,
    int promptTokens,
    int generateTokens,
    int microBatches,
    boolean activationCheckpointing,
    int loraRank,
    int prefixTokens,
    Offload offload) {

  public Task {
    Checks.notNull("task", kind);
    Checks.notNull("precision", precision);
    Checks.notNull("weights", weights);
    Checks.positive("batch", batch);
    Checks.positive("seq_len", seqLen);
    Checks.positive("prompt_tokens", promptTokens);
    if (generateTokens < 0) {
      throw new IllegalArgumentException("generate_tokens must be >= 0, was " + generateTokens);
    }
    Checks.positive("micro_batches", microBatches);
    Checks.positive("lora_rank", loraRank);
    Checks.positive("prefix_tokens", prefixTokens);
    Checks.notNull("offload", offload);
  }

  /** Defaults for a task kind: bf16 mixed precision for training, f16 weights for inference. */
  public static Task defaults(TaskKind kind) {
    WeightFormat w = kind == TaskKind.FINETUNE_QLORA ? WeightFormat.NF4 : WeightFormat.F16;
    Precision p = kind.training() ? Precision.BF16 : Precision.FP16;
    return new Task(kind, p, w, 1, 2048, 512, 128, 1, false, 8, 128, Offload.AUTO);
  }

  public Task withBatch(int b) {
    return new Task(kind, precision, weights, b, seqLen, promptTokens, generateTokens, microBatches,
        activationCheckpointing, loraRank, prefixTokens, offload);
  }

  public Task withContext(int tokens) {
    if (kind.training()) {
      return new Task(kind, precision, weights, batch, tokens, promptTokens, generateTokens, microBatches,
          activationCheckpointing, loraRank, prefixTokens, offload);
    }
    int prompt = Math.max(1, tokens - generateTokens);
    return new Task(kind, precision, weights, batch, seqLen, prompt, tokens - prompt, microBatches,
        activationCheckpointing, loraRank, prefixTokens, offload);
  }

  public Task withOffload(Offload o) {
    return new Task(kind, precision, weights, batch, seqLen, promptTokens, generateTokens, microBatches,
        activationCheckpointing, loraRank, prefixTokens, o);
  }

  /** Tokens of context a sequence holds: seq_len for training, prompt + generated for inference. */
  public int contextTokens() {
    return kind.training() ? seqLen : promptTokens + generateTokens;
  }

  /** Tokens processed per optimizer step (training) or generated per run (inference). */
  public long tokensPerStep() {
    return kind.training() ? (long) batch * seqLen * microBatches : (long) batch * generateTokens;
  }
}
