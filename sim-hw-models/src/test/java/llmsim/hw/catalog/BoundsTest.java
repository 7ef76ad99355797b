package llmsim.hw.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import llmsim.core.model.ModelSpec;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.TreeReader;
import org.junit.jupiter.api.Test;

/** Integer bounds, plausible hardware ranges and the published-parameter check, each at file:line:col. */
class BoundsTest {
  static String bundled(String file) {
    return Catalog.resourceText(Catalog.ROOT + file);
  }

  static String problems(String name, String text) {
    try {
      Node n = Catalog.checked(TreeReader.read(name, text));
      if (n.str("kind").equals("model")) {
        Binder.model(n);
      } else if (n.str("kind").equals("device")) {
        Binder.device(n);
      }
      return "";
    } catch (InputException e) {
      return e.getMessage();
    }
  }

  @Test
  void schemaMaximums_areTheLimitsTheImporterUses() {
    Node props = TreeReader.read("model.schema.json", SchemaValidator.schemaText("model")).require("properties");
    Map<String, Integer> limits = Map.of("layers", ModelLimits.LAYERS, "hidden_size", ModelLimits.HIDDEN,
        "heads", ModelLimits.HEADS, "kv_heads", ModelLimits.HEADS, "head_dim", ModelLimits.HEAD_DIM,
        "ffn_hidden_size", ModelLimits.FFN_HIDDEN, "vocab_size", ModelLimits.VOCAB, "max_context", ModelLimits.CONTEXT);
    limits.forEach((k, v) -> assertThat(props.require(k).require("maximum").asLong()).as(k).isEqualTo(v.longValue()));
  }

  @Test
  void largestShapeTheBoundsAllow_doesNotOverflowTheParameterCount() {
    int l = ModelLimits.LAYERS;
    ModelSpec m = new ModelSpec("x", "x", "x", java.util.List.of(), l, ModelLimits.HIDDEN, ModelLimits.HEADS,
        ModelLimits.HEADS, ModelLimits.HEAD_DIM, ModelLimits.FFN_HIDDEN, llmsim.core.model.FfnKind.SWIGLU,
        ModelLimits.VOCAB, false, ModelLimits.CONTEXT, llmsim.core.model.NormKind.LAYERNORM, true, false, true, false, 2,
        1, "x");
    // the same sum in doubles: attention 4 x hidden x heads x head_dim, SwiGLU 3 x hidden x ffn per layer, and so on
    double perLayer = 4.0 * ModelLimits.HIDDEN * ModelLimits.HEADS * ModelLimits.HEAD_DIM
        + 3.0 * ModelLimits.HIDDEN * ModelLimits.FFN_HIDDEN;
    assertThat((double) m.parameterCount()).isGreaterThan(l * perLayer).isLessThan(Long.MAX_VALUE);
  }

  @Test
  void hugeLayerCount_isAnErrorAtItsValue() {
    String text = bundled("models/llama-7b.yaml").replace("layers: 32", "layers: 3000000000");
    assertThat(problems("m.yaml", text)).isEqualTo("m.yaml:7:9: 'layers' must be <= 1000, was 3000000000");
  }

  @Test
  void publishedParameters_farFromTheComputedCount_isAnError_withBothNumbers() {
    String text = bundled("models/llama-7b.yaml").replace("published_parameters: 6738415616", "published_parameters: 13000000000");
    assertThat(problems("m.yaml", text)).isEqualTo("m.yaml:16:23: 'published_parameters' is 13000000000 but the shape gives"
        + " 6738415616 parameters (-48.2%; at most 10% apart): the shape or the published count is wrong");
    String close = bundled("models/llama-7b.yaml").replace("published_parameters: 6738415616", "published_parameters: 7000000000");
    assertThat(problems("m.yaml", close)).isEmpty();
  }

  @Test
  void kvHeadsNotDividingHeads_isAnErrorAtKvHeads() {
    String text = bundled("models/llama-7b.yaml").replace("heads: 32\n", "heads: 32\nkv_heads: 5\n");
    assertThat(problems("m.yaml", text)).isEqualTo("m.yaml:10:11: 'kv_heads' must divide heads (32), was 5");
  }

  @Test
  void implausibleHardwareFigures_areErrors() {
    String dev = bundled("devices/h100-sxm.yaml");
    assertThat(problems("d.yaml", dev.replaceFirst("capacity_gib: [0-9.]+", "capacity_gib: 1e-9")))
        .contains("'memory.capacity_gib' must be >= 0.001, was 1.0E-9");
    assertThat(problems("d.yaml", dev.replaceFirst("bandwidth_gb_per_s: [0-9.]+", "bandwidth_gb_per_s: 1e21")))
        .contains("'memory.bandwidth_gb_per_s' must be <= 1000000, was 1.0E21");
    assertThat(problems("d.yaml", dev.replaceFirst("fp16: [0-9.]+", "fp16: 1e9")))
        .contains("'peak_dense_tflops.fp16' must be <= 1000000, was 1.0E9");
    assertThat(problems("h.yaml", bundled("hosts/i9-13900ks.yaml").replaceFirst("cores: [0-9]+", "cores: 3000000000")))
        .contains("'cores' must be <= 1048576, was 3000000000");
    assertThat(problems("l.yaml", bundled("links/pcie4-x16.yaml").replaceFirst("measured_gb_per_s_per_direction: [0-9.]+",
        "measured_gb_per_s_per_direction: 1e21"))).contains("must be <= 1000000, was 1.0E21");
    assertThat(problems("s.yaml", bundled("systems/m2-ultra.yaml").replace("device_count: 1", "device_count: 3000000000")))
        .contains("s.yaml:9:15: 'device_count' must be <= 1048576, was 3000000000");
  }

  @Test
  void sustainedGemmAboveTheBurstOne_isAnErrorAtItsKey_andFp8FollowsThe16BitRatio() throws Exception {
    String dev = bundled("devices/h100-sxm.yaml");
    String bad = dev.replace("gemm_sustained: 0.763", "gemm_sustained: 0.9");
    int line = bad.substring(0, bad.indexOf("gemm_sustained: 0.9")).split("\n", -1).length;
    assertThat(problems("d.yaml", bad)).startsWith("d.yaml:" + line + ":")
        .contains("'gemm_sustained' (0.9) exceeds the burst rate 'gemm' (0.803)");
    // a sustained figure at 16 bits alone: fp8 keeps the same share of its burst rate (0.709 x 0.763 / 0.803)
    String only16 = dev.replaceFirst("  gemm_fp8_sustained: [0-9.]+\n", "");
    var e = Binder.device(Catalog.checked(TreeReader.read("d.yaml", only16))).efficiency();
    assertThat(e.gemmFp8Sustained()).isCloseTo(0.709 * 0.763 / 0.803, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(problems("d.yaml", dev)).isEmpty();
  }
}
