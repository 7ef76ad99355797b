package llmsim.hw.prices;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import llmsim.core.cost.Offer;
import llmsim.core.cost.OfferKind;
import llmsim.hw.yaml.InputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PriceCatalogTest {
  static final Path RESOURCES = Path.of("src/main/resources/llmsim/prices");

  @TempDir Path dir;

  @Test
  void index_listsEveryFileInThePricesFolder() throws IOException {
    try (Stream<Path> s = Files.list(RESOURCES)) {
      List<String> onDisk = s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted().toList();
      assertThat(PriceCatalog.bundledFiles()).containsExactlyElementsOf(onDisk);
    }
  }

  @Test
  void everyBundledOffer_namesACatalogDevice_andHasADateAndASource() {
    List<Offer> offers = PriceCatalog.bundled().offers();
    assertThat(offers).hasSizeGreaterThan(30);
    assertThat(offers).allSatisfy(o -> {
      assertThat(o.date()).matches("20[0-9]{2}-[0-9]{2}(-[0-9]{2})?");
      assertThat(o.source()).isNotBlank();
    });
    // at least six providers for rentals, and the article's three Chinese clouds in CNY
    assertThat(offers.stream().filter(o -> o.kind().hourly()).map(Offer::provider).distinct().count())
        .isGreaterThanOrEqualTo(6);
    assertThat(offers).anySatisfy(o -> {
      assertThat(o.provider()).isEqualTo("tencent");
      assertThat(o.deviceId()).isEqualTo("t4");
      assertThat(o.amount()).isEqualTo(8.68);
      assertThat(o.currency()).isEqualTo("CNY");
    });
    // the device files' purchase prices are offers too (owned hardware)
    assertThat(offers).anySatisfy(o -> {
      assertThat(o.deviceId()).isEqualTo("rtx4090");
      assertThat(o.kind()).isEqualTo(OfferKind.PURCHASE);
    });
  }

  static final String FILE = String.join("\n",
      "kind: prices",
      "provider: my-cloud",
      "offers:",
      "  - device: a100",
      "    pricing: on-demand",
      "    amount: 1.5",
      "    currency: USD",
      "    date: \"2026-01\"",
      "    source: my invoice",
      "");

  Path write(String text) throws IOException {
    return Files.writeString(dir.resolve("p.yaml"), text);
  }

  @Test
  void aUserFile_resolvesAliases() throws IOException {
    List<Offer> offers = PriceCatalog.read(write(FILE));
    assertThat(offers).singleElement().satisfies(o -> {
      assertThat(o.deviceId()).isEqualTo("a100-sxm-80gb");
      assertThat(o.provider()).isEqualTo("my-cloud");
    });
  }

  @Test
  void badUserFiles_namePlaceAndRule() throws IOException {
    assertThatThrownBy(() -> PriceCatalog.read(write(FILE.replace("device: a100", "device: a10o"))))
        .isInstanceOf(InputException.class).hasMessageContaining("p.yaml:4:13: unknown device 'a10o'");
    assertThatThrownBy(() -> PriceCatalog.read(write(FILE.replace("2026-01", "2026-13"))))
        .hasMessageContaining("p.yaml:8:11:").hasMessageContaining("YYYY-MM");
    assertThatThrownBy(() -> PriceCatalog.read(write(FILE.replace("USD", "dollars"))))
        .hasMessageContaining("p.yaml:7:15:").hasMessageContaining("three-letter currency");
    assertThatThrownBy(() -> PriceCatalog.read(write(FILE.replace("1.5", "-1.5"))))
        .hasMessageContaining("p.yaml:6:13:");
    assertThatThrownBy(() -> PriceCatalog.read(write(FILE.replace("    source: my invoice\n", ""))))
        .hasMessageContaining("p.yaml:4:5: missing required field 'offers[0].source'");
  }
}
