package llmsim.hw.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import llmsim.core.hw.FabricKind;
import llmsim.core.hw.Link;
import llmsim.core.hw.LinkKind;
import llmsim.core.hw.SystemSpec;
import llmsim.hw.yaml.Node;
import llmsim.hw.yaml.TreeReader;
import org.junit.jupiter.api.Test;

/**
 * The bundled multi-GPU systems state their topology: the simulator runs ring collectives at a fabric link's or a
 * NIC's measured figure (the all-reduce bus bandwidth), so every system with peers must name them and every such
 * figure must be one the link can carry.
 */
class TopologyCatalogTest {
  static final Path SYSTEMS = CatalogTest.RESOURCES.resolve("systems");

  static List<Node> systemFiles() throws IOException {
    try (Stream<Path> s = Files.list(SYSTEMS)) {
      return s.filter(p -> p.toString().endsWith(".yaml")).sorted()
          .map(p -> TreeReader.read(p.getFileName().toString(), readString(p))).toList();
    }
  }

  private static String readString(Path p) {
    try {
      return Files.readString(p);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void everySystemWithPeers_namesItsDeviceLinkAndFabric() throws IOException {
    List<Node> files = systemFiles();
    assertThat(files).isNotEmpty();
    for (Node n : files) {
      if (n.integer("device_count", 1) > 1) {
        assertThat(n.get("device_link")).as("%s: device_link", n.str("id")).isPresent();
        assertThat(n.get("fabric")).as("%s: fabric (written out, not the default)", n.str("id")).isPresent();
      }
    }
    for (SystemSpec s : Catalog.loadBundled().systems()) {
      if (s.deviceCount() > 1) {
        assertThat(s.deviceLink()).as(s.id()).isPresent();
        assertThat(s.device().dies()).as("%s: one rank per device, so a multi-device system uses single-die devices",
            s.id()).isEqualTo(1);
      }
    }
  }

  @Test
  void everyMultiNodeSystemAndClusterTemplate_hasANetwork() {
    List<SystemSpec> systems = Catalog.loadBundled().systems();
    assertThat(systems).extracting(SystemSpec::id).contains("a100-80gb-cluster", "a100-40gb-cluster", "h100-cluster");
    for (SystemSpec s : systems) {
      if (s.nodes() > 1 || s.id().endsWith("-cluster")) {
        assertThat(s.network()).as("%s: network", s.id()).isPresent();
      }
      if (s.id().endsWith("-cluster")) {
        assertThat(s.nodes()).as("%s: a template is one node until --nodes/--gpus sizes it", s.id()).isEqualTo(1);
      }
    }
  }

  @Test
  void everyFabricAndNicLink_measuresAtMostItsNominal() {
    Catalog c = Catalog.loadBundled();
    List<Link> used = c.systems().stream()
        .flatMap(s -> Stream.concat(s.deviceLink().stream(), s.network().map(n -> n.nic()).stream())).toList();
    assertThat(used).isNotEmpty();
    List<Link> fabrics = Stream.concat(used.stream(), c.links().stream().filter(l -> l.kind() == LinkKind.NVLINK
        || l.kind() == LinkKind.INFINITY_FABRIC || l.kind() == LinkKind.INFINIBAND || l.kind() == LinkKind.ETHERNET))
        .distinct().toList();
    for (Link l : fabrics) {
      assertThat(l.measuredBytesPerSecondPerDirection()).as(l.id())
          .isPositive().isLessThanOrEqualTo(l.nominalBytesPerSecondPerDirection());
      assertThat(l.measuredSource()).as(l.id()).isNotBlank();
      assertThat(l.latencySource()).as(l.id()).isNotBlank();
    }
  }

  private static Link link(Catalog c, String id) {
    return c.links().stream().filter(l -> l.id().equals(id)).findFirst().orElseThrow();
  }

  @Test
  void ncclChannelCounts_areReadWithTheirSources_andLeaveSmsForCompute() {
    Catalog c = Catalog.loadBundled();
    assertThat(link(c, "nvlink3").ncclChannels()).isEqualTo(24);
    assertThat(link(c, "nvlink4").ncclChannels()).isEqualTo(24);
    assertThat(link(c, "nvlink4").nvlsChannels()).isEqualTo(16);
    assertThat(link(c, "nvlink4-h800").ncclChannels()).isEqualTo(16);
    assertThat(link(c, "ib-hdr-200").ncclChannels()).isEqualTo(16);
    assertThat(link(c, "pcie4-x16").ncclChannels()).isZero();
    for (Link l : c.links()) {
      if (l.ncclChannels() > 0) {
        assertThat(l.ncclChannelsSource()).as(l.id()).isNotBlank();
      }
      if (l.nvlsChannels() > 0) {
        assertThat(l.nvlsChannelsSource()).as(l.id()).isNotBlank();
      }
    }
    for (SystemSpec s : c.systems()) {
      int sms = s.device().computeUnits();
      s.deviceLink().ifPresent(l -> assertThat(Math.max(l.ncclChannels(), l.nvlsChannels())).as(s.id())
          .isLessThan(Math.max(1, sms)));
    }
  }

  @Test
  void theNamesPeopleUse_resolveToTheRightTopology() {
    Catalog c = Catalog.bundled();
    record Want(String name, String id, int devices, FabricKind fabric, String deviceLink) {}
    for (Want w : List.of(
        new Want("dgx-a100-80gb", "dgx-a100-8x80gb", 8, FabricKind.SWITCH, "nvlink3"),
        new Want("8x-a100-80gb", "dgx-a100-8x80gb", 8, FabricKind.SWITCH, "nvlink3"),
        new Want("dgx-a100-40gb", "dgx-a100-8x40gb", 8, FabricKind.SWITCH, "nvlink3"),
        new Want("8x-h100", "hgx-h100-8x", 8, FabricKind.SWITCH, "nvlink4"),
        new Want("hgx-h800", "hgx-h800-8x", 8, FabricKind.SWITCH, "nvlink4-h800"),
        new Want("8x-a800", "hgx-a800-8x", 8, FabricKind.SWITCH, "nvlink3-a800"),
        new Want("8x-mi300x", "mi300x-8x", 8, FabricKind.MESH, "infinity-fabric-mi300x"),
        new Want("8x-mi250", "mi250-8x", 16, FabricKind.MESH, "xgmi-mi250"),
        new Want("8x-rtx4090", "rtx4090-8x", 8, FabricKind.PCIE_HOST, "pcie4-host-no-p2p"))) {
      SystemSpec s = c.system(w.name(), "--hardware");
      assertThat(s.id()).as(w.name()).isEqualTo(w.id());
      assertThat(s.deviceCount()).as(w.name()).isEqualTo(w.devices());
      assertThat(s.fabric()).as(w.name()).isEqualTo(w.fabric());
      assertThat(s.deviceLink().orElseThrow().id()).as(w.name()).isEqualTo(w.deviceLink());
    }
    assertThat(c.system("a100-80gb-cluster", "--hardware").network().orElseThrow().nic().id()).isEqualTo("ib-hdr-200");
    assertThat(c.system("h100-cluster", "--hardware").network().orElseThrow().nicsPerNode()).isEqualTo(8);
  }

  @Test
  void nvlink3_carriesAzuresMeasuredAllReduceCurve_withItsSource_endingAtTheLinksOwnLargeMessageRateWithin2Percent() {
    Link l = link(Catalog.loadBundled(), "nvlink3");
    assertThat(l.ringCurves().orElseThrow().tables()).hasSize(1);
    llmsim.core.hw.BusBandwidthCurve c = l.ringCurves().orElseThrow().reference();
    assertThat(c.ranks()).isEqualTo(8);
    assertThat(c.bytes()).hasSize(24).startsWith(1024.0).endsWith(8589934592.0);
    // Azure ND A100 v4: '| 2M | 53.54 |', '| 8G | 231.58 |'
    assertThat(c.busBandwidth(2097152)).isEqualTo(53.54e9);
    assertThat(c.busBytesPerSecond().get(23)).isEqualTo(231.58e9);
    assertThat(c.source()).contains("ND_A100_v4_results.md");
    double last = c.busBytesPerSecond().get(c.bytes().size() - 1);
    assertThat(Math.abs(last / l.measuredBytesPerSecondPerDirection() - 1)).isLessThan(0.02);
    for (Link other : Catalog.loadBundled().links()) {
      other.ringCurves().ifPresent(k -> k.tables().forEach(t -> assertThat(t.source()).as(other.id()).isNotBlank()));
    }
  }

  @Test
  void nvlink4_carriesAzuresMeasuredNvlsAllReduceCurve_theTableItsNvlsLatencyIsReadFrom() {
    Link l = link(Catalog.loadBundled(), "nvlink4");
    assertThat(l.ringCurves()).isEmpty();
    llmsim.core.hw.BusBandwidthCurve c = l.nvlsCurve().orElseThrow();
    assertThat(c.ranks()).isEqualTo(8);
    assertThat(c.source()).contains("ND_H200_v5_results.md");
    assertThat(l.nvlsLatencySource()).contains("ND_H200_v5_results.md");
    // '| 1K | 0.06 |': 2 x 7/8 x 1024 B / 0.06 GB/s = 29.9 us, the link's nvls_latency_us
    assertThat(1.75 * 1024 / c.busBandwidth(1024) * 1e6).isCloseTo(l.nvlsLatencySeconds() * 1e6,
        org.assertj.core.api.Assertions.within(0.05));
    assertThat(c.busBandwidth(8589934592.0)).isEqualTo(479.98e9);
  }

  @Test
  void aCurveWithMoreSizesThanBandwidths_isAnErrorAtItsFileAndLine() {
    String text = BoundsTest.bundled("links/nvlink3.yaml").replace("busbw_gb_per_s: [0.04, ", "busbw_gb_per_s: [");
    var e = org.assertj.core.api.Assertions.catchThrowableOfType(
        () -> Binder.link(Catalog.checked(TreeReader.read("l.yaml", text))), llmsim.hw.yaml.InputException.class);
    assertThat(e.getMessage()).startsWith("l.yaml:").contains("as many bus bandwidths as sizes");
  }

  /** A link file whose ring all-reduce is the list {@code tables} (YAML, each item a mapping), the rest nvlink3's. */
  static String withTables(String tables) {
    String text = BoundsTest.bundled("links/nvlink3.yaml");
    return text.substring(0, text.indexOf("ring_allreduce_busbw_by_size:")) + "ring_allreduce_busbw_by_size:\n" + tables;
  }

  static final String TWO = "  - ranks: 2\n    bytes: [1048576, 1073741824]\n    busbw_gb_per_s: [23.25, 196.89]\n"
      + "    source: \"two\"\n";
  static final String EIGHT = "  - ranks: 8\n    bytes: [1048576, 1073741824]\n    busbw_gb_per_s: [19.91, 229.25]\n"
      + "    source: \"eight\"\n";

  static String problem(String text) {
    var e = org.assertj.core.api.Assertions.catchThrowableOfType(
        () -> Binder.link(Catalog.checked(TreeReader.read("l.yaml", text))), llmsim.hw.yaml.InputException.class);
    assertThat(e).as("no error for:%n%s", text).isNotNull();
    return e.getMessage();
  }

  @Test
  void aListOfTables_bindsOnePerRankCount_andAReadAtTheirRankCount() {
    Link l = Binder.link(Catalog.checked(TreeReader.read("l.yaml", withTables(EIGHT + TWO))));
    llmsim.core.hw.BusBandwidthCurves c = l.ringCurves().orElseThrow();
    assertThat(c.tables()).extracting(llmsim.core.hw.BusBandwidthCurve::ranks).containsExactly(2, 8);
    assertThat(c.at(2).source()).isEqualTo("two");
    assertThat(c.at(2).busBandwidth(1048576)).isEqualTo(23.25e9);
    assertThat(c.reference().source()).isEqualTo("eight");
  }

  @Test
  void aListOfTables_withABadTable_isAnErrorAtItsFileAndLine() {
    String twice = withTables(TWO + EIGHT + TWO.replace("\"two\"", "\"again\""));
    int line = (int) twice.lines().takeWhile(x -> !x.contains("\"again\"")).count() - 2; // the second 'ranks: 2'
    assertThat(problem(twice)).startsWith("l.yaml:" + line + ":").contains("a second table measured at 2 ranks");
    assertThat(problem(withTables(TWO + EIGHT.replace("[1048576, 1073741824]", "[1073741824, 1048576]"))))
        .startsWith("l.yaml:").contains("sizes must increase");
    assertThat(problem(withTables(TWO + EIGHT.replace("[19.91, 229.25]", "[19.91]"))))
        .startsWith("l.yaml:").contains("as many bus bandwidths as sizes");
    assertThat(problem(withTables(TWO + EIGHT.replace("    source: \"eight\"\n", ""))))
        .startsWith("l.yaml:").contains("missing required field").contains("source");
    assertThat(problem(withTables(TWO.replace("ranks: 2", "rank: 2"))))
        .startsWith("l.yaml:").contains("unknown field");
    assertThat(problem(withTables("  []\n"))).startsWith("l.yaml:").contains("at least 1 item");
  }

  @Test
  void aPartWithItsNvlinkCut_neverEndsAnAllReduceSoonerThanTheFullPart_atAnySizeOrGpuCount() {
    // the A800 and H800 have 8 of their A100's and H100's NVLinks, on the same NVSwitch: a collective there moves its
    // bytes slower and waits on the same latency. The A800's small all-reduces once read the latency model (14 x 2.41
    // us at 8 GPUs) against the A100's measured curve (45 us at 1 KB), and tp 2 decode read faster on the A800
    Catalog c = Catalog.bundled();
    for (List<String> pair : List.of(List.of("hgx-a800-8x", "dgx-a100-8x80gb"), List.of("hgx-h800-8x", "hgx-h100-8x"))) {
      for (int gpus : new int[] {2, 4, 8}) {
        SystemSpec cut = llmsim.core.parallel.Placement.size(c.system(pair.get(0), "--hardware"), 1, gpus);
        SystemSpec full = llmsim.core.parallel.Placement.size(c.system(pair.get(1), "--hardware"), 1, gpus);
        for (double bytes = 1024; bytes <= 8L << 30; bytes *= 4) {
          double cutBusbw = llmsim.core.workload.CollectiveBench.allReduceBusBandwidth(cut, bytes);
          double fullBusbw = llmsim.core.workload.CollectiveBench.allReduceBusBandwidth(full, bytes);
          // the same bytes over the same count of GPUs: a lower bus bandwidth is a longer time
          assertThat(cutBusbw).as("%s against %s, %d GPUs, %.0f B", pair.get(0), pair.get(1), gpus, bytes)
              .isLessThanOrEqualTo(fullBusbw * (1 + 1e-9));
        }
      }
    }
  }
}
