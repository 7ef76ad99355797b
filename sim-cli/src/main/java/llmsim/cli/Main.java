package llmsim.cli;

import java.io.PrintWriter;
import llmsim.core.kernel.Kernels;
import llmsim.core.scenario.ScenarioKey;
import llmsim.hw.yaml.InputException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** The {@code llmsim} command: a bare call prints usage. Exit codes: 0 ok, 1 failure, 2 bad input. */
@Command(
    name = "llmsim",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = {
      "How long will this LLM take to train, fine-tune or serve on this hardware, what bounds it, and does it fit?",
      "",
      "Start with:  llmsim compare --model llama-65b --task train --hardware m2-ultra,13900ks-h100"
    },
    subcommands = {
      HardwareCommand.class,
      ModelsCommand.class,
      MemoryCommand.class,
      SimulateCommand.class,
      CompareCommand.class,
      ValidateCommand.class,
      RooflineCommand.class,
      SweepChartCommand.class,
      SweepCommand.class,
      AdviseCommand.class,
      ExplainCommand.class,
      ServeCommand.class,
      CommandLine.HelpCommand.class
    },
    footer = {"", "Exit codes: 0 ok, 1 failure, 2 bad input (the message names the file, line and rule)."})
public final class Main implements Runnable {

  public static final int EXIT_BAD_INPUT = 2;

  @Spec CommandSpec spec;

  @CommandLine.Option(names = "--stacktrace", description = "Print the stack trace of an unexpected error.", scope = CommandLine.ScopeType.INHERIT)
  boolean stacktrace;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  public static void main(String[] args) {
    PrintWriter out = new PrintWriter(System.out, true);
    PrintWriter err = new PrintWriter(System.err, true);
    if (TerminalWriter.attached()) {
      out = new PrintWriter(new TerminalWriter(out, false), true);
      err = new PrintWriter(new TerminalWriter(err, true), true);
    }
    System.exit(execute(args, out, err));
  }

  /** Run with the given writers; returns the exit code. */
  public static int execute(String[] args, PrintWriter out, PrintWriter err) {
    try {
      Kernels.checkProperty(); // a bad -Dllmsim.kernel is bad input, reported before anything runs
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return EXIT_BAD_INPUT;
    }
    CommandLine cl = commandLine(out, err);
    int code = cl.execute(args);
    out.flush();
    err.flush();
    return code;
  }

  /** Every command that takes a scenario gets one flag per key of the scenario key table. */
  private static void addScenarioFlags(CommandLine cl, java.util.Set<Object> done) {
    for (CommandLine sub : cl.getSubcommands().values()) {
      if (sub.getCommand() instanceof ScenarioOptions.Command c && done.add(c)) {
        ScenarioOptions.addTo(sub.getCommandSpec(), c);
      }
      if (sub.getCommand() instanceof ScenarioOptions.GridCommand g && done.add(g)) {
        ScenarioOptions.addAxesTo(sub.getCommandSpec(), g);
        ScenarioOptions.addTo(sub.getCommandSpec(), g.job(), ScenarioKey::jobKey, false);
      }
      addScenarioFlags(sub, done);
    }
  }

  /** The {@code -h, --help} option of every subcommand. */
  @Command
  static final class HelpOption {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    boolean help;
  }

  /**
   * Gives every subcommand, nested ones included, {@code -h/--help} (the root has it, and --version, from
   * mixinStandardHelpOptions). Done here rather than with scope INHERIT, which would also copy the version to every
   * subcommand and so pick the roofline kernel at start-up, before a bad -Dllmsim.kernel could be reported cleanly.
   */
  static void addHelpOptions(CommandLine cl) {
    for (CommandLine sub : cl.getSubcommands().values()) {
      CommandSpec spec = sub.getCommandSpec();
      if (spec.options().stream().noneMatch(OptionSpec::usageHelp)) { // picocli's help command has its own
        spec.addMixin("help", CommandSpec.forAnnotatedObject(new HelpOption()));
      }
      addHelpOptions(sub);
    }
  }

