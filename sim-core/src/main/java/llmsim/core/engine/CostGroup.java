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
 * @param smPool for a communication kernel that holds SMs while it runs (an NCCL collective: one CTA per channel,
 *     each on an SM of its own), the memory pool of the GPU it runs on; -1 when this group's ops hold none
 * @param smsHeld SMs one op of this group holds on that GPU from its start to its end; 0 when none
 * @param smsOfDevice the SMs that GPU has: while ops hold {@code h} of them, compute on the pool runs on
 *     {@code smsOfDevice - h} ({@link Simulation})
 * @param gemmFloorSeconds the fixed GPU time of one GEMM kernel of this group, added to each GEMM op's compute time
 *     once per kernel it runs ({@link llmsim.core.kernel.GemmTiles#floor}); 0 when none
 */
public record CostGroup(String name, double effectivePeakFlops, int memPool, double effectiveMemBandwidth,
    int linkPool, double effectiveLinkBandwidth, double launchSeconds, int computeUnits, int smPool, int smsHeld,
    int smsOfDevice, double gemmFloorSeconds) {

  /**
   * A group whose ops hold no SMs away from compute, its GEMMs tiled over {@code computeUnits} SMs and paying the
   * GEMM kernel floor of a device that has them ({@link llmsim.core.kernel.GemmTiles#kernelFloorSeconds}).
   */
  public CostGroup(String name, double effectivePeakFlops, int memPool, double effectiveMemBandwidth, int linkPool,
      double effectiveLinkBandwidth, double launchSeconds, int computeUnits) {
    this(name, effectivePeakFlops, memPool, effectiveMemBandwidth, linkPool, effectiveLinkBandwidth, launchSeconds,
        computeUnits, llmsim.core.kernel.GemmTiles.kernelFloorSeconds(computeUnits));
  }

  /** A group whose ops hold no SMs away from compute, with its own GEMM kernel floor. */
  public CostGroup(String name, double effectivePeakFlops, int memPool, double effectiveMemBandwidth, int linkPool,
      double effectiveLinkBandwidth, double launchSeconds, int computeUnits, double gemmFloorSeconds) {
    this(name, effectivePeakFlops, memPool, effectiveMemBandwidth, linkPool, effectiveLinkBandwidth, launchSeconds,
        computeUnits, -1, 0, 0, gemmFloorSeconds);
  }

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
    Checks.nonNegative(name + ": SMs held", smsHeld);
    Checks.nonNegative(name + ": GEMM kernel floor seconds", gemmFloorSeconds);
    if (smsHeld > 0 && (smPool < 0 || smsOfDevice <= smsHeld)) {
      throw new IllegalArgumentException(name + ": holding " + smsHeld + " SMs needs the pool of the GPU holding them"
          + " and more SMs on it than that (has " + smsOfDevice + ")");
    }
  }

  /** The same group with each op holding {@code held} of the {@code of} SMs of the GPU whose memory pool is {@code pool}. */
  public CostGroup holdingSms(int pool, int held, int of) {
    return new CostGroup(name, effectivePeakFlops, memPool, effectiveMemBandwidth, linkPool, effectiveLinkBandwidth,
        launchSeconds, computeUnits, pool, held, of, gemmFloorSeconds);
  }
}
