package llmsim.core.software;

import java.util.List;
import java.util.Optional;
import llmsim.core.util.Units;

/**
 * The named software profiles. Every factor is listed with its justification in docs/CALIBRATION.md.
 * Factors are per framework, never per model, device or published figure.
 */
public final class SoftwareProfiles {
  private SoftwareProfiles() {}

  /**
   * PyTorch eager, model code not specified: cuBLAS GEMMs (the GEMM fraction is the device's mamf-finder figure,
   * which also runs torch.matmul), SDPA flash attention. About 48 kernels per LLaMA layer in eager mode, 12 us each
   * of CPU dispatch. SDPA's flash backend runs FlashAttention-2's kernels. The element-wise work around the GEMMs is
   * costed as fused kernels (a lower bound for eager module code; {@link #HF} and {@link #TORCHTUNE} count theirs).
   */
  public static final SoftwareProfile PYTORCH = SoftwareProfile.builder(
      "pytorch", "PyTorch eager, SDPA flash attention (element-wise work as fused kernels)")
      .launchSeconds(12e-6).kernelsPerLayer(48).flashAttention(true).flashAttention2(true)
      .workspaceBytes(1.0 * Units.GIB).source("docs/CALIBRATION.md#pytorch").build();

  /**
   * MosaicML llm-foundry's MPT under Composer and PyTorch FSDP, as llm-foundry runs it with flash-attn 2 installed (its
   * {@code gpu-flash2} extra, {@code attn_impl: flash}): as {@link #PYTORCH} (eager modules whose element-wise work is
   * one kernel each under these settings: LPLayerNorm's F.layer_norm, nn.GELU; FlashAttention-2, which skips causal
   * blocks), with the optimizer its yamls name, Composer's DecoupledAdamW, whose step loops over the parameter tensors
   * issuing single-tensor ops (exp_avg mul_ and add_, exp_avg_sq mul_ and addcmul_, sqrt, divide, add eps, addcdiv_
   * into the parameter): {@link OptimizerImpl#PER_TENSOR} (docs/CALIBRATION.md#llm-foundry).
   */
  public static final SoftwareProfile LLM_FOUNDRY = SoftwareProfile.builder(
      "llm-foundry", "MosaicML llm-foundry / Composer (eager MPT, FSDP, FlashAttention-2, DecoupledAdamW per tensor)")
      .aliases("composer", "mosaicml").launchSeconds(12e-6).kernelsPerLayer(48).flashAttention(true)
      .flashAttention2(true).optimizerImpl(OptimizerImpl.PER_TENSOR).workspaceBytes(1.0 * Units.GIB)
      .source("docs/CALIBRATION.md#llm-foundry").build();

  /**
   * llm-foundry as its 2023 benchmark tables and MosaicML's June 2023 MI250 comparison ran it, before FlashAttention-2
   * (released 2023-07) reached its images: as {@link #LLM_FOUNDRY}, with MPT's attention in a FlashAttention
   * v1-class kernel, MPT's Triton kernel ({@code attn_impl: triton}, the benchmark script's default, "overall
   * slightly slower" than FlashAttention v1 by its header) or flash-attn 1.x ({@code attn_impl: flash}), at
   * {@link SoftwareProfile#FLASH_ATTENTION_1_SPEED} of FlashAttention-2's speed (docs/CALIBRATION.md#llm-foundry).
   */
  public static final SoftwareProfile LLM_FOUNDRY_2023 = LLM_FOUNDRY.toBuilder("llm-foundry-2023",
          "MosaicML llm-foundry / Composer in 2023: as llm-foundry, with FlashAttention v1-class attention (Triton)")
      .flashAttentionSpeed(SoftwareProfile.FLASH_ATTENTION_1_SPEED).build();

  /**
   * Hugging Face transformers + PEFT under the Trainer (autocast), eager module code, FlashAttention-2 or SDPA flash
   * attention (transformers >= 4.36's default; LLaMA-Factory's and axolotl's "auto"): as {@link #PYTORCH}, with the
   * element-wise work of LlamaRMSNorm, apply_rotary_pos_emb, LlamaMLP and PEFT's lora.Linear counted from their code
   * ({@link EagerOps#HF_PEFT}). The Trainer's default optimizer ("adamw_torch") is torch.optim.AdamW, foreach on
   * CUDA.
   */
  public static final SoftwareProfile HF = SoftwareProfile.builder(
      "hf", "Hugging Face transformers + PEFT (eager modules, autocast), FlashAttention-2 / SDPA flash")
      .aliases("transformers", "peft", "hf-fa2", "hf-sdpa", "llama-factory", "llamafactory", "axolotl")
      .launchSeconds(12e-6).kernelsPerLayer(48).flashAttention(true).flashAttention2(true).eagerOps(EagerOps.HF_PEFT)
      .optimizerImpl(OptimizerImpl.FOREACH).workspaceBytes(1.0 * Units.GIB).source("docs/CALIBRATION.md#hf").build();

