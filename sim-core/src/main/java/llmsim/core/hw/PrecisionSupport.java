package llmsim.core.hw;

import java.util.Locale;
import java.util.stream.Collectors;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;

/**
 * What a compute precision costs on a device under a software: its native dense peak; a stated emulation
 * rate the device file records for that software; TF32 as FP32 where there are no TF32 units (PyTorch's
 * {@code allow_tf32} is a permission: cuBLAS then runs FP32 GEMMs); or a refusal naming what the device runs.
 * Nothing runs at another precision's peak.
 */
public final class PrecisionSupport {
  private PrecisionSupport() {}

  /**
   * How a precision runs.
   *
   * @param peakFlops the dense peak it runs at (native, or emulated)
   * @param gemmPrecision the precision whose measured GEMM fraction applies
   * @param warning null when native; otherwise what the result must say
   */
  public record Resolved(Precision precision, double peakFlops, Precision gemmPrecision, String warning) {}

  public static Resolved resolve(Device d, Precision p, SoftwareProfile sw) {
    if (d.hasPeak(p)) {
      return new Resolved(p, d.peakFlops(p), p, null);
    }
    Emulation e = d.emulated().get(p);
    if (e != null && e.software().contains(sw.id()) && d.hasPeak(e.via())) {
      return new Resolved(p, e.rate() * d.peakFlops(e.via()), e.via(), String.format(Locale.US,
          "%s is not native on %s: %s emulates it at %.2fx the %s rate (%s)", p.key(), d.name(), sw.id(), e.rate(),
          e.via().key(), e.source()));
    }
    if (p == Precision.TF32 && d.hasPeak(Precision.FP32)) {
      return new Resolved(p, d.peakFlops(Precision.FP32), Precision.FP32, "tf32 is not native on " + d.name()
          + ": allow_tf32 is a permission, so GEMMs run in fp32 at the fp32 rate");
    }
    String emulatedBy = e == null ? "" : " (only " + String.join(", ", e.software()) + " emulates it there)";
    throw new ScenarioKeyException(ScenarioKey.PRECISION, "'precision' " + p.key() + " is not native on " + d.name()
        + " and " + sw.id() + " does not emulate it" + emulatedBy + "; it runs " + nativeList(d));
  }

  /**
   * The task as it runs on {@code d}: a precision the user asked for stays (and {@link #resolve} refuses it
   * if the device cannot run it); the default precision (bf16 for training, fp16 for inference) becomes fp16,
   * then fp32, where the device runs neither natively nor by this software's emulation.
   *
   * @return the task, and a note when its precision changed (null otherwise)
   */
  public static Adapted adapt(Task t, Device d, SoftwareProfile sw, boolean precisionGiven) {
    if (precisionGiven || runs(d, t.precision(), sw)) {
      return new Adapted(t, null);
    }
    for (Precision p : new Precision[] {Precision.FP16, Precision.FP32}) {
      if (d.hasPeak(p)) {
        return new Adapted(t.withPrecision(p), "precision " + p.key() + ": the default " + t.precision().key()
            + " is not native on " + d.name() + " (it runs " + nativeList(d) + ")");
      }
    }
    return new Adapted(t, null);
  }

  /** A task adapted to a device, with the note that says how. */
  public record Adapted(Task task, String note) {}

  private static boolean runs(Device d, Precision p, SoftwareProfile sw) {
    try {
      resolve(d, p, sw);
      return true;
    } catch (ScenarioKeyException e) {
      return false;
    }
  }

  static String nativeList(Device d) {
    return d.peakFlopsDense().keySet().stream().sorted().map(Precision::key).collect(Collectors.joining(", "));
  }
}
