package llmsim.hw.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.Problem;

/**
 * Imports a Hugging Face {@code config.json} offline. Families: llama, mistral (and qwen2 with its
 * QKV bias), falcon / RefinedWeb, mpt, gpt_neox, chatglm (v1 and v2/v3 layouts).
 *
 * <p>Nothing falls back silently: a field that is present must have the right type and range (a
 * string "8", a 4.5 or a "yes" is an error at its line and column, not a default), required fields
 * must be there, and the shape must be consistent (heads dividing hidden_size, kv heads dividing heads).
 * An absent or {@code null} optional field takes the family's documented default.
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
    if (typeNode.kind() != Node.Kind.STRING) {
      throw new InputException(typeNode.problem("'model_type' must be a string, was " + typeNode.kind().describe()));
    }
    String type = typeNode.asText();
    Fields f = new Fields(c);
    String id = id(f, type);
    Shape s = switch (type) {
      case "llama", "mistral", "qwen2" -> llama(f, type);
      case "falcon", "RefinedWeb", "RefinedWebModel" -> falcon(f);
      case "mpt" -> mpt(f);
      case "gpt_neox" -> neox(f);
      case "chatglm" -> chatglm(f);
      default -> throw new InputException(typeNode.problem("model_type '" + type + "' is not supported (supported: "
          + String.join(", ", FAMILIES) + ")"));
    };
    f.throwIfAny();
    s.check(f);
    f.throwIfAny();
    return Binder.guarded(c, () -> s.spec(id));
  }

  private static String id(Fields f, String type) {
    String path = f.string("_name_or_path");
    String id = path == null ? "" : path.substring(path.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT)
        .replaceAll("[^a-z0-9._-]", "-").replaceAll("^[._-]+", "");
    return id.isEmpty() ? type.toLowerCase(Locale.ROOT) + "-imported" : id;
  }

  private static Shape llama(Fields f, String type) {
    Shape s = new Shape(type);
    s.hidden = f.required("hidden_size", ModelLimits.HIDDEN);
    s.heads = f.required("num_attention_heads", ModelLimits.HEADS);
    s.headsKey = "num_attention_heads";
    s.kvKey = "num_key_value_heads";
    s.kv = f.optional(s.kvKey, s.heads, ModelLimits.HEADS);
    s.headDim = f.optionalOrZero("head_dim", ModelLimits.HEAD_DIM);
    s.layers = f.required("num_hidden_layers", ModelLimits.LAYERS);
    s.ffn = f.required("intermediate_size", ModelLimits.FFN_HIDDEN);
    s.ffnKind = FfnKind.SWIGLU;
    s.vocab = f.required("vocab_size", ModelLimits.VOCAB);
    s.tied = f.bool("tie_word_embeddings", false);
    s.ctx = f.optional("max_position_embeddings", 4096, ModelLimits.CONTEXT);
    s.norm = NormKind.RMSNORM;
    s.qkvBias = type.equals("qwen2");
    return s;
  }

  private static Shape falcon(Fields f) {
    Shape s = new Shape("falcon");
    s.hidden = f.required("hidden_size", ModelLimits.HIDDEN);
    s.headsKey = f.has("num_attention_heads") ? "num_attention_heads" : "n_head";
    s.heads = f.requiredEither("num_attention_heads", "n_head", ModelLimits.HEADS);
    boolean newArch = f.bool("new_decoder_architecture", false);
    boolean multiQuery = f.bool("multi_query", true);
    if (newArch) {
      s.kvKey = f.has("num_kv_heads") ? "num_kv_heads" : "n_head_kv";
      s.kv = f.optional("num_kv_heads", f.optional("n_head_kv", s.heads, ModelLimits.HEADS), ModelLimits.HEADS);
    } else {
      s.kvKey = "multi_query";
      s.kv = multiQuery ? 1 : s.heads;
    }
    s.layers = f.requiredEither("num_hidden_layers", "n_layer", ModelLimits.LAYERS);
    s.ffn = f.optional("ffn_hidden_size", 4 * s.hidden, ModelLimits.FFN_HIDDEN);
    s.ffnKind = FfnKind.GELU_MLP;
    s.vocab = f.required("vocab_size", ModelLimits.VOCAB);
    s.tied = f.bool("tie_word_embeddings", true);
    s.ctx = f.optional("max_position_embeddings", 2048, ModelLimits.CONTEXT);
    s.norm = NormKind.LAYERNORM;
    s.bias = f.bool("bias", false);
    s.parallel = f.bool("parallel_attn", true);
    s.norms = newArch ? 2 : 1;
    return s;
  }

  private static Shape mpt(Fields f) {
    Shape s = new Shape("mpt");
    s.hidden = f.required("d_model", ModelLimits.HIDDEN);
    s.heads = f.required("n_heads", ModelLimits.HEADS);
    s.headsKey = "n_heads";
    s.kv = s.heads;
    double ratio = f.number("expansion_ratio", 4, 64);
    s.ffn = (int) Math.max(1, Math.min(ModelLimits.FFN_HIDDEN, Math.round(s.hidden * ratio)));
    s.ffnKind = FfnKind.GELU_MLP;
    s.layers = f.required("n_layers", ModelLimits.LAYERS);
    s.vocab = f.required("vocab_size", ModelLimits.VOCAB);
    s.tied = true;
    s.ctx = f.optional("max_seq_len", 2048, ModelLimits.CONTEXT);
    boolean noBias = f.bool("no_bias", true);
    s.norm = noBias ? NormKind.LAYERNORM_NO_BIAS : NormKind.LAYERNORM;
    s.bias = !noBias;
    return s;
  }

  private static Shape neox(Fields f) {
    Shape s = new Shape("gpt_neox");
    s.hidden = f.required("hidden_size", ModelLimits.HIDDEN);
    s.heads = f.required("num_attention_heads", ModelLimits.HEADS);
    s.headsKey = "num_attention_heads";
    s.kv = s.heads;
    s.layers = f.required("num_hidden_layers", ModelLimits.LAYERS);
    s.ffn = f.required("intermediate_size", ModelLimits.FFN_HIDDEN);
    s.ffnKind = FfnKind.GELU_MLP;
    s.vocab = f.required("vocab_size", ModelLimits.VOCAB);
    s.tied = f.bool("tie_word_embeddings", false);
    s.ctx = f.optional("max_position_embeddings", 2048, ModelLimits.CONTEXT);
    s.norm = NormKind.LAYERNORM;
    s.bias = true;
    s.parallel = f.bool("use_parallel_residual", true);
    return s;
  }

  private static Shape chatglm(Fields f) {
    Shape s = new Shape("chatglm");
    s.hidden = f.required("hidden_size", ModelLimits.HIDDEN);
    s.heads = f.required("num_attention_heads", ModelLimits.HEADS);
    s.headsKey = "num_attention_heads";
    s.layers = f.required("num_layers", ModelLimits.LAYERS);
    if (f.has("ffn_hidden_size")) {
      s.kvKey = "multi_query_group_num";
      s.kv = f.bool("multi_query_attention", false) ? f.optional("multi_query_group_num", s.heads, ModelLimits.HEADS)
          : s.heads;
      s.headDim = f.optionalOrZero("kv_channels", ModelLimits.HEAD_DIM);
      s.ffn = f.required("ffn_hidden_size", ModelLimits.FFN_HIDDEN);
      s.ffnKind = FfnKind.SWIGLU;
      s.vocab = f.has("padded_vocab_size") ? f.required("padded_vocab_size", ModelLimits.VOCAB)
          : f.required("vocab_size", ModelLimits.VOCAB);
      s.tied = false;
      s.ctx = f.optional("seq_length", 8192, ModelLimits.CONTEXT);
      s.norm = f.bool("rmsnorm", true) ? NormKind.RMSNORM : NormKind.LAYERNORM;
      s.qkvBias = f.bool("add_qkv_bias", true);
      return s;
    }
    s.kv = s.heads;
    s.ffn = f.optional("inner_hidden_size", 4 * s.hidden, ModelLimits.FFN_HIDDEN);
    s.ffnKind = FfnKind.GELU_MLP;
    s.vocab = f.required("vocab_size", ModelLimits.VOCAB);
    s.tied = true;
    s.ctx = f.optional("max_sequence_length", 2048, ModelLimits.CONTEXT);
    s.norm = NormKind.LAYERNORM;
    s.bias = true;
    return s;
  }

  /** The shape as read; {@link #check} adds the rules between fields. */
  private static final class Shape {
    final String family;
    int layers = 1;
    int hidden = 1;
    int heads = 1;
    int kv = 1;
    int headDim;
    int ffn = 1;
    int vocab = 1;
    int ctx = 1;
    int norms = 2;
    boolean tied;
    boolean bias;
    boolean qkvBias;
    boolean parallel;
    FfnKind ffnKind;
    NormKind norm;
    String headsKey;
    String kvKey;

    Shape(String family) {
      this.family = family;
    }

    void check(Fields f) {
      if (headDim == 0 && hidden % heads != 0) {
        f.add(f.at(headsKey), "'" + headsKey + "' (" + heads + ") must divide hidden_size (" + hidden
            + ") when no head dimension is given");
      }
      if (kv > heads || heads % kv != 0) {
        f.add(f.at(kvKey != null && f.has(kvKey) ? kvKey : headsKey), "key/value heads (" + kv
            + ") must divide the attention heads (" + heads + ")");
      }
    }

    ModelSpec spec(String id) {
      int dim = headDim > 0 ? headDim : hidden / heads;
      ModelSpec probe = new ModelSpec(id, id, family, List.of(), layers, hidden, heads, kv, dim, ffn, ffnKind, vocab,
          tied, ctx, norm, bias, qkvBias, false, parallel, norms, 1, "imported");
      return new ModelSpec(id, id + " (imported config.json)", family, List.of(), layers, hidden, heads, kv, dim, ffn,
          ffnKind, vocab, tied, ctx, norm, bias, qkvBias, false, parallel, norms, probe.parameterCount(),
          "computed from the imported config.json (no published count to check against)");
    }
  }

  /** Typed, range-checked reads that collect every problem; a bad field reads as 1 so the rest are checked. */
  private static final class Fields {
    private final Node c;
    private final List<Problem> problems = new ArrayList<>();

    Fields(Node c) {
      this.c = c;
    }

    boolean has(String key) {
      return c.get(key).filter(n -> n.kind() != Node.Kind.NULL).isPresent();
    }

    Node at(String key) {
      return c.get(key).orElse(c);
    }

    void add(Node at, String message) {
      problems.add(at.problem(message));
    }

    void throwIfAny() {
      if (!problems.isEmpty()) {
        throw new InputException(problems);
      }
    }

    int required(String key, int max) {
      if (!has(key)) {
        problems.add(c.get(key).map(n -> n.problem("'" + key + "' must be a positive integer, was null"))
            .orElse(c.problem("missing required field '" + key + "'")));
        return 1;
      }
      return integer(key, max);
    }

    int requiredEither(String key, String alternative, int max) {
      if (!has(key) && !has(alternative)) {
        problems.add(c.problem("missing required field '" + key + "' (or '" + alternative + "')"));
        return 1;
      }
      return integer(has(key) ? key : alternative, max);
    }

    int optional(String key, int fallback, int max) {
      return has(key) ? integer(key, max) : fallback;
    }

    /** An optional positive integer, 0 when absent. */
    int optionalOrZero(String key, int max) {
      return has(key) ? integer(key, max) : 0;
    }

    private int integer(String key, int max) {
      Node n = c.require(key);
      if (n.kind() != Node.Kind.INTEGER) {
        problems.add(n.problem("'" + key + "' must be an integer, was " + describe(n)));
        return 1;
      }
      long v = n.asLong();
      if (v < 1 || v > max) {
        problems.add(n.problem("'" + key + "' must be " + (v < 1 ? ">= 1" : "<= " + max) + ", was " + n.asText()));
        return 1;
      }
      return (int) v;
    }

    double number(String key, double fallback, double max) {
      if (!has(key)) {
        return fallback;
      }
      Node n = c.require(key);
      if (!n.isNumber()) {
        problems.add(n.problem("'" + key + "' must be a number, was " + describe(n)));
        return fallback;
      }
      double v = n.asDouble();
      if (!(v > 0 && v <= max)) {
        problems.add(n.problem("'" + key + "' must be " + (v > 0 ? "<= " + (long) max : "> 0") + ", was " + n.asText()));
        return fallback;
      }
      return v;
    }

    boolean bool(String key, boolean fallback) {
      if (!has(key)) {
        return fallback;
      }
      Node n = c.require(key);
      if (n.kind() != Node.Kind.BOOLEAN) {
        problems.add(n.problem("'" + key + "' must be true or false, was " + describe(n)));
        return fallback;
      }
      return n.asBoolean();
    }

    String string(String key) {
      if (!has(key)) {
        return null;
      }
      Node n = c.require(key);
      if (n.kind() != Node.Kind.STRING) {
        problems.add(n.problem("'" + key + "' must be a string, was " + describe(n)));
        return null;
      }
      return n.asText();
    }

    private static String describe(Node n) {
      return switch (n.kind()) {
        case STRING -> "a string \"" + n.shortText() + "\"";
        case INTEGER, NUMBER, BOOLEAN -> n.asText();
        default -> n.kind().describe();
      };
    }
  }
}
