package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A model imported from a Hugging Face config.json takes its id from {@code _name_or_path}, which can hold anything.
 * Every output format must stay well-formed: one CSV record or JSON line per point, parseable SVG, clean HTML, and
 * no control character on a terminal.
 */
class OutputEscapingTest {
  static final String NAME = "org/evil\",\"x\n\u001b[31mred\u0000\u0007";
  /**
   * The importer keeps what follows the last '/', lower-cases it and turns every character outside
   * [a-z0-9._-] into '-'; the rows must still hold exactly that, one field each.
   */
  static final String ID = NAME.substring(NAME.lastIndexOf('/') + 1).toLowerCase(Locale.ROOT)
      .replaceAll("[^a-z0-9._-]", "-");
  /** The name as written, for the writers that must cope with anything (a model file's name, a path). */
  static final String RAW = NAME.substring(NAME.lastIndexOf('/') + 1);

  @TempDir Path dir;
  Path config;

  @BeforeEach
  void writeConfig() throws IOException {
    config = dir.resolve("config.json");
    Files.writeString(config, "{\"_name_or_path\": " + llmsim.report.Escape.json(NAME) + ", \"model_type\": \"llama\","
        + " \"hidden_size\": 512, \"intermediate_size\": 1376, \"num_attention_heads\": 8, \"num_hidden_layers\": 2,"
        + " \"vocab_size\": 32000, \"max_position_embeddings\": 2048}");
  }

  CliRunner sweep(String format) {
    CliRunner r = CliRunner.run("sweep", "--hardware", "h100-sxm,m2-ultra", "--models", config.toString(),
        "--batch", "1,2", "--format", format);
    assertThat(r.code()).as(r.err()).isZero();
    return r;
  }

  /** A small RFC 4180 reader: records of fields, quotes doubled inside quoted fields, line breaks allowed there. */
  static List<List<String>> parseCsv(String text) {
    List<List<String>> records = new ArrayList<>();
    List<String> fields = new ArrayList<>();
    StringBuilder f = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
          f.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          f.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.add(f.toString());
        f.setLength(0);
      } else if (c == '\n') {
        fields.add(f.toString());
        f.setLength(0);
        records.add(fields);
        fields = new ArrayList<>();
      } else {
        f.append(c);
      }
    }
    assertThat(quoted).as("unterminated quoted field").isFalse();
    assertThat(f.length() + fields.size()).as("text after the last line break").isZero();
    return records;
  }

  @Test
  void sweepCsv_hasOneRecordPerPoint_withTheNameIntact() {
    List<List<String>> records = parseCsv(sweep("csv").out());
    int points = 2 * 1 * 2; // hardware x models x batch
    assertThat(records).hasSize(1 + points);
    int model = SweepRows.COLUMNS.indexOf("model");
    for (List<String> r : records.subList(1, records.size())) {
      assertThat(r).hasSize(SweepRows.COLUMNS.size());
      assertThat(r.get(model)).isEqualTo(ID);
    }
  }

  @Test
  void sweepJsonLines_isOneParseableObjectPerLine_withTheNameIntact() throws IOException {
    String[] lines = sweep("jsonl").out().split("\n");
    assertThat(lines).hasSize(4);
    for (String line : lines) {
      JsonNode j = new ObjectMapper().readTree(line);
      assertThat(j.get("model").asText()).isEqualTo(ID);
      assertThat(j.size()).isEqualTo(SweepRows.COLUMNS.size());
    }
  }

  @Test
  void reportFiles_areWellFormed_andHoldNoControlCharacters() throws Exception {
    Path out = dir.resolve("report");
    CliRunner r = CliRunner.run("simulate", "--model", config.toString(), "--hardware", "h100-sxm", "--generate-tokens", "2",
        "--out", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    List<Path> svgs;
    try (Stream<Path> s = Files.list(out)) {
      svgs = s.filter(p -> p.toString().endsWith(".svg")).sorted().toList();
    }
    assertThat(svgs).hasSize(4); // timeline, memory, bounds, roofline
    for (Path svg : svgs) {
      f.newDocumentBuilder().parse(svg.toFile()); // throws on a character XML forbids
    }
    String html = Files.readString(out.resolve("report.html"));
    assertThat(html).doesNotContain("\u001b").doesNotContain("\u0000").doesNotContain("\u0007")
        .contains(ID);
    new ObjectMapper().readTree(out.resolve("trace.json").toFile());
  }

  @Test
  void tableCells_showControlCharactersAsEscapes_onOneLine() {
    TextTable t = new TextTable(List.of("model", "x")).row(List.of(RAW, "1"));
    String table = t.render();
    assertThat(table).doesNotContain("\u001b").doesNotContain("\u0000");
    String[] lines = table.split("\n");
    assertThat(lines).hasSize(3);
    assertThat(lines[2]).isEqualTo("evil\",\"x\\u000a\\u001b[31mred\\u0000\\u0007  1");
  }

  @Test
  void terminalWriter_escapesControls_butKeepsLineBreaksAndTheProgressBarsCarriageReturn() throws IOException {
    StringWriter plain = new StringWriter();
    try (TerminalWriter w = new TerminalWriter(plain, false)) {
      w.write("model " + RAW + "\n\r");
    }
    assertThat(plain.toString()).isEqualTo("model evil\",\"x\n\\u001b[31mred\\u0000\\u0007\n\\u000d");
    StringWriter err = new StringWriter();
    try (TerminalWriter w = new TerminalWriter(err, true)) {
      w.write("\r[###] 50%\u001b[2J");
    }
    assertThat(err.toString()).isEqualTo("\r[###] 50%\\u001b[2J");
  }
}
