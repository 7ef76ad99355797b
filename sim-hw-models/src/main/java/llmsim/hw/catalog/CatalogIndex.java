package llmsim.hw.catalog;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.TreeReader;

/**
 * Which bundled file defines each id and alias ({@code ids.txt} beside the catalog), so that a lookup
 * parses only the files it needs instead of all of them. The file is generated from the catalog and a
 * test fails when it is out of date (it says how to regenerate it).
 */
final class CatalogIndex {
  static final String RESOURCE = Catalog.ROOT + "ids.txt";
  static final String HEADER = """
      # Where each id and alias of the bundled catalog is defined: kind id file [aliases...], one file a line,
      # in index.txt order. Lets a lookup parse only the files it needs. Generated; CatalogIndexTest checks it.
      # Regenerate: ./mvnw -q -B test -pl sim-hw-models -am -Dtest=CatalogIndexTest -Dsurefire.failIfNoSpecifiedTests=false -Dllmsim.writeIds=true
      """;

  /** One line: a file of the given kind defines {@code id} and {@code aliases}. */
  record Entry(String kind, String id, String file, List<String> aliases) {}

  private final List<String> files = new ArrayList<>();
  private final Map<String, List<String>> filesByName = new LinkedHashMap<>();

  private CatalogIndex(List<Entry> entries) {
    for (Entry e : entries) {
      files.add(e.file());
      filesByName.computeIfAbsent(e.id(), k -> new ArrayList<>(1)).add(e.file());
      for (String a : e.aliases()) {
        filesByName.computeIfAbsent(a, k -> new ArrayList<>(1)).add(e.file());
      }
    }
  }

  static CatalogIndex bundled() {
    return new CatalogIndex(parse(Catalog.resourceText(RESOURCE)));
  }

  /** Files that define {@code name} as an id or alias (of any kind); empty when none does. */
  List<String> files(String name) {
    return filesByName.getOrDefault(name, List.of());
  }

  /** Every file, in index order. */
  List<String> files() {
    return files;
  }

  static List<Entry> parse(String text) {
    List<Entry> out = new ArrayList<>();
    for (String line : text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#")).toList()) {
      String[] w = line.split("\\s+");
      if (w.length < 3) {
        throw new IllegalStateException("malformed line in " + RESOURCE + ": " + line);
      }
      out.add(new Entry(w[0], w[1], w[2], List.of(w).subList(3, w.length)));
    }
    return out;
  }

  /** The text {@code ids.txt} should have for the bundled files (parsed, not validated: tests do that). */
  static String generate() {
    StringBuilder b = new StringBuilder(HEADER);
    for (String file : Catalog.bundledFiles()) {
      Node n = TreeReader.read("catalog/" + file, Catalog.resourceText(Catalog.ROOT + file));
      List<String> words = new ArrayList<>(List.of(n.str("kind"), n.str("id"), file));
      words.addAll(n.strings("aliases"));
      if (words.stream().anyMatch(w -> w.isEmpty() || w.chars().anyMatch(Character::isWhitespace))) {
        throw new IllegalStateException(file + ": an id or alias with white space cannot be indexed: " + words);
      }
      b.append(String.join(" ", words)).append('\n');
    }
    return b.toString();
  }
}
