package llmsim.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import llmsim.core.engine.Lane;
import llmsim.core.engine.Trace;
import llmsim.core.memory.MemoryPlan;

/**
 * The step in the Chrome Trace Event format (ui.perfetto.dev and chrome://tracing open it): one
 * track (tid) per stream with a complete ("X") slice per op, and counters ("C") for device memory in
 * use and host-link bandwidth in use. Times in microseconds. Each simulated GPU is a process of its own
 * ({@link Trace#gpuOf}): a pipeline's stages and, with every GPU simulated, each stage's peers. A GPU that ran in
 * step with another ({@link Trace#inStepWith}: the same ops at the same instants) is a process named so, without
 * slices of its own: 2,048 simulated GPUs of a symmetric plan would otherwise write every slice 512 times over.
 */
public final class ChromeTrace {
  private ChromeTrace() {}

  /** One simulated system: a process in the trace. */
  public record Process(String name, Trace trace, MemoryPlan plan) {}

  public static String write(List<Process> processes) {
    StringBuilder b = new StringBuilder(64 + processes.stream().mapToInt(p -> drawnOps(p.trace())).sum() * 160);
    b.append("{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"llmsim\"},\"traceEvents\":[\n");
    List<String> events = new ArrayList<>();
    int nextPid = 1;
    for (int pi = 0; pi < processes.size(); pi++) {
      Process p = processes.get(pi);
      int pid = nextPid;
      Trace t = p.trace();
      int[] gpu = new int[t.streams().size()];
      java.util.Arrays.setAll(gpu, t::gpuOf);
      int gpus = t.gpus();
      nextPid += gpus;
      for (int g = 0; g < gpus; g++) {
        String name = gpus == 1 ? p.name() : p.name() + " / " + gpuName(t, g);
        int with = t.inStepWith(g);
        int peers = t.peersInStep(g);
        if (with != g) {
          name += ": ran in step with " + gpuName(t, with) + " (its slices are that GPU's)";
        } else if (peers > 0) {
          name += " (and " + peers + " GPU" + (peers == 1 ? "" : "s") + " in step with it)";
        }
        events.add(meta("process_name", pid + g, 0, "{\"name\":" + Escape.json(name) + "}"));
      }
      for (int s = 0; s < t.streams().size(); s++) {
        if (drawn(t, s)) {
          events.add(meta("thread_name", pid + gpu[s], s + 1, "{\"name\":" + Escape.json(t.streams().get(s)) + "}"));
          events.add(meta("thread_sort_index", pid + gpu[s], s + 1, "{\"sort_index\":" + s + "}"));
        }
      }
      for (int i = 0; i < t.size(); i++) {
        int s = t.stream(i);
        if (!drawn(t, s)) {
          continue;
        }
        events.add(String.format(Locale.US,
            "{\"name\":%s,\"cat\":%s,\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.6f,\"dur\":%.6f,"
                + "\"args\":{\"flops\":%.6g,\"bytes\":%.6g,\"bound\":\"%s\"}}",
            Escape.json(t.name(i)), Escape.json(t.kind(i).label()), pid + gpu[s], s + 1,
            t.start()[i] * 1e6, t.duration(i) * 1e6, t.flops(i), t.memBytes(i) + t.linkBytes(i),
            t.opBound(i).key()));
      }
      // each drawn GPU's own link: one counter summing several read as one link's rate
      List<List<double[]>> links = linkCounters(t);
      for (int g = 0; g < links.size(); g++) {
        int gpuPid = pid + g;
        links.get(g).forEach(c -> events.add(counter("host link in use", gpuPid, c[0], "GB/s", c[1])));
      }
      memoryCounter(t, p.plan()).forEach(c -> events.add(counter("device memory in use", pid, c[0], "GiB", c[1])));
    }
    b.append(String.join(",\n", events)).append("\n]}\n");
    return b.toString();
  }

  /** Whether stream {@code s}'s ops are drawn: not those of a GPU that ran in step with another. */
  static boolean drawn(Trace t, int s) {
    int g = t.gpuOf(s);
    return t.inStepWith(g) == g;
  }

  /** How many of a run's ops the trace draws: those of the GPUs that no other ran in step with. */
  public static int drawnOps(Trace t) {
    int n = 0;
    for (int i = 0; i < t.size(); i++) {
      n += drawn(t, t.stream(i)) ? 1 : 0;
    }
    return n;
  }

  /** GPU {@code g} by its compute stream's prefix ("stage 1 GPU", "peer 3 stage 1 GPU"), or "GPU g" without one. */
  static String gpuName(Trace t, int g) {
    for (int s = 0; s < t.streams().size(); s++) {
      if (t.gpuOf(s) == g && t.lanes().get(s) == Lane.COMPUTE) {
        String prefix = t.streams().get(s).replaceFirst("GPU compute$", "").strip();
        return prefix.isEmpty() ? "GPU " + g : prefix + " GPU";
      }
    }
    return "GPU " + g;
  }

  private static String meta(String name, int pid, int tid, String args) {
    return "{\"name\":\"" + name + "\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" + tid + ",\"args\":" + args + "}";
  }

