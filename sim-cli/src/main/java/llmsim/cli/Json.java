package llmsim.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** Deterministic JSON: insertion-ordered maps, two-space indent, newline at the end. */
final class Json {
  private static final ObjectMapper MAPPER = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Json() {}

  /**
   * A JSON object whose keys come out in the order given: {@code keysAndValues} alternates a key and its value.
   * {@code Map.of} would do for lookups, but its iteration order changes from one JVM start to the next, and so
   * would the bytes written.
   */
  static java.util.Map<String, Object> object(Object... keysAndValues) {
    if (keysAndValues.length % 2 != 0) {
      throw new IllegalArgumentException("keys and values must alternate, got " + keysAndValues.length + " items");
    }
    java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      m.put((String) keysAndValues[i], keysAndValues[i + 1]);
    }
    return m;
  }

  static String write(Object value) {
    try {
      return MAPPER.writeValueAsString(value) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
