package llmsim.hw.yaml;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads YAML or JSON with Jackson's streaming parser into {@link Node}s that carry their position.
 * Duplicate keys and syntax errors become {@link Problem}s with line and column.
 */
public final class TreeReader {
  private static final YAMLFactory YAML = new YAMLFactory();
  private static final JsonFactory JSON = new JsonFactory();

  private TreeReader() {}

  public static Node readFile(Path path) {
    String name = path.toString();
    String text;
    try {
      text = Files.readString(path, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new InputException(new Problem(name, 0, 0, "no such file"));
    } catch (IOException e) {
      throw new InputException(new Problem(name, 0, 0, "cannot read: " + e.getMessage()));
    }
    return read(name, text);
  }

  /** Parse {@code text}; a name ending in .json is read as JSON, anything else as YAML. */
  public static Node read(String name, String text) {
    JsonFactory factory = name.endsWith(".json") ? JSON : YAML;
    List<Problem> problems = new ArrayList<>();
    try (JsonParser p = factory.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new InputException(new Problem(name, 1, 1, "the file is empty"));
      }
      Node root = value(name, p, problems);
      if (p.nextToken() != null) {
        JsonLocation l = p.currentTokenLocation();
        problems.add(new Problem(name, l.getLineNr(), l.getColumnNr(), "unexpected content after the document"));
      }
      if (!problems.isEmpty()) {
        throw new InputException(problems);
      }
      return root;
    } catch (JsonProcessingException e) {
      JsonLocation l = e.getLocation();
      String msg = e.getOriginalMessage().lines().findFirst().orElse("syntax error");
      problems.add(new Problem(name, l == null ? 0 : l.getLineNr(), l == null ? 0 : l.getColumnNr(),
          "does not parse: " + msg));
      throw new InputException(problems);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Node value(String file, JsonParser p, List<Problem> problems) throws IOException {
    JsonLocation loc = p.currentTokenLocation();
    int line = loc.getLineNr();
    int col = loc.getColumnNr();
    JsonToken t = p.currentToken();
    switch (t) {
      case START_OBJECT: {
        Map<String, Node> fields = Node.newFields();
        Map<String, int[]> keys = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          JsonLocation kl = p.currentTokenLocation();
          p.nextToken();
          Node v = value(file, p, problems);
          if (fields.containsKey(key)) {
            problems.add(new Problem(file, kl.getLineNr(), kl.getColumnNr(),
                "duplicate key '" + key + "' (first at line " + keys.get(key)[0] + ")"));
            continue;
          }
          fields.put(key, v);
          keys.put(key, new int[] {kl.getLineNr(), kl.getColumnNr()});
        }
        return new Node(file, Node.Kind.OBJECT, line, col, null, fields, keys, null);
      }
      case START_ARRAY: {
        List<Node> items = new ArrayList<>();
        while (p.nextToken() != JsonToken.END_ARRAY) {
          items.add(value(file, p, problems));
        }
        return new Node(file, Node.Kind.ARRAY, line, col, null, null, null, items);
      }
      case VALUE_STRING:
        return new Node(file, Node.Kind.STRING, line, col, p.getText(), null, null, null);
      case VALUE_NUMBER_INT: {
        Number n = p.getNumberValue();
        Object v = n instanceof BigInteger ? (Object) n.doubleValue() : (Object) n.longValue();
        return new Node(file, n instanceof BigInteger ? Node.Kind.NUMBER : Node.Kind.INTEGER, line, col, v, null, null, null);
      }
      case VALUE_NUMBER_FLOAT:
        return new Node(file, Node.Kind.NUMBER, line, col, p.getDoubleValue(), null, null, null);
      case VALUE_TRUE:
      case VALUE_FALSE:
        return new Node(file, Node.Kind.BOOLEAN, line, col, t == JsonToken.VALUE_TRUE, null, null, null);
      case VALUE_NULL:
        return new Node(file, Node.Kind.NULL, line, col, null, null, null, null);
      default:
        throw new InputException(new Problem(file, line, col, "unsupported YAML construct " + t));
    }
  }
}
