package llmsim.core.engine;

import java.util.Arrays;

/** Ops in structure-of-arrays form, growable while a simulation is built. */
final class OpTable {
  private String[] names = new String[64];
  private OpKind[] kinds = new OpKind[64];
  private int[] streams = new int[64];
  private int[] groups = new int[64];
  private double[] flops = new double[64];
  private double[] memBytes = new double[64];
  private double[] linkBytes = new double[64];
  /** GEMM shape (rows, columns, reduction); rows 0 for an op without one. */
  private double[] gemmM = new double[64];
  private double[] gemmN = new double[64];
  private double[] gemmK = new double[64];
  private int[][] deps = new int[64][];
  /** The transformer layer an op belongs to, -1 for one outside the layers (embedding, head, optimizer). */
  private int[] layers = new int[64];
  /** The layer the builder is emitting (see {@link OpSink#layer}). */
  private int currentLayer = -1;
  private int size;

  void layer(int index) {
    currentLayer = index;
  }

  int add(String name, OpKind kind, int stream, int group, double f, double mb, double lb, int[] d) {
    return add(name, kind, stream, group, f, mb, lb, 0, 0, 0, d);
  }

  int add(String name, OpKind kind, int stream, int group, double f, double mb, double lb, double m, double n,
      double k, int[] d) {
    if (size == names.length) {
      int c = size * 2;
      names = Arrays.copyOf(names, c);
      kinds = Arrays.copyOf(kinds, c);
      streams = Arrays.copyOf(streams, c);
      groups = Arrays.copyOf(groups, c);
      flops = Arrays.copyOf(flops, c);
      memBytes = Arrays.copyOf(memBytes, c);
      linkBytes = Arrays.copyOf(linkBytes, c);
      gemmM = Arrays.copyOf(gemmM, c);
      gemmN = Arrays.copyOf(gemmN, c);
      gemmK = Arrays.copyOf(gemmK, c);
      deps = Arrays.copyOf(deps, c);
      layers = Arrays.copyOf(layers, c);
    }
    names[size] = name;
    kinds[size] = kind;
    streams[size] = stream;
    groups[size] = group;
    flops[size] = f;
    memBytes[size] = mb;
    linkBytes[size] = lb;
    gemmM[size] = m;
    gemmN[size] = n;
    gemmK[size] = k;
    deps[size] = d.length == 0 ? d : d.clone();
    layers[size] = currentLayer;
    return size++;
  }

  int size() {
    return size;
  }

  String name(int i) {
    return names[i];
  }

  int stream(int i) {
    return streams[i];
  }

  int group(int i) {
    return groups[i];
  }

  int[] depCounts() {
    int[] c = new int[size];
    for (int i = 0; i < size; i++) {
      c[i] = deps[i].length;
    }
    return c;
  }

  /**
   * The ops that depend on each op, in id order: those of op {@code i} are {@code list[start[i]..start[i + 1])}, with
   * {@code start} filled in here ({@code size() + 1} long) and the list returned.
   */
  int[] dependents(int[] start) {
    for (int i = 0; i < size; i++) {
      for (int d : deps[i]) {
        start[d + 1]++;
      }
    }
    for (int i = 0; i < size; i++) {
      start[i + 1] += start[i];
    }
    int[] list = new int[start[size]];
    int[] fill = Arrays.copyOf(start, size);
    for (int i = 0; i < size; i++) {
      for (int d : deps[i]) {
        list[fill[d]++] = i;
      }
    }
    return list;
  }

  int[][] streamQueues(int streamCount) {
    int[] count = new int[streamCount];
    for (int i = 0; i < size; i++) {
      count[streams[i]]++;
    }
    int[][] q = new int[streamCount][];
    for (int s = 0; s < streamCount; s++) {
      q[s] = new int[count[s]];
    }
    int[] fill = new int[streamCount];
    for (int i = 0; i < size; i++) {
      q[streams[i]][fill[streams[i]]++] = i;
    }
    return q;
  }

  /** Immutable view for the trace. */
  Ops freeze() {
    return new Ops(Arrays.copyOf(names, size), Arrays.copyOf(kinds, size), Arrays.copyOf(streams, size),
        Arrays.copyOf(groups, size), Arrays.copyOf(flops, size), Arrays.copyOf(memBytes, size),
        Arrays.copyOf(linkBytes, size), Arrays.copyOf(layers, size));
  }

  double[] flops() {
    return flops;
  }

  double[] memBytes() {
    return memBytes;
  }

  double[] linkBytes() {
    return linkBytes;
  }

  double[] gemmM() {
    return gemmM;
  }

  double[] gemmN() {
    return gemmN;
  }

  double[] gemmK() {
    return gemmK;
  }

  int[] groups() {
    return groups;
  }

  /** The op columns after the build (arrays are owned by the trace; do not modify). */
  public record Ops(String[] names, OpKind[] kinds, int[] streams, int[] groups, double[] flops, double[] memBytes,
      double[] linkBytes, int[] layers) {}
}
