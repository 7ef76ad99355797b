package llmsim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import llmsim.core.cost.Durations;
import llmsim.core.cost.Money;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.util.Units;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.scenario.ScenarioFile;
import llmsim.report.ChartFiles;
import llmsim.report.ParetoChart;
import llmsim.report.ReportFolder;
import org.jfree.chart.JFreeChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code llmsim advise}: which hardware and plan finish a job cheapest within a deadline and a budget. */
@Command(name = "advise", description = {
    "Find the hardware, GPU count and parallel plan that finish a job cheapest within a deadline and a budget.",
    "Tries every catalog system (or the --hardware ones) at 1, 2, 4, ... --max-gpus GPUs, every plan and micro-batch",
    "that fits memory (closed form), simulates the best of each, prices the job (`llmsim hardware prices`, --price),",
    "ranks by cost among those meeting the constraints and shows the time-cost Pareto front. The job is --tokens",
    "(training, fine-tuning) or --requests (inference).",
    "Example: llmsim advise --model chatglm-6b --task finetune-lora --tokens 20M --deadline 1d --budget 50usd"})
final class AdviseCommand extends ScenarioOptions.Command implements Callable<Integer> {
  @Parameters(arity = "0..1", paramLabel = "SCENARIO", description = "A scenario .yaml file (optional; flags override"
      + " its keys; its hardware, if any, is what is tried).")
  Path scenarioFile;

  @Mixin Output output;

  @Option(names = "--deadline", paramLabel = "SPAN", description = "Finish within this wall time: 36h, 3d, 2w (s, min, h, d, w, y). Default: none (any wall time).")
  String deadline;

  @Option(names = "--budget", paramLabel = "AMOUNTCUR", description = "Spend at most this, such as 500usd (converted at --rate when in another currency). Default: none (any cost).")
  String budget;

  @Option(names = "--out", paramLabel = "DIR", description = "Also draw the options' wall time against cost, the"
      + " Pareto front and the winner, as advise.png and advise.svg in this folder.")
  Path out;

  @Option(names = "--max-gpus", defaultValue = "8", paramLabel = "N", description = "Try at most this many GPUs (default: ${DEFAULT-VALUE}).")
  int maxGpus;

  @Option(names = "--own", description = "Owned hardware: the purchase price over --amortization plus --electricity (same as --pricing own).")
  boolean own;

  @Option(names = "--rent", description = "Rented GPU-hours at --pricing (on-demand unless given): the default.")
  boolean rent;

  record Constraints(double deadlineSeconds, double budget) {
    boolean meets(Advisor.Option o) {
      return o.seconds() <= deadlineSeconds && o.cost() <= budget;
    }
  }

  /** Keys the search sets per candidate, refused when given. */
  private static final List<ScenarioKey> PLAN_KEYS = java.util.stream.Stream.concat(ScenarioKey.LAYOUT.stream(),
      java.util.stream.Stream.of(ScenarioKey.PLAN)).toList();

