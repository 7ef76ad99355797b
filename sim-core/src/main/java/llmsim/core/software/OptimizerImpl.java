package llmsim.core.software;

/**
 * How a framework launches its AdamW step on the GPU (docs/CALIBRATION.md, "Optimizer"). The update is the same;
 * the kernels and the bytes they move differ.
 */
public enum OptimizerImpl {
  /**
   * One fused multi-tensor kernel (apex FusedAdam, Transformer Engine, torch.optim.AdamW(fused=True)): each parameter's
   * gradient, fp32 master, m and v read once, master, m, v and the 16-bit weight written once.
   */
  FUSED("fused", 0),
  /**
   * torch.optim.AdamW's default on CUDA (foreach=None): eight list ops, each a multi-tensor kernel per chunk of
   * tensors, each reading and writing whole fp32 tensors: the weight decay (read, write the parameter), lerp of m
   * toward the gradient, v scaled and addcmul'd with the gradient twice, v's square root into a new list, divided and
   * offset in place, and addcdiv into the parameter.
   */
  FOREACH("foreach", 8),
  /** The same eight ops as single-tensor kernels, one set per parameter tensor (foreach=False; PyTorch < 2.0). */
  PER_TENSOR("per-tensor", 8);

  /** Tensors one multi-tensor kernel takes (PyTorch's depth_to_max_tensors for the two- and three-list ops: 64). */
  public static final int TENSORS_PER_LAUNCH = 64;
  /** Elements one multi-tensor kernel takes: 320 blocks of 65,536-element chunks (multi_tensor_apply's limits). */
  public static final double ELEMENTS_PER_LAUNCH = 320.0 * 65_536;

  private final String key;
  private final int ops;

  OptimizerImpl(String key, int ops) {
    this.key = key;
    this.ops = ops;
  }

  public String key() {
    return key;
  }

  /**
   * Bytes one parameter's update moves: fused, the 28 of llmsim's mixed-precision state (16-bit gradient, fp32
   * master, m and v in; master, m, v and the 16-bit weight out); the eight unfused ops, 18 fp32 state reads and
   * writes (the parameter 4, m 3, v 5, the square root's list 6, each 4 B)
   * and three gradient reads.
   */
  public double bytesPerParameter(double gradientBytes) {
    return this == FUSED ? 28 : 18 * 4 + 3 * gradientBytes;
  }

  /**
   * The same for weights and moments kept {@code stateBytes} wide with no master copy (pure 16-bit training): fused,
   * the gradient, weight, m and v read and the three written; unfused, the 18 state passes at that width.
   */
  public double bytesPerParameter(double gradientBytes, double stateBytes) {
    return this == FUSED ? gradientBytes + 6 * stateBytes : 18 * stateBytes + 3 * gradientBytes;
  }

  /** Kernels one step launches over {@code tensors} tensors of {@code parameters} elements in all (fused: none extra). */
  public double kernels(double tensors, double parameters) {
    return switch (this) {
      case FUSED -> 0;
      case FOREACH -> ops * Math.max(Math.ceil(tensors / TENSORS_PER_LAUNCH), Math.ceil(parameters / ELEMENTS_PER_LAUNCH));
      case PER_TENSOR -> ops * tensors;
    };
  }
}
