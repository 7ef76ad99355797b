package llmsim.hw.catalog;

import java.nio.file.Path;
import java.util.function.Function;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.TreeReader;

/**
 * Files named inside other files (a device's default host and link, a system's parts, a validation
 * case's hardware and model): a relative path is read against the folder of the file that names it,
 * never against the working directory, so a folder of files works from anywhere.
 */
public final class FileRefs {
  private FileRefs() {}

  /** Whether a value names a file rather than a catalog id. */
  public static boolean isFile(String value) {
    return value.endsWith(".yaml") || value.endsWith(".yml") || value.endsWith(".json") || value.contains("/");
  }

  /**
   * {@code value} resolved against {@code folder} when it names a relative file; ids, absolute paths and
   * a null folder leave it as it is.
   */
  public static String resolve(Path folder, String value) {
    if (folder == null || value.isBlank() || !isFile(value)) {
      return value;
    }
    try {
      Path p = Path.of(value);
      return p.isAbsolute() ? value : folder.resolve(p).normalize().toString();
    } catch (java.nio.file.InvalidPathException e) {
      return value;
    }
  }

  /** The folder of the file a node was read from, or null when it has none (a bundled resource). */
  static Path folderOf(Node n) {
    if (n.file().startsWith("catalog/")) {
      return null;
    }
    Path parent = Path.of(n.file()).getParent();
    return parent == null ? Path.of("") : parent;
  }

  /** Read the file {@code n.key} names (relative to n's file), check it is a {@code kind} file, and bind it. */
  static <T> T read(Node n, String key, String kind, Function<Node, T> bind) {
    Node ref = n.require(key);
    Path folder = folderOf(n);
    if (folder == null) {
      throw new InputException(ref.problem("a bundled catalog file names its parts by id, not by file"));
    }
    Path file;
    try {
      file = Path.of(resolve(folder, ref.asText()));
    } catch (java.nio.file.InvalidPathException e) {
      throw new InputException(ref.problem("'" + key + "' is not a usable file name: " + e.getReason()));
    }
    Node doc;
    try {
      doc = Catalog.checked(TreeReader.readFile(file));
    } catch (InputException e) {
      // "nest/nohost.yaml: no such file" did not say which file named it, nor where: it is said at the naming key
      Path named = file;
      if (e.problems().stream().anyMatch(p -> p.line() == 0 && p.file().equals(named.toString()))) {
        throw new InputException(e.problems().stream().map(p -> p.line() == 0 && p.file().equals(named.toString())
            ? ref.problem("'" + key + "' " + named + ": " + p.message()) : p).toList());
      }
      throw e;
    }
    if (!doc.str("kind").equals(kind)) {
      throw new InputException(ref.problem("'" + key + "' needs a " + kind + " file, " + ref.asText() + " is a "
          + doc.str("kind") + " file"));
    }
    return bind.apply(doc);
  }
}