  @Override
  public Integer call() {
    if (own && rent) {
      throw new BadFlagException("--own and --rent: give one (own hardware, or rented GPU-hours)");
    }
    if (own) {
      String given = scenario.given(llmsim.core.scenario.ScenarioKey.PRICING);
      if (given != null && !given.equalsIgnoreCase("own")) {
        throw new BadFlagException("--own and --pricing " + given + " disagree; give one");
      }
      scenario.set(llmsim.core.scenario.ScenarioKey.PRICING, "own");
    }
    if (maxGpus < 1) {
      throw new BadFlagException("--max-gpus must be >= 1, was " + maxGpus);
    }
    if (scenario.given(ScenarioKey.SHARD) != null) {
      // checked before the scenario resolves: there "--shard hybrid" was refused as "needs zero 3, was zero 0", and
      // --zero is advise's to choose
      throw new BadFlagException("--shard: cannot be given to advise, which chooses each plan's ZeRO stage itself"
          + " (hybrid shard needs zero 3); leave it out (simulate --plan auto --shard hybrid tries hybrid ZeRO-3 plans)");
    }
    ScenarioOptions.Resolved r = scenario.resolve(scenarioFile == null ? null : ScenarioFile.read(scenarioFile), false);
    if (r.jobTokens() <= 0) {
      throw new BadFlagException("advise needs the job's size: --tokens (training, fine-tuning: tokens processed) or"
          + " --requests (inference)");
    }
    for (ScenarioKey k : PLAN_KEYS) {
      if (r.given(k)) {
        // the search sets them per candidate: a value given would be dropped without a word
        throw ScenarioOptions.locate(new ScenarioKeyException(k, "'" + k.key() + "' cannot be"
            + " given to advise, which tries every plan (tp, pp, dp, zero) at each GPU count and names the one it"
            + " ranks; leave " + k.key() + " out (simulate --plan given runs one plan)"), r.flags(), r.file());
      }
    }
    for (ScenarioKey k : List.of(ScenarioKey.GPUS, ScenarioKey.NODES)) {
      if (r.given(k)) {
        // each system is sized to 1, 2, 4, ... --max-gpus GPUs: a --gpus 4 was dropped without a word
        throw ScenarioOptions.locate(new ScenarioKeyException(k, "'" + k.key() + "' cannot be given to advise, which"
            + " sizes each system to 1, 2, 4, ... --max-gpus GPUs and names the count it ranks; leave " + k.key()
            + " out and give --max-gpus N to cap them"), r.flags(), r.file());
      }
    }
    Costing costing = Costing.of(r);
    if (costing.basis().owned() && costing.basis().electricityPerKwh() == null) {
      // advise ranks by cost: without a power price no owned system could be priced, and the table came out empty
      throw new BadFlagException("--own (pricing own) prices owned hardware as its purchase over --amortization plus"
          + " the power it draws: give --electricity AMOUNTCUR/kWh (such as 0.15usd/kwh)");
    }
    Constraints c = new Constraints(deadline == null ? Double.POSITIVE_INFINITY : flag("--deadline",
        () -> Durations.seconds(deadline)), budget == null ? Double.POSITIVE_INFINITY : budget(costing));
    ModelSpec m = r.modelSpec();
    r.checkAgainst(m);
    r.hardware().forEach(r::system); // an unknown id is reported at its flag or scenario file line
    List<SystemSpec> systems = Advisor.systems(r.catalog(), r.hardware(), maxGpus);
    r.refuseUnusedOverrides(systems, List.of(m));
    llmsim.core.task.Offload offload = r.task().offload();
    if (r.given(ScenarioKey.OFFLOAD) && (offload == llmsim.core.task.Offload.OPTIMIZER
        || offload == llmsim.core.task.Offload.WEIGHTS) && systems.stream().anyMatch(s -> s.totalDevices() > 1)) {
      // the search runs several GPUs without offload (Advisor.fitting): the offload given held for one GPU only
      throw ScenarioOptions.locate(new ScenarioKeyException(ScenarioKey.OFFLOAD, "'offload' " + offload.key()
          + " applies to advise's single-GPU options only: it runs several GPUs without offload, sharding by ZeRO"
          + " and parallelism instead; give --max-gpus 1 to rank single GPUs with it, or leave offload out"),
          r.flags(), r.file());
    }
    refuseWhereNoneRuns(r, m, systems);
    if (out != null) {
      ReportOutput.prepare(out); // after the input is checked: bad input leaves no folder behind
    }
    SweepCommand.Progress progress = new SweepCommand.Progress(spec.commandLine().getErr(), systems.size(),
        TerminalWriter.attached(), "systems");
    Advisor.Result result = Advisor.search(r, m, systems, costing, progress::update);
    progress.done();
    boolean moreGpus = Advisor.systems(r.catalog(), r.hardware(), maxGpus > Integer.MAX_VALUE / 2 ? Integer.MAX_VALUE
        : 2 * maxGpus).size() > systems.size();
    print(r, m, c, costing, result, moreGpus);
    if (out != null) {
      try (ReportFolder folder = ReportOutput.open(out, "advise")) {
        // an empty plot under a legend of options and a winner read as a drawing gone wrong: its title says why
        JFreeChart chart = chart(m.name() + ", " + r.task().kind().key() + ", " + String.format(Locale.US, "%,d", r.jobTokens())
            + " tokens: " + (result.options().isEmpty() ? "no option could be ranked (see 'not ranked')"
                : "time against cost"), result, c, costing.basis().currency());
        ChartFiles.write(chart, folder, "advise", ReportOutput.style().width(), ReportOutput.style().height());
        ReportOutput.commit(folder, spec.commandLine().getErr());
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    scenario.warnOverrides(spec.commandLine().getErr());
    return 0;
  }

  /**
   * Refuses a scenario that no system tried can run at all (--precision fp8 on an A100 and a T4): it was '0
   * candidates', an empty table and exit 0. The first system's reason is named at its flag or file line.
   */
  private static void refuseWhereNoneRuns(ScenarioOptions.Resolved r, ModelSpec m, List<SystemSpec> systems) {
    IllegalArgumentException first = null;
    for (SystemSpec s : systems) {
      try {
        Advisor.runnable(r, m, s);
        return;
      } catch (IllegalArgumentException e) {
        first = first == null ? e : first;
      }
    }
    if (first == null) {
      return; // no system at all: Advisor.systems has said why
    }
    RuntimeException located = first instanceof ScenarioKeyException k ? ScenarioOptions.locate(k, r.flags(), r.file())
        : new BadFlagException(first.getMessage());
    if (located instanceof BadFlagException && systems.size() > 1) {
      throw new BadFlagException(located.getMessage() + "; no system tried can run it ("
          + String.join(", ", systems.stream().map(s -> s.id() + " x " + s.totalDevices()).toList()) + ")");
    }
    throw located;
  }

  /** The options as time against cost: the front as {@link Advisor.Result#pareto}, the winner the cheapest that meets. */
  static JFreeChart chart(String title, Advisor.Result res, Constraints c, String currency) {
    List<ParetoChart.Point> points = new ArrayList<>();
    ParetoChart.Point winner = null;
    for (Advisor.Option o : res.options()) { // cheapest first: the first that meets wins
      ParetoChart.Point p = new ParetoChart.Point(o.system().totalDevices() + "x " + o.system().device().id(),
          o.seconds() / 3600, o.cost(), res.pareto().contains(o), c.meets(o));
      if (winner == null && p.meets()) {
        winner = p;
      }
      points.add(p);
    }
    return ParetoChart.create(title, currency, points, winner, c.deadlineSeconds() / 3600, c.budget(),
        ReportOutput.style());
  }

  private double budget(Costing costing) {
    Money b = flag("--budget", () -> Money.parse(budget, "", "500usd"));
    OptionalDouble v = costing.basis().rates().convert(b.amount(), b.currency(), costing.basis().currency());
    if (v.isEmpty()) {
      throw new BadFlagException("--budget: " + b.currency() + " is not the report currency "
          + costing.basis().currency() + "; give --rate " + b.currency().toLowerCase(Locale.ROOT) + "=AMOUNT"
          + costing.basis().currency().toLowerCase(Locale.ROOT) + " or --currency " + b.currency().toLowerCase(Locale.ROOT));
    }
    return v.getAsDouble();
  }

  private static <T> T flag(String name, java.util.function.Supplier<T> parse) {
    try {
      return parse.get();
    } catch (IllegalArgumentException e) {
      throw new BadFlagException(name + ": " + e.getMessage());
    }
  }

  private void print(ScenarioOptions.Resolved r, ModelSpec m, Constraints c, Costing costing, Advisor.Result res,
      boolean moreGpus) {
    List<Advisor.Option> ranked = new ArrayList<>(res.options().stream().filter(c::meets).toList());
    res.options().stream().filter(o -> !c.meets(o)).forEach(ranked::add);
    String explanation = AdviceText.explain(ranked, res, c, costing.basis().owned(), moreGpus);
    PrintWriter out = spec.commandLine().getOut();
    if (output.format == Format.json) {
      out.print(Json.write(json(r, m, c, costing, res, ranked, explanation)));
      return;
    }
    TextTable t = new TextTable(List.of("#", "hardware", "GPUs", "plan", "batch", "wall time", "cost", "per 1M tokens",
        "per GPU-hour", "meets", "pareto"));
    int i = 0;
    for (Advisor.Option o : ranked) {
      t.row(List.of(Integer.toString(++i), o.system().id(), Integer.toString(o.system().totalDevices()),
          o.result().task().plan().describe() + o.numerics(), o.batch(), Units.duration(o.seconds()),
          Money.format(o.cost(), o.job().currency()), Money.format(o.job().costPerMillionTokens(), o.job().currency()),
          Money.format(o.job().hourly().perGpuHour(), o.job().currency()), AdviceText.meets(o, c),
          res.pareto().contains(o) ? "*" : ""));
    }
    if (output.format == Format.csv) {
      out.print(t.csv());
      return;
    }
    out.printf(Locale.US, "%s, %s, %s tokens (%s), %s%n%n", m.name(), r.task().kind().key(),
        String.format(Locale.US, "%,d", r.jobTokens()), r.task().kind().training() ? "processed" : "generated",
        costing.basis().owned() ? "owned hardware" : "rented " + costing.basis().kind().key());
    out.print(t.render());
    out.println();
    out.println(explanation);
    if (!ranked.isEmpty()) { // the first row's step, to draw (--out) or explain: the job's flags are not the step's
      out.println("#1's step: " + ScenarioEcho.command(ranked.get(0).result(), r.catalog()));
    }
    // the batch column's "2 x 8" is explained where a row shows one, by that row's numbers
    String accumulated = ranked.stream().map(o -> o.result().task()).filter(k -> k.microBatches() > 1).findFirst()
        .map(k -> String.format(Locale.US, " batch %d x %d: %d micro-batches of %d per step;", k.batch(),
            k.microBatches(), k.microBatches(), k.batch())).orElse("");
    out.printf(Locale.US, "%n%,d candidate%s (system, GPUs, plan, batch), %,d fit%s memory; per system the closed form's best and at most %d"
        + " pipeline plans (pp > 1, the fewest stages first, %d micro-batches per stage) were simulated, %,d run%s;%s"
        + " * marks the time-cost Pareto front.%n", res.candidates(), res.candidates() == 1 ? "" : "s", res.planned(),
        res.planned() == 1 ? "s" : "", Advisor.PIPELINE_SIMULATIONS,
        PlanSearch.MICRO_BATCHES_PER_STAGE, res.simulated(), res.simulated() == 1 ? "" : "s", accumulated);
    // a step of such an option processes more than the whole job: its time and cost are that step's, for more
    // tokens than asked (simulate says so in its warnings; here the row would read as the job's)
    List<String> oneStep = new ArrayList<>();
    for (int k = 0; k < ranked.size(); k++) {
      StepResult s = ranked.get(k).result();
      if (s.jobTokens() < s.task().tokensPerStep()) {
        oneStep.add("#" + (k + 1));
      }
    }
    if (!oneStep.isEmpty()) {
      out.println("one " + (r.task().kind().training() ? "optimizer step" : "run of the batch") + " of "
          + String.join(", ", oneStep) + " " + (r.task().kind().training() ? "processes" : "generates") + " more than"
          + " the job's " + String.format(Locale.US, "%,d", r.jobTokens()) + " tokens: each is timed and priced as that"
          + " one whole " + (r.task().kind().training() ? "step" : "run") + " (a smaller batch or fewer GPUs would"
          + " make a shorter one)");
    }
    List<String> unpriced = res.skipped().stream().filter(s -> s.why().startsWith("no price: no "))
        .map(s -> s.hardware() + " x " + s.gpus()).toList();
    if (!unpriced.isEmpty()) {
      out.println("not ranked, no " + (costing.basis().owned() ? "purchase price" : costing.basis().kind().key()
          + " price") + " in the catalog (give --price DEVICE=" + (costing.basis().owned() ? "AMOUNTCUR" : "AMOUNTCUR/h")
          + "): " + String.join(", ", unpriced));
    }
    res.skipped().stream().filter(s -> !s.why().startsWith("no price: no "))
        .forEach(s -> out.println("not ranked: " + s.hardware() + " x " + s.gpus() + ": " + s.why()));
    if (!ranked.isEmpty()) {
      out.println("prices: " + ranked.get(0).system().id() + ": " + ranked.get(0).job().hourly().source());
    }
  }

  private static Map<String, Object> json(ScenarioOptions.Resolved r, ModelSpec m, Constraints c, Costing costing,
      Advisor.Result res, List<Advisor.Option> ranked, String explanation) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("model", m.id());
    j.put("task", r.task().kind().key());
    j.put("job_tokens", r.jobTokens());
    j.put("candidates", res.candidates());
    j.put("fit_memory", res.planned());
    j.put("simulated", res.simulated());
    j.put("pricing", costing.basis().owned() ? "own" : costing.basis().kind().key());
    j.put("currency", costing.basis().currency());
    Map<String, Object> cons = new LinkedHashMap<>();
    cons.put("deadline_s", ResultFormat.finite(c.deadlineSeconds() == Double.POSITIVE_INFINITY ? Double.NaN
        : c.deadlineSeconds()));
    cons.put("budget", ResultFormat.finite(c.budget() == Double.POSITIVE_INFINITY ? Double.NaN : c.budget()));
    j.put("constraints", cons);
    List<Map<String, Object>> opts = new ArrayList<>();
    for (Advisor.Option o : ranked) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("hardware", o.system().id());
      e.put("device", o.system().device().id());
      e.put("plan", ResultFormat.planJson(o.result()));
      e.put("precision", o.result().task().precision().key());
      e.put("weights", o.result().task().weights().key());
      e.put("batch", o.result().task().batch());
      e.put("micro_batches", o.result().task().microBatches());
      e.put("tokens_per_s", o.result().tokensPerSecond());
      e.put("wall_time_s", o.seconds());
      e.put("gpu_hours", o.job().gpuHours());
      e.putAll(ResultFormat.costJson(o.job(), o.result()));
      e.put("warnings", o.result().warnings());
      e.put("meets_constraints", c.meets(o));
      e.put("pareto", res.pareto().contains(o));
      // the option's step as keys and as a command: simulate --out draws its timeline, explain derives its figures
      e.put("scenario", ScenarioEcho.json(o.result()));
      e.put("command", ScenarioEcho.command(o.result(), r.catalog()));
      opts.add(e);
    }
    j.put("options", opts);
    j.put("not_ranked", res.skipped().stream().map(s -> Json.object("hardware", s.hardware(), "gpus", s.gpus(),
        "reason", s.why())).toList());
    j.put("winner", ranked.isEmpty() || !c.meets(ranked.get(0)) ? null : ranked.get(0).system().id());
    j.put("explanation", explanation);
    return j;
  }
}
