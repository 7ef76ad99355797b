package llmsim.cli;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.parallel.Placement;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.scenario.ScenarioValues;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;
import llmsim.hw.catalog.Catalog;

/**
 * A resolved cartesian grid over the sweepable keys of the {@link ScenarioKey} table. Every value is checked
 * up front, and so is every rule between keys; point {@code i} decodes to one value per axis in the table's
 * order, the last axis fastest.
 */
final class SweepGrid {
  private static final ScenarioKey[] AXES = java.util.Arrays.stream(ScenarioKey.values())
      .filter(ScenarioKey::sweepable).toArray(ScenarioKey[]::new);
  /** The axes of the precision and the software, which {@link #checkPrecisions} and a refusal's key name. */
  private static final int PRECISION_AXIS = java.util.Arrays.asList(AXES).indexOf(ScenarioKey.PRECISION);
  private static final int SOFTWARE_AXIS = java.util.Arrays.asList(AXES).indexOf(ScenarioKey.SOFTWARE);
  /** Keys whose rules involve only each other (and the model): checked over their own sub-grid. */
  private static final List<ScenarioKey> RULE_KEYS = List.of(ScenarioKey.TASK, ScenarioKey.OFFLOAD, ScenarioKey.WEIGHTS,
      ScenarioKey.CONTEXT, ScenarioKey.PROMPT_TOKENS, ScenarioKey.GENERATE_TOKENS, ScenarioKey.SEQ_LEN,
      ScenarioKey.GPU_LAYERS, ScenarioKey.KV_CACHE, ScenarioKey.MODEL, ScenarioKey.TP, ScenarioKey.PP, ScenarioKey.DP, ScenarioKey.ZERO,
      ScenarioKey.NODES, ScenarioKey.GPUS, ScenarioKey.MICRO_BATCHES, ScenarioKey.RECOMPUTE, ScenarioKey.LORA_RANK,
      ScenarioKey.LORA_TARGETS, ScenarioKey.PREFIX_TOKENS, ScenarioKey.SCHEDULE, ScenarioKey.OVERLAP_GRAD_REDUCE,
      ScenarioKey.GLOBAL_BATCH, ScenarioKey.SHARD, ScenarioKey.VIRTUAL_STAGES, ScenarioKey.OPTIMIZER,
      ScenarioKey.MASTER_WEIGHTS, ScenarioKey.OPTIMIZER_IN_BACKWARD, ScenarioKey.FLASH_ATTENTION);

  final List<SystemSpec> systems;
  final List<ModelSpec> models;
  /** Per axis, the parsed values; a single null means "unset": the task's default. */
  private final List<List<Object>> values = new ArrayList<>();
  private final int[] radix;

  /** The catalog the grid's ids name (with --set changes). */
  final Catalog catalog;

  /** The axes of the keys rules involve, in {@link #RULE_KEYS} order; empty where the grid was too large to check. */
  private final List<Integer> free = new ArrayList<>();
  /** The combinations a rule refuses, by {@link #key}, in grid order. */
  private final Map<String, Refusal> refused = new java.util.LinkedHashMap<>();

  /** A line for each key given one value that no task of the grid uses ({@link #noteKeysNoTaskUses}). */
  private final List<String> unusedKeyLines = new ArrayList<>();

  /** The sweep's job, or null: its size is checked against every task of the grid. */
  private final SweepCosts job;

