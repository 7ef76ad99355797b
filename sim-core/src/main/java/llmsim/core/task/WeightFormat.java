package llmsim.core.task;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How weights are stored. llama.cpp's block formats carry a scale per 32 weights: Q8_0 is
 * 34 bytes / 32 weights = 8.5 bits, Q4_0 is 18 bytes / 32 = 4.5 bits (ggml-common.h block_q8_0,
 * block_q4_0); Q4_K is 144 bytes / 256 weights = 4.5 bits (block_q4_K: two f16 super-block scales,
 * 12 bytes of 6-bit sub-block scales and mins, 128 bytes of 4-bit quants). NF4 with double quantisation costs
 * 4.127 bits (Dettmers et al. 2023, QLoRA, sec. 3).
 */
public enum WeightFormat {
  F32(32, false),
  F16(16, false),
  BF16(16, false),
  FP8(8, false),
  INT8(8, true),
  INT4(4, true),
  Q8_0(8.5, true),
  Q4_0(4.5, true),
  Q4_K(4.5, true),
  NF4(4.127, true);

  private final double bitsPerWeight;
  private final boolean dequantised;

  WeightFormat(double bitsPerWeight, boolean dequantised) {
    this.bitsPerWeight = bitsPerWeight;
    this.dequantised = dequantised;
  }

  public double bitsPerWeight() {
    return bitsPerWeight;
  }

  public double bytesPerWeight() {
    return bitsPerWeight / 8.0;
  }

  /** Whether weights must be dequantised to the compute precision before or inside the GEMM. */
  public boolean dequantised() {
    return dequantised;
  }

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static String allowed() {
    return Arrays.stream(values()).map(WeightFormat::key).collect(Collectors.joining(", "));
  }

  public static WeightFormat fromKey(String key) {
    for (WeightFormat f : values()) {
      if (f.key().equals(key.toLowerCase(Locale.ROOT))) {
        return f;
      }
    }
    throw new IllegalArgumentException("unknown weight format '" + key + "' (allowed: " + allowed() + ")");
  }
}
