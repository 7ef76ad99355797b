package llmsim.core.hw;

import java.util.Locale;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.KvCacheFormat;
import llmsim.core.task.Task;
import llmsim.core.task.WeightFormat;

/**
 * What a software profile can run at all: the devices its kernels are built for, the weight formats it has kernels
 * for and the KV-cache formats it stores. The workload costs a format by its bytes whatever the profile, so without
 * this a profile would be timed running a format it does not have (ggml's q4_0 under PyTorch, TensorRT-LLM on an
 * Apple GPU, Unsloth's Triton kernels or bitsandbytes' NF4 on Metal) as if it ran natively. What a profile cannot run is refused with the reason, as a precision the device
 * lacks is ({@link PrecisionSupport}).
 */
public final class SoftwareSupport {
  private SoftwareSupport() {}

  /**
   * Refuse {@code t} under {@code sw} on {@code d} where either cannot run it: a precision the device lacks and cannot
   * emulate ({@link PrecisionSupport#resolve}), then a format or device the software has no kernels for ({@link
   * #check}). Every place that admits a task on a device checks both, in this order.
   */
  public static void checkRuns(Device d, Task t, SoftwareProfile sw) {
    PrecisionSupport.resolve(d, t.precision(), sw);
    check(d, t, sw);
  }

