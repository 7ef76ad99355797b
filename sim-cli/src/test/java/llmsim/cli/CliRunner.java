package llmsim.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs the CLI in-process with captured output. */
record CliRunner(int code, String out, String err) {
  static CliRunner run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = Main.execute(args, new PrintWriter(out), new PrintWriter(err));
    return new CliRunner(code, out.toString(), err.toString());
  }
}
