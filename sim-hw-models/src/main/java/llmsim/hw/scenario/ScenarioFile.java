package llmsim.hw.scenario;

import java.nio.file.Path;
import java.util.List;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.TreeReader;

/**
 * A scenario file: the same keys as the flags ({@code hardware}, {@code model}, {@code task}, ...).
 * Values are checked against {@code scenario.schema.json}; unset keys are null and take defaults later.
 */
public final class ScenarioFile {
  private ScenarioFile() {}

  /** The scenario keys as written, null where absent. */
  public record Raw(List<String> hardware, String model, String task, String precision, String weights,
      Integer batch, Integer seqLen, Integer promptTokens, Integer generateTokens, Integer microBatches,
      Boolean activationCheckpointing, Integer loraRank, Integer prefixTokens, String offload, String software) {}

  public static final Raw EMPTY = new Raw(null, null, null, null, null, null, null, null, null, null, null, null,
      null, null, null);

  public static Raw read(Path path) {
    Node n = TreeReader.readFile(path);
    SchemaValidator.forKind("scenario").validate(n);
    return fromNode(n);
  }

  /** Bind an already-checked scenario node (also used inside validation case files). */
  public static Raw fromNode(Node n) {
    List<String> hw = n.get("hardware").map(h -> h.kind() == Node.Kind.ARRAY
        ? h.items().stream().map(Node::asText).toList() : List.of(h.asText().split(",")).stream().map(String::strip).toList())
        .orElse(null);
    return new Raw(hw, n.optStr("model").orElse(null), n.optStr("task").orElse(null),
        n.optStr("precision").orElse(null), n.optStr("weights").orElse(null), integer(n, "batch"),
        integer(n, "seq_len"), integer(n, "prompt_tokens"), integer(n, "generate_tokens"), integer(n, "micro_batches"),
        n.get("activation_checkpointing").map(Node::asBoolean).orElse(null), integer(n, "lora_rank"),
        integer(n, "prefix_tokens"), n.optStr("offload").orElse(null), n.optStr("software").orElse(null));
  }

  private static Integer integer(Node n, String key) {
    return n.get(key).map(v -> Math.toIntExact(v.asLong())).orElse(null);
  }
}
