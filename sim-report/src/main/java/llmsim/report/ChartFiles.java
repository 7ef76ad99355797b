package llmsim.report;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.batik.svggen.SVGGeneratorContext;
import org.apache.batik.svggen.SVGGraphics2D;
import org.apache.batik.svggen.SVGIDGenerator;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.w3c.dom.DOMImplementation;
import org.w3c.dom.Document;

/** Writes a chart as PNG and as SVG (Apache Batik; deterministic ids), atomically. */
public final class ChartFiles {
  private ChartFiles() {}

  /** Stages {@code name}.png and {@code name}.svg in {@code folder}; returns the two paths they will have. */
  public static List<Path> write(JFreeChart chart, ReportFolder folder, String name, int width, int height) throws IOException {
    List<Path> out = new ArrayList<>();
    out.add(folder.write(name + ".png", o -> ChartUtils.writeChartAsPNG(o, chart, width, height)));
    out.add(folder.writeString(name + ".svg", svg(chart, width, height, name)));
    return out;
  }

  public static byte[] png(JFreeChart chart, int width, int height) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    ChartUtils.writeChartAsPNG(out, chart, width, height);
    return out.toByteArray();
  }

  /** The chart as an SVG document; element ids are {@code prefix-N}, counted from 1 per document. */
  public static String svg(JFreeChart chart, int width, int height, String prefix) throws IOException {
    DOMImplementation dom;
    try {
      dom = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder().getDOMImplementation();
    } catch (javax.xml.parsers.ParserConfigurationException e) {
      throw new IOException(e);
    }
    Document doc = dom.createDocument("http://www.w3.org/2000/svg", "svg", null);
    SVGGeneratorContext ctx = SVGGeneratorContext.createDefault(doc);
    ctx.setComment("llmsim chart");
    ctx.setEmbeddedFontsOn(false);
    ctx.setIDGenerator(new DeterministicIds(prefix));
    SVGGraphics2D g = new SVGGraphics2D(ctx, false);
    g.setSVGCanvasSize(new java.awt.Dimension(width, height));
    chart.draw(g, new java.awt.geom.Rectangle2D.Double(0, 0, width, height));
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (Writer w = new OutputStreamWriter(bytes, StandardCharsets.UTF_8)) {
      g.stream(w, true);
    }
    // Batik escapes markup but writes NUL, ESC and other characters XML 1.0 forbids as they are (a model name from
    // a config.json may hold them), which makes the whole file ill-formed: drop them
    return Escape.xmlLegal(bytes.toString(StandardCharsets.UTF_8));
  }

  /** A fixed prefix and a per-document counter, so the same chart gives the same file. */
  private static final class DeterministicIds extends SVGIDGenerator {
    private final String prefix;
    private int next;

    DeterministicIds(String prefix) {
      this.prefix = prefix.replaceAll("[^A-Za-z0-9_-]", "_");
    }

    @Override
    public String generateID(String kind) {
      return prefix + "-" + kind + "-" + (++next);
    }
  }
}
