package llmsim.core.engine;

/**
 * Where a workload builder sends its resources and ops: a {@link Simulation} (event by event), or a
 * closed-form sum that costs the same ops through the same kernel without simulating time.
 */
public interface OpSink {
  int addPool(String name);

  int addStream(String name, Lane lane);

  /**
   * A stream of the simulated GPU whose stream {@code owner} is, or, with {@code owner} -1, the first stream of a GPU
   * of its own (its compute queue): a GPU's time is attributed over its own streams ({@link
   * llmsim.core.engine.Trace#timeByBound()}). A sink that keeps no timeline ignores the owner.
   */
  default int addStream(String name, Lane lane, int owner) {
    return addStream(name, lane);
  }

  int addGroup(CostGroup g);

  /** Add an op; returns its id, or -1 when the sink keeps no DAG. */
  int addOp(String name, OpKind kind, int stream, int group, double flops, double memBytes, double linkBytes, int... deps);

  /**
   * Add a GEMM of {@code m} x {@code n} x {@code k} (output rows, output columns, reduction): an op whose compute
   * time depends on how its shape tiles the device ({@link llmsim.core.kernel.GemmTiles}) when its group has
   * compute units. A sink that ignores shapes adds a plain op.
   */
  default int addGemm(String name, OpKind kind, int stream, int group, double flops, double memBytes, double m,
      double n, double k, int... deps) {
    return addOp(name, kind, stream, group, flops, memBytes, 0, deps);
  }

  /**
   * {@link #addOp(String, OpKind, int, int, double, double, double, int...)} for an op named {@code prefix + name},
   * the two kept apart ({@code prefix} null for none): a simulation joins them only when a name is read (a trace, an
   * error), so a step of 10^5 ops does not build 10^5 strings; a sink that keeps no names ignores both.
   */
  default int addOp(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double linkBytes, int... deps) {
    String joined = keepsNames() ? OpTable.join(prefix, name) : "";
    return addOp(joined, kind, stream, group, flops, memBytes, linkBytes, deps);
  }

  /** {@link #addGemm(String, OpKind, int, int, double, double, double, double, double, int...)}, named as above. */
  default int addGemm(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double m, double n, double k, int... deps) {
    String joined = keepsNames() ? OpTable.join(prefix, name) : "";
    return addGemm(joined, kind, stream, group, flops, memBytes, m, n, k, deps);
  }

  /** Whether op names are kept (a closed-form sum skips building them). */
  default boolean keepsNames() {
    return true;
  }

  /**
   * Loop count for a section the builder repeats {@code n} times: a simulation runs it n times; a
   * closed-form sum runs it once with every op weighted n. Pair with {@link #endRepeat()}.
   */
  default int repeat(int n) {
    return n;
  }

  default void endRepeat() {}

  /** How many times each op added now counts (1 in a simulation; the product of open repeats in a sum). */
  default double weight() {
    return 1;
  }

  /** Marks the start of a phase (0 = prefill or step, 1 = decode) for per-phase totals. */
  default void phase(int index) {}

  /** The transformer layer the following ops belong to (-1: none); reports group a layer's ops by it. */
  default void layer(int index) {}
}
