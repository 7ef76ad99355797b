package llmsim.core.software;

import java.time.LocalDate;
import llmsim.core.task.WeightFormat;

/**
 * What a llama.cpp build does differently by date and backend: the one place its versioned kernel behaviour
 * lives. Each figure is derived in docs/CALIBRATION.md#llamacpp from the pull request that changed the kernel,
 * with the measurement its author published; none is fitted to a validation case.
 *
 * @param date when the build was made ({@code software_date}); {@link #LATEST} when not given
 * @param flashAttention whether {@code -fa} is on (ggml_flash_attn_ext, from {@link #FLASH_ATTENTION})
 */
public record LlamaCppBuild(LocalDate date, boolean flashAttention) {

  /**
   * ggml-org/llama.cpp#3084 "Metal: PP speedup" (measured 2023-09-08/09): a new kernel for the f16 x f32 matrix
   * multiplications the simdgroup-matrix kernel could not take because K and Q are not contiguous (KQ, KQV).
   */
  public static final LocalDate METAL_F16_F32_KERNEL = LocalDate.of(2023, 9, 9);

  /**
   * ggml-org/llama.cpp#3168 (2023-09-14, merged after): KQ and KQV run on the simdgroup-matrix kernel, which only
   * needs its rows contiguous ("LLaMA is ~10% faster on M2 Ultra").
   */
  public static final LocalDate METAL_KQ_ON_MATMUL_KERNEL = LocalDate.of(2023, 9, 15);

  /** ggml-org/llama.cpp#5021 (merged 2024-04-30): ggml_flash_attn_ext and the {@code -fa} flag. */
  public static final LocalDate FLASH_ATTENTION = LocalDate.of(2024, 4, 30);

  /** ggml-org/llama.cpp#6766 (merged 2024-05-08): the decode graph replayed as one CUDA graph on NVIDIA GPUs. */
  public static final LocalDate CUDA_GRAPHS = LocalDate.of(2024, 5, 8);

  /**
   * ggml-org/llama.cpp#3776 (ggerganov, merged 2023-10-27): on GPUs with fast FP16 (compute capability 7.0 and up) a
   * quantised matrix multiplication over more than {@link #MMQ_MAX_BATCH_SIZE} rows of activations runs as
   * dequantise-to-f16 then FP16 cuBLAS ({@code ggml_cuda_mul_mat}: "when tensor cores are available, use them for
   * large batch size"); #3412 (2023-09-30) had added that path behind {@code -nommq} only.
   */
  public static final LocalDate CUDA_DEQUANT_CUBLAS = LocalDate.of(2023, 10, 27);

  /**
   * ggml-org/llama.cpp#8075 (JohannesGaessler, 2024-06-23, "use MMQ instead of cuBLAS by default"): the int8
   * tensor-core mul_mat_q kernels (#7676, #7860) take every batch size on Turing and newer.
   */
  public static final LocalDate CUDA_MMQ_DEFAULT = LocalDate.of(2024, 6, 23);

  /** ggml-cuda.cu's {@code MMQ_MAX_BATCH_SIZE}: the most activation rows mul_mat_q takes where tensor cores exist. */
  public static final int MMQ_MAX_BATCH_SIZE = 32;

  /** A build after every change modelled here, without {@code -fa}: the profile when no date is given. */
  public static final LlamaCppBuild LATEST = new LlamaCppBuild(CUDA_MMQ_DEFAULT, false);

  /**
   * Kernel launch and minimum duration per ggml graph node: 1.1 us of launch gap, which CUDA graphs remove
   * (llama.cpp#6763: 143.35 -> 163.83 tok/s on H100 PCIe, 0.87 ms over about 800 kernels per token), plus about
   * 3 us of minimum duration of a small kernel.
   */
  static final double LAUNCH_SECONDS = 4e-6;

  static final double CUDA_GRAPH_SAVING_SECONDS = 1.1e-6;

