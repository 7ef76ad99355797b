package llmsim.core.hw;

import java.util.List;
import llmsim.core.util.Checks;

/**
 * A host CPU and its memory.
 *
 * @param cpuPeakFlopsFp32 dense FP32 peak of all sockets together (used for an offloaded optimizer step)
 */
public record Host(
    String id,
    String name,
    List<String> aliases,
    int sockets,
    int cores,
    String coresDetail,
    double memoryCapacityBytes,
    double memoryBandwidthBytesPerSecond,
    String memorySource,
    double cpuPeakFlopsFp32,
    String cpuSource) {

  public Host {
    Checks.notBlank("host id", id);
    aliases = List.copyOf(aliases);
    Checks.positive("sockets", sockets);
    Checks.positive("cores", cores);
    Checks.positive("host memory capacity (bytes)", memoryCapacityBytes);
    Checks.positive("host memory bandwidth (B/s)", memoryBandwidthBytesPerSecond);
    Checks.positive("CPU peak FP32 FLOP/s", cpuPeakFlopsFp32);
  }
}