  SweepGrid(Map<ScenarioKey, List<String>> raw, Catalog c, SweepCosts job) {
    this.catalog = c;
    this.job = job;
    for (ScenarioKey k : AXES) {
      List<String> given = raw.get(k);
      List<Object> parsed = new ArrayList<>();
      if (given == null || given.isEmpty()) {
        if (k == ScenarioKey.HARDWARE || k == ScenarioKey.MODEL) {
          throw new BadFlagException("sweep needs " + k.gridFlag() + " (or '" + k.gridKey() + "' in the grid file)");
        }
        parsed.add(null);
      } else {
        for (String v : given) {
          try {
            Object p = k.parse(v);
            if (p instanceof List<?> l) {
              parsed.addAll(l);
            } else {
              parsed.add(p);
            }
          } catch (IllegalArgumentException e) {
            throw new BadFlagException(k.gridFlag() + ": " + e.getMessage());
          }
        }
      }
      List<String> typed = parsed.stream().map(v -> v instanceof Integer i && i == ScenarioKey.AUTO ? "auto"
          : String.valueOf(v)).toList();
      refuseRepeats(k.gridFlag(), typed, typed);
      values.add(parsed);
    }
    systems = axis(ScenarioKey.HARDWARE).stream().map(h -> c.system((String) h, "--hardware")).toList();
    models = axis(ScenarioKey.MODEL).stream().map(m -> c.model((String) m, "--models")).toList();
    refuseRepeats(ScenarioKey.HARDWARE.gridFlag(), axis(ScenarioKey.HARDWARE).stream().map(String::valueOf).toList(),
        systems.stream().map(SystemSpec::id).toList());
    refuseRepeats(ScenarioKey.MODEL.gridFlag(), axis(ScenarioKey.MODEL).stream().map(String::valueOf).toList(),
        models.stream().map(ModelSpec::id).toList());
    if (axis(ScenarioKey.PLAN).contains("auto")) {
      // each row runs the plan its tp, pp, dp and zero give; a search per row is simulate's --plan auto
      throw new BadFlagException(ScenarioKey.PLAN.gridFlag() + ": auto is not run by sweep: each row is the plan its"
          + " tp, pp, dp and zero give; list the plans as axes (such as --tp 1,2,4,8 --zero 0,1,3), or use"
          + " simulate --plan auto");
    }
    radix = values.stream().mapToInt(List::size).toArray();
    long total = points();
    noteKeysNoTaskUses();
    checkRules();
    long skipped = refused.values().stream().mapToLong(Refusal::points).sum();
    if (!refused.isEmpty() && skipped == total) {
      Refusal first = refusals().get(0);
      throw new BadFlagException(first.reason() + (first.where().isEmpty() ? "" : " (at " + first.where() + ")")
          + (refused.size() > 1 ? " and " + (refused.size() - 1) + " more refused combination"
              + (refused.size() > 2 ? "s" : "") : "") + "; no point of the grid can run: the sweep refuses what simulate refuses");
    }
  }

  /**
   * A value named twice (a model or system also by two of its aliases) would be run twice, its rows or points
   * repeated: refused, naming it (sweep's axes, sweep-chart's models and systems). {@code given}: the values as
   * typed; {@code ids}: what each resolved to.
   */
  static void refuseRepeats(String flag, List<String> given, List<String> ids) {
    java.util.Map<String, String> seen = new java.util.HashMap<>();
    for (int i = 0; i < ids.size(); i++) {
      String first = seen.putIfAbsent(ids.get(i), given.get(i));
      if (first != null) {
        boolean file = java.util.stream.Stream.of(first, given.get(i)).anyMatch(g -> g.endsWith(".yaml")
            || g.endsWith(".yml") || g.endsWith(".json"));
        throw new BadFlagException(flag + ": " + (first.equals(given.get(i)) ? given.get(i) + " is given twice"
            : given.get(i) + " and " + first + " both name " + ids.get(i)) + "; name each once"
            + (file ? " (a file's id names its results and charts: give the file an id of its own)" : ""));
      }
    }
  }

  private List<Object> axis(ScenarioKey k) {
    return values.get(java.util.Arrays.asList(AXES).indexOf(k));
  }

  /** Whether any point is inference (the task's default when the grid leaves it out). */
  boolean hasInference() {
    return axis(ScenarioKey.TASK).stream().anyMatch(v -> v == null || llmsim.core.task.TaskKind.INFERENCE.key().equals(v));
  }

  /** Whether any point has pipeline stages (pp > 1). */
  boolean hasPipelineStages() {
    return axis(ScenarioKey.PP).stream().anyMatch(v -> v != null && (Integer) v > 1);
  }

  /** Whether any point asks for every GPU to be simulated (all_gpus true). */
  boolean simulatesEveryGpu() {
    return axis(ScenarioKey.ALL_GPUS).stream().anyMatch(Boolean.TRUE::equals);
  }

  /** The number of points; a grid past 2^63 - 1 points is bad input, named by its axis sizes. */
  long points() {
    long p = 1;
    for (int r : radix) {
      if (p > Long.MAX_VALUE / r) {
        StringBuilder sizes = new StringBuilder();
        for (int a = 0; a < radix.length; a++) {
          if (radix[a] > 1) {
            sizes.append(sizes.length() == 0 ? "" : " x ").append(AXES[a].gridKey()).append(' ').append(radix[a]);
          }
        }
        throw new BadFlagException("the grid has more than 2^63 - 1 points (" + sizes + "); --max-points allows at "
            + "most the number given (default 20,000,000): narrow it");
      }
      p *= r;
    }
    return p;
  }

