package llmsim.core.kernel;

/**
 * How much of a GPU a tiled GEMM of shape M x N x K keeps busy: the shape factor in (0, 1] that multiplies the
 * device's large-shape GEMM fraction. A GEMM library splits the M x N output into threadblock tiles of Tm x Tn,
 * each computed by one SM (CU) stepping through K in chunks of Tk; the tiles run in waves of one tile per SM.
 * For one tile configuration c:
 *
 * <pre>
 *   tiles_c  = ceil(M / Tm) * ceil(N / Tn)
 *   waves_c  = ceil(tiles_c / units)
 *   fill_c   = (M * N) / (waves_c * units * Tm * Tn)     tile padding and wave quantisation together
 *   factor   = max over c of fill_c  x  K / (ceil(K / Tk) * Tk)
 * </pre>
 *
 * The library picks the configuration that finishes first (as cuBLAS's heuristics aim to), so the factor is the
 * best fill over the configurations; every configuration is assumed to run at the same per-SM rate once busy (an
 * upper bound: NVIDIA ranks larger tiles as more efficient but publishes no ratio). A factor of 1 means the
 * device's measured fraction applies unchanged. Sources and the argument: docs/CALIBRATION.md, "GEMM shape".
 */
public final class GemmTiles {
  /**
   * Threadblock tiles M x N that cuBLAS chooses from, largest first, as listed in NVIDIA's "Matrix Multiplication
   * Background User's Guide" (GPU implementation: 256x128, 128x256, 128x128, 256x64, 64x256, 128x64, 64x128, 64x64).
   */
  static final double[] TILE_M = {256, 128, 128, 256, 64, 128, 64, 64};

  static final double[] TILE_N = {128, 256, 128, 64, 256, 64, 128, 64};

  /**
   * The K step of a 16-bit tensor-core tile: the threadblock K of CUTLASS's SM80 tile configurations
   * (CtaShape128x256x64, CtaShape128x128x64, ... in TensorRT-LLM's CutlassTileConfig).
   */
  public static final double TILE_K = 64;

  static final double[] INV_TILE_M = reciprocals(TILE_M);
  static final double[] INV_TILE_N = reciprocals(TILE_N);
  static final double INV_TILE_K = 1 / TILE_K;
  static final double[] AREA = new double[TILE_M.length];

  static {
    for (int c = 0; c < TILE_M.length; c++) {
      AREA[c] = TILE_M[c] * TILE_N[c];
    }
  }

  private static double[] reciprocals(double[] powersOfTwo) {
    double[] r = new double[powersOfTwo.length];
    for (int i = 0; i < r.length; i++) {
      r[i] = 1 / powersOfTwo[i];
    }
    return r;
  }

  /** Tile dimensions above 2^51 would break the rounding {@link #ceil} relies on in the vector kernel. */
  static final double LIMIT = 0x1p51;

  private GemmTiles() {}

  /** Number of tile configurations. */
  public static int configs() {
    return TILE_M.length;
  }

  /** 1 / tile rows of configuration {@code c} (exact: a power of two). */
  public static double invTileM(int c) {
    return INV_TILE_M[c];
  }

  /** 1 / tile columns of configuration {@code c} (exact: a power of two). */
  public static double invTileN(int c) {
    return INV_TILE_N[c];
  }

  /** Tile area of configuration {@code c}. */
  public static double area(int c) {
    return AREA[c];
  }

  /**
   * The shape factor of one GEMM on {@code units} SMs/CUs; 1 without a shape ({@code m <= 0}) or without a unit
   * count ({@code units <= 0}). The definition the kernels evaluate in bulk.
   */
  public static double factor(double m, double n, double k, int units) {
    if (!(m > 0) || units <= 0) {
      return 1;
    }
    // the best fill is the configuration with the least capacity launched, waves x tile area (M, N and the units
    // are common to all); tile sides are powers of two, so multiplying by their reciprocals is exact division
    double u = units;
    double capacity = Double.POSITIVE_INFINITY;
    for (int c = 0; c < TILE_M.length; c++) {
      double tiles = Math.ceil(m * INV_TILE_M[c]) * Math.ceil(n * INV_TILE_N[c]);
      capacity = Math.min(capacity, Math.ceil(tiles / u) * AREA[c]);
    }
    return (m * n) / (u * capacity) * (k / (Math.ceil(k * INV_TILE_K) * TILE_K));
  }

  /**
   * The fixed GPU time of one tiled GEMM kernel: the tile pipeline's fill before the first MMA, the epilogue's
   * drain after the last, and the last wave's tail, which a compute-bound kernel pays on top of its math. XLA's
   * measured matmul table (openxla/xla default_matmul_perf_table.txtpb, CUPTI kernel time) times its smallest GEMM,
   * 256 x 256 x 256 in bf16 (0.03 us of math), at 4.99 us on the H100 ({@code sm_90}), 4.96 us on the B200 and
   * 4.49 us on the MI300X. Taken in seconds, not cycles, for every device with SM/CU counts (the A100's clock is
   * lower: if the floor scaled with it, 7 us there). docs/CALIBRATION.md, "GEMM shape".
   */
  public static final double KERNEL_FLOOR_SECONDS = 5e-6;

  /** {@link #KERNEL_FLOOR_SECONDS} on a device with {@code units} SMs/CUs; 0 without a unit count (no tile model). */
  public static double kernelFloorSeconds(int units) {
    return units > 0 ? KERNEL_FLOOR_SECONDS : 0;
  }

  /**
   * The fixed time of one GEMM op of {@code flops} and shape m x n x k: {@code kernelFloor} for each kernel it runs,
   * {@code flops / (2 m n k)} of them (1 forward; 2 in a backward op, its input- and weight-gradient GEMMs); 0
   * without a shape ({@code m <= 0}).
   */
  public static double floor(double flops, double m, double n, double k, double kernelFloor) {
    if (!(m > 0)) {
      return 0;
    }
    return kernelFloor * (flops / (2 * m * n * k));
  }

  /** Checks a GEMM shape: all three dimensions positive and within the range the kernels round exactly. */
  public static void checkShape(String name, double m, double n, double k) {
    if (!validShape(m, n, k)) {
      throw new IllegalArgumentException("GEMM " + name + ": shape " + m + " x " + n + " x " + k
          + " needs every dimension >= 1 and < 2^51");
    }
  }

  /** Whether every dimension of m x n x k is at least 1 and below 2^51 ({@link #checkShape}'s rule). */
  public static boolean validShape(double m, double n, double k) {
    return m >= 1 && n >= 1 && k >= 1 && m < LIMIT && n < LIMIT && k < LIMIT;
  }
}
