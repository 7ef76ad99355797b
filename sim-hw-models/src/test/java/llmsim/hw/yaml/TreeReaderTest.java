package llmsim.hw.yaml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TreeReaderTest {
  @TempDir Path dir;

  static String problems(Runnable r) {
    try {
      r.run();
      return "";
    } catch (InputException e) {
      return e.getMessage();
    }
  }

  @Test
  void yamlAnchor_isRefusedAtItsPosition_notReadAsAName() {
    assertThat(problems(() -> TreeReader.read("s.yaml", "kind: scenario\nmodel: &llama-7b llama-65b\n")))
        .isEqualTo("s.yaml:2:8: YAML anchors (&llama-7b) are not supported: write each value out");
  }

  @Test
  void yamlAlias_isRefusedAtItsPosition() {
    assertThat(problems(() -> TreeReader.read("s.yaml", "kind: scenario\nmodel: *llama-7b\n")))
        .isEqualTo("s.yaml:2:8: YAML aliases (*llama-7b) are not supported: write the value out");
  }

  @Test
  void nanAndInfinity_areNotFiniteNumbers_atTheirStart_inYamlAndJson() {
    // '.nan' was "does not parse: Malformed numeric value '.nan'" past the end of the line, and a config.json's NaN
    // told the user to "enable `JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS`"; 1e400 already said this
    assertThat(problems(() -> TreeReader.read("d.yaml", "kind: device\nfp16: .nan\n")))
        .isEqualTo("d.yaml:2:7: '.nan' is not a finite number");
    assertThat(problems(() -> TreeReader.read("d.yaml", "kind: device\nfp16: -.inf\n")))
        .isEqualTo("d.yaml:2:7: '-.inf' is not a finite number");
    assertThat(problems(() -> TreeReader.read("d.yaml", "kind: device\nfp16: 1e400\n")))
        .isEqualTo("d.yaml:2:7: '1e400' is not a finite number");
    assertThat(problems(() -> TreeReader.read("config.json", "{\n  \"vocab_size\": NaN\n}\n")))
        .isEqualTo("config.json:2:17: 'NaN' is not a finite number");
    assertThat(problems(() -> TreeReader.read("config.json", "{\n  \"vocab_size\": -Infinity\n}\n")))
        .isEqualTo("config.json:2:17: '-Infinity' is not a finite number");
  }

  @Test
  void deepNesting_getsOurOwnMessage_inJsonAndYaml() {
    String json = "{\"a\":".repeat(300) + "1" + "}".repeat(300);
    assertThat(problems(() -> TreeReader.read("c.json", json))).startsWith("c.json:1:").endsWith("nesting deeper than 64 levels")
        .doesNotContain("Constraints");
    String yaml = "a: " + "[".repeat(300) + "]".repeat(300) + "\n";
    assertThat(problems(() -> TreeReader.read("c.yaml", yaml))).startsWith("c.yaml:1:").endsWith("nesting deeper than 64 levels");
  }

  @Test
  void hugeInteger_staysAnInteger_withItsDigits() {
    Node n = TreeReader.read("m.yaml", "layers: 123456789012345678901234567890\n");
    assertThat(n.require("layers").kind()).isEqualTo(Node.Kind.INTEGER);
    assertThat(n.require("layers").asText()).isEqualTo("123456789012345678901234567890");
    assertThat(n.require("layers").asLong()).isEqualTo(Long.MAX_VALUE);
    assertThatThrownBy(() -> n.integer("layers")).isInstanceOf(InputException.class)
        .hasMessageStartingWith("m.yaml:1:9: must be between");
  }

  @Test
  void infiniteNumber_isAProblem() {
    assertThat(problems(() -> TreeReader.read("m.yaml", "x: 1e999\n"))).isEqualTo("m.yaml:1:4: '1e999' is not a finite number");
    assertThat(problems(() -> TreeReader.read("m.yaml", "x: .nan\n"))).startsWith("m.yaml:1:");
  }

  @Test
  void nonUtf8File_saysSo_withLineColumnAndByteOffset() throws IOException {
    Path p = dir.resolve("bad.yaml");
    Files.write(p, new byte[] {'a', ':', ' ', '1', '\n', 'b', ':', ' ', (byte) 0xC3, (byte) 0xA9, (byte) 0xFF, '\n'});
    assertThat(problems(() -> TreeReader.readFile(p)))
        .isEqualTo(p + ":2:5: not UTF-8 text (byte 0xFF at byte offset 10); save the file as UTF-8");
  }

  @Test
  void tooLargeFile_isRefusedBeforeItIsRead() throws IOException {
    Path p = dir.resolve("big.yaml");
    Files.write(p, new byte[InputFiles.MAX_BYTES + 1]);
    assertThat(problems(() -> TreeReader.readFile(p))).isEqualTo(p + ": is larger than 4 MiB; input files are small YAML or JSON documents");
  }

  @Test
  void directoryAndMissingFile_andEmptyName_saySo() {
    assertThat(problems(() -> TreeReader.readFile(dir))).isEqualTo(dir + ": is a directory, expected a file");
    assertThat(problems(() -> TreeReader.readFile(dir.resolve("none.yaml")))).isEqualTo(dir.resolve("none.yaml") + ": no such file");
    assertThat(problems(() -> TreeReader.readFile(Path.of("")))).contains("the file name is empty");
  }
}
