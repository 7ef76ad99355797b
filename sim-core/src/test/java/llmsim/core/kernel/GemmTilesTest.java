package llmsim.core.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The shape factor against fills worked out by hand from the tile grid and the SM count. */
class GemmTilesTest {
  static final int A100_SMS = 108;
  static final int H100_SMS = 132;

  @Test
  void withoutAShapeOrAUnitCount_theFactorIsOne() {
    assertThat(GemmTiles.factor(0, 0, 0, A100_SMS)).isEqualTo(1);
    assertThat(GemmTiles.factor(3, 5, 7, 0)).isEqualTo(1);
  }

  @Test
  void aTileGridThatFillsWholeWaves_getsTheBaseFraction() {
    // 64x64 tiles: (108 x 64 / 64) x (4096 / 64) = 108 x 64 tiles = exactly 64 waves on 108 SMs; K a multiple of 64
    assertThat(GemmTiles.factor(108 * 64, 4096, 4096, A100_SMS)).isEqualTo(1);
  }

  @Test
  void cube4096_onH100_losesTheLastWavesIdleSms() {
    // every tile area here is a power of two, so 2^24 / area tiles never divide 132 SMs: 64x64 gives 4096 tiles in
    // ceil(4096 / 132) = 32 waves, 4096 / (32 x 132) = 32/33, and the larger tiles land on the same fraction
    assertThat(GemmTiles.factor(4096, 4096, 4096, H100_SMS)).isCloseTo(32.0 / 33, within(1e-15));
  }

  @Test
  void smallM_paysThePaddingOfA64RowTile() {
    // N = 64 x 132: one full wave of 64x64 tiles, only m of each tile's 64 rows useful; wider or taller tiles fill less
    for (int m = 1; m <= 64; m++) {
      assertThat(GemmTiles.factor(m, 64 * H100_SMS, 4096, H100_SMS)).as("m=%d", m).isCloseTo(m / 64.0, within(1e-15));
    }
  }

  @Test
  void oneTileMoreThanTheSms_nearlyHalvesTheFill() {
    // 133 tiles of 64x64 on 132 SMs: two waves for 133 tiles' work; 64x128 tiles (67 of them) fill no better
    double f = GemmTiles.factor(64, 64 * (H100_SMS + 1), 4096, H100_SMS);
    assertThat(f).isCloseTo((H100_SMS + 1) / (2.0 * H100_SMS), within(1e-15));
    assertThat(f).isBetween(0.5, 0.51);
  }

  @Test
  void kPadsToTheTileDepth() {
    // K = 65 runs two 64-deep steps: 65 / 128
    assertThat(GemmTiles.factor(108 * 64, 4096, 65, A100_SMS)).isCloseTo(65.0 / 128, within(1e-15));
  }

  @Test
  void mamfFindersBestShapes_fillTheDeviceToWithinThreePercent() {
    // the catalog's GEMM fraction is mamf-finder's best shape; the model keeps it within 3% at that shape
    // E01 A100: 1024x10240x5120 = 8 x 80 tiles of 128x128 = 640 in 6 waves of 108: 640 / 648
    assertThat(GemmTiles.factor(1024, 10240, 5120, A100_SMS)).isCloseTo(640.0 / 648, within(1e-15));
    // E03 H100: 2048x2048x13312 = 128 tiles of 256x128 in one wave of 132: 128 / 132
    assertThat(GemmTiles.factor(2048, 2048, 13312, H100_SMS)).isCloseTo(128.0 / 132, within(1e-15));
  }

  @Test
  void theKernelFloor_isTheMeasuredTimeOfAGemmWithNegligibleMath() {
    // XLA's sm_90 table: 256 x 256 x 256 bf16 at 6721641025641 FLOP/s, i.e. 2 x 256^3 / that = 4.99 us for 0.03 us of
    // math at the H100's 794.5 TFLOP/s: what is left is the kernel's fixed time
    double measured = 2.0 * 256 * 256 * 256 / 6721641025641.0;
    assertThat(measured - 2.0 * 256 * 256 * 256 / 794.5e12).isCloseTo(GemmTiles.KERNEL_FLOOR_SECONDS, within(0.1e-6));
    // on a device with SM/CU counts only: without them no tile model, no floor
    assertThat(GemmTiles.kernelFloorSeconds(H100_SMS)).isEqualTo(GemmTiles.KERNEL_FLOOR_SECONDS);
    assertThat(GemmTiles.kernelFloorSeconds(0)).isZero();
  }

  @Test
  void aGemmOp_paysTheFloorOncePerKernelItRuns() {
    double floor = 5e-6;
    double m = 2048;
    double n = 4096;
    double k = 1024;
    double one = 2 * m * n * k;
    assertThat(GemmTiles.floor(one, m, n, k, floor)).isEqualTo(floor);
    // a backward op: the input-gradient and weight-gradient GEMMs, twice the FLOPs of its shape, two kernels
    assertThat(GemmTiles.floor(2 * one, m, n, k, floor)).isEqualTo(2 * floor);
    // an op without a shape is no GEMM kernel
    assertThat(GemmTiles.floor(one, 0, 0, 0, floor)).isZero();
    assertThat(GemmTiles.floor(one, m, n, k, 0)).isZero();
  }

  @Test
  void badShapes_areRefused() {
    assertThatThrownBy(() -> GemmTiles.checkShape("x", 0, 1, 1)).hasMessageContaining("x");
    assertThatThrownBy(() -> GemmTiles.checkShape("x", 1, Double.NaN, 1)).hasMessageContaining(">= 1");
    assertThatThrownBy(() -> GemmTiles.checkShape("x", 1, 1, 0x1p52)).hasMessageContaining("2^51");
  }
}