  /**
   * A Hugging Face model trained under DeepSpeed (the HF Trainer's deepspeed integration, or DeepSpeed's engine on a
   * transformers model): the same module code as {@link #HF}; DeepSpeed's optimizer is its FusedAdam (multi-tensor
   * apply, one fused kernel) on the GPU, and DeepSpeedCPUAdam under ZeRO-Offload (the scenario's offload: optimizer).
   */
  public static final SoftwareProfile HF_DEEPSPEED = SoftwareProfile.builder(
      "hf-deepspeed", "Hugging Face transformers + PEFT under DeepSpeed (ZeRO, FusedAdam / CPU Adam)")
      .aliases("deepspeed").launchSeconds(12e-6).kernelsPerLayer(48).flashAttention(true).flashAttention2(true)
      .eagerOps(EagerOps.HF_PEFT).optimizerImpl(OptimizerImpl.FUSED).workspaceBytes(1.0 * Units.GIB)
      .source("docs/CALIBRATION.md#hf-deepspeed").build();

  /**
   * torchtune's recipes in eager mode (its configs' default, compile: False): PyTorch eager with SDPA flash attention
   * and torchtune's module code ({@link EagerOps#TORCHTUNE}).
   */
  public static final SoftwareProfile TORCHTUNE = SoftwareProfile.builder(
      "torchtune", "torchtune recipes, eager (compile off), SDPA flash attention")
      .aliases("torchtune-eager").launchSeconds(12e-6).kernelsPerLayer(48).flashAttention(true).flashAttention2(true)
      .eagerOps(EagerOps.TORCHTUNE).workspaceBytes(1.0 * Units.GIB).source("docs/CALIBRATION.md#torchtune").build();

  /**
   * LitGPT's fine-tune and pretrain scripts (Lightning-AI/litgpt, formerly lit-gpt): eager PyTorch under Lightning
   * Fabric, SDPA flash attention ({@code is_causal}), LitGPT's module code ({@link EagerOps#LITGPT}: fp32 RMSNorm and
   * rotary, q, k, v as one fused Linear whose LoRA is one module zero-padded across the qkv width, k and v expanded for
   * GQA); 42 kernels per LLaMA layer forward. Its optimizer is {@code torch.optim.AdamW} as constructed, foreach on
   * CUDA.
   */
  public static final SoftwareProfile LITGPT = SoftwareProfile.builder(
      "litgpt", "LitGPT (eager modules, fused qkv and its LoRA, fp32 norm and rotary), SDPA flash attention")
      .aliases("lit-gpt").launchSeconds(12e-6).kernelsPerLayer(42).flashAttention(true).flashAttention2(true)
      .eagerOps(EagerOps.LITGPT).optimizerImpl(OptimizerImpl.FOREACH).workspaceBytes(1.0 * Units.GIB)
      .source("docs/CALIBRATION.md#litgpt").build();

  /**
   * torch.compile (TorchInductor) over an eager model, as torchtune's published benchmark tables run it
   * (compile=True): each chain of point-wise and reduction ops between two GEMMs becomes one generated kernel, so
   * the element-wise work is fused; 14 kernels per LLaMA layer forward (norm, q, k, v, rotary, attention, o, residual
   * with norm, gate, up, SwiGLU, down, residual, and the attention's layout copy) and twice that backward.
   */
  public static final SoftwareProfile TORCH_COMPILE = SoftwareProfile.builder(
      "torch-compile", "PyTorch with torch.compile (Inductor-fused element-wise kernels), SDPA flash attention")
      .aliases("inductor", "torchtune-compile", "pytorch-compile").launchSeconds(12e-6).kernelsPerLayer(14)
      .flashAttention(true).flashAttention2(true).workspaceBytes(1.0 * Units.GIB)
      .source("docs/CALIBRATION.md#torch-compile").build();

