package llmsim.core.engine;

import java.util.Arrays;

/**
 * Ops in structure-of-arrays form, growable while a simulation is built. A row is one op as the builder described
 * it, held once however many identical copies of it run: copy {@code j} of a row of {@code c} copies is op
 * {@code first + j}, on stream {@code stream + j} and charged to group {@code group + j} (each GPU of a symmetric
 * group has its own streams, groups and pools, numbered consecutively; see {@link ReplicatedSink}). Names, columns
 * and costs are kept per row; only what a run changes is kept per op.
 *
 * <p>A dependency names a row by the id of its first copy. Between rows of equal copies, copy j depends on copy j;
 * a row of one copy depends on every copy of a replicated row (a synchronisation), and every copy of a replicated
 * row on a row of one copy.
 */
final class OpTable {
  private String[] names = new String[64];
  /** Per row: the part of its name before {@link #names}' (a pass's "mb3.L12."), null for none. */
  private String[] prefixes = new String[64];
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
  /**
   * The first-copy ids of the rows each row depends on, all rows' in one array: row {@code r}'s are
   * {@code depList[depStart[r]..depStart[r + 1])} (one array rather than one per op: no allocation per op, and the
   * run's indexes read it in order).
   */
  private int[] depList = new int[256];
  private int[] depStart = new int[65];
  /** The transformer layer an op belongs to, -1 for one outside the layers (embedding, head, optimizer). */
  private int[] layers = new int[64];
  /** Per row: how many copies run, and the id of the first. */
  private int[] copies = new int[64];
  private int[] first = new int[64];
  /**
   * Per op: its row, made once the table is complete ({@link #index}); null before, or when every row has one copy
   * (an op's row is then its id).
   */
  private int[] rowOf;
  /** Whether a row has more than one copy. */
  private boolean replicated;
  /** The layer the builder is emitting (see {@link OpSink#layer}). */
  private int currentLayer = -1;
  private int rows;
  private int size;

  /** Empty the table for a new simulation, keeping its arrays (see {@link Workspace}): every column is written as rows are added. */
  void reset() {
    rows = 0;
    size = 0;
    replicated = false;
    rowOf = null;
    currentLayer = -1;
  }

  void layer(int index) {
    currentLayer = index;
  }

  int add(String name, OpKind kind, int stream, int group, double f, double mb, double lb, int[] d) {
    return add(null, name, kind, stream, group, f, mb, lb, 0, 0, 0, 1, d);
  }

  /** {@code prefix + name}, or {@code name} alone where {@code prefix} is null. */
  static String join(String prefix, String name) {
    return prefix == null ? name : prefix + name;
  }

  /**
   * Add a row of {@code c} copies named {@code prefix + name} ({@code prefix} null for none; the two are joined
   * when the name is read); returns the id of its first copy.
   */
  int add(String prefix, String name, OpKind kind, int stream, int group, double f, double mb, double lb, double m,
      double n, double k, int c, int[] d) {
    if (rows == names.length) {
      int cap = rows * 2;
      names = Arrays.copyOf(names, cap);
      prefixes = Arrays.copyOf(prefixes, cap);
      kinds = Arrays.copyOf(kinds, cap);
      streams = Arrays.copyOf(streams, cap);
      groups = Arrays.copyOf(groups, cap);
      flops = Arrays.copyOf(flops, cap);
      memBytes = Arrays.copyOf(memBytes, cap);
      linkBytes = Arrays.copyOf(linkBytes, cap);
      gemmM = Arrays.copyOf(gemmM, cap);
      gemmN = Arrays.copyOf(gemmN, cap);
      gemmK = Arrays.copyOf(gemmK, cap);
      depStart = Arrays.copyOf(depStart, cap + 1);
      layers = Arrays.copyOf(layers, cap);
      copies = Arrays.copyOf(copies, cap);
      first = Arrays.copyOf(first, cap);
    }
    if ((long) size + c > 1 << 30) {
      throw new IllegalArgumentException("op " + join(prefix, name) + ": more than 2^30 ops");
    }
    int id = size;
    if (rowOf != null) {
      throw new IllegalStateException("op " + join(prefix, name) + ": the op table is complete");
    }
    replicated |= c > 1;
    names[rows] = name;
    prefixes[rows] = prefix;
    kinds[rows] = kind;
    streams[rows] = stream;
    groups[rows] = group;
    flops[rows] = f;
    memBytes[rows] = mb;
    linkBytes[rows] = lb;
    gemmM[rows] = m;
    gemmN[rows] = n;
    gemmK[rows] = k;
    int at = depStart[rows];
    if (at + d.length > depList.length) {
      depList = Arrays.copyOf(depList, Math.max(2 * depList.length, at + d.length));
    }
    System.arraycopy(d, 0, depList, at, d.length);
    depStart[rows + 1] = at + d.length;
    layers[rows] = currentLayer;
    copies[rows] = c;
    first[rows] = id;
    rows++;
    size += c;
    return id;
  }

