package llmsim.core.workload;

import llmsim.core.hw.Precision;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;

/**
 * What Transformer Engine's fp8 recipe (delayed scaling) adds to a training step under a profile with
 * {@link SoftwareProfile#transformerEngineFp8} (the {@code megatron} profile: Megatron-Core with TE layers,
 * TELayerNormColumnParallelLinear for qkv and fc1, TERowParallelLinear for o_proj and fc2), counted from
 * NVIDIA/TransformerEngine {@code transformer_engine/pytorch/module/linear.py},
 * {@code layernorm_linear.py} and {@code base.py} (docs/CALIBRATION.md#transformer-engine-fp8):
 * <ul>
 * <li>only the GEMMs take fp8 inputs: the activations between them (residual stream, norms, attention, SwiGLU) stay
 * bf16, and each GEMM writes its output in bf16;</li>
 * <li>te.Linear casts its bf16 input in its own kernel, {@code fp8_cast_transpose_fused} (reads 2 B, writes the fp8
 * copy and its fp8 transpose for the weight gradient, 1 + 1 B, the amax reduced in the same kernel), or
 * {@code cast_to_fp8} (2 + 1 B) when the weight takes no gradient;</li>
 * <li>LayerNormLinear's norm writes its output in fp8 (1 B instead of 2); its backward transposes that fp8 copy
 * ({@code tex.fp8_transpose(ln_out_total)}, 1 + 1 B) before the weight-gradient GEMM;</li>
 * <li>backward, each linear's bf16 output gradient is cast to fp8 with its transpose ({@code grad_output_preprocess}:
 * {@code fp8_cast_transpose_fused}, 2 + 1 + 1 B), or without it (2 + 1 B) when the weight takes no gradient.</li>
 * </ul>
 * Not counted: the weights' cast to fp8 with their transpose (once a step under gradient accumulation,
 * {@code is_first_microbatch}) and the amax-history and scale update (a few small kernels a step).
 */
final class TransformerEngineFp8 {
  private TransformerEngineFp8() {
  }

  /** Bytes of an fp8 element. */
  static final double FP8_BYTES = 1;
  /** Bytes of a bf16 element (the activations between the GEMMs). */
  static final double BF16_BYTES = 2;
  /** Per input element: bf16 read, fp8 copy and fp8 transpose written. */
  static final double CAST_TRANSPOSE_BYTES = BF16_BYTES + 2 * FP8_BYTES;
  /** Per input element without the transpose (frozen weights): bf16 read, fp8 written. */
  static final double CAST_BYTES = BF16_BYTES + FP8_BYTES;
  /** Per element of a norm's fp8 output transposed in the backward: fp8 read and written. */
  static final double TRANSPOSE_BYTES = 2 * FP8_BYTES;

  /**
   * Whether a step runs under Transformer Engine's fp8 recipe: fp8 GEMMs, training, a profile whose layers are TE's
   * ({@link SoftwareProfile#transformerEngineFp8}).
   */
  static boolean applies(SoftwareProfile sw, Task task, Precision gemmPrecision) {
    return task.kind().training() && gemmPrecision == Precision.FP8 && sw.transformerEngineFp8();
  }
}
