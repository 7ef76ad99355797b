package llmsim.hw.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.TreeReader;
import org.junit.jupiter.api.Test;

class HfConfigImporterTest {
  static ModelSpec imp(String json) {
    return HfConfigImporter.importConfig(TreeReader.read("config.json", json));
  }

  @Test
  void llama2_7bConfig_givesTheCatalogParameterCount() {
    ModelSpec m = imp("{\"_name_or_path\": \"meta-llama/Llama-2-7b-hf\", \"model_type\": \"llama\", \"hidden_size\": 4096,"
        + " \"intermediate_size\": 11008, \"num_attention_heads\": 32, \"num_hidden_layers\": 32,"
        + " \"num_key_value_heads\": 32, \"vocab_size\": 32000, \"max_position_embeddings\": 4096, \"tie_word_embeddings\": false}");
    assertThat(m.id()).isEqualTo("llama-2-7b-hf");
    assertThat(m.parameterCount()).isEqualTo(Catalog.bundled().model("llama2-7b", "--model").parameterCount());
  }

  @Test
  void mistral_gqa_isImported() {
    ModelSpec m = imp("{\"model_type\": \"mistral\", \"hidden_size\": 4096, \"intermediate_size\": 14336,"
        + " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32000}");
    assertThat(m.kvHeads()).isEqualTo(8);
    assertThat(m.ffnKind()).isEqualTo(FfnKind.SWIGLU);
    // Mistral-7B: 7.24 B parameters (model card)
    assertThat(m.parameterCount() / 1e9).isBetween(7.2, 7.3);
  }

  @Test
  void falcon7b_mpt7b_chatglm2_matchTheCatalog() {
    Catalog c = Catalog.bundled();
    assertThat(imp("{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_attention_heads\": 71, \"num_hidden_layers\": 32,"
        + " \"vocab_size\": 65024, \"multi_query\": true, \"parallel_attn\": true, \"bias\": false}").parameterCount())
        .isEqualTo(c.model("falcon-7b", "-").parameterCount());
    assertThat(imp("{\"model_type\": \"mpt\", \"d_model\": 4096, \"n_heads\": 32, \"n_layers\": 32, \"expansion_ratio\": 4,"
        + " \"vocab_size\": 50432, \"max_seq_len\": 2048, \"no_bias\": true}").parameterCount())
        .isEqualTo(c.model("mpt-7b", "-").parameterCount());
    assertThat(imp("{\"model_type\": \"chatglm\", \"num_layers\": 28, \"hidden_size\": 4096, \"num_attention_heads\": 32,"
        + " \"multi_query_attention\": true, \"multi_query_group_num\": 2, \"kv_channels\": 128, \"ffn_hidden_size\": 13696,"
        + " \"padded_vocab_size\": 65024, \"seq_length\": 32768, \"add_qkv_bias\": true}").parameterCount())
        .isEqualTo(c.model("chatglm2-6b", "-").parameterCount());
  }

  @Test
  void gptNeox_isImported() {
    // Pythia-1.4B: 1.41 B parameters (EleutherAI model card: 1,414,647,808)
    ModelSpec m = imp("{\"model_type\": \"gpt_neox\", \"hidden_size\": 2048, \"intermediate_size\": 8192,"
        + " \"num_attention_heads\": 16, \"num_hidden_layers\": 24, \"vocab_size\": 50304, \"tie_word_embeddings\": false}");
    assertThat(m.parameterCount()).isEqualTo(1414647808L);
  }

  @Test
  void unsupportedFamily_isABadInput() {
    assertThatThrownBy(() -> imp("{\"model_type\": \"t5\"}")).isInstanceOf(InputException.class)
        .hasMessageContaining("config.json:1:16: model_type 't5' is not supported");
  }

  static String problems(String json) {
    try {
      imp(json);
      return "";
    } catch (InputException e) {
      return e.getMessage();
    }
  }

  static final String LLAMA = "{\"model_type\": \"llama\", \"hidden_size\": 4096, \"intermediate_size\": 11008,"
      + " \"num_attention_heads\": 32, \"num_hidden_layers\": 32, \"vocab_size\": 32000}";

  @Test
  void falconWithoutAHeadCount_orWithZeroHeads_isAnErrorAtTheKey_notADivisionByZero() {
    String noHeads = "{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_hidden_layers\": 32, \"vocab_size\": 65024}";
    assertThat(problems(noHeads)).isEqualTo("config.json:1:1: missing required field 'num_attention_heads' (or 'n_head')");
    String zero = noHeads.replace("}", ", \"num_attention_heads\": 0}");
    assertThat(problems(zero)).isEqualTo("config.json:1:116: 'num_attention_heads' must be >= 1, was 0");
  }

  @Test
  void wrongTypes_areErrorsAtTheirKeys_notDefaults() {
    String bad = LLAMA.replace("}", ",\n \"num_key_value_heads\": \"8\", \"max_position_embeddings\": 4.5,"
        + " \"tie_word_embeddings\": \"yes\"}");
    assertThat(problems(bad).lines()).containsExactly(
        "config.json:2:25: 'num_key_value_heads' must be an integer, was a string \"8\"",
        "config.json:2:57: 'max_position_embeddings' must be an integer, was 4.5",
        "config.json:2:85: 'tie_word_embeddings' must be true or false, was a string \"yes\"");
  }

  @Test
  void overflowingIntegers_areBoundedAtTheirKeys() {
    assertThat(problems(LLAMA.replace("\"num_hidden_layers\": 32", "\"num_hidden_layers\": 3000000000")))
        .isEqualTo("config.json:1:122: 'num_hidden_layers' must be <= " + ModelLimits.LAYERS + ", was 3000000000");
    assertThat(problems(LLAMA.replace("32000", "99999999999999999999999"))).contains("'vocab_size' must be <= 16777216");
  }

  @Test
  void inconsistentShape_isAnError() {
    assertThat(problems(LLAMA.replace("\"num_attention_heads\": 32", "\"num_attention_heads\": 30")))
        .contains("'num_attention_heads' (30) must divide hidden_size (4096)");
    assertThat(problems(LLAMA.replace("}", ", \"num_key_value_heads\": 5}")))
        .contains("config.json:1:170: key/value heads (5) must divide the attention heads (32)");
    assertThat(problems(LLAMA.replace("}", ", \"num_key_value_heads\": 64}")))
        .contains("key/value heads (64) must divide the attention heads (32)");
  }

  @Test
  void nullOptionalField_takesTheDefault_nullRequiredFieldIsAnError() {
    assertThat(imp(LLAMA.replace("}", ", \"head_dim\": null}")).headDim()).isEqualTo(128);
    assertThat(problems(LLAMA.replace("\"vocab_size\": 32000", "\"vocab_size\": null")))
        .contains("'vocab_size' must be a positive integer, was null");
  }
}
