package llmsim.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import javax.xml.parsers.DocumentBuilderFactory;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.data.category.DefaultCategoryDataset;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

class EscapeTest {
  /** What an imported config.json's _name_or_path may hold: CSV and markup syntax, a line break, ESC, NUL, BEL. */
  static final String EVIL = "evil\",\"x\n<b>&'\u001b[31m\u0000\u0007 \uD83D\uDE00";

  @Test
  void xmlLegal_dropsWhatXml10Forbids_andKeepsTheRest() {
    assertThat(Escape.xmlLegal(EVIL)).isEqualTo("evil\",\"x\n<b>&'[31m \uD83D\uDE00");
    assertThat(Escape.xmlLegal("lone \uD800 surrogate \uFFFE")).isEqualTo("lone  surrogate ");
    String clean = "plain text";
    assertThat(Escape.xmlLegal(clean)).isSameAs(clean);
  }

  @Test
  void html_escapesMarkupAndDropsControls() {
    assertThat(Escape.html(EVIL)).isEqualTo("evil&quot;,&quot;x\n&lt;b&gt;&amp;&#39;[31m \uD83D\uDE00");
    assertThat(Escape.html("a\u0085b\u007fc")).isEqualTo("abc");
  }

  @Test
  void csv_quotesPerRfc4180_onlyWhenNeeded() {
    assertThat(Escape.csv("m2-ultra")).isEqualTo("m2-ultra");
    assertThat(Escape.csv("a,b")).isEqualTo("\"a,b\"");
    assertThat(Escape.csv("say \"hi\"")).isEqualTo("\"say \"\"hi\"\"\"");
    assertThat(Escape.csv("two\nlines")).isEqualTo("\"two\nlines\"");
    assertThat(Escape.csv("cr\rhere")).isEqualTo("\"cr\rhere\"");
  }

  @Test
  void terminal_showsEveryControlCharacterAsAnEscape() {
    assertThat(Escape.terminal(EVIL, false))
        .isEqualTo("evil\",\"x\\u000a<b>&'\\u001b[31m\\u0000\\u0007 \uD83D\uDE00");
    assertThat(Escape.terminal("line\n\ttab\u001b", true)).isEqualTo("line\n\ttab\\u001b");
    assertThat(Escape.terminal("c1\u009b", true)).isEqualTo("c1\\u009b");
  }

  @Test
  void json_escapesControlsAndQuotes() {
    assertThat(Escape.json("a\"b\\c\u001b\u0000\n")).isEqualTo("\"a\\\"b\\\\c\\u001b\\u0000\\n\"");
  }

  @Test
  void svg_withAControlCharacterInEveryLabel_isWellFormedXml() throws Exception {
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    data.addValue(1.0, EVIL, EVIL);
    JFreeChart chart = ChartFactory.createBarChart("title " + EVIL, EVIL, EVIL, data);
    String svg = ChartFiles.svg(chart, 400, 300, "t");
    DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
    f.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
    Document doc = f.newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    assertThat(doc.getDocumentElement().getTextContent()).contains("title evil\",\"x").contains("<b>&'[31m");
  }
}
