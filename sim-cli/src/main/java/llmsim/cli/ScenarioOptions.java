package llmsim.cli;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.cost.CostBasis;
import llmsim.core.hw.PrecisionSupport;
import llmsim.core.hw.SystemSpec;
import llmsim.core.memory.MemoryPlanner;
import llmsim.core.model.ModelSpec;
import llmsim.core.parallel.Placement;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.scenario.ScenarioValues;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.task.Task;
import llmsim.core.workload.OpBudget;
import llmsim.core.workload.Simulator;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.scenario.ScenarioFile;
import llmsim.hw.scenario.ScenarioFile.Raw;
import llmsim.hw.yaml.InputException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The scenario flags shared by memory, simulate, compare, roofline and sweep-chart: one flag per key of the
 * {@link ScenarioKey} table, added to each such command by {@link #addTo}. Each flag overrides the same key
 * of a scenario file; anything unset takes the task's default.
 */
final class ScenarioOptions {
  /** A command that takes the scenario flags: their values, its spec, and whether it takes a job's keys too. */
  @picocli.CommandLine.Command // so that picocli injects the spec into the commands that extend it
  abstract static class Command {
    @Spec CommandSpec spec;
    ScenarioOptions scenario = new ScenarioOptions();
    private final boolean takesJob;

    /** A command that sizes and prices a job (simulate, compare, advise). */
    Command() {
      this(true);
    }

    /**
     * {@code takesJob}: whether the command sizes and prices a job, and so takes the job's keys ({@link
     * ScenarioKey#jobKey}: --tokens, --requests, --price ...). One that does not (memory, roofline, explain,
     * sweep-chart) hides their flags and refuses them when given, rather than ignoring them without a word.
     */
    Command(boolean takesJob) {
      this.takesJob = takesJob;
    }

    ScenarioOptions scenario() {
      return scenario;
    }

    boolean takesJob() {
      return takesJob;
    }
  }

  /**
   * A command that takes every sweepable key as a comma-separated list of values (the sweep), and the job's keys
   * (its size and prices: {@link ScenarioKey#jobKey}) as one value each, as simulate does.
   */
  interface GridCommand {
    Map<ScenarioKey, List<String>> axisFlags();

    /** Where --set's values go. */
    List<String> sets();

    /** The job's size and prices, one value each. */
    ScenarioOptions job();
  }

  /** Add one list-valued option per sweepable key ({@code --models}, {@code --batch 1,8,64}) to {@code spec}. */
  static void addAxesTo(CommandSpec spec, GridCommand command) {
    Map<ScenarioKey, List<String>> target = command.axisFlags();
    CommandSpec mixin = CommandSpec.create();
    for (ScenarioKey k : ScenarioKey.values()) {
      if (!k.sweepable()) {
        continue;
      }
      // the getter hands picocli the list so far, so a repeated flag (--models a --models b) adds to it, as --set's
      // does; a setter alone got a fresh list each time, and the last flag silently replaced the earlier ones
      picocli.CommandLine.Model.IGetter getter = new picocli.CommandLine.Model.IGetter() {
        @Override
        @SuppressWarnings("unchecked")
        public <T> T get() {
          return (T) target.get(k);
        }
      };
      ISetter setter = new ISetter() {
        @Override
        @SuppressWarnings("unchecked")
        public <T> T set(T value) {
          if (value == null) {
            target.remove(k);
          } else if (value != target.get(k)) {
            target.put(k, (List<String>) value);
          }
          return null;
        }
      };
      List<String> names = new java.util.ArrayList<>(k.flagNames().subList(0, k.flagNames().size() - 1));
      names.removeIf(n -> n.startsWith("-") && !n.startsWith("--") && !k.gridKey().equals(k.key()));
      names.add(k.gridFlag());
      mixin.addOption(OptionSpec.builder(names.toArray(String[]::new))
          .paramLabel(k.paramLabel() + "[,...]")
          .type(List.class).auxiliaryTypes(String.class)
          .splitRegex(",")
          .description(("One or more values, comma-separated. " + k.longHelp()).replace("%", "%%"))
          .getter(getter)
          .setter(setter)
          .build());
    }
    mixin.addOption(setOption(command.sets()));
    spec.addMixin("axes", mixin);
  }

  private final EnumMap<ScenarioKey, String> given = new EnumMap<>(ScenarioKey.class);
  private final List<String> sets = new java.util.ArrayList<>();
  private Catalog catalog;
  /** The name of a command that sizes and prices no job (its job flags are refused), or null. */
  private String noJob;

  /** The help of {@code --set}, shared by every command that takes it. */
  static final String SET_HELP = "Change one field of a catalog file for this run: ID.FIELD=VALUE, repeatable."
      + " ID is a system, device, host, link or model id; FIELD the field's path in its YAML file (`llmsim hardware"
      + " show ID`, `llmsim hardware schema KIND`): m2-ultra.memory.bandwidth_gb_per_s=1600,"
      + " h100-sxm.peak_dense_tflops.bf16=2000, llama-7b.layers=40. On a system id a field the system file lacks is its"
      + " device's; host., device., host_link., device_link. and network.nic. reach a part by name. Checked as a file"
      + " is; every result it changes says so.";

  /** The {@code --set} option, storing into {@code target}. */
  static OptionSpec setOption(List<String> target) {
    return OptionSpec.builder("--set").paramLabel("ID.FIELD=VALUE").type(List.class).auxiliaryTypes(String.class)
        .description(SET_HELP.replace("%", "%%"))
        .getter(new picocli.CommandLine.Model.IGetter() {
          @Override
          @SuppressWarnings("unchecked")
          public <T> T get() {
            return (T) target; // picocli adds each repeated --set to the list it gets
          }
        })
        .setter(new ISetter() {
          @Override
          @SuppressWarnings("unchecked")
          public <T> T set(T value) {
            if (value != target) { // a fresh list: the first --set of a parse, or the reset before it
              target.clear();
              if (value != null) {
                target.addAll((List<String>) value);
              }
            }
            return null;
          }
        }).build();
  }

  /** The catalog with the --set changes, built (and checked) once. */
  Catalog catalog() {
    if (catalog == null) {
      catalog = Catalog.bundled().withOverrides(sets);
    }
    return catalog;
  }

  /** Change a field as if --set were given (compare --vary sets one per point); the catalog is rebuilt. */
  void setField(String assignment, List<String> base) {
    sets.clear();
    sets.addAll(base);
    sets.add(assignment);
    catalog = null;
  }

  /** One "warning: override in effect" line per --set change, for commands whose output has no warnings of its own. */
  void warnOverrides(java.io.PrintWriter err) {
    warnOverrides(catalog(), err);
  }

  static void warnOverrides(Catalog c, java.io.PrintWriter err) {
    c.overrides().forEach(o -> err.println("warning: " + note(o)));
  }

  /**
   * Refuse a --set that changes no part of the systems and models run: '--hardware m2-ultra --set
   * h100-sxm.memory.bandwidth_gb_per_s=1' ran the M2 Ultra as the catalog has it, without a word, the change unused.
   */
  static void refuseUnusedOverrides(Catalog catalog, List<SystemSpec> systems, List<ModelSpec> models) {
    java.util.Set<String> ids = Resolved.partIds(catalog, systems, models);
    java.util.Set<String> anyIds = Resolved.partIds(null, systems, models);
    for (llmsim.hw.catalog.FieldOverride o : catalog.overrides()) {
      if (!ids.contains(o.target()) && anyIds.contains(o.target())) {
        throw new llmsim.hw.yaml.InputException(new llmsim.hw.yaml.Problem(o.flag(), 0, 0, "the " + o.target()
            + " this run uses is read from a file that carries the catalog's id, and --set changes the catalog's "
            + o.target() + ", not the file: change the figure in the file (and give the file an id of its own)"));
      }
      if (!ids.contains(o.target())) {
        throw new llmsim.hw.yaml.InputException(new llmsim.hw.yaml.Problem(o.flag(), 0, 0, o.target() + " is no part"
            + " of this run (" + String.join(", ", systems.stream().map(SystemSpec::id).toList()) + (models.isEmpty()
                ? "" : "; model " + String.join(", ", models.stream().map(ModelSpec::id).toList())) + "), so the change"
            + " would change nothing; set a field of a system, device, host, link or model the run uses"));
      }
    }
  }

  /** What a result says about a --set change that touches it. */
  static String note(llmsim.hw.catalog.FieldOverride o) {
    return "override in effect: " + o.describe();
  }

  /** The --set values as given. */
  List<String> sets() {
    return List.copyOf(sets);
  }

  /**
   * Add one option per scenario key, and --set, to {@code command}'s {@code spec}; the job's keys are hidden on a
   * command that prices no job, and refused by {@link #resolve} when given.
   */
  static void addTo(CommandSpec spec, Command command) {
    ScenarioOptions target = command.scenario();
    if (!command.takesJob()) {
      target.noJob = spec.name();
    }
    addTo(spec, target, k -> true, true);
  }

  /**
   * Add one option per scenario key that {@code keys} takes to {@code spec}, storing into {@code target}, and
   * {@code --set} with them when {@code withSet} (a grid command has its own, beside its axes).
   */
  static void addTo(CommandSpec spec, ScenarioOptions target, java.util.function.Predicate<ScenarioKey> keys,
      boolean withSet) {
    CommandSpec mixin = CommandSpec.create();
    for (ScenarioKey k : ScenarioKey.values()) {
      if (!keys.test(k)) {
        continue;
      }
      ISetter setter = new ISetter() {
        @Override
        public <T> T set(T value) {
          if (value == null) {
            target.given.remove(k); // picocli resets options to their (absent) default before parsing
          } else {
            target.given.put(k, value.toString());
          }
          return null;
        }
      };
      OptionSpec.Builder b = OptionSpec.builder(k.flagNames().toArray(String[]::new))
          .paramLabel(k.paramLabel())
          .type(String.class)
          .description(k.longHelp().replace("%", "%%"))
          .hidden(target.noJob != null && k.jobKey())
          .setter(setter);
      if (k.type() == ScenarioKey.Type.BOOL) {
        b.arity("0..1").fallbackValue("true");
      }
      mixin.addOption(b.build());
    }
    if (withSet) {
      mixin.addOption(setOption(target.sets));
    }
    spec.addMixin("scenario", mixin);
  }

  /** Refuses the job's flags on a command that sizes and prices no job ({@link Command#takesJob}). */
  void refuseJobFlags() {
    for (ScenarioKey k : given.keySet()) {
      if (noJob != null && k.jobKey()) {
        throw new BadFlagException(k.flag() + ": " + noJob + " sizes and prices no job (simulate, compare, advise and"
            + " sweep do); leave it out");
      }
    }
  }

  /**
   * Refuses --all-gpus in a command whose figures are one GPU's, the same on every GPU of the plan ({@code gives}
   * says what it gives): all_gpus only says how many GPUs a simulation runs apart, so it was taken there and changed
   * nothing (memory, roofline).
   */
  void refuseAllGpus(String gives) {
    if (given(ScenarioKey.ALL_GPUS) != null) {
      throw new BadFlagException("--all-gpus: " + gives + "; all_gpus changes how many GPUs simulate, explain and"
          + " compare run; leave it out");
    }
  }

  /** Set a key as if its flag were given (sweep-chart sets the model per point). */
  void set(ScenarioKey k, String value) {
    given.put(k, value);
  }

  /** The flag's value as typed, or null. */
  String given(ScenarioKey k) {
    return given.get(k);
  }

  /** A scenario with flags applied over its file: hardware ids, model id, task and software. */
  record Resolved(List<String> hardware, String model, Task task, SoftwareProfile software, Raw file,
      Map<ScenarioKey, String> flags, boolean precisionGiven, int nodes, int gpus, long jobTokens, boolean planAuto,
      CostBasis cost, List<String> priceFiles, boolean costKeysGiven, Catalog catalog, boolean hybridShard) {

    /** The --set changes that touch this system or model, one line each (empty when none does). */
    List<String> overrideNotes(SystemSpec s, ModelSpec m) {
      java.util.Set<String> ids = partIds(catalog, List.of(s), m == null ? List.of() : List.of(m));
      return catalog.overrides().stream().filter(o -> ids.contains(o.target()))
          .map(ScenarioOptions::note).toList();
    }

    /**
     * {@link ScenarioOptions#refuseUnusedOverrides} for this run's systems and models, and a --price for a device none
     * of them has ('--hardware h100-sxm --price a100=2usd/h' costed the H100 at the catalog's price, without a word).
     */
    void refuseUnusedOverrides(List<SystemSpec> systems, List<ModelSpec> models) {
      ScenarioOptions.refuseUnusedOverrides(catalog, systems, models);
      List<String> devices = systems.stream().map(s -> s.device().id()).distinct().toList();
      for (llmsim.core.cost.PriceOverride o : cost.overrides()) {
        if (!devices.contains(catalog.canonical(o.device()))) {
          throw locate(new ScenarioKeyException(ScenarioKey.PRICE, "'price' " + o.device() + " is no device of this"
              + " run (" + String.join(", ", devices) + "), so its price would price nothing; price a device the run"
              + " uses"), flags, file);
        }
      }
    }

    /**
     * The ids of the systems and models run and of their parts: with a {@code catalog}, only those that are its own
     * entries (a file that carries a catalog id is not: {@link Catalog#ownIds}); without, every one.
     */
    static java.util.Set<String> partIds(Catalog catalog, List<SystemSpec> systems, List<ModelSpec> models) {
      java.util.Set<String> ids = new java.util.HashSet<>();
      for (SystemSpec s : systems) {
        if (catalog != null) {
          ids.addAll(catalog.ownIds(s));
          continue;
        }
        ids.addAll(List.of(s.id(), s.device().id(), s.host().id(), s.hostLink().id()));
        s.deviceLink().ifPresent(l -> ids.add(l.id()));
        s.network().ifPresent(n -> ids.add(n.nic().id()));
      }
      models.stream().filter(m -> catalog == null || catalog.owns(m)).forEach(m -> ids.add(m.id()));
      return ids;
    }

    /** Whether {@code k} was set, by a flag or in the scenario file (not left at its default). */
    boolean given(ScenarioKey k) {
      return flags.containsKey(k) || (file != null && file.node(k).isPresent());
    }

    /** The model the scenario names; an unknown id in the scenario file is reported at its line there. */
    ModelSpec modelSpec() {
      return atKey(ScenarioKey.MODEL, () -> catalog.model(model, "--model"));
    }

    /** A system the scenario names; an unknown id in the scenario file is reported at its line there. */
    SystemSpec system(String id) {
      return atKey(ScenarioKey.HARDWARE, () -> catalog.system(id, "--hardware"));
    }

    /**
     * Run {@code body}, which reports a bad value at {@code k}'s flag; when the value came from the scenario file
     * rather than a flag, the problem is moved to the key's line in the file.
     */
    private <T> T atKey(ScenarioKey k, java.util.function.Supplier<T> body) {
      try {
        return body.get();
      } catch (llmsim.hw.yaml.InputException e) {
        if (flags.containsKey(k) || file == null || file.node(k).isEmpty()) {
          throw e;
        }
        // a file the key names that cannot be read ("nest/missing.yaml: no such file") is said at the key too
        throw new llmsim.hw.yaml.InputException(e.problems().stream().map(p -> p.line() != 0 ? p
            : p.file().equals(k.flag()) ? file.problem(k, p.message())
            : !p.file().startsWith("-") ? file.problem(k, "'" + k.key() + "' " + p.file() + ": " + p.message())
            : p).toList());
      }
    }

    /** The system sized as --nodes or --gpus ask. */
    SystemSpec sized(SystemSpec s) {
      return located(() -> Placement.size(s, nodes, gpus));
    }

    /**
     * Simulate on one system: the default precision adapted to what the device runs (with a warning), an asked
     * precision it cannot run refused at its flag or file line.
     */
    StepResult simulate(SystemSpec s, ModelSpec m) {
      StepResult r = located(() -> {
        if (planAuto) {
          return PlanSearch.best(this, s, m);
        }
        PrecisionSupport.Adapted a = taskOn(s, m);
        StepResult one = Simulator.simulate(s, m, a.task(), software).withJobTokens(jobTokens);
        return a.note() == null ? one : one.withWarning(a.note());
      });
      for (String note : overrideNotes(s, m)) {
        r = r.withWarning(note);
      }
      return r;
    }

    /** Run {@code body}; a rule it finds broken points at its flag or file line. */
    private <T> T located(java.util.function.Supplier<T> body) {
      try {
        return body.get();
      } catch (ScenarioKeyException e) {
        throw locate(e, flags, file);
      }
    }

    /**
     * The task as it runs on {@code s}: its precision adapted when the user left it at the default, its parallel
     * plan resolved on the system's GPUs.
     */
    PrecisionSupport.Adapted taskOn(SystemSpec s, ModelSpec m) {
      return located(() -> {
        PrecisionSupport.Adapted a = PrecisionSupport.adapt(task, s.device(), software, precisionGiven);
        llmsim.core.hw.SoftwareSupport.checkRuns(s.device(), a.task(), software);
        return new PrecisionSupport.Adapted(Placement.resolve(s, m, a.task()), a.note());
      });
    }

    /** Check the rules between the task and the model; a broken one points at its flag or file line. */
    void checkAgainst(ModelSpec m) {
      located(() -> {
        ScenarioValues.checkAgainstModel(task, m, k -> flags.containsKey(k) || file != null && file.node(k).isPresent());
        return null;
      });
    }

    /**
     * Refuse, before anything is built, a simulation whose ops (summed over the systems, whose results are
     * held together) this JVM's heap cannot hold; the message names the flag that drives the op count.
     * {@code reports}: the --out reports are written too, which costs each op more.
     */
    void checkSimulable(ModelSpec m, List<SystemSpec> systems, boolean reports) {
      long ops = 0;
      double bytes = 0;
      double bare = 0;
      for (SystemSpec s : systems) {
        // plan auto runs its own plans: the given one (dp = every GPU) may break a rule the search's plans keep,
        // such as a global batch dp does not divide, so it is sized by the first plan the search can run
        Task t = planAuto ? located(() -> PlanSearch.firstRunnable(this, s, m)) : taskOn(s, m).task();
        long n = OpBudget.ops(s, m, t, software);
        ops = saturatedAdd(ops, n);
        bytes += (double) n * OpBudget.bytesPerOp(t, reports);
        bare += (double) n * OpBudget.bytesPerOp(t, false);
      }
      long heap = Runtime.getRuntime().maxMemory();
      long all = ops;
      // bytes per op over the systems (each system's plan decides whether its GPUs' copies share rows)
      long perOp = ops == 0 ? OpBudget.BYTES_PER_OP : (long) Math.ceil(bytes / ops);
      long barePerOp = ops == 0 ? OpBudget.BYTES_PER_OP : (long) Math.ceil(bare / ops);
      located(() -> {
        try {
          OpBudget.check(all, perOp, systems.size(), "systems", task, heap);
        } catch (ScenarioKeyException withReports) {
          if (!reports) {
            throw withReports;
          }
          OpBudget.check(all, barePerOp, systems.size(), "systems", task, heap);
          throw new ScenarioKeyException(withReports.key(), withReports.getMessage()
              + "; it is the reports --out writes that do not fit: without --out the run fits");
        }
        return null;
      });
    }

    /** Check the rules between the task and a system (an offload it cannot do). */
    void checkAgainst(SystemSpec s) {
      ModelSpec m = modelSpec();
      located(() -> {
        MemoryPlanner.checkPlacement(s, m, task);
        return null;
      });
    }
  }

  static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  /** The flags given, each parsed; a value its key refuses is bad input at its flag. */
  ScenarioValues values() {
    EnumMap<ScenarioKey, Object> parsed = new EnumMap<>(ScenarioKey.class);
    for (Map.Entry<ScenarioKey, String> e : given.entrySet()) {
      if (e.getValue() == null) {
        continue;
      }
      try {
        parsed.put(e.getKey(), e.getKey().parse(e.getValue()));
      } catch (IllegalArgumentException ex) {
        throw new BadFlagException(e.getKey().flag() + ": " + ex.getMessage().replace("'" + e.getKey().key() + "' ", ""));
      }
    }
    return new ScenarioValues(parsed);
  }

  /** Options holding these flags as typed (how a sweep's job travels to a worker). */
  static ScenarioOptions of(Map<ScenarioKey, String> flags) {
    ScenarioOptions o = new ScenarioOptions();
    o.given.putAll(flags);
    return o;
  }

  /** The flags as typed. */
  Map<ScenarioKey, String> flags() {
    return Map.copyOf(given);
  }

  /** Merge flags over a scenario file (either may be absent). */
  Resolved resolve(Raw file, boolean hardwareRequired) {
    refuseJobFlags();
    Raw base = file == null ? ScenarioFile.EMPTY : file;
    ScenarioValues v = base.values().overriddenBy(values());
    if (v.model() == null) {
      throw new BadFlagException("--model is required (a catalog id such as llama-7b, a model .yaml or a config.json);"
          + " `llmsim models list` shows the catalog");
    }
    if (hardwareRequired && v.hardware().isEmpty()) {
      throw new BadFlagException("--hardware is required (for example m2-ultra,13900ks-h100); `llmsim hardware list`"
          + " shows the catalog");
    }
    Map<ScenarioKey, String> flags = Map.copyOf(given);
    try {
      java.util.Set<String> named = new java.util.HashSet<>();
      for (String h : v.hardware()) {
        if (!named.add(h)) { // its column, its charts and its simulation came out twice
          throw new ScenarioKeyException(ScenarioKey.HARDWARE, "'hardware' " + h + " is given twice; name each system"
              + " once");
        }
      }
      Task task = v.task();
      // a key the task does not use is refused, not dropped; a file's keys for its own task stay when --task changes it
      v.checkApplies(task, k -> flags.containsKey(k) || !flags.containsKey(ScenarioKey.TASK));
      long jobTokens = v.jobTokens(task);
      return new Resolved(v.hardware(), v.model(), task, v.software(), base, flags, v.has(ScenarioKey.PRECISION),
          v.nodes(), v.gpus(), jobTokens, v.planAuto(), v.costBasis(), v.priceEntries().files(),
          v.pricesGiven(), catalog(), v.hybridShard() && v.planAuto());
    } catch (ScenarioKeyException e) {
      throw locate(e, flags, base);
    }
  }

  /** A rule broken by a key: reported at its flag when given as one, else at its line in the file. */
  static RuntimeException locate(ScenarioKeyException e, Map<ScenarioKey, String> flags, Raw file) {
    boolean fileHas = file != null && file.node(e.key()).isPresent();
    if (e.key() == ScenarioKey.WEIGHTS && !flags.containsKey(e.key()) && !fileHas
        && (flags.containsKey(ScenarioKey.TASK) || file != null && file.node(ScenarioKey.TASK).isPresent())) {
      // weights not given take the task's format (finetune-qlora's nf4): the task is what was typed; '--weights' was
      // named for a format the user never chose
      return locate(new ScenarioKeyException(ScenarioKey.TASK, e.getMessage()), flags, file);
    }
    if (flags.containsKey(e.key()) || file == null || file.node(e.key()).isEmpty()) {
      return new BadFlagException(e.key().flag() + ": " + e.getMessage().replaceFirst("^'" + e.key().key() + "' ", ""));
    }
    return new InputException(file.problem(e.key(), e.getMessage()));
  }
}
