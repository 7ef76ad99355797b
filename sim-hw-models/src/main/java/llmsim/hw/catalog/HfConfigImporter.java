package llmsim.hw.catalog;

import java.util.List;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;

/**
 * Imports a Hugging Face {@code config.json} offline. Families: llama, mistral (and qwen2 with its
 * QKV bias), falcon / RefinedWeb, mpt, gpt_neox, chatglm (v1 and v2/v3 layouts).
 */
public final class HfConfigImporter {
  private HfConfigImporter() {}

  public static final List<String> FAMILIES = List.of("llama", "mistral", "qwen2", "falcon", "RefinedWeb",
      "RefinedWebModel", "mpt", "gpt_neox", "chatglm");

  public static ModelSpec importConfig(Node c) {
    if (c.kind() != Node.Kind.OBJECT) {
      throw new InputException(c.problem("a config.json must be a JSON object"));
    }
    Node typeNode = c.get("model_type").orElseThrow(() -> new InputException(
        c.problem("missing 'model_type' (supported: " + String.join(", ", FAMILIES) + ")")));
    String type = typeNode.asText();
    String id = c.optStr("_name_or_path").map(s -> s.substring(s.lastIndexOf('/') + 1).toLowerCase(java.util.Locale.ROOT))
        .filter(s -> !s.isBlank()).orElse(type + "-imported");
    return Binder.guarded(c, () -> switch (type) {
      case "llama", "mistral", "qwen2" -> llama(c, id, type);
      case "falcon", "RefinedWeb", "RefinedWebModel" -> falcon(c, id);
      case "mpt" -> mpt(c, id);
      case "gpt_neox" -> neox(c, id);
      case "chatglm" -> chatglm(c, id);
      default -> throw new InputException(typeNode.problem("model_type '" + type + "' is not supported (supported: "
          + String.join(", ", FAMILIES) + ")"));
    });
  }

  private static ModelSpec llama(Node c, String id, String type) {
    int hidden = req(c, "hidden_size");
    int heads = req(c, "num_attention_heads");
    int ctx = c.integer("max_position_embeddings", 4096);
    return spec(id, type, req(c, "num_hidden_layers"), hidden, heads, c.integer("num_key_value_heads", heads),
        c.integer("head_dim", hidden / heads), req(c, "intermediate_size"), FfnKind.SWIGLU, req(c, "vocab_size"),
        c.bool("tie_word_embeddings", false), ctx, NormKind.RMSNORM, false, type.equals("qwen2"), false, false, 2);
  }

  private static ModelSpec falcon(Node c, String id) {
    int hidden = req(c, "hidden_size");
    int heads = c.integer("num_attention_heads", c.integer("n_head", 0));
    boolean newArch = c.bool("new_decoder_architecture", false);
    int kv = newArch ? c.integer("num_kv_heads", c.integer("n_head_kv", heads))
        : (c.bool("multi_query", true) ? 1 : heads);
    int layers = c.integer("num_hidden_layers", c.integer("n_layer", 0));
    return spec(id, "falcon", layers, hidden, heads, kv, hidden / heads, c.integer("ffn_hidden_size", 4 * hidden),
        FfnKind.GELU_MLP, req(c, "vocab_size"), c.bool("tie_word_embeddings", true),
        c.integer("max_position_embeddings", 2048), NormKind.LAYERNORM, c.bool("bias", false), false, false,
        c.bool("parallel_attn", true), newArch ? 2 : 1);
  }

  private static ModelSpec mpt(Node c, String id) {
    int hidden = req(c, "d_model");
    int heads = req(c, "n_heads");
    int ffn = (int) Math.round(hidden * c.num("expansion_ratio", 4));
    return spec(id, "mpt", req(c, "n_layers"), hidden, heads, heads, hidden / heads, ffn, FfnKind.GELU_MLP,
        req(c, "vocab_size"), true, c.integer("max_seq_len", 2048),
        c.bool("no_bias", true) ? NormKind.LAYERNORM_NO_BIAS : NormKind.LAYERNORM, !c.bool("no_bias", true), false,
        false, false, 2);
  }

  private static ModelSpec neox(Node c, String id) {
    int hidden = req(c, "hidden_size");
    int heads = req(c, "num_attention_heads");
    return spec(id, "gpt_neox", req(c, "num_hidden_layers"), hidden, heads, heads, hidden / heads,
        req(c, "intermediate_size"), FfnKind.GELU_MLP, req(c, "vocab_size"), c.bool("tie_word_embeddings", false),
        c.integer("max_position_embeddings", 2048), NormKind.LAYERNORM, true, false, false,
        c.bool("use_parallel_residual", true), 2);
  }

  private static ModelSpec chatglm(Node c, String id) {
    int hidden = req(c, "hidden_size");
    int heads = req(c, "num_attention_heads");
    boolean v2 = c.get("ffn_hidden_size").isPresent();
    if (v2) {
      int kv = c.bool("multi_query_attention", false) ? c.integer("multi_query_group_num", heads) : heads;
      return spec(id, "chatglm", req(c, "num_layers"), hidden, heads, kv, c.integer("kv_channels", hidden / heads),
          req(c, "ffn_hidden_size"), FfnKind.SWIGLU, c.integer("padded_vocab_size", c.integer("vocab_size", 0)),
          false, c.integer("seq_length", 8192), c.bool("rmsnorm", true) ? NormKind.RMSNORM : NormKind.LAYERNORM,
          false, c.bool("add_qkv_bias", true), false, false, 2);
    }
    return spec(id, "chatglm", req(c, "num_layers"), hidden, heads, heads, hidden / heads,
        c.integer("inner_hidden_size", 4 * hidden), FfnKind.GELU_MLP, req(c, "vocab_size"), true,
        c.integer("max_sequence_length", 2048), NormKind.LAYERNORM, true, false, false, false, 2);
  }

  private static int req(Node c, String key) {
    Node n = c.require(key);
    if (n.kind() != Node.Kind.INTEGER || n.asLong() <= 0) {
      throw new InputException(n.problem("'" + key + "' must be a positive integer, was " + n.asText()));
    }
    return Math.toIntExact(n.asLong());
  }

  private static ModelSpec spec(String id, String family, int layers, int hidden, int heads, int kv, int headDim,
      int ffn, FfnKind ffnKind, int vocab, boolean tied, int ctx, NormKind norm, boolean bias, boolean qkvBias,
      boolean learnedPos, boolean parallel, int norms) {
    ModelSpec probe = new ModelSpec(id, id, family, List.of(), layers, hidden, heads, kv, headDim, ffn, ffnKind, vocab,
        tied, ctx, norm, bias, qkvBias, learnedPos, parallel, norms, 1, "imported");
    return new ModelSpec(id, id + " (imported config.json)", family, List.of(), layers, hidden, heads, kv, headDim, ffn,
        ffnKind, vocab, tied, ctx, norm, bias, qkvBias, learnedPos, parallel, norms, probe.parameterCount(),
        "computed from the imported config.json (no published count to check against)");
  }

}
