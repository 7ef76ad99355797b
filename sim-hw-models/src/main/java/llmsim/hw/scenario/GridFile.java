package llmsim.hw.scenario;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.TreeReader;

/** A sweep grid file: each key one value or a list; values come back as text, in file order. */
public final class GridFile {
  private GridFile() {}

  /**
   * A problem with {@code key}'s value, moved to the key's line in the grid file (as a scenario file's unknown id is);
   * null where the file has no such key.
   */
  public static llmsim.hw.yaml.Problem problemAt(Path path, String key, String message) {
    Node n = TreeReader.readFile(path);
    return n.get(key).isPresent() ? n.problemAtKey(key, message) : null;
  }

  public static Map<String, List<String>> read(Path path) {
    Node n = TreeReader.readFile(path);
    SchemaValidator.forKind("grid").validate(n);
    Map<String, List<String>> out = new LinkedHashMap<>();
    // a value listed twice would run its rows twice: refused at its line here (the sweep also refuses one given
    // twice by two aliases, or by a flag, naming the flag)
    List<llmsim.hw.yaml.Problem> repeats = new java.util.ArrayList<>();
    n.fields().forEach((k, v) -> {
      if (v.kind() == Node.Kind.ARRAY) {
        Map<String, Node> seen = new java.util.HashMap<>();
        for (Node item : v.items()) {
          Node first = seen.putIfAbsent(item.asText(), item);
          if (first != null) {
            repeats.add(item.problem("'" + k + "' lists " + item.asText() + " twice (first at line " + first.line()
                + "); name each once"));
          }
        }
      }
    });
    if (!repeats.isEmpty()) {
      throw new llmsim.hw.yaml.InputException(repeats);
    }
    n.fields().forEach((k, v) -> {
      if (!k.equals("kind") && !k.equals("description")) {
        out.put(k, v.kind() == Node.Kind.ARRAY ? v.items().stream().map(Node::asText).toList() : List.of(v.asText()));
      }
    });
    return out;
  }
}