  /** One grid point. */
  /**
   * One grid point; its task's precision is adapted to the device when the grid leaves it at the default. {@link
   * #point} gives null for a point a rule refuses.
   */
  record Point(long index, SystemSpec system, ModelSpec model, Task task, SoftwareProfile software) {}

  Point point(long index) {
    int[] at = new int[radix.length];
    long rest = index;
    for (int a = radix.length - 1; a >= 0; a--) {
      at[a] = (int) (rest % radix[a]);
      rest /= radix[a];
    }
    if (refused(at)) {
      return null; // a rule refuses it: named in refusals(), no row
    }
    ScenarioValues v = values(at);
    SystemSpec s = Placement.size(systems.get(at[0]), v.nodes(), v.gpus());
    SoftwareProfile sw = v.software();
    ModelSpec m = models.get(at[1]);
    Task t = PrecisionSupport.adapt(v.task(), s.device(), sw, v.has(ScenarioKey.PRECISION)).task();
    llmsim.core.hw.SoftwareSupport.check(s.device(), t, sw);
    return new Point(index, s, m, Placement.resolve(s, m, t), sw);
  }

  private ScenarioValues values(int[] at) {
    EnumMap<ScenarioKey, Object> m = new EnumMap<>(ScenarioKey.class);
    for (int a = 0; a < AXES.length; a++) {
      Object o = values.get(a).get(at[a]);
      if (o != null) {
        m.put(AXES[a], o);
      }
    }
    return new ScenarioValues(m);
  }

  /**
   * Every rule between keys, over the sub-grid of the keys rules involve (the other axes at their first value), per
   * system, and per precision and software: each combination simulate would refuse is recorded with its reason
   * ({@link #refusals}), in grid order, and its points are skipped ({@link #point} gives null), so that the rows
   * that can run are written and the ones that cannot are named before any row. A grid every point of which is
   * refused is refused whole, with the first reason.
   */
  private void checkRules() {
    for (ScenarioKey k : RULE_KEYS) {
      free.add(java.util.Arrays.asList(AXES).indexOf(k));
    }
    if (axis(ScenarioKey.GLOBAL_BATCH).get(0) != null) {
      // a global batch must divide by batch x dp: the batch is a rule key then (else each batch's rows run alike)
      free.add(java.util.Arrays.asList(AXES).indexOf(ScenarioKey.BATCH));
    }
    long combos = 1;
    for (int a : free) {
      combos = Math.multiplyExact(combos, radix[a]);
      if (combos > 1_000_000) {
        free.clear();
        return; // too many to enumerate: each point is then checked as it is decoded
      }
    }
    int[] sub = new int[radix.length];
    for (long i = 0; i < combos; i++) {
      long rest = i;
      for (int a : free) {
        sub[a] = (int) (rest % radix[a]);
        rest /= radix[a];
      }
      ScenarioValues v;
      Task t;
      try {
        v = values(sub);
        t = v.task();
        ScenarioValues.checkAgainstModel(t, models.get(sub[1]));
        checkUsed(v, t, sub);
        if (job != null) {
          job.tokens(t); // --requests on a training task
        }
      } catch (ScenarioKeyException e) {
        for (int s = 0; s < systems.size(); s++) {
          refuse(e, sub, s, false);
        }
        continue;
      }
      boolean[] broken = new boolean[systems.size()];
      for (int s = 0; s < systems.size(); s++) {
        SystemSpec system = systems.get(s);
        try {
          MemoryPlanner.checkPlacement(system, models.get(sub[1]), t);
          SystemSpec sized = Placement.size(system, v.nodes(), v.gpus());
          Placement.resolve(sized, models.get(sub[1]), t);
        } catch (ScenarioKeyException e) {
          refuse(e, sub, s, false);
          broken[s] = true;
        }
      }
      checkPrecisions(sub, broken);
    }
  }

  /**
   * A key swept over several values that this point's task does not use (seq_len for inference, lora_rank outside
   * LoRA, micro_batches for inference ...) would give its rows again at each value, identical: the points past the
   * key's first value are skipped, the rows at the first standing for them (simulate refuses the key outright, but a
   * grid sweeping it for its training points would then lose its inference points).
   */
  private void checkUsed(ScenarioValues v, Task t, int[] at) {
    try {
      v.checkApplies(t, k -> at[java.util.Arrays.asList(AXES).indexOf(k)] > 0);
    } catch (ScenarioKeyException e) {
      ScenarioKey k = e.key();
      throw new ScenarioKeyException(k, withoutAdvice(e.getMessage()) + ": its rows at "
          + k.gridKey() + "=" + typed(axis(k).get(0)) + " stand for these, which would repeat them");
    }
  }

