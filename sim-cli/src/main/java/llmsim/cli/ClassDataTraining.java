package llmsim.cli;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.util.List;

/**
 * The training run for the launcher's class-data-sharing archive ({@code -XX:ArchiveClassesAtExit}): runs
 * the short commands people type most, output discarded, so the classes they load are archived and later
 * runs map them instead of loading and verifying them again. Not a user command; exit code 0 unless a
 * command failed unexpectedly (bad-input errors are part of the training).
 */
final class ClassDataTraining {
  private ClassDataTraining() {}

  static final List<String[]> COMMANDS = List.of(
      new String[] {"simulate", "--model", "llama-7b", "--hardware", "m2-ultra"},
      new String[] {"simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--format", "json"},
      new String[] {"simulate", "--model", "llama-65b", "--task", "train", "--hardware", "13900ks-h100", "--format", "csv"},
      new String[] {"compare", "--model", "llama-7b", "--task", "inference", "--hardware", "m2-ultra,h100-sxm"},
      new String[] {"memory", "--model", "llama-65b", "--task", "inference", "--hardware", "m2-ultra,13900ks-h100"},
      new String[] {"hardware", "list"},
      new String[] {"hardware", "show", "h100-sxm"},
      new String[] {"models", "list"},
      new String[] {"models", "show", "llama-7b"},
      new String[] {"simulate", "--model", "llama-7b", "--hardware", "no-such-hardware"},
      new String[] {"simulate", "--no-such-flag"});

  public static void main(String[] args) {
    PrintWriter sink = new PrintWriter(OutputStream.nullOutputStream(), true);
    int worst = 0;
    for (String[] command : COMMANDS) {
      int code = Main.execute(command, sink, sink);
      worst = Math.max(worst, code == Main.EXIT_BAD_INPUT ? 0 : code);
    }
    System.exit(worst);
  }
}
