package llmsim.core.hw;

import java.util.List;
import llmsim.core.util.Checks;

/**
 * A precision a device has no units for, run by some software at a measured fraction of a precision it has
 * (MLX runs bf16 on Apple GPUs at about 0.6x their fp16 rate).
 *
 * @param via the native precision the emulation runs on
 * @param rate fraction of {@code via}'s dense peak reached
 * @param software ids of the software profiles that emulate it; others refuse it
 * @param source the measurement or documentation
 */
public record Emulation(Precision via, double rate, List<String> software, String source) {
  public Emulation {
    Checks.notNull("via", via);
    Checks.fraction("emulation rate", rate);
    software = List.copyOf(software);
    Checks.notBlank("emulation source", source);
  }
}