  /**
   * Fraction of the FP32/FP16 ALU peak that KQ and KQV reach on Metal before {@link #METAL_F16_F32_KERNEL}, on
   * the f16 x f32 kernel for non-contiguous operands. From #3123 (ikawrakow, 30-core M2 Max, a build with #3084):
   * making that kernel a no-op speeds LLaMA-7B pp512 up by 17%, so it takes 1 - 1/1.17 of the 1.0515 s that
   * #3084's own table gives for Q8_0 pp512 (486.91 t/s): 0.1528 s for the 137.4 GFLOP of KQ and KQV (32 layers x
   * 2 x 2 x 512 x 512 x 4096), 0.899 TFLOP/s of 10.7 = 0.0841 ({@link #METAL_SLOW_KQ_AFTER_3084}). Before #3084
   * the same matmuls took the 0.0983 s more that #3084's table adds for Q8_0 (445.27 -> 486.91 t/s), all of it
   * taken as the kernel's ("the lion share of the speedup comes from the new f16 x f32 kernel"): 0.2511 s,
   * 0.547 TFLOP/s = 0.0511 of 10.7.
   */
  static final double METAL_SLOW_KQ_BEFORE_3084 = 0.0511;

  static final double METAL_SLOW_KQ_AFTER_3084 = 0.0841;

  /**
   * Dequantisation inside Metal's simdgroup-matrix kernel (kernel_mul_mm: each 64 x 32 weight tile is
   * dequantised into threadgroup memory for every 32-token tile), as ALU work per weight-GEMM FLOP. From #3084's
   * M2 Ultra table (ggerganov, PR column, 76 cores, 27.2 TFLOP/s): pp512 takes longer than F16's 1265.30 t/s by
   * Q8_0 1142.84 t/s: 0.04336 s, Q4_0 1164.00: 0.03522 s, Q4_K_M 1028.20: 0.09331 s, over the 6.631 TFLOP of the
   * 32 layers' weight GEMMs at 512 tokens (the output head stays Q6_K in these files); x 27.2 TFLOP/s / 6.631 TFLOP.
   */
  static double metalDequantPerFlop(WeightFormat f) {
    return switch (f) {
      case Q8_0 -> 0.1779;
      case Q4_0 -> 0.1445;
      case Q4_K -> 0.3827;
      default -> 0;
    };
  }

  /**
   * The month llama.cpp was first published (ggerganov/llama.cpp, March 2023, weeks after LLaMA's weights); a date
   * before it names no build.
   */
  public static final LocalDate FIRST_RELEASE = LocalDate.of(2023, 3, 1);

  /**
   * The build {@code text} names (YYYY-MM, the month's first day, or YYYY-MM-DD); refused before llama.cpp's first
   * release, as MLX's are ({@link MlxBuild#parse}): it was costed as the earliest build modelled without a word.
   */
  public static LocalDate parseDate(String text) {
    LocalDate date = SoftwareDate.parse(text, "llama.cpp (the build's date selects its kernels)");
    if (date.isBefore(FIRST_RELEASE)) {
      throw new IllegalArgumentException("'software_date' " + text.strip() + " is before llama.cpp's first release"
          + " (March 2023): the earliest llama.cpp build is " + java.time.YearMonth.from(FIRST_RELEASE));
    }
    return date;
  }


  /** The GPU backend llama.cpp runs on a device of {@code vendor}. */
  public enum Backend {
    METAL, CUDA, OTHER;

    public static Backend of(String vendor) {
      String v = vendor == null ? "" : vendor.toLowerCase(java.util.Locale.ROOT);
      return v.contains("apple") ? METAL : v.contains("nvidia") ? CUDA : OTHER;
    }
  }

  /** The earliest Metal build whose attention path is modelled (#2959, 2023-09-01). */
  public static final LocalDate EARLIEST_METAL = LocalDate.of(2023, 9, 1);

  /** What a result on {@code b} must say about this build, or null: Metal builds before {@link #EARLIEST_METAL}. */
  public String warning(Backend b) {
    return warning(b, WeightFormat.F16);
  }

