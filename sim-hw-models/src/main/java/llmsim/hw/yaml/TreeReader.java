package llmsim.hw.yaml;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.io.StringReader;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.events.AliasEvent;
import org.yaml.snakeyaml.events.Event;
import org.yaml.snakeyaml.events.NodeEvent;

/**
 * Reads YAML or JSON with Jackson's streaming parser into {@link Node}s that carry their position.
 * Duplicate keys, syntax errors, YAML anchors and aliases, non-finite numbers and nesting deeper than
 * {@link #MAX_DEPTH} become {@link Problem}s with line and column. Files are read by {@link InputFiles}.
 */
public final class TreeReader {
  /** Our files nest four levels at most; anything much deeper is a mistake or an attack. */
  public static final int MAX_DEPTH = 64;

  // Both parsers get limits above ours, so that our own message (with its position) is the one users see.
  private static final StreamReadConstraints CONSTRAINTS = StreamReadConstraints.builder()
      .maxNestingDepth(MAX_DEPTH * 4).maxNumberLength(1000).maxStringLength(InputFiles.MAX_BYTES).build();
  private static final YAMLFactory YAML = YAMLFactory.builder().loaderOptions(loaderOptions())
      .streamReadConstraints(CONSTRAINTS).build();
  private static final JsonFactory JSON = JsonFactory.builder().streamReadConstraints(CONSTRAINTS).build();

  private TreeReader() {}

  private static LoaderOptions loaderOptions() {
    LoaderOptions o = new LoaderOptions();
    o.setNestingDepthLimit(MAX_DEPTH * 4);
    o.setCodePointLimit(InputFiles.MAX_BYTES);
    o.setMaxAliasesForCollections(0);
    o.setAllowRecursiveKeys(false);
    return o;
  }

  /** Read a user's file (size-capped, UTF-8) and parse it; the path as given names it in messages. */
  public static Node readFile(java.nio.file.Path path) {
    String name = path.toString();
    return read(name, InputFiles.readText(path));
  }