  /** Refuse {@code t} under {@code sw} on {@code d} where the software cannot run it, naming the key and the reason. */
  public static void check(Device d, Task t, SoftwareProfile sw) {
    String id = sw.id();
    String vendor = d.vendor() == null ? "" : d.vendor().toLowerCase(Locale.ROOT);
    if (tensorRtLlm(sw) && !vendor.contains("nvidia")) {
      // "TensorRT LLM supports the full spectrum of NVIDIA GPU architectures" (nvidia.github.io/TensorRT-LLM,
      // supported-hardware): its engines are CUDA builds
      throw new ScenarioKeyException(ScenarioKey.SOFTWARE, "'software' " + id + " runs on NVIDIA GPUs only (its"
          + " engines are CUDA builds), not on " + d.name() + "; use a profile that runs there (llama.cpp, pytorch"
          + (vendor.contains("apple") ? ", mlx" : "") + ")");
    }
    if (sw.mlx() != null && !vendor.contains("apple")) {
      // the profile is MLX's Metal backend, calibrated on Apple GPUs (docs/CALIBRATION.md#mlx); MLX's later CUDA
      // backend has other kernels and is not modelled
      throw new ScenarioKeyException(ScenarioKey.SOFTWARE, "'software' mlx is Apple's MLX on Metal, which runs on"
          + " Apple silicon only, not on " + d.name() + " (MLX's CUDA backend is not modelled); use pytorch,"
          + " llama.cpp or another profile that runs there");
    }
    if (tensorRtLlm(sw) && t.kind().training()) {
      // TensorRT-LLM builds inference engines: it has no backward pass or optimizer to train with
      throw new ScenarioKeyException(ScenarioKey.SOFTWARE, "'software' " + id + " builds inference engines and has no"
          + " backward pass or optimizer, so it cannot run " + t.kind().key() + "; use a training profile (pytorch,"
          + " hf, megatron, torchtune, ...)");
    }
    boolean apple = vendor.contains("apple");
    if (apple && id.equals(SoftwareProfiles.UNSLOTH.id())) {
      // Unsloth's kernels are Triton's, which compiles for CUDA and ROCm and has no Metal backend; its README of the
      // modelled releases (2023-12 to 2024-04) lists NVIDIA GPUs only
      throw new ScenarioKeyException(ScenarioKey.SOFTWARE, "'software' unsloth runs Triton kernels, which have no"
          + " Metal backend, so it does not run on " + d.name() + "; use mlx, or pytorch, hf, torchtune or litgpt"
          + " (PyTorch on MPS)");
    }
    if (apple && id.startsWith("megatron")) {
      // Megatron-LM and its forks are built on CUDA: fused CUDA kernels (Apex's, its own, Transformer Engine's in
      // today's) and torch.cuda throughout
      throw new ScenarioKeyException(ScenarioKey.SOFTWARE, "'software' " + id + " is built on CUDA (fused CUDA kernels"
          + " and torch.cuda throughout), so it does not run on " + d.name() + "; use mlx, or pytorch, hf, torchtune"
          + " or litgpt (PyTorch on MPS)");
    }
    WeightFormat w = t.weights();
    if (ggmlBlockFormat(w) && sw.llamaCpp() == null) {
      // q8_0, q4_0 and q4_k are ggml's block formats (a GGUF file's types): llama.cpp's kernels compute on them;
      // transformers dequantises a GGUF file at load (huggingface.co/docs/transformers/gguf: "dequantized to fp32")
      // and TensorRT-LLM and MLX quantise in formats of their own
      throw new ScenarioKeyException(ScenarioKey.WEIGHTS, "'weights' " + w.key() + " is a ggml block format"
          + " (GGUF), which llama.cpp computes on and " + id + " does not (transformers dequantises GGUF weights at"
          + " load); use software llama.cpp, or weights int8 or int4 for " + id + "'s own quantisation");
    }
    if (sw.llamaCpp() != null && (w == WeightFormat.INT4 || w == WeightFormat.INT8 || w == WeightFormat.FP8)) {
      // the converse: a GGUF file's weights are ggml's types, and llama.cpp has no kernels for PyTorch's or
      // TensorRT-LLM's int4 and int8 (AWQ, GPTQ, LLM.int8()) or for fp8 weights; timed by their bytes alone, its
      // 'int4' ran faster than its own q4_0
      throw new ScenarioKeyException(ScenarioKey.WEIGHTS, "'weights' " + w.key() + " is not a ggml type: llama.cpp"
          + " computes on a GGUF file's q4_0, q4_k or q8_0 (or f16, bf16, f32) and has no kernels for " + w.key()
          + " weights; use " + (w == WeightFormat.INT4 ? "q4_0 or q4_k" : "q8_0") + ", or a profile that runs "
          + w.key() + " (pytorch, tensorrt-llm" + (w == WeightFormat.FP8 ? "" : ", mlx") + ")");
    }
    if (sw.llamaCpp() != null && (t.precision() == Precision.FP8
        || t.precision() == Precision.INT8 && !ggmlBlockFormat(w))) {
      // ggml's GEMMs are f16/f32 (cuBLAS, Metal, its own) and, on quantised block weights, its int8 MMQ kernels
      // (activations quantised to q8_1): it has no fp8 GEMM, and no int8 one for f16/bf16/f32 weights; timed at
      // the fp8 or int8 peak, its prefill of f16 weights ran faster than its own f16 one
      throw new ScenarioKeyException(ScenarioKey.PRECISION, "'precision' " + t.precision().key() + " is not a GEMM"
          + " llama.cpp runs: " + (t.precision() == Precision.FP8 ? "llama.cpp has no fp8 GEMM kernels"
              : "its int8 kernels (MMQ) compute on quantised weights, not " + w.key() + " ones")
          + "; use precision fp16 (or fp32), or int8 with weights q8_0, q4_0 or q4_k");
    }
    if (w == WeightFormat.NF4 && apple) {
      // bitsandbytes' kernels are CUDA (and ROCm) builds; it has no Metal (MPS) backend to dequantise NF4 on
      throw new ScenarioKeyException(ScenarioKey.WEIGHTS, "'weights' nf4 is bitsandbytes' 4-bit NormalFloat"
          + (t.kind() == llmsim.core.task.TaskKind.FINETUNE_QLORA ? " (finetune-qlora's base)" : "")
          + ", whose kernels are CUDA and ROCm builds with none for Metal, so it does not run on " + d.name()
          + (t.kind().training() ? "; use finetune-lora with weights int4 (MLX's 4-bit base, software mlx)"
              : "; use weights int4 (software mlx) or q4_0 (llama.cpp)"));
    }
    if (w == WeightFormat.NF4 && !bitsAndBytes(sw)) {
      // NF4 is bitsandbytes' 4-bit NormalFloat (QLoRA, Dettmers et al. 2023); llama.cpp's ggml types, TensorRT-LLM's
      // recipes (fp8, fp4, int8, int4 AWQ/GPTQ: its quantization page), MLX's affine quantisation and Megatron have none
      throw new ScenarioKeyException(ScenarioKey.WEIGHTS, "'weights' nf4 is bitsandbytes' 4-bit NormalFloat"
          + " (QLoRA), which " + id + " has no kernels for; use a PyTorch profile (pytorch, hf, unsloth, torchtune,"
          + " ...)" + (t.kind() == llmsim.core.task.TaskKind.FINETUNE_QLORA ? " for finetune-qlora"
              : ", or weights " + (sw.llamaCpp() != null ? "q4_0" : "int4") + " for " + id));
    }
    llmsim.core.task.TrainingOptimizer.Kind opt = t.optimizer().kind();
    if (t.kind().training() && opt != llmsim.core.task.TrainingOptimizer.Kind.ADAMW && (apple || !bitsAndBytes(sw))) {
      // adamw-8bit and paged-adamw-8bit are bitsandbytes' (CUDA and ROCm kernels, the paged one CUDA unified memory)
      throw new ScenarioKeyException(ScenarioKey.OPTIMIZER, "'optimizer' " + opt.key() + " is bitsandbytes', "
          + (apple ? "whose kernels are CUDA and ROCm builds with none for Metal, so it does not run on " + d.name()
              : "which " + id + " has no hook for (it steps its own optimizer)") + "; use optimizer adamw");
    }
    if (t.kind().training()) {
      return; // the KV cache is inference's (Task keeps its default there; ScenarioValues refuses one given)
    }
    KvCacheFormat kv = t.kvCache();
    if ((kv == KvCacheFormat.Q8_0 || kv == KvCacheFormat.Q4_0)) {
      if (sw.llamaCpp() == null) {
        // ggml types: llama.cpp's --cache-type-k/-v take them; other runtimes store the cache otherwise
        throw new ScenarioKeyException(ScenarioKey.KV_CACHE, "'kv_cache' " + kv.key() + " is a ggml block format,"
            + " which llama.cpp's --cache-type-k/-v store and " + id + " does not; use software llama.cpp"
            + (tensorRtLlm(sw) ? ", or kv_cache fp8" : "") + ", or kv_cache f16");
      }
      if (!sw.llamaCpp().flashAttention()) {
        // llama.cpp refuses a quantised V cache without flash attention ("V cache quantization requires
        // flash_attn", llama_init_from_model): the non-flash path multiplies by the transposed V, which a block
        // format cannot be
        throw new ScenarioKeyException(ScenarioKey.KV_CACHE, "'kv_cache' " + kv.key() + " quantises the V cache,"
            + " which llama.cpp allows only with flash attention (\"V cache quantization requires flash_attn\");"
            + " set flash_attention: true (--flash-attention), or kv_cache f16");
      }
    }
    if (kv == KvCacheFormat.FP8) {
      if (!tensorRtLlm(sw)) {
        // an fp8 cache is TensorRT-LLM's (--fp8_kv_cache, kv_cache_config dtype 'fp8') among the profiles here;
        // llama.cpp's cache types are ggml's, PyTorch/transformers' caches are the model's dtype, MLX's affine
        throw new ScenarioKeyException(ScenarioKey.KV_CACHE, "'kv_cache' fp8 is modelled for TensorRT-LLM"
            + " (--fp8_kv_cache) only; " + id + " has no fp8 KV cache" + (sw.llamaCpp() != null
                ? " (use kv_cache q8_0 or q4_0 with flash_attention: true)" : " (use kv_cache f16)"));
      }
      if (!d.hasPeak(Precision.FP8)) {
        // TensorRT-LLM's support matrix lists FP8 for Hopper (SM90) and Ada (SM89) only, Ampere without it
        throw new ScenarioKeyException(ScenarioKey.KV_CACHE, "'kv_cache' fp8 needs a device with fp8 (TensorRT-LLM"
            + " runs FP8 on Ada and Hopper, not Ampere); " + d.name() + " runs " + PrecisionSupport.nativeList(d)
            + "; use kv_cache f16");
      }
    }
  }

  /** The TensorRT-LLM profiles (today's and v0.5-v0.7's). */
  private static boolean tensorRtLlm(SoftwareProfile sw) {
    return sw.id().startsWith("tensorrt-llm");
  }

  /**
   * The profiles that load a model through PyTorch module code, where bitsandbytes' Linear4bit (NF4) plugs in: every
   * one but llama.cpp, MLX, TensorRT-LLM and Megatron's.
   */
  private static boolean bitsAndBytes(SoftwareProfile sw) {
    return sw.llamaCpp() == null && sw.mlx() == null && !tensorRtLlm(sw) && !sw.id().startsWith("megatron");
  }

  private static boolean ggmlBlockFormat(WeightFormat f) {
    return f == WeightFormat.Q8_0 || f == WeightFormat.Q4_0 || f == WeightFormat.Q4_K;
  }
}