  /**
   * As {@link #warning(Backend)} for weights stored as {@code f}; also CUDA builds before {@link #CUDA_DEQUANT_CUBLAS}
   * with block-quantised weights, whose mul_mat_q kernels (dp4a, no tensor cores) have no modelled rate.
   */
  public String warning(Backend b, WeightFormat f) {
    if (b == Backend.CUDA && ggmlBlockFormat(f) && date.isBefore(CUDA_DEQUANT_CUBLAS)) {
      return "llama.cpp CUDA builds before " + CUDA_DEQUANT_CUBLAS + " ran quantised matrix multiplications on the"
          + " mul_mat_q kernels without tensor cores (#2683, #3776), whose rate is not modelled; this build is costed"
          + " at the GEMM fraction, so its prefill is optimistic";
    }
    if (b != Backend.METAL || !date.isBefore(EARLIEST_METAL)) {
      return null;
    }
    return "llama.cpp Metal builds before " + EARLIEST_METAL + " are not modelled: their attention path was slower"
        + " (#2951, #2959) and before 2023-08-16 prompts ran on the CPU (#2615); this build is costed as the"
        + " 2023-09-01 one, so its prefill is optimistic";
  }

  /**
   * The part of {@link #launchSeconds} that is GPU time, a small kernel's minimum duration (the 4 us less the 1.1 us
   * launch gap), paid by every kernel at every date: a GEMM kernel's floor ({@code GemmTiles}) includes it.
   */
  public double minimumKernelSeconds() {
    return LAUNCH_SECONDS - CUDA_GRAPH_SAVING_SECONDS;
  }

  /** Seconds per kernel: CUDA graphs take the launch gap off on NVIDIA GPUs from {@link #CUDA_GRAPHS}. */
  public double launchSeconds(Backend b) {
    return b == Backend.CUDA && !date.isBefore(CUDA_GRAPHS) ? LAUNCH_SECONDS - CUDA_GRAPH_SAVING_SECONDS
        : LAUNCH_SECONDS;
  }

  /**
   * Fraction of the ALU peak the attention matmuls (KQ, KQV) reach, or -1 where they run on the GEMM kernel (at
   * the device's GEMM fraction): Metal before {@link #METAL_KQ_ON_MATMUL_KERNEL} ran them on a slower kernel.
   */
  public double attentionPeakFraction(Backend b) {
    if (b != Backend.METAL || flashAttention || !date.isBefore(METAL_KQ_ON_MATMUL_KERNEL)) {
      return -1;
    }
    return date.isBefore(METAL_F16_F32_KERNEL) ? METAL_SLOW_KQ_BEFORE_3084 : METAL_SLOW_KQ_AFTER_3084;
  }

  /**
   * ALU work per weight-GEMM FLOP spent dequantising {@code f} inside the matmul kernel on {@code b}: added to the
   * GEMM's compute time as {@code flops x d / peak}. 0 for unquantised weights and where no figure is published.
   */
  public double dequantPerFlop(Backend b, WeightFormat f) {
    return b == Backend.METAL ? metalDequantPerFlop(f) : 0;
  }

  /**
   * Whether a GEMM of weights {@code f} over {@code rows} activation rows runs on {@code b} as a dequantisation kernel
   * writing an f16 copy of the weight matrix, then FP16 cuBLAS on that copy: CUDA builds from
   * {@link #CUDA_DEQUANT_CUBLAS} to {@link #CUDA_MMQ_DEFAULT}, more than {@link #MMQ_MAX_BATCH_SIZE} rows. Every
   * NVIDIA GPU in the catalog has FP16 tensor cores (compute capability 7.5 and up), the condition #3776 checks.
   */
  public boolean dequantisesToF16(Backend b, WeightFormat f, double rows) {
    return b == Backend.CUDA && ggmlBlockFormat(f) && rows > MMQ_MAX_BATCH_SIZE
        && !date.isBefore(CUDA_DEQUANT_CUBLAS) && date.isBefore(CUDA_MMQ_DEFAULT);
  }

  /** ggml's block-quantised formats (a scale per block of weights), which llama.cpp's quantised kernels take. */
  static boolean ggmlBlockFormat(WeightFormat f) {
    return f == WeightFormat.Q8_0 || f == WeightFormat.Q4_0 || f == WeightFormat.Q4_K;
  }
}
