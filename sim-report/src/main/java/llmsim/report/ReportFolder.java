package llmsim.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The files one run writes into an {@code --out} folder, as a unit. Each file is staged under a temporary name
 * while the (slow) charts are drawn; {@link #commit()} moves them all into place at the end (a quick series of
 * renames), then removes the files an earlier run of the same kind wrote there and this run did not, so two runs
 * into one folder never leave a mix. Which files llmsim wrote is kept in {@value #MANIFEST} in the folder, one
 * {@code kind<TAB>name} per line; files it does not list are never touched. {@link #close()} without a commit
 * deletes the staged files and leaves the folder as it was.
 */
public final class ReportFolder implements AutoCloseable {
  public static final String MANIFEST = ".llmsim-files";

  private final Path dir;
  private final String kind;
  private final Map<String, AtomicFiles.Staged> staged = new LinkedHashMap<>();

  private ReportFolder(Path dir, String kind) {
    this.dir = dir;
    this.kind = kind;
  }

  /** A run of {@code kind} (for example {@code report}, {@code roofline}) writing into the existing folder {@code dir}. */
  public static ReportFolder open(Path dir, String kind) {
    if (!plainName(kind)) {
      throw new IllegalArgumentException("report kind must be a plain word, was '" + kind + "'");
    }
    return new ReportFolder(dir, kind);
  }

  public Path dir() {
    return dir;
  }

  /** Stages {@code name} (a plain file name); returns where it will be once committed. */
  public Path write(String name, AtomicFiles.Writer w) throws IOException {
    if (!plainName(name) || name.equals(MANIFEST)) {
      throw new IllegalArgumentException("not a plain file name for a report file: '" + name + "'");
    }
    if (staged.containsKey(name)) {
      throw new IllegalStateException(name + " is written twice in one report");
    }
    AtomicFiles.Staged s = AtomicFiles.stage(dir.resolve(name));
    staged.put(name, s);
    try (var out = Files.newOutputStream(s.tmp())) {
      w.write(out);
    }
    return s.target();
  }

  public Path writeString(String name, String text) throws IOException {
    return write(name, out -> out.write(text.getBytes(StandardCharsets.UTF_8)));
  }

  /** Moves every staged file into place; returns the files of an earlier run of this kind that were removed. */
  public List<Path> commit() throws IOException {
    Map<String, String> before = readManifest(); // name -> kind
    for (AtomicFiles.Staged s : staged.values()) {
      s.commit();
    }
    List<Path> removed = new ArrayList<>();
    Map<String, String> after = new LinkedHashMap<>();
    for (Map.Entry<String, String> e : before.entrySet()) {
      if (staged.containsKey(e.getKey())) {
        continue; // rewritten now, by this kind
      }
      if (e.getValue().equals(kind)) {
        Path stale = dir.resolve(e.getKey());
        if (Files.deleteIfExists(stale)) {
          removed.add(stale);
        }
      } else {
        after.put(e.getKey(), e.getValue());
      }
    }
    staged.keySet().forEach(name -> after.put(name, kind));
    TreeSet<String> lines = new TreeSet<>();
    after.forEach((name, k) -> lines.add(k + "\t" + name));
    AtomicFiles.writeString(dir.resolve(MANIFEST), String.join("\n", lines) + "\n");
    return removed;
  }

  /** Deletes whatever was staged and not committed. */
  @Override
  public void close() {
    staged.values().forEach(AtomicFiles.Staged::close);
  }

  private Map<String, String> readManifest() throws IOException {
    Map<String, String> m = new LinkedHashMap<>();
    Path f = dir.resolve(MANIFEST);
    if (!Files.isRegularFile(f)) {
      return m;
    }
    for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
      int tab = line.indexOf('\t');
      if (tab < 0) {
        continue;
      }
      String k = line.substring(0, tab);
      String name = line.substring(tab + 1);
      // a hand-edited manifest must not make llmsim delete anything outside the folder or a file it never writes
      if (plainName(k) && plainName(name) && !name.equals(MANIFEST)) {
        m.put(name, k);
      }
    }
    return m;
  }

  /** No folder separators and no leading dot, so never "..", a hidden file or a path outside the folder. */
  private static boolean plainName(String s) {
    return !s.isEmpty() && s.matches("[A-Za-z0-9_][A-Za-z0-9._-]*");
  }
}
