package llmsim.core.engine;

/** Groups ops for charts and explanations. */
public enum OpKind {
  ATTENTION("attention"),
  MLP("MLP"),
  NORM_ELEMENTWISE("norms & element-wise"),
  OUTPUT("embedding & LM head"),
  OPTIMIZER("optimizer"),
  TRANSFER("transfers"),
  /** The host thread issuing a layer pass's kernels (profiles whose launches run ahead of the GPU). */
  DISPATCH("host dispatch");

  private final String label;

  OpKind(String label) {
    this.label = label;
  }

  public String label() {
    return label;
  }
}