  /**
   * A key given one value that no task of the grid uses (--lora-rank 8 with --tasks train, --seq-len 512 for
   * inference) is in no row: each is named on a line before the rows, which said nothing of it. (Several values get
   * their repeats skipped and named by {@link #checkUsed}; simulate refuses the key, but a grid file is often a
   * template for several tasks, so the sweep runs.)
   */
  private void noteKeysNoTaskUses() {
    for (ScenarioKey k : AXES) {
      if (k == ScenarioKey.TASK || axis(k).size() != 1 || axis(k).get(0) == null) {
        continue;
      }
      ScenarioKeyException first = null;
      boolean used = false;
      for (Object task : axis(ScenarioKey.TASK)) {
        EnumMap<ScenarioKey, Object> m = new EnumMap<>(ScenarioKey.class);
        if (task != null) {
          m.put(ScenarioKey.TASK, task);
        }
        m.put(k, axis(k).get(0));
        try {
          ScenarioValues v = new ScenarioValues(m);
          v.checkApplies(v.task(), x -> x == k);
          used = true;
        } catch (ScenarioKeyException e) {
          if (e.key() != k || !e.getMessage().contains("does not apply to")) {
            used = true; // another rule, checked point by point as before
          } else if (first == null) {
            first = e;
          }
        } catch (IllegalArgumentException e) {
          used = true;
        }
      }
      if (!used && first != null) {
        unusedKeyLines.add("sweep: " + k.gridFlag() + " " + typed(axis(k).get(0)) + " is in no row: it "
            + withoutAdvice(withoutKey(first))
            + ", and no task of the grid uses it");
      }
    }
  }

  /** The rule's message without the key it opens with ('seq_len' does not apply ...): the sweep names the flag. */
  private static String withoutKey(ScenarioKeyException e) {
    return e.getMessage().replaceFirst("^'" + e.key().key() + "' ", "");
  }

  /** A rule's message without simulate's advice to leave the key out, which a sweep's grid does not take. */
  private static String withoutAdvice(String message) {
    return message.replaceFirst("; leave it out$", "");
  }

  private static String typed(Object v) {
    return v instanceof Integer i && i == ScenarioKey.AUTO ? "auto" : String.valueOf(v);
  }

  /**
   * Every system x precision x software the grid names runs that precision (natively or by emulation) and the
   * task's formats ({@link llmsim.core.hw.SoftwareSupport}); systems already {@code broken} at this point are skipped.
   */
  private void checkPrecisions(int[] at, boolean[] broken) {
    int p = PRECISION_AXIS;
    int w = SOFTWARE_AXIS;
    int[] point = at.clone();
    for (int i = 0; i < radix[p]; i++) {
      for (int j = 0; j < radix[w]; j++) {
        point[p] = i;
        point[w] = j;
        ScenarioValues v = values(point);
        for (int s = 0; s < systems.size(); s++) {
          if (broken[s]) {
            continue;
          }
          SystemSpec system = systems.get(s);
          try {
            Task t = PrecisionSupport.adapt(v.task(), system.device(), v.software(), v.has(ScenarioKey.PRECISION))
                .task();
            llmsim.core.hw.SoftwareSupport.checkRuns(system.device(), t, v.software());
          } catch (ScenarioKeyException e) {
            refuse(e, point, s, true);
          }
        }
      }
    }
  }

  /**
   * A combination a rule refuses: the points of system {@code s} at {@code at}'s values of the rule keys (and, where
   * {@code atNumerics}, of the precision and software), with the reason as simulate gives it.
   */
  record Refusal(Map<String, String> at, String reason, long points, long firstIndex) {
    /** Where: its keys' values, as {@code key=value, ...}. */
    String where() {
      return String.join(", ", at.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    }

    /** The line the sweep prints for it. */
    String line() {
      return "sweep: skipped " + rows(points) + (at.isEmpty() ? "" : " at " + where()) + ": " + reason;
    }
  }

  private static String rows(long points) {
    return String.format(Locale.US, "%,d", points) + (points == 1 ? " row" : " rows");
  }

  /** Combinations skipped for one reason that get a line each; more are one line ({@link #refusalLines}). */
  static final int LINES_PER_REASON = 3;
  /** Values of a key that a merged line lists in full; more are the first two, the last and their count. */
  private static final int VALUES_LISTED = 4;

