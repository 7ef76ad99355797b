package llmsim.hw.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Problem;
import llmsim.hw.yaml.TreeReader;
import org.junit.jupiter.api.Test;

class SchemaTest {
  static final String GOOD_LINK = String.join("\n",
      "kind: link",
      "id: my-link",
      "name: My link",
      "type: pcie",
      "nominal_gb_per_s_per_direction: 31.5",
      "nominal_source: spec",
      "measured_gb_per_s_per_direction: 26.3",
      "measured_source: measured",
      "latency_us: 1.0",
      "latency_source: paper",
      "");

  List<Problem> problems(String text) {
    try {
      Catalog.checked(TreeReader.read("link.yaml", text));
      return List.of();
    } catch (InputException e) {
      return e.problems();
    }
  }

  @Test
  void goodFile_passes() {
    assertThat(problems(GOOD_LINK)).isEmpty();
  }

  @Test
  void aFigureLeftEmpty_isSaidToHaveNoValue_notToBeAString() {
    // 'latency_us:' with nothing after it was "must be a number, was a string \"\"": the user wrote no string
    assertThat(problems(GOOD_LINK.replace("latency_us: 1.0", "latency_us:"))).extracting(Problem::toString)
        .containsExactly("link.yaml:9:12: 'latency_us' must be a number, was empty: write the value after the colon");
    assertThat(problems(GOOD_LINK.replace("latency_us: 1.0", "latency_us: \"\""))).extracting(Problem::message)
        .containsExactly("'latency_us' must be a number, was empty: write the value after the colon");
  }

  @Test
  void brokenCopy_misspeltKey_isReportedAtItsLineWithDidYouMean() {
    List<Problem> p = problems(GOOD_LINK.replace("latency_us:", "latency_usec:"));
    assertThat(p).extracting(Problem::toString).anySatisfy(s -> assertThat(s)
        .startsWith("link.yaml:9:1: unknown field 'latency_usec'").contains("did you mean 'latency_us'?"));
    assertThat(p).extracting(Problem::message).contains("missing required field 'latency_us'");
  }

  @Test
  void brokenCopy_stringWhereNumberBelongs_saysSo() {
    List<Problem> p = problems(GOOD_LINK.replace("31.5", "\"31.5 GB/s\""));
    assertThat(p).singleElement().asString().startsWith("link.yaml:5:33:")
        .contains("must be a number, was a string \"31.5 GB/s\"");
  }

  @Test
  void brokenCopy_zeroAndNegativeBandwidth_areRejected() {
    assertThat(problems(GOOD_LINK.replace("31.5", "0"))).singleElement().asString().contains("must be > 0, was 0");
    assertThat(problems(GOOD_LINK.replace("26.3", "-1"))).singleElement().asString().contains("must be > 0, was -1");
  }

  @Test
  void brokenCopy_duplicateKey_isAnError() {
    List<Problem> p = problems(GOOD_LINK + "name: again\n");
    assertThat(p).singleElement().asString().startsWith("link.yaml:11:1: duplicate key 'name' (first at line 3)");
  }

  @Test
  void brokenCopy_yamlThatDoesNotParse_givesLineAndColumn() {
    List<Problem> p = problems(GOOD_LINK.replace("type: pcie", "type: [pcie"));
    assertThat(p).singleElement().satisfies(x -> {
      assertThat(x.line()).isPositive();
      assertThat(x.message()).startsWith("does not parse");
    });
  }

  @Test
  void nvlsLink_needsItsNvlsLatencyWithASource() {
    String nvls = GOOD_LINK.replace("type: pcie", "type: nvlink")
        + "nvls_gb_per_s_per_direction: 20\nnvls_source: measured\n";
    assertThat(problems(nvls)).extracting(Problem::message).anySatisfy(m -> assertThat(m).contains("nvls_latency_us"));
    assertThat(problems(nvls + "nvls_latency_us: 25\nnvls_latency_source: measured\n")).isEmpty();
    assertThat(problems(nvls + "nvls_latency_us: 0\nnvls_latency_source: measured\n")).isNotEmpty();
  }

  @Test
  void ncclChannels_needASource_andNvlsChannelsAnNvlsLink() {
    assertThat(problems(GOOD_LINK + "nccl_channels: 24\n")).extracting(Problem::message)
        .anySatisfy(m -> assertThat(m).contains("nccl_channels_source"));
    assertThat(problems(GOOD_LINK + "nccl_channels: 24\nnccl_channels_source: NCCL log\n")).isEmpty();
    assertThat(problems(GOOD_LINK + "nccl_channels: 0\nnccl_channels_source: NCCL log\n")).isNotEmpty();
    assertThat(problems(GOOD_LINK + "nvls_channels: 16\nnvls_channels_source: NCCL log\n")).extracting(Problem::message)
        .anySatisfy(m -> assertThat(m).contains("nvls_gb_per_s_per_direction"));
  }

  @Test
  void everyErrorIsReportedAtOnce() {
    String bad = GOOD_LINK.replace("31.5", "0").replace("type: pcie", "type: pci").replace("name: My link\n", "");
    assertThat(problems(bad)).hasSize(3);
  }

  @Test
  void everyShippedSchema_isValidJsonWithATitle() {
    for (String kind : SchemaValidator.KINDS) {
      assertThat(TreeReader.read(kind + ".json", SchemaValidator.schemaText(kind)).str("title")).contains("llmsim");
    }
  }
}
