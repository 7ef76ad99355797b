package llmsim.hw.yaml;

/** One thing wrong with an input file, at a line and column (1-based; 0 when unknown). */
public record Problem(String file, int line, int column, String message) implements Comparable<Problem> {

  @Override
  public String toString() {
    if (line <= 0) {
      return file + ": " + message;
    }
    return file + ":" + line + ":" + column + ": " + message;
  }

  @Override
  public int compareTo(Problem o) {
    int c = file.compareTo(o.file);
    if (c != 0) {
      return c;
    }
    c = Integer.compare(line, o.line);
    return c != 0 ? c : Integer.compare(column, o.column);
  }
}