  /**
   * The lines the sweep prints for what it skips, in grid order (after the keys no row has): one per combination, except that a reason given for
   * more than {@link #LINES_PER_REASON} combinations is one line, at its first combination's place, with the rows and
   * combinations it skips and each key's values among them ('--tasks inference,train --seq-len 8,16,...,2000' printed
   * 996 lines of one reason, one per system, model and seq_len).
   */
  List<String> refusalLines() {
    List<Refusal> all = refusals();
    Map<String, List<Refusal>> byReason = new java.util.LinkedHashMap<>();
    for (Refusal r : all) {
      byReason.computeIfAbsent(r.reason(), k -> new ArrayList<>()).add(r);
    }
    List<String> lines = new ArrayList<>(unusedKeyLines);
    for (Refusal r : all) {
      List<Refusal> same = byReason.get(r.reason());
      if (same.size() <= LINES_PER_REASON) {
        lines.add(r.line());
      } else if (same.get(0) == r) {
        lines.add(merged(same));
      }
    }
    return lines;
  }

  /** One line for the combinations {@code same}, which share a reason. */
  private static String merged(List<Refusal> same) {
    Map<String, java.util.LinkedHashSet<String>> values = new java.util.LinkedHashMap<>();
    for (Refusal r : same) {
      r.at().forEach((k, v) -> values.computeIfAbsent(k, x -> new java.util.LinkedHashSet<>()).add(v));
    }
    List<String> keys = new ArrayList<>();
    values.forEach((k, v) -> {
      List<String> list = new ArrayList<>(v);
      keys.add(k + "=" + (list.size() <= VALUES_LISTED ? String.join(",", list)
          : list.get(0) + "," + list.get(1) + ",...," + list.get(list.size() - 1) + " (" + list.size() + " values)"));
    });
    return "sweep: skipped " + rows(same.stream().mapToLong(Refusal::points).sum()) + " in " + same.size()
        + " combinations (" + String.join("; ", keys) + "): " + same.get(0).reason();
  }

  private void refuse(ScenarioKeyException e, int[] at, int s, boolean atNumerics) {
    List<Integer> named = new ArrayList<>(free);
    long points = points() / radix[0]; // the grid's size fits a long: points() is checked before the rules
    for (int a : free) {
      points /= radix[a];
    }
    if (atNumerics) {
      named.add(PRECISION_AXIS);
      named.add(SOFTWARE_AXIS);
      points /= radix[PRECISION_AXIS] * (long) radix[SOFTWARE_AXIS];
    }
    // the system is named too where there are several: a rule between the task and one system is that system's
    Map<String, String> at2 = new java.util.LinkedHashMap<>();
    if (systems.size() > 1) {
      at2.put("hardware", systems.get(s).id());
    }
    at2.putAll(describe(at, named));
    long first = 0; // the index of the combination's first point: the refused axes at their values, the rest at 0
    long stride = 1;
    for (int a = radix.length - 1; a >= 0; a--) {
      if (a == 0 || named.contains(a)) {
        first += (a == 0 ? s : at[a]) * stride;
      }
      stride *= radix[a];
    }
    refused.put(key(at, s, atNumerics), new Refusal(at2, e.key().gridFlag() + ": "
        + withoutKey(e), points, first));
  }

  /** The combination's key: the system, the rule keys' values, and the precision and software's or "*". */
  private String key(int[] at, int s, boolean atNumerics) {
    StringBuilder b = new StringBuilder().append(s);
    for (int a : free) {
      b.append(',').append(at[a]);
    }
    if (atNumerics) {
      b.append(',').append(at[PRECISION_AXIS]).append(',').append(at[SOFTWARE_AXIS]);
    } else {
      b.append(",*");
    }
    return b.toString();
  }

  /** Whether a rule refuses the point at {@code at}. */
  private boolean refused(int[] at) {
    return !refused.isEmpty() && (refused.containsKey(key(at, at[0], false)) || refused.containsKey(key(at, at[0],
        true)));
  }

  /** The combinations skipped, each with its reason and its number of rows, in grid order (by their first point). */
  List<Refusal> refusals() {
    return refused.values().stream().sorted(java.util.Comparator.comparingLong(Refusal::firstIndex)).toList();
  }

  private Map<String, String> describe(int[] at, List<Integer> free) {
    Map<String, String> parts = new java.util.LinkedHashMap<>();
    for (int a : free) {
      Object v = values.get(a).get(at[a]);
      if (v != null && radix[a] > 1 || AXES[a] == ScenarioKey.TASK && v != null) {
        parts.put(AXES[a].gridKey(), typed(v));
      }
    }
    return parts;
  }
}
