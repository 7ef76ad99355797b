package llmsim.hw.yaml;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A parsed YAML/JSON value that remembers where it stood in its file, so that every later check can
 * name the file, line and column. Object keys keep their own positions.
 */
public final class Node {

  /** JSON-schema-like kinds. */
  public enum Kind {
    OBJECT, ARRAY, STRING, INTEGER, NUMBER, BOOLEAN, NULL;

    public String describe() {
      return switch (this) {
        case OBJECT -> "a mapping";
        case ARRAY -> "a list";
        case STRING -> "a string";
        case INTEGER -> "an integer";
        case NUMBER -> "a number";
        case BOOLEAN -> "a boolean";
        case NULL -> "null";
      };
    }
  }

  private final String file;
  private final Kind kind;
  private final int line;
  private final int column;
  private final Object scalar;
  private final Map<String, Node> fields;
  private final Map<String, int[]> keyPositions;
  private final List<Node> items;

  Node(String file, Kind kind, int line, int column, Object scalar, Map<String, Node> fields,
      Map<String, int[]> keyPositions, List<Node> items) {
    this.file = file;
    this.kind = kind;
    this.line = line;
    this.column = column;
    this.scalar = scalar;
    this.fields = fields;
    this.keyPositions = keyPositions;
    this.items = items;
  }

  public String file() {
    return file;
  }

  public Kind kind() {
    return kind;
  }

  public int line() {
    return line;
  }

  public int column() {
    return column;
  }

  public boolean isNumber() {
    return kind == Kind.NUMBER || kind == Kind.INTEGER;
  }

  public Map<String, Node> fields() {
    return fields == null ? Map.of() : Collections.unmodifiableMap(fields);
  }

  public List<Node> items() {
    return items == null ? List.of() : Collections.unmodifiableList(items);
  }

  public Optional<Node> get(String key) {
    return fields == null ? Optional.empty() : Optional.ofNullable(fields.get(key));
  }

  public Node require(String key) {
    return get(key).orElseThrow(() -> new InputException(problem("missing required field '" + key + "'")));
  }

  /** Position of a key in this mapping (line, column), or this node's position if absent. */
  public Problem problemAtKey(String key, String message) {
    int[] p = keyPositions == null ? null : keyPositions.get(key);
    return p == null ? problem(message) : new Problem(file, p[0], p[1], message);
  }

  public Problem problem(String message) {
    return new Problem(file, line, column, message);
  }

  public String asText() {
    return kind == Kind.NULL ? "null" : String.valueOf(scalar);
  }

  /** {@link #asText()} cut to 60 characters, for messages: a megabyte-long value should not fill the screen. */
  public String shortText() {
    String t = asText();
    return t.length() <= 60 ? t : t.substring(0, 57) + "... (" + t.length() + " characters)";
  }

  public double asDouble() {
    return ((Number) scalar).doubleValue();
  }

  /** The value as a long; an integer beyond the long range saturates (a schema maximum catches it first). */
  public long asLong() {
    if (scalar instanceof java.math.BigInteger b) {
      return b.signum() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return ((Number) scalar).longValue();
  }

  /** The value as an int, or a problem at this node if it does not fit (the schema's maximum should say first). */
  public int asInt() {
    long v = asLong();
    if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
      throw new InputException(problem("must be between " + Integer.MIN_VALUE + " and " + Integer.MAX_VALUE
          + ", was " + asText()));
    }
    return (int) v;
  }

  public boolean asBoolean() {
    return (Boolean) scalar;
  }

  public Object scalar() {
    return scalar;
  }

  // Typed accessors for bound (schema-checked) files.

  public String str(String key) {
    return require(key).asText();
  }

  public Optional<String> optStr(String key) {
    return get(key).filter(n -> n.kind != Kind.NULL).map(Node::asText);
  }

  public double num(String key) {
    return require(key).asDouble();
  }

  public double num(String key, double fallback) {
    return get(key).filter(Node::isNumber).map(Node::asDouble).orElse(fallback);
  }

  public int integer(String key) {
    return require(key).asInt();
  }

  public int integer(String key, int fallback) {
    return get(key).filter(Node::isNumber).map(Node::asInt).orElse(fallback);
  }

  public boolean bool(String key, boolean fallback) {
    return get(key).filter(n -> n.kind == Kind.BOOLEAN).map(Node::asBoolean).orElse(fallback);
  }

  public List<String> strings(String key) {
    return get(key).map(n -> n.items().stream().map(Node::asText).toList()).orElse(List.of());
  }

  /** A copy of this string node with other text, at the same position (a path resolved against a folder). */
  public Node withText(String text) {
    return new Node(file, Kind.STRING, line, column, text, null, null, null);
  }

  /** A copy of this mapping with {@code key}'s value replaced (the key keeps its position). */
  public Node withField(String key, Node value) {
    Map<String, Node> copy = newFields();
    copy.putAll(fields());
    copy.put(key, value);
    return new Node(file, kind, line, column, scalar, copy, keyPositions, items);
  }

  /**
   * A copy of this mapping with the field at {@code path} (keys, outermost first) set to {@code value}; missing
   * mappings on the way are created. A path through a value that is not a mapping is a problem naming it.
   */
  public Node withPath(List<String> path, Node value) {
    String key = path.get(0);
    if (path.size() == 1) {
      return withField(key, value);
    }
    Node child = get(key).orElseGet(() -> new Node(file, Kind.OBJECT, line, column, null, newFields(), null, null));
    if (child.kind != Kind.OBJECT) {
      throw new InputException(child.problem("'" + key + "' is " + child.kind.describe() + ", not a mapping"));
    }
    return withField(key, child.withPath(path.subList(1, path.size()), value));
  }

  /** The value at {@code path} (keys, outermost first), if every step is there. */
  public Optional<Node> at(List<String> path) {
    Optional<Node> n = Optional.of(this);
    for (String key : path) {
      n = n.flatMap(x -> x.get(key));
    }
    return n;
  }

  /** A copy of this list with other items. */
  public Node withItems(List<Node> newItems) {
    return new Node(file, kind, line, column, scalar, fields, keyPositions, List.copyOf(newItems));
  }

  static Map<String, Node> newFields() {
    return new LinkedHashMap<>();
  }
}