  /**
   * Unsloth: Hugging Face's LLaMA with Unsloth's Triton kernels (RMSNorm, rotary, SwiGLU, cross-entropy) and manual
   * autograd for the LoRA'd projections ({@link EagerOps#UNSLOTH}), FlashAttention-2. 15 kernels per layer forward
   * (norm x2, q, k, v, rotary on q and on k, attention, o, two residual adds, gate, up, SwiGLU, down) and 20 backward
   * (the two residual gradients' sums, norm x2, rotary x2, FlashAttention-2's three backward kernels, SwiGLU, the
   * seven input-gradient GEMMs and the three {@code dX +=} adds of k, v and gate), before its adapters' own and
   * the NF4 dequantisations' (docs/CALIBRATION.md).
   */
  public static final SoftwareProfile UNSLOTH = SoftwareProfile.builder(
      "unsloth", "Unsloth (Triton RMSNorm/rotary/SwiGLU kernels, manual LoRA autograd), FlashAttention-2")
      .launchSeconds(12e-6).kernelsPerLayer(15).backwardKernelsPerLayer(20).flashAttention(true).flashAttention2(true)
      .eagerOps(EagerOps.UNSLOTH).workspaceBytes(1.0 * Units.GIB).source("docs/CALIBRATION.md#unsloth").build();

  /**
   * As {@link #PYTORCH}, with the eager attention transformers used before SDPA: QK^T written in bf16 (2 B),
   * divided by sqrt(d) (4 B), plus the mask (6 B), softmax upcast to fp32 (6 B), cast back (6 B), read by
   * attention x V (2 B): 26 bytes per score element.
   */
  public static final SoftwareProfile HF_EAGER = SoftwareProfile.builder(
      "hf-eager", "PyTorch eager with Hugging Face eager attention (transformers < 4.36, no FlashAttention)")
      .aliases("pytorch-eager-attention").launchSeconds(12e-6).kernelsPerLayer(48).flashAttention(false)
      .scoreBytesPerElement(26).eagerOps(EagerOps.HF_PEFT).optimizerImpl(OptimizerImpl.FOREACH)
      .workspaceBytes(1.0 * Units.GIB).source("docs/CALIBRATION.md#hf-eager").build();

  /**
   * llama.cpp (ggml) with the Metal or CUDA backend before CUDA graphs (2024-05) and flash attention
   * (2024-04): one kernel per graph node, about 24 per LLaMA layer; KQ written in f32 (4 B), the fused
   * scale+mask+softmax (ggml_soft_max_ext, 2023-12) reads and writes it (8 B), KQV reads it (4 B):
   * 16 bytes per score element. Prompts are evaluated in chunks of n_batch = 512 tokens (common.h default
   * since 2023; n_ubatch = 512 since 2024-03), and layers that do not fit with {@code -ngl} run on the CPU.
   * Without a {@code software_date} the profile is {@link LlamaCppBuild#LATEST}; {@link LlamaCppBuild} holds what
   * changes by date and backend (CUDA graphs, Metal's attention kernels, in-kernel dequantisation, CUDA's
   * dequantise-then-cuBLAS, {@code -fa}).
   */
  public static final SoftwareProfile LLAMA_CPP = SoftwareProfile.builder(
      "llama.cpp", "llama.cpp / ggml (Metal or CUDA backend), one kernel launch per graph node")
      .aliases("llamacpp", "ggml").launchSeconds(LlamaCppBuild.LAUNCH_SECONDS).kernelsPerLayer(24)
      .flashAttention(false).scoreBytesPerElement(16).llamaCpp(LlamaCppBuild.LATEST).workspaceBytes(0.5 * Units.GIB)
      .cpuRunsHostLayers(true).promptChunkTokens(512).source("docs/CALIBRATION.md#llamacpp").build();

  /** TensorRT-LLM: fused attention and MLP kernels. */
  public static final SoftwareProfile TENSORRT_LLM = SoftwareProfile.builder(
      "tensorrt-llm", "NVIDIA TensorRT-LLM (fused attention plugin, fused GEMM epilogues)")
      .aliases("trt-llm", "tensorrt").launchSeconds(4e-6).kernelsPerLayer(10).flashAttention(true)
      .workspaceBytes(1.0 * Units.GIB).source("docs/CALIBRATION.md#tensorrt-llm").build();