  /** Parse {@code text}; a name ending in .json is read as JSON, anything else as YAML. */
  public static Node read(String name, String text) {
    boolean json = name.endsWith(".json");
    JsonFactory factory = json ? JSON : YAML;
    List<Problem> problems = new ArrayList<>();
    if (!json) {
      refuseAnchorsAndAliases(name, text);
    }
    try (JsonParser p = factory.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new InputException(new Problem(name, 1, 1, "the file is empty"));
      }
      Node root = value(name, p, problems, 1);
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
      int line = l == null ? 0 : l.getLineNr();
      int col = l == null ? 0 : l.getColumnNr();
      java.util.regex.Matcher nonFinite = NON_FINITE.matcher(String.valueOf(e.getOriginalMessage()));
      if (nonFinite.find()) {
        // YAML's .nan/.inf and JSON's NaN/Infinity: the parser said "Malformed numeric value" or told the user to
        // enable a Jackson feature, at the end of the value; 1e400 was already "not a finite number" at its start
        String literal = nonFinite.group(1);
        String lineText = line < 1 ? "" : text.lines().skip(line - 1).findFirst().orElse("");
        int at = lineText.indexOf(literal);
        problems.add(new Problem(name, line, at < 0 ? col : at + 1, "'" + literal + "' is not a finite number"));
        throw new InputException(problems);
      }
      problems.add(new Problem(name, line, col, "does not parse: " + parserMessage(e)));
      throw new InputException(problems);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException e) {
      if (e instanceof InputException) {
        throw e;
      }
      // SnakeYAML reports some malformed input (bad escapes, stray control characters) unchecked.
      problems.add(new Problem(name, 0, 0, "does not parse: " + firstLine(e.getMessage())));
      throw new InputException(problems);
    }
  }

  private static final java.util.regex.Pattern NON_FINITE = java.util.regex.Pattern.compile(
      "^(?:Malformed numeric value|Non-standard token) '([-+]?(?:\\.(?:nan|NaN|NAN|inf|Inf|INF)|NaN|Infinity|INF))'");

  private static String parserMessage(JsonProcessingException e) {
    String msg = e.getOriginalMessage();
    if (msg != null && msg.contains("getMaxNestingDepth")) {
      return "nesting deeper than " + MAX_DEPTH + " levels";
    }
    if (msg != null && msg.contains("(TAB)")) {
      // SnakeYAML's first line ("while scanning for the next token") does not say what it found
      return "a tab character, which YAML does not allow for indentation or before a value; use spaces";
    }
    String line = firstLine(msg);
    for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
      // SnakeYAML's first line is where it was ("while parsing a flow sequence"); what it found comes after
      if (c instanceof MarkedYAMLException m && m.getProblem() != null) {
        line = (m.getContext() == null ? "" : m.getContext() + ": ") + m.getProblem().replace("<stream end>",
            "the end of the file");
        break;
      }
    }
    if (line.startsWith("Expected a field name")) {
      return "expected a key, found " + (line.contains("MappingStart") ? "a mapping" : line.contains("SequenceStart")
          ? "a list" : "something else") + " (keys are plain words; '? ' complex keys are not supported)";
    }
    // never show the parser's internals (class names, event dumps) to a user
    return line.replaceAll("<?(org\\.yaml\\.snakeyaml|com\\.fasterxml\\.jackson)[\\w.$]*(\\([^)]*\\))?>?", "(parser detail)");
  }

  private static String firstLine(String msg) {
    return msg == null ? "syntax error" : msg.lines().findFirst().orElse("syntax error");
  }

  private static Node value(String file, JsonParser p, List<Problem> problems, int depth) throws IOException {
    JsonLocation loc = p.currentTokenLocation();
    int line = loc.getLineNr();
    int col = loc.getColumnNr();
    JsonToken t = p.currentToken();
    if (p instanceof YAMLParser y && y.isCurrentAlias()) {
      throw new InputException(aliasProblem(file, line, col, y.getText()));
    }
    if ((t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) && depth > MAX_DEPTH) {
      throw new InputException(new Problem(file, line, col, "nesting deeper than " + MAX_DEPTH + " levels"));
    }
    switch (t) {
      case START_OBJECT: {
        Map<String, Node> fields = Node.newFields();
        Map<String, int[]> keys = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String key = p.currentName();
          JsonLocation kl = p.currentTokenLocation();
          p.nextToken();
          Node v = value(file, p, problems, depth + 1);
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
          items.add(value(file, p, problems, depth + 1));
        }
        return new Node(file, Node.Kind.ARRAY, line, col, null, null, null, items);
      }
      case VALUE_STRING:
        return new Node(file, Node.Kind.STRING, line, col, p.getText(), null, null, null);
      case VALUE_NUMBER_INT: {
        Number n = p.getNumberValue();
        Object v = n instanceof BigInteger ? n : (Object) n.longValue();
        return new Node(file, Node.Kind.INTEGER, line, col, v, null, null, null);
      }
      case VALUE_NUMBER_FLOAT: {
        double d = p.getDoubleValue();
        if (!Double.isFinite(d)) {
          problems.add(new Problem(file, line, col, "'" + p.getText() + "' is not a finite number"));
        }
        return new Node(file, Node.Kind.NUMBER, line, col, d, null, null, null);
      }
      case VALUE_TRUE:
      case VALUE_FALSE:
        return new Node(file, Node.Kind.BOOLEAN, line, col, t == JsonToken.VALUE_TRUE, null, null, null);
      case VALUE_NULL:
        return new Node(file, Node.Kind.NULL, line, col, null, null, null, null);
      default:
        throw new InputException(new Problem(file, line, col, "unsupported YAML construct " + t));
    }
  }

  /**
   * Jackson reads an alias as the anchor's name instead of its value ({@code *llama-7b} would silently
   * name llama-7b), and aliases can multiply a small file into a huge tree; so neither is accepted. Jackson
   * does not expose a scalar's anchor, so SnakeYAML's events are scanned first; a syntax error there is
   * left for Jackson to report.
   */
  private static void refuseAnchorsAndAliases(String file, String text) {
    try {
      for (Event e : new Yaml(loaderOptions()).parse(new StringReader(text))) {
        if (e instanceof AliasEvent a) {
          throw new InputException(aliasProblem(file, e.getStartMark().getLine() + 1, e.getStartMark().getColumn() + 1,
              a.getAnchor()));
        }
        if (e instanceof NodeEvent n && n.getAnchor() != null) {
          throw new InputException(new Problem(file, e.getStartMark().getLine() + 1, e.getStartMark().getColumn() + 1,
              "YAML anchors (&" + n.getAnchor() + ") are not supported: write each value out"));
        }
      }
    } catch (YAMLException e) {
      // not YAML at all: Jackson's parse below reports it with its position
    }
  }

  private static Problem aliasProblem(String file, int line, int col, String name) {
    return new Problem(file, line, col, "YAML aliases (*" + name + ") are not supported: write the value out");
  }
}