  private static String counter(String name, int pid, double ts, String key, double value) {
    return String.format(Locale.US, "{\"name\":\"%s\",\"ph\":\"C\",\"pid\":%d,\"ts\":%.6f,\"args\":{\"%s\":%.6g}}",
        name, pid, ts * 1e6, key, value);
  }

  /**
   * Per GPU, the sum of the average rates (bytes / duration) of its host-link transfers in flight, sampled at every
   * start and end: each GPU of a plan has a host link of its own. Empty for a GPU not drawn (in step with another);
   * one pass over the ops for every GPU.
   */
  static List<List<double[]>> linkCounters(Trace t) {
    List<List<double[]>> edges = new ArrayList<>();
    for (int g = 0; g < t.gpus(); g++) {
      edges.add(new ArrayList<>());
    }
    for (int i = 0; i < t.size(); i++) {
      int s = t.stream(i);
      int g = t.gpuOf(s);
      if (t.lanes().get(s).hostLink() && t.duration(i) > 0 && t.inStepWith(g) == g) {
        double rate = t.linkBytes(i) / t.duration(i) / 1e9;
        edges.get(g).add(new double[] {t.start()[i], rate});
        edges.get(g).add(new double[] {t.end()[i], -rate});
      }
    }
    List<List<double[]>> out = new ArrayList<>();
    for (List<double[]> e : edges) {
      e.sort((a, c) -> Double.compare(a[0], c[0]));
      List<double[]> levels = new ArrayList<>();
      double level = 0;
      for (double[] x : e) {
        level = Math.max(0, level + x[1]);
        levels.add(new double[] {x[0], level});
      }
      out.add(levels);
    }
    return out;
  }

  /**
   * Device memory in use on the first GPU (the first pipeline stage, the fullest): the resident bytes (weights,
   * gradients, optimizer, KV cache, workspace) plus the activations alive, which grow with every forward layer op and
   * shrink with every backward one. The plan's activations are those alive at the peak (one micro-batch's, or under
   * 1F1B and GPipe the micro-batches a stage holds in flight), so each forward op's share is the activations over the
   * peak count of forward ops alive. Read from that GPU's own ops, in the order it runs them.
   */
  static List<double[]> memoryCounter(Trace t, MemoryPlan plan) {
    double resident = plan.totalBytes() - plan.activationsBytes();
    String[] names = firstGpusNames(t);
    boolean training = t.size() > 0 && hasBackward(names);
    int alive = 0;
    int peak = 0;
    for (int i = 0; i < t.size(); i++) {
      if (isForwardLayerOp(t, names, i)) {
        peak = Math.max(peak, ++alive);
      } else if (names[i] != null && isLayerOp(names[i]) && names[i].endsWith(".bwd")) {
        alive = Math.max(0, alive - 1);
      }
    }
    double perOp = peak == 0 ? 0 : plan.activationsBytes() / peak;
    List<double[]> out = new ArrayList<>();
    double live = peak == 0 ? plan.activationsBytes() : 0;
    out.add(new double[] {0, (resident + live) / (1L << 30)});
    for (int i = 0; i < t.size(); i++) {
      if (!training || names[i] == null) {
        continue;
      }
      String n = names[i];
      if (isForwardLayerOp(t, names, i)) {
        live += perOp;
      } else if (isLayerOp(n) && n.endsWith(".bwd")) {
        live = Math.max(0, live - perOp);
      } else {
        continue;
      }
      out.add(new double[] {t.end()[i], (resident + live) / (1L << 30)});
    }
    return out;
  }

  /**
   * Layer ops of a training step are named [sK.][mbN.]L{layer}.{op}[.bwd] (sK. a pipeline stage's); inference ops
   * start with prefill. or tN.
   */
  private static boolean isLayerOp(String n) {
    int stage = 1;
    while (n.startsWith("s") && stage < n.length() && Character.isDigit(n.charAt(stage))) {
      stage++;
    }
    String op = stage > 1 && stage < n.length() && n.charAt(stage) == '.' ? n.substring(stage + 1) : n;
    return op.startsWith("L") || op.startsWith("mb") && op.contains(".L");
  }

  /**
   * Each op's name where it is the first GPU's (the first stage's, or the first peer's: no "peer j " prefix), else
   * null: names are built for those ops alone, not for each of an every-GPU run's millions.
   */
  private static String[] firstGpusNames(Trace t) {
    String[] names = new String[t.size()];
    for (int i = 0; i < t.size(); i++) {
      if (t.gpuOf(t.stream(i)) == 0) {
        names[i] = t.name(i);
      }
    }
    return names;
  }

  private static boolean isForwardLayerOp(Trace t, String[] names, int i) {
    String n = names[i];
    return n != null && t.lane(i) == Lane.COMPUTE && isLayerOp(n) && !n.endsWith(".bwd")
        && !n.contains("recompute");
  }

  private static boolean hasBackward(String[] names) {
    for (String n : names) {
      if (n != null && n.endsWith(".bwd")) {
        return true;
      }
    }
    return false;
  }
}
