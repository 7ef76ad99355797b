package llmsim.cli;

import java.io.Console;
import java.io.FilterWriter;
import java.io.IOException;
import java.io.Writer;
import llmsim.report.Escape;

/**
 * What a terminal is sent: control characters (ESC, NUL, ...) in names the user's files brought in become visible
 * {@code \}{@code uXXXX} escapes, so they cannot recolour, move the cursor or clear the screen. Line breaks and
 * tabs pass, and carriage returns where asked (the progress bar on stderr). Used only when a terminal is attached:
 * piped output stays byte for byte what the format says (JSON and CSV escape on their own).
 */
final class TerminalWriter extends FilterWriter {
  private final boolean carriageReturns;

  TerminalWriter(Writer out, boolean carriageReturns) {
    super(out);
    this.carriageReturns = carriageReturns;
  }

  @Override
  public void write(int c) throws IOException {
    write(String.valueOf((char) c), 0, 1);
  }

  @Override
  public void write(char[] cbuf, int off, int len) throws IOException {
    write(new String(cbuf, off, len), 0, len);
  }

  @Override
  public void write(String s, int off, int len) throws IOException {
    String part = s.substring(off, off + len);
    if (!carriageReturns) {
      out.write(Escape.terminal(part, true));
      return;
    }
    String[] pieces = part.split("\r", -1);
    for (int i = 0; i < pieces.length; i++) {
      if (i > 0) {
        out.write('\r');
      }
      out.write(Escape.terminal(pieces[i], true));
    }
  }

  /** Whether standard output is a terminal (JDK 22+ has a console even when piped, and says so by isTerminal()). */
  static boolean attached() {
    Console c = System.console();
    if (c == null) {
      return false;
    }
    try {
      return (Boolean) Console.class.getMethod("isTerminal").invoke(c);
    } catch (ReflectiveOperationException e) {
      return true; // before JDK 22 a console exists only for a terminal
    }
  }
}
