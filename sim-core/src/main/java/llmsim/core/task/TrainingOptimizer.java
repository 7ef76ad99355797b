package llmsim.core.task;

import java.util.Arrays;
import java.util.List;
import llmsim.core.hw.Precision;

/**
 * The optimizer a training step runs and the state it keeps (docs/CALIBRATION.md, "Optimizer").
 *
 * @param kind AdamW with 32-bit (or, without master weights, 16-bit) moments, or bitsandbytes' 8-bit AdamW, paged or
 *     not
 * @param masterWeights whether a full fine-tune or pre-training keeps fp32 master weights beside the 16-bit ones
 *     (mixed precision); false: the weights are trained in the compute precision itself (torchtune's dtype bf16)
 * @param inBackward whether each parameter is updated as soon as its gradient is ready, inside the backward, and its
 *     gradient freed (torchtune's optimizer_in_bwd), so no full gradient buffer is held
 */
public record TrainingOptimizer(Kind kind, boolean masterWeights, boolean inBackward) {

  /** Mixed-precision AdamW after the backward: the default. */
  public static final TrainingOptimizer DEFAULT = new TrainingOptimizer(Kind.ADAMW, true, false);

  /**
   * bitsandbytes' blockwise 8-bit state: a uint8 per moment and an fp32 absmax per 256 elements of each
   * ({@code Optimizer2State.init_state}: {@code blocks = n // 256}, bitsandbytes/optim/optimizer.py).
   */
  static final double EIGHT_BIT_STATE_BYTES = 2 + 2 * 4.0 / 256;

  public enum Kind {
    /** torch / apex AdamW: m and v in fp32 (in the weights' 16-bit dtype without master weights). */
    ADAMW("adamw"),
    /** bitsandbytes AdamW8bit: m and v blockwise-quantised to 8 bits on the device. */
    ADAMW_8BIT("adamw-8bit"),
    /**
     * bitsandbytes PagedAdamW8bit: the same state in CUDA unified memory (cudaMallocManaged), which the driver pages
     * to host memory when the device is full and back on access.
     */
    PAGED_ADAMW_8BIT("paged-adamw-8bit");

    private final String key;

    Kind(String key) {
      this.key = key;
    }

    public String key() {
      return key;
    }

    public static List<String> keys() {
      return Arrays.stream(values()).map(Kind::key).toList();
    }

    public static Kind fromKey(String key) {
      for (Kind k : values()) {
        if (k.key.equals(key)) {
          return k;
        }
      }
      throw new IllegalArgumentException("unknown optimizer '" + key + "' (allowed: " + String.join(", ", keys()) + ")");
    }
  }

  public TrainingOptimizer {
    if (kind == null) {
      throw new IllegalArgumentException("optimizer must be given");
    }
  }

  /** This state's master-weight and in-backward choices with {@code other}'s kind of optimizer. */
  public TrainingOptimizer withKind(TrainingOptimizer other) {
    return new TrainingOptimizer(other.kind, masterWeights, inBackward);
  }

  public boolean paged() {
    return kind == Kind.PAGED_ADAMW_8BIT;
  }

  /**
   * Bytes of moment state per trained parameter whose weights are {@code weightBytes} wide: 8-bit state, or two
   * moments at the master's width (fp32) with master weights, else at the weights' own.
   */
  public double stateBytesPerParameter(double weightBytes) {
    return kind == Kind.ADAMW ? 2 * (masterWeights ? 4 : weightBytes) : EIGHT_BIT_STATE_BYTES;
  }

  /** Bytes of fp32 master weights per parameter trained in {@code precision}: 4, none in fp32 or without masters. */
  public double masterBytesPerParameter(Precision precision) {
    return masterWeights && precision != Precision.FP32 ? 4 : 0;
  }

  /**
   * Bytes one parameter's fused update moves on the device: its gradient read; the master (or, without one, the
   * weight) read and written and, with a master, the 16-bit weight written; each moment read and written.
   */
  public double updateBytesPerParameter(double gradientBytes, double weightBytes, Precision precision) {
    double master = masterBytesPerParameter(precision);
    double weights = master > 0 ? 2 * master + weightBytes : 2 * weightBytes;
    return gradientBytes + weights + 2 * stateBytesPerParameter(weightBytes);
  }
}
