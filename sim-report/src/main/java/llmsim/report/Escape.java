package llmsim.report;

/**
 * Escaping for strings that reach HTML, XML, JSON, CSV or a terminal. Names come from files the user gives
 * (a Hugging Face config.json's {@code _name_or_path}, a device .yaml), so they may hold anything: quotes, commas,
 * line breaks, NUL, ESC.
 */
public final class Escape {
  private Escape() {}

  /** Whether XML 1.0 allows {@code c} at all (#x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD], and surrogate pairs). */
  static boolean xmlChar(int c) {
    return c == 0x9 || c == 0xA || c == 0xD || c >= 0x20 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD
        || c >= 0x10000 && c <= 0x10FFFF;
  }

  /** {@code s} without the characters XML 1.0 forbids (NUL, ESC and the other C0 controls, lone surrogates). */
  public static String xmlLegal(String s) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      int n = Character.charCount(c);
      boolean ok = xmlChar(c) && !(n == 1 && Character.isSurrogate((char) c));
      if (!ok && b == null) {
        b = new StringBuilder(s.length()).append(s, 0, i);
      } else if (ok && b != null) {
        b.appendCodePoint(c);
      }
      i += n;
    }
    return b == null ? s : b.toString();
  }

  /** Text for an HTML or XML document: forbidden characters (and the C1 controls) removed, markup escaped. */
  public static String html(String s) {
    String legal = xmlLegal(s);
    StringBuilder b = new StringBuilder(legal.length() + 16);
    for (int i = 0; i < legal.length(); i++) {
      char c = legal.charAt(i);
      if (c >= 0x7F && c <= 0x9F) {
        continue; // DEL and C1 controls: allowed by XML 1.0, but never wanted in a page
      }
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** The same as {@link #html(String)}: the five markup characters are escaped the same way in XML. */
  public static String xml(String s) {
    return html(s);
  }

  /** One CSV field per RFC 4180: quoted (quotes doubled) when it holds a comma, a quote or a line break. */
  public static String csv(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == ',' || c == '"' || c == '\n' || c == '\r') {
        return '"' + s.replace("\"", "\"\"") + '"';
      }
    }
    return s;
  }

  /**
   * Text for a terminal: every control character (C0 including ESC, DEL, C1) becomes a visible {@code \\uXXXX},
   * so a name cannot move the cursor, recolour or clear the screen. Line breaks and tabs too, when
   * {@code keepLines} is false (a table cell).
   */
  public static String terminal(String s, boolean keepLines) {
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean control = c < 0x20 || c >= 0x7F && c <= 0x9F;
      boolean allowed = !control || keepLines && (c == '\n' || c == '\t');
      if (!allowed && b == null) {
        b = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      if (b != null) {
        if (allowed) {
          b.append(c);
        } else {
          b.append(String.format("\\u%04x", (int) c));
        }
      }
    }
    return b == null ? s : b.toString();
  }

  /** A JSON string literal, quotes included; control characters escaped. */
  public static String json(String s) {
    StringBuilder b = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        case '<' -> b.append("\\u003c");
        default -> {
          if (c < 0x20) {
            b.append(String.format("\\u%04x", (int) c));
          } else {
            b.append(c);
          }
        }
      }
    }
    return b.append('"').toString();
  }
}
