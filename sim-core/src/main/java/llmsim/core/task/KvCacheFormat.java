package llmsim.core.task;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the KV cache is stored. f16 is the default of every runtime here; llama.cpp's {@code --cache-type-k/v}
 * also take q8_0 (34 bytes per 32 values) and q4_0 (18 bytes per 32), and vLLM/TensorRT-LLM an fp8 cache.
 */
public enum KvCacheFormat {
  F16(2.0), FP8(1.0), Q8_0(34.0 / 32), Q4_0(18.0 / 32);

  private final double bytesPerElement;

  KvCacheFormat(double bytesPerElement) {
    this.bytesPerElement = bytesPerElement;
  }

  public double bytesPerElement() {
    return bytesPerElement;
  }

  public String key() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static String allowed() {
    return Arrays.stream(values()).map(KvCacheFormat::key).collect(Collectors.joining(", "));
  }

  public static KvCacheFormat fromKey(String key) {
    for (KvCacheFormat f : values()) {
      if (f.key().equals(key)) {
        return f;
      }
    }
    throw new IllegalArgumentException("unknown kv_cache '" + key + "' (allowed: " + allowed() + ")");
  }
}
