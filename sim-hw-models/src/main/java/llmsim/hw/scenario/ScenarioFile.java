package llmsim.hw.scenario;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import llmsim.core.cost.PriceOverride;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioValues;
import llmsim.hw.catalog.FileRefs;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;

/**
 * A scenario file: the keys of the {@link ScenarioKey} table ({@code hardware}, {@code model}, {@code task}, ...),
 * checked against the schema generated from it. Relative {@code hardware:} and {@code model:} paths resolve
 * against the file's folder.
 */
public final class ScenarioFile {
  private ScenarioFile() {}

  /**
   * The scenario keys as written, with the node each came from (to point at its line).
   *
   * @param folder the folder relative paths resolve against (null for none)
   */
  public record Raw(ScenarioValues values, Map<ScenarioKey, Node> nodes, Path folder) {
    public List<String> hardware() {
      return values.hardware();
    }

    public String model() {
      return values.model();
    }

    /** The location of a key in the file, to report a rule broken between keys. */
    public Optional<Node> node(ScenarioKey k) {
      return Optional.ofNullable(nodes.get(k));
    }

    /** A problem at the key's line, or at the file's first line when the key is absent. */
    public Problem problem(ScenarioKey k, String message) {
      Node n = nodes.get(k);
      if (n != null) {
        return n.problem(message);
      }
      Node any = nodes.values().stream().findFirst().orElse(null);
      return any == null ? new Problem("scenario", 0, 0, message) : new Problem(any.file(), 1, 1, message);
    }
  }

  public static final Raw EMPTY = new Raw(ScenarioValues.empty(), Map.of(), null);

  public static Raw read(Path path) {
    Node n = TreeReader.readFile(path);
    SchemaValidator.forKind("scenario").validate(n);
    Path folder = path.getParent() == null ? Path.of("") : path.getParent();
    return fromNode(n, folder);
  }

  /** Bind an already-checked scenario node (also used inside validation case files). */
  public static Raw fromNode(Node n, Path folder) {
    EnumMap<ScenarioKey, Object> values = new EnumMap<>(ScenarioKey.class);
    EnumMap<ScenarioKey, Node> nodes = new EnumMap<>(ScenarioKey.class);
    List<Problem> problems = new ArrayList<>();
    for (ScenarioKey k : ScenarioKey.values()) {
      n.get(k.key()).ifPresent(v -> {
        nodes.put(k, v);
        try {
          Object parsed = v.kind() == Node.Kind.ARRAY
              ? k.parse(String.join(",", v.items().stream().map(Node::asText).toList()))
              : k.parse(v.asText());
          values.put(k, resolvePaths(k, parsed, folder));
        } catch (IllegalArgumentException e) {
          problems.add(v.problem(e.getMessage()));
        }
      });
    }
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    return new Raw(new ScenarioValues(values), nodes, folder);
  }

  /** {@code hardware:} and {@code model:} entries that name files resolve against the scenario's folder. */
  private static Object resolvePaths(ScenarioKey k, Object value, Path folder) {
    if (folder == null) {
      return value;
    }
    if (k == ScenarioKey.MODEL) {
      return resolve((String) value, folder);
    }
    if (k == ScenarioKey.PRICE) {
      PriceOverride.Entries e = (PriceOverride.Entries) value;
      return new PriceOverride.Entries(e.overrides(), e.files().stream().map(f -> resolve(f, folder)).toList());
    }
    if (k == ScenarioKey.HARDWARE) {
      @SuppressWarnings("unchecked")
      List<String> ids = (List<String>) value;
      return ids.stream().map(id -> resolve(id, folder)).toList();
    }
    return value;
  }

  private static String resolve(String idOrPath, Path folder) {
    return FileRefs.resolve(folder, idOrPath);
  }

}
