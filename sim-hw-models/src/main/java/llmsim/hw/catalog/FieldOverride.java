package llmsim.hw.catalog;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import llmsim.core.util.Suggest;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;

/**
 * One {@code --set ID.FIELD=VALUE}: a field of one catalog file (a system, device, host, link or model), named by
 * the file's id and the field's path in it, set to a value written as in YAML. The changed file is schema-checked
 * and bound exactly as a user's file is, so a misspelt field or a bad value gets a file's message, naming the flag.
 *
 * <p>On a system id, a field the system file does not have is its device's ({@code m2-ultra.memory.bandwidth_gb_per_s}
 * sets the M2 Ultra's GPU's bandwidth); {@code host.}, {@code device.}, {@code host_link.}, {@code device_link.} and
 * {@code network.nic.} reach a part explicitly. A part changed through a system is changed wherever the run uses it.
 *
 * @param flag the flag as typed, naming every problem it causes
 * @param target the id of the file that is changed (canonical, not an alias)
 * @param kind that file's kind
 * @param path the field's keys, outermost first
 * @param value the new value
 * @param was the catalog's value as written there, or "unset"
 */
public record FieldOverride(String flag, String target, String kind, List<String> path, Node value, String was) {

  /** Part references of a system file, and the kind of file each names. */
  private static final Map<String, String> PARTS = Map.of("host", "host", "device", "device", "host_link", "link",
      "device_link", "link");
  private static final List<String> FIXED = List.of("id", "kind", "aliases");
  static final String EXAMPLE = "m2-ultra.memory.bandwidth_gb_per_s=1600";

  public FieldOverride {
    path = List.copyOf(path);
  }

  /** The field's path as written after the id ({@code memory.bandwidth_gb_per_s}). */
  public String field() {
    return String.join(".", path);
  }

  /** The new value as written. */
  public String valueText() {
    return value.asText();
  }

  /** One line for a result: what differs from the catalog. */
  public String describe() {
    return target + " " + field() + " = " + value.shortText() + " (catalog: " + was + "; --set)";
  }

  /** Parse {@code ID.FIELD=VALUE} against the catalog {@code plain} (which it reads, never changes). */
  public static FieldOverride parse(Catalog plain, String assignment) {
    String flag = "--set " + assignment;
    int eq = assignment.indexOf('=');
    if (eq <= 0) {
      throw bad(flag, "give ID.FIELD=VALUE, for example " + EXAMPLE);
    }
    String key = assignment.substring(0, eq).strip();
    String text = assignment.substring(eq + 1).strip();
    if (text.isEmpty()) {
      throw bad(flag, "the value is empty; give ID.FIELD=VALUE, for example " + EXAMPLE);
    }
    String id = null; // the longest known prefix before a dot: ids may hold dots themselves
    for (int dot = key.indexOf('.'); dot > 0; dot = key.indexOf('.', dot + 1)) {
      if (plain.kindOf(key.substring(0, dot)) != null) {
        id = key.substring(0, dot);
      }
    }
    if (id == null) {
      String first = key.contains(".") ? key.substring(0, key.indexOf('.')) : key;
      if (!key.contains(".") && plain.kindOf(key) != null) {
        throw bad(flag, "name a field after the id: ID.FIELD=VALUE, for example " + EXAMPLE);
      }
      throw bad(flag, "unknown id '" + first + "' (nearest: " + String.join(", ", Suggest.nearest(first, plain.ids(), 3))
          + "); give a system, device, host, link or model id");
    }
    List<String> path = Arrays.asList(key.substring(id.length() + 1).split("\\.", -1));
    if (path.stream().anyMatch(String::isBlank)) {
      throw bad(flag, "the field path '" + String.join(".", path) + "' has an empty key");
    }
    String target = plain.canonical(id);
    String kind = plain.kindOf(target);
    Node doc = plain.rawNode(target);
    if (kind.equals("system")) {
      String part = path.get(0).equals("network") && path.size() > 2 && path.get(1).equals("nic") ? "nic"
          : PARTS.containsKey(path.get(0)) && path.size() > 1 ? path.get(0) : null;
      if (part != null) {
        target = part.equals("nic") ? doc.require("network").str("nic") : doc.str(part);
        kind = part.equals("nic") ? "link" : PARTS.get(part);
        path = path.subList(part.equals("nic") ? 2 : 1, path.size());
        doc = plain.rawNode(target);
      } else if (!SchemaValidator.forKind("system").hasProperty(path.get(0))) {
        target = doc.str("device");
        kind = "device";
        doc = plain.rawNode(target);
      }
    }
    if (FIXED.contains(path.get(0))) {
      throw bad(flag, "'" + path.get(0) + "' names the " + kind + " and cannot be set");
    }
    Node value;
    try {
      value = TreeReader.read("--set", text);
    } catch (InputException e) {
      throw remap(List.of(flag), e);
    }
    return new FieldOverride(flag, target, kind, path, value, doc.at(path).map(Node::shortText).orElse("unset"));
  }

  /**
   * {@code doc} with {@code overrides} applied in order, then schema-checked once, a problem naming the flags: checked
   * after each, a field and the source it needs, set by two flags ('gpu_memory_share=0.9' and
   * 'gpu_memory_share_source=...'), was refused at the first as needing the second.
   */
  static Node apply(Node doc, List<FieldOverride> overrides) {
    SchemaValidator schema = SchemaValidator.forKind(doc.str("kind"));
    for (FieldOverride o : overrides) {
      try {
        doc = doc.withPath(o.path(), o.value());
      } catch (InputException e) {
        throw remap(List.of(o.flag()), e);
      }
    }
    List<Problem> problems = schema.check(doc);
    if (!problems.isEmpty()) {
      throw remap(overrides.stream().map(FieldOverride::flag).toList(), new InputException(problems));
    }
    return doc;
  }

  /** The problems of {@code e} as the flags' own (the catalog file's position means nothing to the user). */
  static InputException remap(List<String> flags, InputException e) {
    String where = String.join(", ", flags);
    List<Problem> out = new ArrayList<>();
    e.problems().forEach(p -> out.add(new Problem(where, 0, 0, p.message())));
    return new InputException(out);
  }

  private static InputException bad(String flag, String message) {
    return new InputException(new Problem(flag, 0, 0, message));
  }
}
