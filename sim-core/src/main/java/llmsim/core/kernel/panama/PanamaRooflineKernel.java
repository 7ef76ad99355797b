package llmsim.core.kernel.panama;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import llmsim.core.kernel.RooflineKernel;

/**
 * The roofline kernel on the Vector API: the max chain, the bound class and the special cases are
 * lane-wise blends under masks; tails run masked. Only fromArray, intoArray, lane-wise arithmetic,
 * min/max and compares are used (unchanged from JDK 17 to 25). Loaded by name from {@code Kernels}.
 */
public final class PanamaRooflineKernel implements RooflineKernel {

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
  public void evaluate(double[] flops, double[] deviceBytes, double[] linkBytes, int from, int to, Coefficients c,
      double[] time, double[] attained, double[] intensity, double[] bound) {
    final VectorSpecies<Double> s = Holder.SPECIES;
    final double ipS = c.invPeakFlops();
    final double imS = c.invDeviceBandwidth();
    final double ilS = c.invLinkBandwidth();
    final double launchS = c.launchSeconds();
    final DoubleVector ip = DoubleVector.broadcast(s, ipS);
    final DoubleVector im = DoubleVector.broadcast(s, imS);
    final DoubleVector il = DoubleVector.broadcast(s, ilS);
    final DoubleVector launch = DoubleVector.broadcast(s, launchS);
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
      DoubleVector tc = f.mul(ip);
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
    // the tail (fewer than one vector): the same IEEE operations one lane at a time
    for (; i < to; i++) {
      double f = flops[i];
      double db = deviceBytes[i];
      double lb = linkBytes[i];
      double tc = f * ipS;
      double tm = db * imS;
      double tl = lb * ilS;
      double tml = Math.max(tm, tl);
      double t = Math.max(tc, tml) + launchS;
      time[i] = t;
      attained[i] = t <= 0 ? 0 : f / t;
      double b = db + lb;
      intensity[i] = b <= 0 ? (f <= 0 ? 0 : Double.POSITIVE_INFINITY) : f / b;
      bound[i] = tc < tml ? (tm < tl ? LINK : MEMORY) : COMPUTE;
    }
  }
}
