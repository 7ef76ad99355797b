package llmsim.core.hw;

import java.util.Locale;

/** Arithmetic precisions a device may have a dense peak for. */
public enum Precision {
  FP32(4), TF32(4), FP16(2), BF16(2), FP8(1), INT8(1);

  private final int bytes;

  Precision(int bytes) {
    this.bytes = bytes;
  }

  /** Storage bytes of one element in this precision. */
  public int bytes() {
    return bytes;
  }

  /** The lower-case key used in files and flags ({@code bf16}). */
  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Precision fromKey(String key) {
    for (Precision p : values()) {
      if (p.key().equals(key)) {
        return p;
      }
    }
    throw new IllegalArgumentException("unknown precision '" + key + "' (allowed: fp32, tf32, fp16, bf16, fp8, int8)");
  }
}
