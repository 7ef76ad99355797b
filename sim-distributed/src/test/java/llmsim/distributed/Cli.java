package llmsim.distributed;

import java.io.PrintWriter;
import java.io.StringWriter;
import llmsim.cli.Main;

/** The CLI in this JVM, output captured; {@code out} may be read while it runs (a StringWriter is synchronized). */
final class Cli {
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();
  int code = -1;

  static Cli run(String... args) {
    Cli c = new Cli();
    c.code = Main.execute(args, new PrintWriter(c.out), new PrintWriter(c.err));
    return c;
  }

  static String[] concat(String[] a, String... b) {
    String[] r = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, r, a.length, b.length);
    return r;
  }
}