  /**
   * TensorRT-LLM v0.5-v0.7 (2023), as its performance.md tables measured it: as {@link #TENSORRT_LLM}, but the
   * generation phase runs the masked multi-head attention kernel, one thread block per (query head, sequence)
   * reading its KV head's cache ({@code hi_kv = hi / qhead_per_kv}), so a GQA model's KV cache is read once per
   * query head. The XQA kernel that shares the load among a group's query heads came with v0.8
   * (docs/CALIBRATION.md#tensorrt-llm-06).
   */
  public static final SoftwareProfile TENSORRT_LLM_0_6 = SoftwareProfile.builder(
      "tensorrt-llm-0.6", "NVIDIA TensorRT-LLM v0.5-v0.7 (2023): masked MHA decode kernel, before XQA")
      .aliases("tensorrt-llm-0.5", "tensorrt-llm-0.7", "trt-llm-0.6").launchSeconds(4e-6).kernelsPerLayer(10)
      .flashAttention(true).decodeKvPerQueryHead(true).workspaceBytes(1.0 * Units.GIB)
      .source("docs/CALIBRATION.md#tensorrt-llm-06").build();

  /**
   * Megatron-LM / NeMo: fused kernels for large-scale training; Transformer Engine's fused attention (FlashAttention-2
   * or cuDNN's flash kernel) skips the key blocks a causal mask hides, and fp8 training runs Transformer Engine's fp8
   * recipe on its TE layers ({@link SoftwareProfile#transformerEngineFp8}).
   */
  public static final SoftwareProfile MEGATRON = SoftwareProfile.builder(
      "megatron", "Megatron-LM (fused kernels, flash attention)")
      .aliases("megatron-lm", "nemo").launchSeconds(4e-6).kernelsPerLayer(14).flashAttention(true)
      .causalBlockSkip(true).transformerEngineFp8(true).workspaceBytes(2.0 * Units.GIB)
      .source("docs/CALIBRATION.md#megatron").build();

  /**
   * Host time of one eager PyTorch transformer layer pass issued from Python: LLaMA-7B decode in eager Hugging Face
   * runs at 30 tok/s, 33.3 ms per token over 32 layers, while the same GPU work graph-captured takes 14.5 ms (69
   * tok/s; Fireworks' measurement quoted in vllm-project/vllm#914), so the eager run is host-bound and its 33.3 ms are
   * the host's: 1.04 ms per layer forward (the generate loop's own per-token work not separated out, so an upper
   * bound). docs/CALIBRATION.md#host-dispatch.
   */
  static final double EAGER_LAYER_PASS_HOST_SECONDS = 33.3e-3 / 32;

  /**
   * The host's time per eager tensor call: the same HF LLaMA decode's 1.04 ms per layer forward over the layer's 48
   * kernels (one tensor call each). Used for the calls a Megatron layer makes where its fused softmax is unavailable
   * (docs/CALIBRATION.md#host-dispatch).
   */
  public static final double EAGER_CALL_HOST_SECONDS = EAGER_LAYER_PASS_HOST_SECONDS / 48;

  /**
   * Megatron-DeepSpeed as vTrain measured it (and Megatron-LM before --use-flash-attn): eager PyTorch with
   * Megatron's fused kernels but classic attention. About 15 kernels per GPT layer forward (apex fused
   * layer norm x2, QKV with bias, baddbmm QK^T, fused scale-mask-softmax, dropout, bmm, permute copy, dense,
   * TorchScript bias-dropout-add x2, fc1, bias-GeLU, fc2), 12 us each of eager dispatch as {@link #PYTORCH}.
   * Score chain: baddbmm writes fp16 (2 B), the fused softmax reads and writes it (4 B), dropout reads it and
   * writes its output and a 1-byte mask (5 B), bmm reads it (2 B): 13 bytes per score element. Backward: 44
   * kernels, counted from the same code (docs/CALIBRATION.md). Its softmax is Megatron's FusedScaleMaskSoftmax, fused
   * only where its shape condition holds ({@link SoftwareProfile#megatronFusedSoftmax}), and its pipeline sends are
   * scattered over the tensor-parallel ranks and gathered again ({@link SoftwareProfile#pipelineScatterGather}).
   */
  public static final SoftwareProfile MEGATRON_CLASSIC = SoftwareProfile.builder(
      "megatron-classic",
      "Megatron-LM before flash attention (and BigScience's Megatron-DeepSpeed): eager, fused softmax, classic attention")
      .launchSeconds(12e-6).hostSecondsPerLayerPass(EAGER_LAYER_PASS_HOST_SECONDS)
      .kernelsPerLayer(15).backwardKernelsPerLayer(44).flashAttention(false).scoreBytesPerElement(13)
      .megatronFusedSoftmax(true).pipelineScatterGather(true).workspaceBytes(2.0 * Units.GIB)
      .source("docs/CALIBRATION.md#megatron-classic").build();

