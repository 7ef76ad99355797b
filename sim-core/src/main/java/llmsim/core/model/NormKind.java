package llmsim.core.model;

/** LayerNorm has a scale and a bias per channel; RMSNorm only a scale. */
public enum NormKind {
  LAYERNORM("layernorm", 2), RMSNORM("rmsnorm", 1), LAYERNORM_NO_BIAS("layernorm-no-bias", 1);

  private final String key;
  private final int paramsPerChannel;

  NormKind(String key, int paramsPerChannel) {
    this.key = key;
    this.paramsPerChannel = paramsPerChannel;
  }

  public String key() {
    return key;
  }

  public int paramsPerChannel() {
    return paramsPerChannel;
  }

  public static NormKind fromKey(String key) {
    for (NormKind k : values()) {
      if (k.key.equals(key)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown norm kind '" + key + "' (allowed: layernorm, rmsnorm, layernorm-no-bias)");
  }
}
