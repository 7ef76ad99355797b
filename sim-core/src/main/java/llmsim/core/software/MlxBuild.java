package llmsim.core.software;

import java.time.LocalDate;
import java.time.YearMonth;
import llmsim.core.model.NormKind;

/**
 * What an MLX version does differently by date: the one place its versioned kernel behaviour lives, as
 * {@link LlamaCppBuild} is llama.cpp's. Each figure is counted in docs/CALIBRATION.md#mlx from MLX's code of the
 * time; none is fitted to a validation case.
 *
 * <p>Before {@link #FAST_KERNELS} (MLX 0.0.x-0.7, December 2023 to March 2024) {@code mlx.nn}'s modules were
 * compositions of single ops, each its own Metal kernel reading and writing whole tensors in the activation dtype:
 * {@code nn.MultiHeadAttention} materialised the scores ({@code (queries * scale) @ keys}, {@code + mask},
 * {@code mx.softmax}, {@code scores @ values}), and {@code nn.LayerNorm} was {@code mx.mean}, {@code mx.var},
 * {@code (x - means) * mx.rsqrt(var + eps)}, {@code weight * x + bias}. {@code mx.compile} (ml-explore/mlx#571,
 * 2024-02) fuses element-wise ops only in code that calls it, which mlx-examples' training scripts of the time did
 * not.
 *
 * @param date the version's date ({@code software_date}); null for today's MLX ({@link #LATEST}), which is the
 *     {@code mlx} profile as it was before versions were modelled
 */
public record MlxBuild(LocalDate date) {

  /**
   * MLX's first public release, v0.0.x, in December 2023 (ml-explore/mlx-examples#127, the transformer_lm
   * timings of 2023-12-26/28, ran "MLX 0.0.x"); a date before this month has no MLX to model.
   */
  public static final LocalDate FIRST_RELEASE = LocalDate.of(2023, 12, 1);

  /**
   * ml-explore/mlx#862 "Fast RMS Norm" (awni, 2024-03-20, ready for review 2024-03-21) with {@code mx.fast.layer_norm}
   * in the same release; ml-explore/mlx-examples#603 (2024-03-21) "Switch RMSNorm to nn.RMSNorm to get fast rms,
   * Switch LayerNorm to nn.LayerNorm to get fast LN ... tests won't clear until 0.8 is out": from MLX 0.8 the
   * {@code nn} norms are one fused kernel each. The {@code mx.fast} attention of the time
   * ({@code scaled_dot_product_attention}, ml-explore/mlx#735) was for decoding.
   */
  public static final LocalDate FAST_KERNELS = LocalDate.of(2024, 3, 21);

  /** Today's MLX: the {@code mlx} profile's fused kernels, unchanged. */
  public static final MlxBuild LATEST = new MlxBuild(null);

  /**
   * Passes over the score matrix of {@code nn.MultiHeadAttention} before {@link #FAST_KERNELS}, each of one element
   * in the activation dtype: {@code queries @ keys} writes it (1), {@code + mask} reads and writes it (2; the causal
   * mask is one L x L array broadcast over batch and heads), {@code mx.softmax} reads and writes it (2; one Metal
   * kernel, mlx/backend/metal/softmax.cpp, 2023), {@code scores @ values} reads it (1).
   */
  public static final int SCORE_PASSES = 6;

  /**
   * Passes over the token x hidden activations of one {@code nn.LayerNorm} forward before {@link #FAST_KERNELS}:
   * {@code mx.mean(x)} reads x (1); {@code mx.var(x)} squares x and reduces it (at least 3: read, write, read; its
   * own code not counted further); {@code x - means} (2); {@code * mx.rsqrt(var + eps)} (2); {@code weight * x} (2);
   * {@code + bias} (2). 12 in all; 10 without the bias add.
   */
  public static final int LAYER_NORM_PASSES = 12;

  /**
   * Passes of one RMSNorm forward composed of single ops, as MLX's own benchmark writes the unfused reference it times
   * {@code mx.fast.rms_norm} against ({@code mx.rsqrt(x.square().mean(-1, keepdims=True) + eps)}, {@code x * n},
   * {@code * w}): square (2), mean (1), {@code x * n} (2), the weight (2).
   */
  public static final int RMS_NORM_PASSES = 7;

