package llmsim.hw.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import llmsim.core.hw.Device;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.hw.yaml.InputException;
import org.junit.jupiter.api.Test;

/** The lazy bundled catalog reads ids.txt; it must be current and give what a full, validated load gives. */
class CatalogIndexTest {
  static final Path IDS = Path.of("src/main/resources/llmsim/catalog/ids.txt");

  @Test
  void idsFile_isCurrent() throws IOException {
    String expected = CatalogIndex.generate();
    if (Boolean.getBoolean("llmsim.writeIds")) {
      Files.writeString(IDS, expected, StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(IDS, StandardCharsets.UTF_8))
        .as("ids.txt is out of date; regenerate it with the command in its header").isEqualTo(expected);
  }

  @Test
  void everySystemAndAlias_resolvesAsInAFullLoad_fromAFreshLazyCatalog() {
    Catalog full = Catalog.loadBundled();
    for (SystemSpec s : full.systems()) {
      List<String> names = new ArrayList<>(List.of(s.id()));
      names.addAll(s.aliases());
      for (String name : names) {
        assertThat(Catalog.lazyBundled().system(name, "--hardware")).as(name).isEqualTo(full.system(name, "--hardware"));
      }
    }
    for (Device d : full.devices()) {
      for (String name : d.aliases()) {
        assertThat(Catalog.lazyBundled().system(name, "--hardware")).as(name).isEqualTo(full.system(name, "--hardware"));
      }
    }
  }

  @Test
  void everyModelAndAlias_resolvesAsInAFullLoad_fromAFreshLazyCatalog() {
    Catalog full = Catalog.loadBundled();
    for (ModelSpec m : full.models()) {
      List<String> names = new ArrayList<>(List.of(m.id()));
      names.addAll(m.aliases());
      for (String name : names) {
        assertThat(Catalog.lazyBundled().model(name, "--model")).as(name).isEqualTo(m);
      }
    }
  }

  @Test
  void listings_areThoseOfAFullLoad_evenAfterSingleLookups() {
    Catalog full = Catalog.loadBundled();
    Catalog lazy = Catalog.lazyBundled();
    lazy.system("m2-ultra", "--hardware");
    lazy.model("llama-7b", "--model");
    assertThat(lazy.systems()).isEqualTo(full.systems());
    assertThat(List.copyOf(lazy.devices())).isEqualTo(List.copyOf(full.devices()));
    assertThat(List.copyOf(lazy.hosts())).isEqualTo(List.copyOf(full.hosts()));
    assertThat(List.copyOf(lazy.links())).isEqualTo(List.copyOf(full.links()));
    assertThat(List.copyOf(lazy.models())).isEqualTo(List.copyOf(full.models()));
  }

  @Test
  void unknownIds_failWithTheSameMessageAsAFullLoad() {
    for (String wrong : List.of("m2-ultr", "nonexistent-gpu", "h100-sxm5-96gb")) {
      assertThatThrownBy(() -> Catalog.lazyBundled().system(wrong, "--hardware")).isInstanceOf(InputException.class)
          .hasMessage(messageOf(() -> Catalog.loadBundled().system(wrong, "--hardware")));
    }
    for (String wrong : List.of("llama-7", "gpt-5")) {
      assertThatThrownBy(() -> Catalog.lazyBundled().model(wrong, "--model")).isInstanceOf(InputException.class)
          .hasMessage(messageOf(() -> Catalog.loadBundled().model(wrong, "--model")));
    }
  }

  static String messageOf(Runnable r) {
    try {
      r.run();
    } catch (InputException e) {
      return e.getMessage();
    }
    throw new AssertionError("expected an InputException");
  }
}