  static CommandLine commandLine(PrintWriter out, PrintWriter err) {
    Main main = new Main();
    CommandLine cl = new CommandLine(main);
    addScenarioFlags(cl, java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>()));
    cl.setOut(out);
    cl.setErr(err);
    cl.setCaseInsensitiveEnumValuesAllowed(true);
    addHelpOptions(cl);
    cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
      PrintWriter e = commandLine.getErr();
      if (ex instanceof InputException ie) {
        ie.problems().stream().sorted().forEach(p -> e.println("error: " + p));
        return EXIT_BAD_INPUT;
      }
      if (ex instanceof BadFlagException || ex instanceof IllegalArgumentException) {
        e.println("error: " + ex.getMessage());
        return EXIT_BAD_INPUT;
      }
      if (main.stacktrace) {
        ex.printStackTrace(e);
      } else {
        e.println("error: " + ex + " (run again with --stacktrace for details)");
      }
      return 1;
    });
    cl.setParameterExceptionHandler(Main::reportBadInput);
    return cl;
  }

  /**
   * Bad input on the command line (an unknown option, a value out of range, a flag given twice): "error: " and what is
   * wrong, the nearest options where picocli has them, and where help is; exit 2. Public for the commands that run
   * outside this command tree ({@code llmsim worker}), so that they report bad input the same way.
   */
  public static int reportBadInput(CommandLine.ParameterException ex, String[] args) {
    PrintWriter e = ex.getCommandLine().getErr();
    String scenarioFile = ex instanceof CommandLine.UnmatchedArgumentException u ? scenarioArgument(u) : null;
    if (ex instanceof CommandLine.OverwrittenOptionException o && o.getOverwritten() instanceof OptionSpec opt
        && typedNames(opt, args).size() > 1) {
      // '--batch 2 --micro-batch 4' was told "option '--micro-batch' (N) should be specified only once", a flag
      // typed once: the two names are one option
      e.println("error: " + String.join(" and ", typedNames(opt, args)) + " name one option, given more than once;"
          + " give it one value");
    } else if (ex instanceof CommandLine.UnmatchedArgumentException u && fileArgument(u) != null) {
      // 'simulate --scenario job.yaml' (as compare, explain and memory take it) was offered --schedule
      String label = fileArgument(u);
      e.println("error: " + ex.getCommandLine().getCommandSpec().qualifiedName() + " reads its " + label.toLowerCase(
          java.util.Locale.ROOT) + " file as its argument, not --scenario: " + ex.getCommandLine().getCommandSpec()
          .qualifiedName() + " " + label + ".yaml [flags]");
      e.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
      return EXIT_BAD_INPUT;
    } else if (scenarioFile != null) {
      // 'memory job.yaml' (as simulate takes it) was told "Unmatched argument at index 1: 'job.yaml'"
      String name = ex.getCommandLine().getCommandSpec().qualifiedName();
      e.println("error: " + name + " reads a scenario file with --scenario, not as its argument: " + name
          + " --scenario " + scenarioFile + " [flags]");
      e.println("Try '" + name + " --help' for usage.");
      return EXIT_BAD_INPUT;
    } else {
      e.println("error: " + ex.getMessage());
    }
    CommandLine.UnmatchedArgumentException.printSuggestions(ex, e);
    e.println("Try '" + ex.getCommandLine().getCommandSpec().qualifiedName() + " --help' for usage.");
    return EXIT_BAD_INPUT;
  }

  /**
   * The names of {@code opt} the command line used: '--hardware a --hardware b' was told "-H and --hardware name one
   * option", a name never typed (picocli's own message, which names the option typed twice, fits it).
   */
  private static java.util.List<String> typedNames(OptionSpec opt, String[] args) {
    return java.util.Arrays.stream(opt.names()).filter(n -> java.util.Arrays.stream(args).anyMatch(a -> a.equals(n)
        || a.startsWith(n + "="))).toList();
  }

  /**
   * The label of the file argument (SCENARIO, GRID) of a command given --scenario, which it does not take; null where
   * the option unmatched is another or the command takes no file argument.
   */
  private static String fileArgument(CommandLine.UnmatchedArgumentException u) {
    if (u.getUnmatched().stream().noneMatch(a -> a.equals("--scenario") || a.startsWith("--scenario="))) {
      return null;
    }
    return u.getCommandLine().getCommandSpec().positionalParameters().stream().map(p -> p.paramLabel())
        .filter(l -> l.equals("SCENARIO") || l.equals("GRID")).findFirst().orElse(null);
  }

  /**
   * The .yaml file given as an argument to a command that reads its scenario with --scenario (compare, explain,
   * memory); null where the command has no --scenario or no unmatched argument names such a file.
   */
  private static String scenarioArgument(CommandLine.UnmatchedArgumentException u) {
    if (u.getCommandLine().getCommandSpec().findOption("--scenario") == null) {
      return null;
    }
    return u.getUnmatched().stream().filter(a -> !a.startsWith("-") && a.toLowerCase(java.util.Locale.ROOT)
        .matches(".*\\.ya?ml")).findFirst().orElse(null);
  }
}
