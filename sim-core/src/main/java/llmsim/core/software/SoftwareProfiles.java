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

  /** PyTorch eager with Hugging Face transformers/PEFT: cuBLAS GEMMs, SDPA flash attention. */
  public static final SoftwareProfile PYTORCH = new SoftwareProfile(
      "pytorch", "PyTorch eager (Hugging Face transformers / PEFT), SDPA attention",
      List.of("hf", "transformers", "peft"), 1.0, 1.0, 10e-6, 24, true, 1.0 * Units.GIB, 1.0,
      "docs/CALIBRATION.md#pytorch");

  /** llama.cpp (ggml) with the Metal or CUDA backend; one kernel per ggml graph node. */
  public static final SoftwareProfile LLAMA_CPP = new SoftwareProfile(
      "llama.cpp", "llama.cpp / ggml (Metal or CUDA backend), batch-1 oriented kernels",
      List.of("llamacpp", "ggml"), 1.0, 1.0, 5e-6, 16, true, 0.5 * Units.GIB, 1.0,
      "docs/CALIBRATION.md#llamacpp");

  /** TensorRT-LLM: fused kernels, CUDA graphs, in-flight KV cache. */
  public static final SoftwareProfile TENSORRT_LLM = new SoftwareProfile(
      "tensorrt-llm", "NVIDIA TensorRT-LLM (fused kernels, CUDA graphs)",
      List.of("trt-llm", "tensorrt"), 1.0, 1.0, 2e-6, 8, true, 1.0 * Units.GIB, 1.0,
      "docs/CALIBRATION.md#tensorrt-llm");

  /** Megatron-LM / NeMo: fused kernels for large-scale training. */
  public static final SoftwareProfile MEGATRON = new SoftwareProfile(
      "megatron", "Megatron-LM (fused kernels, flash attention)",
      List.of("megatron-lm", "nemo"), 1.0, 1.0, 5e-6, 12, true, 2.0 * Units.GIB, 1.0,
      "docs/CALIBRATION.md#megatron");

  /** Apple MLX. */
  public static final SoftwareProfile MLX = new SoftwareProfile(
      "mlx", "Apple MLX (Metal)", List.of(), 1.0, 1.0, 5e-6, 16, true, 0.5 * Units.GIB, 1.0,
      "docs/CALIBRATION.md#mlx");

  public static final List<SoftwareProfile> ALL = List.of(PYTORCH, LLAMA_CPP, TENSORRT_LLM, MEGATRON, MLX);

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