  /**
   * The share of a Megatron-DeepSpeed layer's forward host work issued before its MLP's host sync: 52 of the 65
   * Python-level events a layer's forward makes at tp >= 2 (tensor calls, module calls, custom autograd Function
   * applies, TorchScript calls, torch.distributed calls and the RNG tracker's fork, each counted once), counted from
   * microsoft/Megatron-DeepSpeed's {@code megatron/model/transformer.py} and {@code megatron/mpu}: the input norm, the
   * attention with its dense projection and all-reduce, the bias-dropout-add, the post-attention norm and the first
   * {@code torch.tensor(0.0, device=...)} come before the wait; the second, the MLP (two linears, bias-GeLU, the
   * all-reduce) and the last bias-dropout-add after it (docs/CALIBRATION.md#megatron-deepspeed).
   */
  static final double MEGATRON_DEEPSPEED_HOST_SHARE_BEFORE_MLP = 52.0 / 65;

  /**
   * microsoft/Megatron-DeepSpeed, the code vTrain measured: {@link #MEGATRON_CLASSIC}'s kernels and host dispatch,
   * with the host stopping once in every forward and recomputed forward layer pass, before the MLP, where
   * {@code ParallelTransformerLayer.forward} makes {@code moe_loss} and {@code mlp_bias} with
   * {@code torch.tensor(0.0, device=...)} in dense models too (a synchronising host-to-device copy;
   * {@link SoftwareProfile#mlpHostSyncShare}). BigScience's fork, which trained BLOOM, has no such lines: it is
   * {@link #MEGATRON_CLASSIC}.
   */
  public static final SoftwareProfile MEGATRON_DEEPSPEED = MEGATRON_CLASSIC.toBuilder("megatron-deepspeed",
          "Megatron-DeepSpeed (Microsoft's): as megatron-classic, with a host sync before each layer's MLP")
      .mlpHostSyncShare(MEGATRON_DEEPSPEED_HOST_SHARE_BEFORE_MLP)
      .source("docs/CALIBRATION.md#megatron-deepspeed").build();

  /**
   * Apple MLX. Without a {@code software_date} the profile is today's MLX ({@link MlxBuild#LATEST}: fused kernels);
   * a date before MLX 0.8's {@code mx.fast} norms ({@link MlxBuild#FAST_KERNELS}) selects the single-op modules of
   * MLX 0.0.x-0.7: classic attention, unfused norms ({@link SoftwareProfile#atBuild(MlxBuild)}). Training runs
   * attention unfused at every date ({@link SoftwareProfile#forTask}: Metal's fused SDPA has no backward, and from
   * {@link MlxBuild#NO_SDPA_IN_GRAD} is skipped under gradient tracing).
   */
  public static final SoftwareProfile MLX = SoftwareProfile.builder("mlx", "Apple MLX (Metal)")
      .launchSeconds(4e-6).kernelsPerLayer(16).flashAttention(true).mlx(MlxBuild.LATEST)
      .workspaceBytes(0.5 * Units.GIB).source("docs/CALIBRATION.md#mlx").build();

  public static final List<SoftwareProfile> ALL = List.of(PYTORCH, HF, HF_EAGER, HF_DEEPSPEED, TORCHTUNE, LITGPT,
      TORCH_COMPILE, UNSLOTH, LLAMA_CPP, TENSORRT_LLM, TENSORRT_LLM_0_6, MEGATRON, MEGATRON_CLASSIC, MEGATRON_DEEPSPEED,
      MLX, LLM_FOUNDRY, LLM_FOUNDRY_2023);

  public static Optional<SoftwareProfile> find(String idOrAlias) {
    for (SoftwareProfile p : ALL) {
      if (p.id().equals(idOrAlias) || p.aliases().contains(idOrAlias)) {
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  public static List<String> ids() {
    return ALL.stream().map(SoftwareProfile::id).toList();
  }
}
