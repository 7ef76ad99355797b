package llmsim.core.engine;

import llmsim.core.util.Checks;

/**
 * How one family of ops is costed: the processor's effective peak, the memory pool they read and
 * write with its effective bandwidth for these ops, the link pool they cross, and the launch cost.
 * Efficiencies are already folded into the effective figures.
 *
 * @param memPool pool index, or -1 when these ops touch no memory pool
 * @param linkPool pool index, or -1 when these ops cross no link
 * @param computeUnits SMs (CUs) that tile this group's GEMMs, for {@link llmsim.core.kernel.GemmTiles}; 0 when
 *     GEMM shapes do not change the effective peak
 */
public record CostGroup(String name, double effectivePeakFlops, int memPool, double effectiveMemBandwidth,
    int linkPool, double effectiveLinkBandwidth, double launchSeconds, int computeUnits) {

  /** A group whose ops' shapes do not change the effective peak. */
  public CostGroup(String name, double effectivePeakFlops, int memPool, double effectiveMemBandwidth, int linkPool,
      double effectiveLinkBandwidth, double launchSeconds) {
    this(name, effectivePeakFlops, memPool, effectiveMemBandwidth, linkPool, effectiveLinkBandwidth, launchSeconds, 0);
  }

  public CostGroup {
    Checks.nonNegative(name + ": compute units", computeUnits);
    Checks.positive(name + ": effective peak FLOP/s", effectivePeakFlops);
    Checks.positive(name + ": effective memory bandwidth", effectiveMemBandwidth);
    Checks.positive(name + ": effective link bandwidth", effectiveLinkBandwidth);
    Checks.nonNegative(name + ": launch seconds", launchSeconds);
  }
}