  /** Why op {@code dep} cannot be a dependency of a row of {@code c} copies added next, or null when it can. */
  String badDependency(int dep, int c) {
    if (dep < 0 || dep >= size) {
      return "dependency " + dep + " is not an earlier op";
    }
    if (!replicated) {
      // every op so far is one copy of its row: nothing below can fail
      return null;
    }
    int r = row(dep);
    if (copies[r] > 1 && first[r] != dep) {
      return "dependency " + dep + " is a copy other than the first of a replicated op";
    }
    if (c > 1 && copies[r] > 1 && copies[r] != c) {
      return "dependency " + dep + " has " + copies[r] + " copies, this op " + c;
    }
    return null;
  }

  /** Ops, every copy counted. */
  int size() {
    return size;
  }

  int rows() {
    return rows;
  }

  boolean replicated() {
    return replicated;
  }

  /** The table is complete: index every op's row (one array, sized once, rather than grown op by op). */
  void index() {
    if (replicated && rowOf == null) {
      int[] r = new int[size];
      for (int i = 0; i < rows; i++) {
        Arrays.fill(r, first[i], first[i] + copies[i], i);
      }
      rowOf = r;
    }
  }

  int row(int op) {
    if (!replicated) {
      return op;
    }
    if (rowOf != null) {
      return rowOf[op];
    }
    // while the table is built: the last row whose first copy is at or before op
    int lo = 0;
    int hi = rows - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (first[mid] <= op) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  int copies(int row) {
    return copies[row];
  }

  int first(int row) {
    return first[row];
  }

  /** The name of op {@code op}: its row's, prefixed "peer j " for copy j > 0. */
  String name(int op) {
    int r = row(op);
    int j = op - first[r];
    String n = join(prefixes[r], names[r]);
    return j == 0 ? n : "peer " + j + " " + n;
  }

  int stream(int op) {
    if (!replicated) {
      return streams[op];
    }
    int r = row(op);
    return streams[r] + op - first[r];
  }

  int group(int op) {
    if (!replicated) {
      return groups[op];
    }
    int r = row(op);
    return groups[r] + op - first[r];
  }

  /** How many dependencies each op waits for, written to {@code c[0..size())}; returns {@code c}. */
  int[] depCounts(int[] c) {
    if (!replicated) {
      for (int r = 0; r < rows; r++) {
        c[r] = depStart[r + 1] - depStart[r];
      }
      return c;
    }
    for (int r = 0; r < rows; r++) {
      int n = 0;
      for (int k = depStart[r]; k < depStart[r + 1]; k++) {
        n += copies[r] == 1 ? copies[row(depList[k])] : 1;
      }
      Arrays.fill(c, first[r], first[r] + copies[r], n);
    }
    return c;
  }

  /**
   * The rows that depend on each row, in row order (once per time they name it): those of row {@code r} are
   * {@code list[start[r]..start[r + 1])}, with {@code start} filled in here ({@code rows() + 1} long) and the list
   * returned. Copy j of a row reaches copy j of a dependent row of as many copies, the one copy of a row of one, and
   * every copy of any row when it is itself the one copy of its row: in id order, as each op's dependents go.
   * {@code start[0..rows()]} must be 0 on entry; the list is {@code into} when that is long enough.
   */
  int[] dependents(int[] start, int[] into) {
    for (int k = 0; k < depStart[rows]; k++) {
      start[row(depList[k]) + 1]++;
    }
    for (int i = 0; i < rows; i++) {
      start[i + 1] += start[i];
    }
    int[] list = into.length >= start[rows] ? into : new int[start[rows]];
    int[] fill = Arrays.copyOf(start, rows);
    for (int i = 0; i < rows; i++) {
      for (int k = depStart[i]; k < depStart[i + 1]; k++) {
        list[fill[row(depList[k])]++] = i;
      }
    }
    return list;
  }

  /**
   * The rows each stream runs, in row order, as lists shared by the streams that run the same rows: stream {@code s}
   * runs copy {@code s - stream(r)} of each row {@code r} of list {@code classOf[s]} (filled in here). The peers'
   * streams of a replicated op run copies of the same rows, so they share one list, where a list of ops per stream
   * would hold every copy and be read far apart in memory by peers acting at the same instant.
   */
  int[][] streamRows(int streamCount, int[] classOf) {
    // the distinct ranges of streams rows run on, and the ranges covering each stream
    java.util.Map<Long, Integer> rangeIds = new java.util.HashMap<>();
    java.util.List<long[]> ranges = new java.util.ArrayList<>();
    int[] rowRange = new int[rows];
    for (int r = 0; r < rows; r++) {
      long key = (long) streams[r] << 32 | copies[r];
      Integer id = rangeIds.get(key);
      if (id == null) {
        id = ranges.size();
        rangeIds.put(key, id);
        ranges.add(new long[] {streams[r], copies[r]});
      }
      rowRange[r] = id;
    }
    int[][] covering = new int[streamCount][];
    int[] none = new int[0];
    Arrays.fill(covering, none);
    for (int id = 0; id < ranges.size(); id++) {
      long[] range = ranges.get(id);
      for (int s = (int) range[0]; s < range[0] + range[1]; s++) {
        int[] c = Arrays.copyOf(covering[s], covering[s].length + 1);
        c[c.length - 1] = id;
        covering[s] = c;
      }
    }
    // streams covered by the same ranges run the same rows: one class, one list
    java.util.Map<java.util.List<Integer>, Integer> classIds = new java.util.HashMap<>();
    java.util.List<int[]> classRanges = new java.util.ArrayList<>();
    for (int s = 0; s < streamCount; s++) {
      java.util.List<Integer> key = Arrays.stream(covering[s]).boxed().toList();
      Integer c = classIds.get(key);
      if (c == null) {
        c = classRanges.size();
        classIds.put(key, c);
        classRanges.add(covering[s]);
      }
      classOf[s] = c;
    }
    int[][] rangeClasses = new int[ranges.size()][];
    Arrays.fill(rangeClasses, none);
    for (int c = 0; c < classRanges.size(); c++) {
      for (int id : classRanges.get(c)) {
        int[] cs = Arrays.copyOf(rangeClasses[id], rangeClasses[id].length + 1);
        cs[cs.length - 1] = c;
        rangeClasses[id] = cs;
      }
    }
    int[] count = new int[classRanges.size()];
    for (int r = 0; r < rows; r++) {
      for (int c : rangeClasses[rowRange[r]]) {
        count[c]++;
      }
    }
    int[][] lists = new int[count.length][];
    for (int c = 0; c < count.length; c++) {
      lists[c] = new int[count[c]];
    }
    int[] fill = new int[count.length];
    for (int r = 0; r < rows; r++) {
      for (int c : rangeClasses[rowRange[r]]) {
        lists[c][fill[c]++] = r;
      }
    }
    return lists;
  }

  /** The stream of row {@code row}'s first copy. */
  int rowStream(int row) {
    return streams[row];
  }

  /**
   * Each stream's ops, in order: stream {@code s} runs {@code q[s][0..length[s])} ({@code length} filled in here).
   * A list of {@code keep} (lists of an earlier run) is used again where it is long enough; null: none.
   */
  int[][] streamQueues(int streamCount, int[][] keep, int[] length) {
    int[] count = new int[streamCount];
    for (int r = 0; r < rows; r++) {
      for (int j = 0; j < copies[r]; j++) {
        count[streams[r] + j]++;
      }
    }
    int[][] q = new int[streamCount][];
    for (int s = 0; s < streamCount; s++) {
      q[s] = keep != null && s < keep.length && keep[s] != null && keep[s].length >= count[s] ? keep[s] : new int[count[s]];
      length[s] = count[s];
    }
    int[] fill = new int[streamCount];
    for (int r = 0; r < rows; r++) {
      for (int j = 0; j < copies[r]; j++) {
        int s = streams[r] + j;
        q[s][fill[s]++] = first[r] + j;
      }
    }
    return q;
  }

  /** Immutable per-op view for the trace: every copy its own entry (built on demand for a replicated table). */
  Ops freeze() {
    if (!replicated) {
      String[] nm = new String[size];
      for (int i = 0; i < size; i++) {
        nm[i] = join(prefixes[i], names[i]);
      }
      return new Ops(nm, Arrays.copyOf(kinds, size), Arrays.copyOf(streams, size),
          Arrays.copyOf(groups, size), Arrays.copyOf(flops, size), Arrays.copyOf(memBytes, size),
          Arrays.copyOf(linkBytes, size), Arrays.copyOf(layers, size));
    }
    String[] nm = new String[size];
    OpKind[] kd = new OpKind[size];
    int[] st = new int[size];
    int[] gr = new int[size];
    double[] fl = new double[size];
    double[] mb = new double[size];
    double[] lb = new double[size];
    int[] ly = new int[size];
    for (int i = 0; i < size; i++) {
      int r = row(i);
      int j = i - first[r];
      String n = join(prefixes[r], names[r]);
      nm[i] = j == 0 ? n : "peer " + j + " " + n;
      kd[i] = kinds[r];
      st[i] = streams[r] + j;
      gr[i] = groups[r] + j;
      fl[i] = flops[r];
      mb[i] = memBytes[r];
      lb[i] = linkBytes[r];
      ly[i] = layers[r];
    }
    return new Ops(nm, kd, st, gr, fl, mb, lb, ly);
  }

  /** Per-row columns (the first {@link #rows()} entries). */
  double[] flops() {
    return flops;
  }

  double[] memBytes() {
    return memBytes;
  }

  double[] linkBytes() {
    return linkBytes;
  }

  double memBytes(int op) {
    return memBytes[row(op)];
  }

  double linkBytes(int op) {
    return linkBytes[row(op)];
  }

  OpKind kind(int op) {
    return kinds[row(op)];
  }

  int layerOf(int op) {
    return layers[row(op)];
  }

  double flops(int op) {
    return flops[row(op)];
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

  /** Per row: the group of its first copy. */
  int[] groups() {
    return groups;
  }

  /** The op columns after the build (arrays are owned by the trace; do not modify). */
  public record Ops(String[] names, OpKind[] kinds, int[] streams, int[] groups, double[] flops, double[] memBytes,
      double[] linkBytes, int[] layers) {}
}
