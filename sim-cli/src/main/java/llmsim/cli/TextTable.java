package llmsim.cli;

import java.util.ArrayList;
import java.util.List;
import llmsim.report.Escape;

/** A plain-text table with aligned columns, and the same rows as CSV. */
final class TextTable {
  private final List<String> header;
  private final List<List<String>> rows = new ArrayList<>();

  TextTable(List<String> header) {
    this.header = List.copyOf(header);
  }

  TextTable row(List<String> cells) {
    if (cells.size() != header.size()) {
      throw new IllegalArgumentException("row has " + cells.size() + " cells, header " + header.size());
    }
    rows.add(List.copyOf(cells));
    return this;
  }

  /** A cell as a terminal shows it: control characters (ESC, NUL, line breaks) as visible escapes, one line. */
  private static String shown(String cell) {
    return Escape.terminal(cell, false);
  }

  List<String> header() {
    return header;
  }

  List<List<String>> rows() {
    return List.copyOf(rows);
  }

  String render() {
    int[] w = new int[header.size()];
    for (int i = 0; i < w.length; i++) {
      w[i] = shown(header.get(i)).length();
      for (List<String> r : rows) {
        w[i] = Math.max(w[i], shown(r.get(i)).length());
      }
    }
    StringBuilder sb = new StringBuilder();
    line(sb, header, w);
    StringBuilder rule = new StringBuilder();
    for (int i = 0; i < w.length; i++) {
      rule.append(i == 0 ? "" : "  ").append("-".repeat(w[i]));
    }
    sb.append(rule).append('\n');
    for (List<String> r : rows) {
      line(sb, r, w);
    }
    return sb.toString();
  }

  private static void line(StringBuilder sb, List<String> cells, int[] w) {
    StringBuilder l = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      if (i > 0) {
        l.append("  ");
      }
      String c = shown(cells.get(i));
      l.append(c).append(" ".repeat(w[i] - c.length()));
    }
    sb.append(l.toString().stripTrailing()).append('\n');
  }

  String csv() {
    StringBuilder sb = new StringBuilder();
    sb.append(csvLine(header));
    for (List<String> r : rows) {
      sb.append(csvLine(r));
    }
    return sb.toString();
  }

  static String csvLine(List<String> cells) {
    return String.join(",", cells.stream().map(Escape::csv).toList()) + "\n";
  }
}
