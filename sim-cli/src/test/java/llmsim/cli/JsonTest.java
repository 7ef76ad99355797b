package llmsim.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void object_writesItsKeysInTheOrderGiven() {
    // neither alphabetical nor hash order: only insertion order produces this text
    String text = Json.write(Json.object("reason", "r", "hardware", "h", "gpus", 8, "amount", 1.5));
    assertEquals(List.of("reason", "hardware", "gpus", "amount"), keysInOrder(text));
  }

  @Test
  void object_refusesAKeyWithoutItsValue() {
    assertThrows(IllegalArgumentException.class, () -> Json.object("hardware", "h", "gpus"));
  }

  private static List<String> keysInOrder(String text) {
    return text.lines().map(String::strip).filter(l -> l.startsWith("\"")).map(l -> l.substring(1, l.indexOf('"', 1)))
        .toList();
  }
}
