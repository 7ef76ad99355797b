package llmsim.core.engine;

import llmsim.core.util.Checks;

/**
 * How one family of ops is costed: the processor's effective peak, the memory pool they read and
 * write with its effective bandwidth for these ops, the link pool they cross, and the launch cost.
 * Efficiencies are already folded into the effective figures.
 *
 * @param memPool pool index, or -1 when these ops touch no memory pool
 * @param linkPool pool index, or -1 when these ops cross no link
 */
public record CostGroup(String name, double effectivePeakFlops, int memPool, double effectiveMemBandwidth,
    int linkPool, double effectiveLinkBandwidth, double launchSeconds) {
  public CostGroup {
    Checks.positive(name + ": effective peak FLOP/s", effectivePeakFlops);
    Checks.positive(name + ": effective memory bandwidth", effectiveMemBandwidth);
    Checks.positive(name + ": effective link bandwidth", effectiveLinkBandwidth);
    Checks.nonNegative(name + ": launch seconds", launchSeconds);
  }
}
