package llmsim.cli;

import static llmsim.cli.Output.num;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import llmsim.core.hw.Device;
import llmsim.core.hw.Host;
import llmsim.core.hw.Link;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.util.Units;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.prices.PriceCatalog;
import llmsim.hw.schema.SchemaValidator;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Problem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code llmsim hardware list|show|validate|schema|prices}. */
@Command(name = "hardware", description = "The hardware catalog: systems, devices, hosts and links, each number with its source.",
    subcommands = {HardwareCommand.ListCmd.class, HardwareCommand.Show.class, HardwareCommand.Validate.class,
        HardwareCommand.Schema.class, PricesCommand.class})
final class HardwareCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "list", description = {"List every system (a device id alone means that device on its default host),"
      + " then hosts and links.", "Example: llmsim hardware list --format csv"})
  static final class ListCmd implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Output output;

    @Override
    public Integer call() {
      Catalog c = Catalog.bundled();
      // a multi-GPU system's figures are its device's, one GPU's: said in the headers, so that "8x A100 40GB" beside
      // "40 GiB" does not read as a system of 40 GiB (nothing is pooled across GPUs)
      TextTable t = new TextTable(List.of("id", "device", "memory/GPU", "bandwidth/GPU", "fp16 dense/GPU", "host link",
          "host"));
      List<Map<String, Object>> json = new ArrayList<>();
      for (SystemSpec s : c.systems()) {
        Device d = s.device();
        t.row(List.of(s.id(), (s.deviceCount() > 1 ? s.deviceCount() + "x " : "") + d.name(),
            num(d.memoryCapacityBytes() / Units.GIB, 0) + " GiB", Units.bandwidth(d.memoryBandwidthBytesPerSecond()),
            num(d.peakFlops(Precision.FP16) / 1e12, 1) + " TFLOP/s", s.hostLink().name(), s.host().id()));
        json.add(systemJson(s));
      }
      PrintWriter out = spec.commandLine().getOut();
      if (output.format == Format.table) {
        out.print(t.render());
        out.println();
        out.println(c.systems().size() + " systems. Devices alone sit on their default host. Details and sources: llmsim hardware show ID");
        out.println("hosts: " + String.join(", ", c.hosts().stream().map(Host::id).toList()));
        out.println("links: " + String.join(", ", c.links().stream().map(Link::id).toList()));
      } else {
        out.print(Output.print(output.format, t, json));
      }
      return 0;
    }
  }

  @Command(name = "show", description = {"Show a system, device, host or link with every figure and its source.",
      "Example: llmsim hardware show h100-sxm"})
  static final class Show implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Output output;

    @Parameters(paramLabel = "ID", description = "A system, device, host or link id or alias, or a device/system .yaml file.")
    String id;

    @Override
    public Integer call() {
      Catalog c = Catalog.bundled();
      PrintWriter out = spec.commandLine().getOut();
      String canonical = c.canonical(id);
      for (Host h : c.hosts()) {
        if (h.id().equals(canonical)) {
          printPairs(out, hostJson(h));
          return 0;
        }
      }
      for (Link l : c.links()) {
        if (l.id().equals(canonical)) {
          printPairs(out, linkJson(l));
          return 0;
        }
      }
      SystemSpec s = c.system(id, "hardware show", true);
      printPairs(out, systemJson(s));
      return 0;
    }

    private void printPairs(PrintWriter out, Map<String, Object> m) {
      if (output.format == Format.json) {
        out.print(Json.write(m));
        return;
      }
      TextTable t = new TextTable(List.of("field", "value"));
      FieldCells.flatten("", m, t);
      out.print(output.format == Format.csv ? t.csv() : t.render());
    }
  }

  @Command(name = "validate", description = {"Check device, host, link, system, model or prices files; every problem is"
      + " printed as file:line:col (`llmsim hardware schema KIND` gives each kind's fields).",
      "Example: llmsim hardware validate sim-hw-models/src/main/resources/llmsim/catalog/devices/rtx4090.yaml"})
  static final class Validate implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "FILE", arity = "1..*", description = "YAML files to check.")
    List<Path> files;

    @Override
    public Integer call() {
      List<Problem> problems = new ArrayList<>();
      List<String> ok = new ArrayList<>();
      for (Path f : files) {
        try {
          String what = Catalog.bundled().validateFile(f);
          if (what.startsWith("prices ")) {
            what = "prices, " + PriceCatalog.read(f).size() + " offers";
          }
          ok.add(f + ": ok (" + what + ")");
        } catch (InputException e) {
          problems.addAll(e.problems());
        }
      }
      ok.forEach(spec.commandLine().getOut()::println);
      if (!problems.isEmpty()) {
        throw new InputException(problems);
      }
      return 0;
    }
  }

  // ${COMPLETION-CANDIDATES} only works in an option's description (a command's printed "null"): list the kinds
  @Command(name = "schema", description = {"Print the JSON Schema of a file kind (KIND).",
      "Example: llmsim hardware schema device"})
  static final class Schema implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(paramLabel = "KIND", description = "One of: device, host, link, system, model, scenario, case, grid, prices.")
    String kind;

    @Override
    public Integer call() {
      if (!SchemaValidator.KINDS.contains(kind)) {
        throw new BadFlagException("KIND", kind, String.join(", ", SchemaValidator.KINDS));
      }
      spec.commandLine().getOut().print(SchemaValidator.schemaText(kind));
      return 0;
    }
  }

  static Map<String, Object> systemJson(SystemSpec s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", s.id());
    m.put("name", s.name());
    m.put("aliases", s.aliases());
    m.put("device_count", s.deviceCount());
    // a cluster's nodes, fabric and network were left out: its NICs' bus bandwidth, which bounds every collective
    // between nodes, was shown nowhere, nor its source
    m.put("nodes", s.nodes());
    if (s.deviceCount() > 1) {
      m.put("fabric", s.fabric().key());
    }
    s.network().ifPresent(n -> {
      Map<String, Object> net = new LinkedHashMap<>();
      net.put("nic", linkJson(n.nic()));
      net.put("nics_per_node", n.nicsPerNode());
      net.put("rail_optimized", n.railOptimized());
      net.put("source", n.source());
      m.put("network", net);
    });
    m.put("gpu_memory_share", s.gpuMemoryShare());
    m.put("gpu_memory_share_source", s.gpuMemoryShareSource());
    m.put("usable_device_bytes", s.usableDeviceBytes());
    m.put("device", deviceJson(s.device()));
    m.put("host", hostJson(s.host()));
    m.put("host_link", linkJson(s.hostLink()));
    s.deviceLink().ifPresent(l -> m.put("device_link", linkJson(l)));
    return m;
  }

  /** {@code key} and its source, where {@code value} differs from the one it defaults to. */
  private static void putIfOwn(Map<String, Object> m, String key, double value, double inherited, String sourceKey,
      String source) {
    if (value != inherited) {
      m.put(key, value);
      m.put(sourceKey, source);
    }
  }

  static Map<String, Object> deviceJson(Device d) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", d.id());
    m.put("name", d.name());
    m.put("vendor", d.vendor());
    Map<String, Object> peaks = new LinkedHashMap<>();
    for (Precision p : Precision.values()) {
      if (d.hasPeak(p)) {
        peaks.put(p.key() + "_flops", d.peakFlopsDense().get(p));
      }
    }
    peaks.put("source", d.peakSource());
    m.put("peak_dense", peaks);
    if (!d.emulated().isEmpty()) { // MLX's bf16 on an M2, which the simulation runs at a stated share of fp16's
      Map<String, Object> emulated = new LinkedHashMap<>();
      for (Precision p : Precision.values()) {
        var e = d.emulated().get(p);
        if (e != null) {
          emulated.put(p.key(), Json.object("via", e.via().key(), "rate", e.rate(), "software", e.software(), "source",
              e.source()));
        }
      }
      m.put("emulated_precisions", emulated);
    }
    if (d.computeUnits() > 0) {
      m.put("compute_units", d.computeUnits());
      m.put("compute_units_source", d.computeUnitsSource());
    }
    m.put("memory_capacity_bytes", d.memoryCapacityBytes());
    m.put("memory_bandwidth_bytes_per_s", d.memoryBandwidthBytesPerSecond());
    m.put("memory_type", d.memoryKind());
    m.put("memory_source", d.memorySource());
    m.put("cache_bytes", d.cacheBytes());
    m.put("cache_source", d.cacheSource());
    m.put("power_w", d.powerWatts());
    m.put("power_source", d.powerSource());
    m.put("dies", d.dies());
    d.price().ifPresent(p -> m.put("price", Json.object("amount", p.amount(), "currency", p.currency(),
        "per", p.perHour() ? "hour" : "purchase", "date", p.date(), "source", p.source())));
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("gemm", d.efficiency().gemm());
    e.put("gemm_source", d.efficiency().gemmSource());
    var f = d.efficiency();
    // a fraction the file leaves at another's value is not a figure of its own: shown only where it is
    putIfOwn(e, "gemm_sustained", f.gemmSustained(), f.gemm(), "gemm_sustained_source", f.sustainedSource());
    putIfOwn(e, "gemm_fp8", f.gemmFp8(), f.gemm(), "gemm_fp8_source", f.gemmFp8Source());
    putIfOwn(e, "flash_attention", f.flashAttention(), f.gemm(), "flash_attention_source", f.flashAttentionSource());
    putIfOwn(e, "flash_attention_backward", f.flashAttentionBackward(), f.flashAttention(),
        "flash_attention_backward_source", f.flashAttentionBackwardSource());
    e.put("memory_streaming", d.efficiency().memoryStreaming());
    e.put("memory_source", d.efficiency().memorySource());
    e.put("measured", d.efficiency().measured());
    m.put("efficiency", e);
    return m;
  }

  static Map<String, Object> hostJson(Host h) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", h.id());
    m.put("name", h.name());
    m.put("sockets", h.sockets());
    m.put("cores", h.cores());
    m.put("cores_detail", h.coresDetail());
    m.put("memory_capacity_bytes", h.memoryCapacityBytes());
    m.put("memory_bandwidth_bytes_per_s", h.memoryBandwidthBytesPerSecond());
    m.put("memory_source", h.memorySource());
    m.put("cpu_peak_fp32_flops", h.cpuPeakFlopsFp32());
    m.put("cpu_source", h.cpuSource());
    return m;
  }

  static Map<String, Object> linkJson(Link l) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", l.id());
    m.put("name", l.name());
    m.put("type", l.kind().key());
    m.put("nominal_bytes_per_s_per_direction", l.nominalBytesPerSecondPerDirection());
    m.put("nominal_source", l.nominalSource());
    m.put("measured_bytes_per_s_per_direction", l.measuredBytesPerSecondPerDirection());
    m.put("measured_source", l.measuredSource());
    m.put("latency_s", l.latencySeconds());
    m.put("latency_source", l.latencySource());
    if (l.ncclChannels() > 0) { // the SMs a collective holds on this link, taken from compute while it runs
      m.put("nccl_channels", l.ncclChannels());
      m.put("nccl_channels_source", l.ncclChannelsSource());
    }
    if (l.nvlsBytesPerSecondPerDirection() > 0) {
      m.put("nvls_bytes_per_s_per_direction", l.nvlsBytesPerSecondPerDirection());
      m.put("nvls_source", l.nvlsSource());
      m.put("nvls_latency_s", l.nvlsLatencySeconds());
      m.put("nvls_latency_source", l.nvlsLatencySource());
      if (l.nvlsChannels() > 0) {
        m.put("nvls_channels", l.nvlsChannels());
        m.put("nvls_channels_source", l.nvlsChannelsSource());
      }
    }
    // the measured bus bandwidth by message size a collective is timed at: its sizes and source, a table per rank count
    l.ringCurves().ifPresent(c -> {
      Map<String, Object> tables = new LinkedHashMap<>();
      c.tables().forEach(t -> tables.put(t.ranks() + "_ranks", Json.object("message_sizes", t.bytes().size(),
          "source", t.source())));
      m.put("ring_bus_bandwidth", tables);
    });
    l.nvlsCurve().ifPresent(t -> m.put("nvls_bus_bandwidth", Json.object("message_sizes", t.bytes().size(), "source",
        t.source())));
    return m;
  }
}
