package llmsim.core.kernel.panama;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import llmsim.core.kernel.GemmTiles;
import llmsim.core.kernel.RooflineKernel;

/**
 * The roofline kernel on the Vector API: the max chain, the bound class and the special cases are
 * lane-wise blends under masks; tails run masked. Only fromArray, intoArray, lane-wise arithmetic,
 * min/max and compares are used (unchanged from JDK 17 to 25). Loaded by name from {@code Kernels}.
 */
public final class PanamaRooflineKernel implements RooflineKernel {
  private static final RooflineKernel TAIL = new llmsim.core.kernel.ScalarRooflineKernel();

  /** Vector-API statics live here, not in the provider (a missing module fails only on first use). */
  private static final class Holder {
    static final VectorSpecies<Double> SPECIES = DoubleVector.SPECIES_PREFERRED;
  }

  public PanamaRooflineKernel() {
    // touch the species so a missing module fails at construction, where Kernels can catch it
    if (Holder.SPECIES.length() < 1) {
      throw new UnsupportedOperationException("no vector lanes");
    }
  }

  @Override
  public String name() {
    return "panama(" + Holder.SPECIES.length() + "x64)";
  }

  @Override
  public void evaluate(double[] flops, double[] shapeFactor, double[] floor, double[] deviceBytes, double[] linkBytes,
      int from, int to, Coefficients c, double[] time, double[] attained, double[] intensity, double[] bound) {
    final VectorSpecies<Double> s = Holder.SPECIES;
    final DoubleVector ip = DoubleVector.broadcast(s, c.invPeakFlops());
    final DoubleVector im = DoubleVector.broadcast(s, c.invDeviceBandwidth());
    final DoubleVector il = DoubleVector.broadcast(s, c.invLinkBandwidth());
    final DoubleVector launch = DoubleVector.broadcast(s, c.launchSeconds());
    final DoubleVector zero = DoubleVector.zero(s);
    final DoubleVector inf = DoubleVector.broadcast(s, Double.POSITIVE_INFINITY);
    final DoubleVector memoryClass = DoubleVector.broadcast(s, MEMORY);
    final DoubleVector linkClass = DoubleVector.broadcast(s, LINK);
    final int step = s.length();
    int i = from;
    // full vectors with unmasked loads and stores (masked stores are not intrinsified on every ISA)
    for (int upper = from + s.loopBound(to - from); i < upper; i += step) {
      DoubleVector f = DoubleVector.fromArray(s, flops, i);
      DoubleVector db = DoubleVector.fromArray(s, deviceBytes, i);
      DoubleVector lb = DoubleVector.fromArray(s, linkBytes, i);
      DoubleVector tc = shapeFactor == null ? f.mul(ip) : f.mul(ip).div(DoubleVector.fromArray(s, shapeFactor, i));
      if (floor != null) {
        tc = tc.add(DoubleVector.fromArray(s, floor, i));
      }
      DoubleVector tm = db.mul(im);
      DoubleVector tl = lb.mul(il);
      DoubleVector tml = tm.max(tl);
      DoubleVector t = tc.max(tml).add(launch);
      t.intoArray(time, i);
      // attained = f / t, 0 where t == 0
      f.div(t).blend(zero, t.compare(VectorOperators.LE, zero)).intoArray(attained, i);
      // intensity = f / b; +inf where b == 0 and f > 0; 0 where both are 0
      DoubleVector b = db.add(lb);
      VectorMask<Double> noBytes = b.compare(VectorOperators.LE, zero);
      f.div(b).blend(inf.blend(zero, f.compare(VectorOperators.LE, zero)), noBytes).intoArray(intensity, i);
      // bound: compute (0) unless a memory level takes longer; then memory (1) unless the link takes longer (2)
      DoubleVector memOrLink = memoryClass.blend(linkClass, tm.compare(VectorOperators.LT, tl));
      zero.blend(memOrLink, tc.compare(VectorOperators.LT, tml)).intoArray(bound, i);
    }
    // the tail (fewer than one vector): the scalar definition, so every lane matches it exactly
    TAIL.evaluate(flops, shapeFactor, floor, deviceBytes, linkBytes, i, to, c, time, attained, intensity, bound);
  }

  /**
   * {@link GemmTiles#factor} lane-wise: the configurations' launched capacities, their minimum, and the K padding, with ceil
   * as round-to-nearest through 2^52 corrected upwards (exact for the non-negative values below 2^51 that
   * {@link GemmTiles#checkShape} allows, so every lane equals Math.ceil and the scalar definition).
   */
  @Override
  public void shapeFactors(double[] m, double[] n, double[] k, int from, int to, int units, double[] out) {
    if (units <= 0) {
      java.util.Arrays.fill(out, from, to, 1);
      return;
    }
    final VectorSpecies<Double> s = Holder.SPECIES;
    final int configs = GemmTiles.configs();
    final DoubleVector u = DoubleVector.broadcast(s, units);
    final DoubleVector one = DoubleVector.broadcast(s, 1);
    final DoubleVector zero = DoubleVector.zero(s);
    final DoubleVector inf = DoubleVector.broadcast(s, Double.POSITIVE_INFINITY);
    final int step = s.length();
    int i = from;
    for (int upper = from + s.loopBound(to - from); i < upper; i += step) {
      DoubleVector vm = DoubleVector.fromArray(s, m, i);
      DoubleVector vn = DoubleVector.fromArray(s, n, i);
      DoubleVector vk = DoubleVector.fromArray(s, k, i);
      DoubleVector capacity = inf;
      for (int c = 0; c < configs; c++) {
        DoubleVector tiles = ceil(vm.mul(GemmTiles.invTileM(c)), one).mul(ceil(vn.mul(GemmTiles.invTileN(c)), one));
        capacity = capacity.min(ceil(tiles.div(u), one).mul(GemmTiles.area(c)));
      }
      DoubleVector kFill = vk.div(ceil(vk.mul(1 / GemmTiles.TILE_K), one).mul(GemmTiles.TILE_K));
      DoubleVector factor = vm.mul(vn).div(u.mul(capacity)).mul(kFill);
      // no shape (m <= 0): factor 1
      factor.blend(one, vm.compare(VectorOperators.LE, zero)).intoArray(out, i);
    }
    TAIL.shapeFactors(m, n, k, i, to, units, out);
  }

  /** ceil(x) for 0 <= x < 2^51: x rounded to the nearest integer through 2^52, plus 1 where that fell below x. */
  private static DoubleVector ceil(DoubleVector x, DoubleVector one) {
    DoubleVector r = x.add(TWO52).sub(TWO52);
    return r.blend(r.add(one), r.compare(VectorOperators.LT, x));
  }

  private static final double TWO52 = 0x1p52;
}