  /**
   * Kernels one {@code nn.TransformerEncoderLayer} launches forward before {@link #FAST_KERNELS}, counted from its
   * code: each LayerNorm 9 (mean; var's square and mean, at least; x - means; + eps; rsqrt; the product; weight;
   * bias) x 2, q, k, v projections 3, the query scale 1, QK^T 1, mask add 1, softmax 1, attention x V 1, the
   * transpose copy of its output 1, out_proj 1, residual 1, linear1 and its bias add 2, ReLU 1, linear2 and its bias
   * add 2, residual 1. Backward: the profile default, twice this.
   */
  public static final int UNFUSED_KERNELS_PER_LAYER = 36;

  /**
   * ml-explore/mlx#2054 "no sdpa in grad" (awni, merged 2025-04-08: "Speed up transformer training until we have a
   * fused SDPA backward"): under gradient tracing the Metal {@code ScaledDotProductAttention::use_fallback} returns
   * true ("It's faster for training on Metal to use the unfused SDPA for both forward and backward",
   * mlx/backend/metal/scaled_dot_product_attention.cpp), and the Metal {@code ScaledDotProductAttentionVJP} is
   * {@code use_fallback} = true, {@code eval_gpu} "NYI". Training attention is the fallback's ops both ways.
   */
  public static final LocalDate NO_SDPA_IN_GRAD = LocalDate.of(2025, 4, 8);

  /**
   * Passes over the score matrix of the VJP of MLX's SDPA fallback ({@code mlx/fast.cpp}: {@code matmul(q, k^T)},
   * {@code where(mask, scores, min)}, {@code softmax(.., precise)}, {@code matmul(scores, v)}), each one element in
   * the activation dtype, as autograd differentiates those ops: {@code scores @ v}'s VJP writes dP ({@code dO @ v^T},
   * 1) and reads P for dV (1); {@code Softmax::vjp} (mlx/primitives.cpp: {@code sv = s * g}, {@code sum(sv, -1)},
   * {@code s * sum}, {@code sv - that}) reads s and g and writes sv (3), reads sv (1), reads s and writes (2), reads
   * two and writes one (3); the mask's {@code where} passes the cotangent through (read, write: 2); {@code q @ k^T}'s
   * VJP reads dS for dQ (1) and for dK (1). 15 in all, against the forward's {@link #SCORE_PASSES}.
   */
  public static final int VJP_SCORE_PASSES = 15;

  /** Whether the version has the fused {@code mx.fast} norms (and is therefore modelled as today's MLX). */
  public boolean fastKernels() {
    return date == null || !date.isBefore(FAST_KERNELS);
  }

  /** Bytes per attention-score element of the forward chain at {@code actBytes} per element (unfused versions). */
  public double scoreBytesPerElement(double actBytes) {
    return SCORE_PASSES * actBytes;
  }

  /**
   * Bytes per attention-score element of a training backward through the fallback's ops at {@code actBytes} per
   * element: {@link #VJP_SCORE_PASSES} from MLX 0.8 on; before it twice the forward's passes, as modelled before
   * the VJP was counted (the 2023 {@code Softmax::vjp} is not counted here).
   */
  public double backwardScoreBytesPerElement(double actBytes) {
    return (fastKernels() ? VJP_SCORE_PASSES : 2 * SCORE_PASSES) * actBytes;
  }

  /** Passes over the activations of one norm's forward in an unfused version. */
  public static int normPasses(NormKind kind) {
    return switch (kind) {
      case LAYERNORM -> LAYER_NORM_PASSES;
      case LAYERNORM_NO_BIAS -> LAYER_NORM_PASSES - 2;
      case RMSNORM -> RMS_NORM_PASSES;
    };
  }

  /**
   * The version {@code text} names (YYYY-MM, the month's first day, or YYYY-MM-DD); refused before MLX's first
   * release.
   */
  public static MlxBuild parse(String text) {
    LocalDate date = SoftwareDate.parse(text, "mlx (the version's date selects its kernels)");
    if (date.isBefore(FIRST_RELEASE)) {
      throw new IllegalArgumentException("'software_date' " + text + " is before MLX's first release (v0.0.x,"
          + " December 2023): the earliest MLX modelled is " + YearMonth.from(FIRST_RELEASE));
    }
    return new MlxBuild(date);
  }
}
