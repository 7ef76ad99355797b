package llmsim.core.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * One body run against every kernel implementation available in this JVM: the scalar reference, and
 * the Panama kernel when the suite runs with --add-modules jdk.incubator.vector. Lane-wise results
 * must be identical to the scalar definition, bit for bit.
 */
class RooflineKernelContractTest {
  static final int[] SIZES = {0, 1, 7, 8, 9, 15, 16, 17, 63, 1021, 4099};
  static final RooflineKernel.Coefficients CO = RooflineKernel.Coefficients.of(756e12 * 0.8, 2e12 * 0.9, 55e9, 4e-6);

  static List<RooflineKernel> kernels() {
    List<RooflineKernel> k = new ArrayList<>();
    k.add(new ScalarRooflineKernel());
    Kernels.loadPanama().ifPresent(k::add);
    return k;
  }

  static Stream<Arguments> kernelsAndSizes() {
    return kernels().stream().flatMap(k -> java.util.Arrays.stream(SIZES).mapToObj(n -> Arguments.of(k, n)));
  }

  record Out(double[] time, double[] attained, double[] intensity, double[] bound) {}

  static Out run(RooflineKernel k, double[] f, double[] m, double[] l, int from, int to, RooflineKernel.Coefficients c) {
    int n = f.length;
    Out o = new Out(new double[n], new double[n], new double[n], new double[n]);
    java.util.Arrays.fill(o.time, -7);
    k.evaluate(f, m, l, from, to, c, o.time, o.attained, o.intensity, o.bound);
    return o;
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("kernelsAndSizes")
  void agreesWithTheScalarDefinition_atEveryTailSize(RooflineKernel k, int n) {
    SplittableRandom r = new SplittableRandom(n * 31L + 7);
    double[] f = new double[n + 3];
    double[] m = new double[n + 3];
    double[] l = new double[n + 3];
    for (int i = 0; i < f.length; i++) {
      // magnitudes from tiny to huge, with exact zeros mixed in
      f[i] = r.nextInt(5) == 0 ? 0 : Math.pow(10, r.nextDouble(-3, 18));
      m[i] = r.nextInt(5) == 0 ? 0 : Math.pow(10, r.nextDouble(-3, 12));
      l[i] = r.nextInt(3) == 0 ? 0 : Math.pow(10, r.nextDouble(-3, 10));
    }
    Out expected = reference(f, m, l, 1, n + 1);
    Out got = run(k, f, m, l, 1, n + 1, CO);
    assertThat(got.time).containsExactly(expected.time);
    assertThat(got.attained).containsExactly(expected.attained);
    assertThat(got.intensity).containsExactly(expected.intensity);
    assertThat(got.bound).containsExactly(expected.bound);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kernels")
  void specialValues_followTheDefinition(RooflineKernel k) {
    double[] f = {0, 0, 1e12, 0, 5e12, 1e-300, Double.MAX_VALUE / 1e20};
    double[] m = {0, 1e9, 0, 0, 1e9, 1e-300, 1};
    double[] l = {0, 0, 0, 1e9, 1e9, 0, 0};
    RooflineKernel.Coefficients noLaunch = RooflineKernel.Coefficients.of(1e12, 1e12, 1e10, 0);
    Out o = run(k, f, m, l, 0, f.length, noLaunch);
    assertThat(o.time[0]).isZero();                    // nothing to do, no launch
    assertThat(o.attained[0]).isZero();                // 0 / 0 is reported as 0
    assertThat(o.intensity[0]).isZero();
    assertThat(o.bound[1]).isEqualTo(RooflineKernel.MEMORY);
    assertThat(o.intensity[1]).isZero();               // no FLOPs
    assertThat(o.intensity[2]).isInfinite();           // FLOPs and no bytes
    assertThat(o.bound[2]).isEqualTo(RooflineKernel.COMPUTE);
    assertThat(o.bound[3]).isEqualTo(RooflineKernel.LINK);
    assertThat(o.time[4]).isEqualTo(Math.max(5.0, Math.max(1e-3, 0.1)));
    assertThat(o.time[6]).isFinite();
    Out ref = reference(f, m, l, 0, f.length, noLaunch);
    assertThat(o.time).containsExactly(ref.time);
    assertThat(o.attained).containsExactly(ref.attained);
    assertThat(o.intensity).containsExactly(ref.intensity);
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("kernelsAndSizes")
  void shapeFactors_agreeWithGemmTilesAndDivideTheComputeTime(RooflineKernel k, int n) {
    SplittableRandom r = new SplittableRandom(n * 17L + 3);
    double[] gm = new double[n + 3];
    double[] gn = new double[n + 3];
    double[] gk = new double[n + 3];
    double[] f = new double[n + 3];
    double[] m = new double[n + 3];
    double[] l = new double[n + 3];
    for (int i = 0; i < gm.length; i++) {
      // shapes from one row to a million, fractional ones (a dimension split over tensor parallelism), none at all
      boolean shaped = r.nextInt(4) != 0;
      gm[i] = shaped ? (r.nextBoolean() ? 1 + r.nextInt(1 << 20) : Math.pow(2, r.nextDouble(0, 20))) : 0;
      gn[i] = shaped ? 1 + r.nextInt(1 << 18) : 0;
      gk[i] = shaped ? Math.pow(2, r.nextDouble(0, 16)) : 0;
      f[i] = Math.pow(10, r.nextDouble(3, 16));
      m[i] = Math.pow(10, r.nextDouble(3, 11));
    }
    for (int units : new int[] {0, 108, 132, 304}) {
      double[] got = new double[gm.length];
      java.util.Arrays.fill(got, -7);
      k.shapeFactors(gm, gn, gk, 1, n + 1, units, got);
      assertThat(got[0]).isEqualTo(-7);
      assertThat(got[n + 1]).isEqualTo(-7);
      for (int i = 1; i <= n; i++) {
        assertThat(got[i]).as("units %d, %s x %s x %s", units, gm[i], gn[i], gk[i])
            .isEqualTo(GemmTiles.factor(gm[i], gn[i], gk[i], units));
        assertThat(got[i]).isGreaterThan(0).isLessThanOrEqualTo(1);
      }
      // the compute time is divided by the factor: the reference with the FLOPs scaled up the same way
      Out o = new Out(new double[gm.length], new double[gm.length], new double[gm.length], new double[gm.length]);
      k.evaluate(f, got, m, l, 1, n + 1, CO, o.time, o.attained, o.intensity, o.bound);
      double[] scaled = new double[gm.length];
      for (int i = 1; i <= n; i++) {
        scaled[i] = f[i] * CO.invPeakFlops() / got[i] / CO.invPeakFlops();
      }
      Out ref = reference(scaled, m, l, 1, n + 1);
      for (int i = 1; i <= n; i++) {
        assertThat(o.bound[i]).isEqualTo(ref.bound[i]);
        assertThat(o.time[i]).isCloseTo(ref.time[i], within(ref.time[i] * 1e-15));
      }
    }
  }

  @ParameterizedTest(name = "{0} n={1}")
  @MethodSource("kernelsAndSizes")
  void gemmFloors_areAddedToTheComputeTimeAfterTheShapeFactor_inEveryLane(RooflineKernel k, int n) {
    SplittableRandom r = new SplittableRandom(n * 13L + 5);
    int len = n + 3;
    double[] gm = new double[len];
    double[] gn = new double[len];
    double[] gk = new double[len];
    double[] f = new double[len];
    double[] m = new double[len];
    double[] l = new double[len];
    for (int i = 0; i < len; i++) {
      boolean shaped = r.nextInt(4) != 0;
      gm[i] = shaped ? 1 + r.nextInt(1 << 14) : 0;
      gn[i] = shaped ? 1 + r.nextInt(1 << 14) : 0;
      gk[i] = shaped ? 1 + r.nextInt(1 << 14) : 0;
      // one kernel, or two (a backward op), or FLOPs unrelated to the shape where there is none
      f[i] = shaped ? (1 + r.nextInt(2)) * 2 * gm[i] * gn[i] * gk[i] : Math.pow(10, r.nextDouble(3, 14));
      // from far below the compute time to far above it
      m[i] = r.nextInt(5) == 0 ? 0 : Math.pow(10, r.nextDouble(3, 11));
      l[i] = r.nextInt(3) == 0 ? 0 : Math.pow(10, r.nextDouble(3, 9));
    }
    double kernelFloor = 5e-6;
    double[] shape = new double[len];
    double[] floor = new double[len];
    java.util.Arrays.fill(floor, -7);
    k.shapeFactors(gm, gn, gk, 1, n + 1, 132, shape);
    k.gemmFloors(f, gm, gn, gk, 1, n + 1, kernelFloor, floor);
    assertThat(floor[0]).isEqualTo(-7);
    assertThat(floor[n + 1]).isEqualTo(-7);
    Out o = new Out(new double[len], new double[len], new double[len], new double[len]);
    k.evaluate(f, shape, floor, m, l, 1, n + 1, CO, o.time, o.attained, o.intensity, o.bound);
    for (int i = 1; i <= n; i++) {
      // the floor: one per kernel, the op's FLOPs over 2 m n k of them; none without a shape
      double kernels = gm[i] > 0 ? f[i] / (2 * gm[i] * gn[i] * gk[i]) : 0;
      assertThat(floor[i]).isCloseTo(kernelFloor * kernels, within(1e-18));
      // written out: the floor joins the compute time, then the max with memory and link, then the launch
      double tc = f[i] * CO.invPeakFlops() / shape[i] + floor[i];
      double tm = m[i] * CO.invDeviceBandwidth();
      double tl = l[i] * CO.invLinkBandwidth();
      assertThat(o.time[i]).isEqualTo(Math.max(tc, Math.max(tm, tl)) + CO.launchSeconds());
      assertThat(o.bound[i]).isEqualTo(tc >= Math.max(tm, tl) ? 0.0 : tm >= tl ? 1.0 : 2.0);
    }
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("kernels")
  void theFloor_countsWhereTheGemmIsComputeBound_andRunsUnderALongerMemoryTime(RooflineKernel k) {
    // 1 TFLOP/s, 1 TB/s, no launch: 2 GFLOP take 2 ms of math; a floor of 1 ms per kernel
    RooflineKernel.Coefficients co = RooflineKernel.Coefficients.of(1e12, 1e12, 1e10, 0);
    double[] f = {2e9, 2e9};
    double[] bytes = {1e6, 5e9};          // 1 us of memory; 5 ms of memory
    double[] shape = {1, 1};
    double[] floor = {1e-3, 1e-3};
    Out o = new Out(new double[2], new double[2], new double[2], new double[2]);
    k.evaluate(f, shape, floor, bytes, new double[2], 0, 2, co, o.time, o.attained, o.intensity, o.bound);
    assertThat(o.time[0]).isCloseTo(2e-3 + 1e-3, within(1e-15));
    assertThat(o.bound[0]).isEqualTo(RooflineKernel.COMPUTE);
    assertThat(o.time[1]).isCloseTo(5e-3, within(1e-15));
    assertThat(o.bound[1]).isEqualTo(RooflineKernel.MEMORY);
  }

  @Test
  void forcedPanama_loadsWhenTheModuleIsPresent_andFailsLoudlyWhenAbsent() {
    boolean module = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
    if (module) {
      assertThat(Kernels.select("panama").name()).startsWith("panama");
    } else {
      assertThatThrownBy(() -> Kernels.select("panama")).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("--add-modules jdk.incubator.vector");
    }
    assertThat(Kernels.select("scalar").name()).isEqualTo("scalar");
    assertThatThrownBy(() -> Kernels.select("gpu")).hasMessageContaining("allowed: auto, scalar, panama");
  }

  @Test
  void theExpectedKernelRan() {
    // the build runs this suite twice: with the module (expect Panama) and without (expect scalar);
    // -Dllmsim.test.expectKernel names which one this run must have
    String expected = System.getProperty("llmsim.test.expectKernel");
    if (expected != null) {
      assertThat(Kernels.get().name()).startsWith(expected);
    }
  }

  static Out reference(double[] f, double[] m, double[] l, int from, int to) {
    return reference(f, m, l, from, to, CO);
  }

  /** The definition, written out independently of ScalarRooflineKernel. */
  static Out reference(double[] f, double[] m, double[] l, int from, int to, RooflineKernel.Coefficients c) {
    int n = f.length;
    Out o = new Out(new double[n], new double[n], new double[n], new double[n]);
    java.util.Arrays.fill(o.time, -7);
    for (int i = from; i < to; i++) {
      double tc = f[i] * c.invPeakFlops();
      double tm = m[i] * c.invDeviceBandwidth();
      double tl = l[i] * c.invLinkBandwidth();
      o.time[i] = Math.max(Math.max(tc, tm), tl) + c.launchSeconds();
      o.attained[i] = o.time[i] > 0 ? f[i] / o.time[i] : 0;
      double bytes = m[i] + l[i];
      o.intensity[i] = bytes > 0 ? f[i] / bytes : f[i] > 0 ? Double.POSITIVE_INFINITY : 0;
      o.bound[i] = tc >= Math.max(tm, tl) ? 0 : tm >= tl ? 1 : 2;
    }
    return o;
  }
}
