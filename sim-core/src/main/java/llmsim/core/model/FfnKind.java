package llmsim.core.model;

/** Feed-forward block: a two-matrix GELU MLP, or a gated three-matrix SwiGLU. */
public enum FfnKind {
  GELU_MLP("gelu-mlp", 2), SWIGLU("swiglu", 3);

  private final String key;
  private final int matrices;

  FfnKind(String key, int matrices) {
    this.key = key;
    this.matrices = matrices;
  }

  public String key() {
    return key;
  }

  /** Weight matrices of size hidden x ffn in one block. */
  public int matrices() {
    return matrices;
  }

  public static FfnKind fromKey(String key) {
    for (FfnKind k : values()) {
      if (k.key.equals(key)) {
        return k;
      }
    }
    throw new IllegalArgumentException("unknown ffn kind '" + key + "' (allowed: gelu-mlp, swiglu)");
  }
}
