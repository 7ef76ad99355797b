package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;

/**
 * Every command and subcommand, found by walking the registered tree from the root (so a new one is covered
 * without touching this test), answers {@code -h}, {@code --help} and {@code llmsim help ...} with its usage
 * and exit code 0, and picocli has nothing to complain about while formatting it.
 */
class HelpTest {

  /** The words that name each command below the root, e.g. {@code [hardware, list]}; the root is {@code []}. */
  static List<List<String>> commandPaths() {
    CommandLine root = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    List<List<String>> paths = new ArrayList<>();
    walk(root, List.of(), paths, new IdentityHashMap<>());
    return paths;
  }

  private static void walk(CommandLine cl, List<String> path, List<List<String>> paths, Map<CommandLine, Boolean> seen) {
    if (seen.put(cl, Boolean.TRUE) != null) {
      return; // an alias of a command already visited
    }
    paths.add(path);
    for (Map.Entry<String, CommandLine> sub : cl.getSubcommands().entrySet()) {
      List<String> p = new ArrayList<>(path);
      p.add(sub.getKey());
      walk(sub.getValue(), p, paths, seen);
    }
  }

  static Stream<Arguments> everyCommandWithEachHelpForm() {
    List<Arguments> out = new ArrayList<>();
    for (List<String> path : commandPaths()) {
      for (String flag : List.of("-h", "--help")) {
        List<String> args = new ArrayList<>(path);
        args.add(flag);
        out.add(Arguments.of(path, args));
      }
      // picocli's help command looks up one name only ("help hardware list" shows "hardware")
      if (path.size() == 1) {
        List<String> args = new ArrayList<>();
        args.add("help");
        args.addAll(path);
        out.add(Arguments.of(path, args));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "llmsim {1}")
  @MethodSource("everyCommandWithEachHelpForm")
  void help_printsUsageAndExitsZero(List<String> path, List<String> args) {
    Captured r = runCapturingSystemErr(args.toArray(String[]::new));
    String name = String.join(" ", Stream.concat(Stream.of("llmsim"), path.stream()).toList());
    assertThat(r.code).as("exit code of llmsim %s; stderr: %s", args, r.err).isZero();
    assertThat(r.out).as("usage of llmsim %s", args).containsPattern("(?m)^Usage: " + java.util.regex.Pattern.quote(name) + "( |$)");
    assertThat(r.out).as("the help options are listed").contains("-h, --help");
    assertThat(r.out).as("unresolved or empty variables in the usage").doesNotContain("${").doesNotContainPattern(":\\s+null\\b");
    assertThat(r.err).as("stderr of llmsim %s", args).doesNotContain("Could not format").doesNotContain("Unknown option");
    assertThat(r.systemErr).as("picocli's own warnings (System.err) for llmsim %s", args).doesNotContain("Could not format");
  }

  @org.junit.jupiter.api.Test
  void theWalk_findsNestedSubcommands() {
    // guards the walk itself: if it stopped at the first level, the test above would pass vacuously for them
    assertThat(commandPaths()).contains(List.of(), List.of("hardware", "list"), List.of("hardware", "schema"),
        List.of("models", "show"), List.of("sweep"), List.of("help"));
  }

  @org.junit.jupiter.api.Test
  void everySubcommand_firstDescriptionLine_isACompleteSentence() {
    // 'llmsim --help' lists each command by its first description line only: 'validate  Run the validation cases ...
    // with the signed error,' read as a sentence cut off; the rest of a description may follow on later lines
    CommandLine root = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    List<String> cut = new ArrayList<>();
    for (List<String> path : commandPaths()) {
      if (path.isEmpty()) {
        continue; // the root is listed by no one
      }
      CommandLine cl = root;
      for (String p : path) {
        cl = cl.getSubcommands().get(p);
      }
      // the listing shows a command's header where it has one (picocli's help), else its description's first line
      String[] header = cl.getCommandSpec().usageMessage().header();
      String[] description = header.length > 0 ? header : cl.getCommandSpec().usageMessage().description();
      String first = description.length == 0 ? "" : description[0].strip();
      if (!first.endsWith(".")) {
        cut.add(String.join(" ", path) + ": " + first);
      }
    }
    assertThat(cut).as("first description lines that do not end with a period").isEmpty();
  }

  record Captured(int code, String out, String err, String systemErr) {}

  /** Picocli prints its formatting warnings through its tracer on System.err, not on the command's writer. */
  static Captured runCapturingSystemErr(String... args) {
    PrintStream saved = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code;
    try {
      System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
      code = Main.execute(args, new PrintWriter(out), new PrintWriter(err));
    } finally {
      System.setErr(saved);
    }
    return new Captured(code, out.toString(), err.toString(), bytes.toString(StandardCharsets.UTF_8));
  }

  @org.junit.jupiter.api.Test
  void theGpuCountFlags_stateTheirDefault_andTeachByAnExample() {
    // --gpus said neither what it is when left out nor how a cluster is sized with it
    String help = CliRunner.run("simulate", "--help").out().replaceAll("\\s+", " ");
    String gpus = help.substring(help.indexOf("--gpus=N GPUs"), help.indexOf("-h, --help"));
    assertThat(gpus).contains("default: the system's own").contains("--hardware h100-cluster --gpus 64");
    String nodes = help.substring(help.indexOf("--nodes=N Nodes"), help.lastIndexOf("--offload="));
    assertThat(nodes).contains("default: the system's own").contains("--nodes 8");
  }

  @org.junit.jupiter.api.Test
  void unknownOption_stillSaysWhereHelpIs() {
    Captured r = runCapturingSystemErr("simulate", "--no-such-flag");
    assertThat(r.code).isEqualTo(2);
    assertThat(r.err).contains("Unknown option: '--no-such-flag'").contains("llmsim simulate --help");
    assertThat(Arrays.asList(r.out.split("\n"))).noneMatch(l -> l.startsWith("Usage:"));
  }

  /** Commands that only group others (and picocli's help), which have no example of their own. */
  static final List<List<String>> GROUPS = List.of(List.of(), List.of("hardware"), List.of("models"), List.of("help"));

  @org.junit.jupiter.api.Test
  void everyCommand_teachesByAnExample_andTheCatalogAndValidateExamplesRunAsWritten() {
    // hardware list/show/validate/schema, models list/show and validate printed none
    CommandLine root = Main.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
    for (List<String> path : commandPaths()) {
      if (GROUPS.contains(path)) {
        continue;
      }
      CommandLine cl = root;
      for (String p : path) {
        cl = cl.getSubcommands().get(p);
      }
      String name = String.join(" ", Stream.concat(Stream.of("llmsim"), path.stream()).toList());
      String line = Arrays.stream(cl.getCommandSpec().usageMessage().description())
          .filter(d -> d.startsWith("Example")).findFirst().orElse(null);
      assertThat(line).as(name).isNotNull().containsPattern("^Example[^:]*: " + java.util.regex.Pattern.quote(name) + " ");
      if (path.get(0).equals("hardware") || path.get(0).equals("models") || path.get(0).equals("validate")) {
        // as written from the checkout's root (the tests run in sim-cli/), its comment after three spaces left out
        String[] words = line.substring("Example: llmsim ".length()).split(" {3}")[0].trim().split(" ");
        for (int i = 0; i < words.length; i++) {
          java.nio.file.Path fromRoot = java.nio.file.Path.of("..", words[i]);
          if (words[i].contains("/") && java.nio.file.Files.exists(fromRoot)) {
            words[i] = fromRoot.toString();
          }
        }
        Captured r = runCapturingSystemErr(words);
        assertThat(r.code).as("%s: %s", line, r.err).isZero();
        assertThat(r.out).as(line).isNotBlank();
      }
    }
  }
}
