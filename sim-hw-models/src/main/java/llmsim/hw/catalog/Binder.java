package llmsim.hw.catalog;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;
import llmsim.core.hw.Device;
import llmsim.core.hw.Emulation;
import llmsim.core.hw.Efficiency;
import llmsim.core.hw.Host;
import llmsim.core.hw.Link;
import llmsim.core.hw.LinkKind;
import llmsim.core.hw.Precision;
import llmsim.core.hw.Price;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
import llmsim.core.util.Units;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Node;

/**
 * Turns schema-checked nodes into core records, converting file units (GiB, GB/s, TFLOP/s, us) to
 * the core's (bytes, B/s, FLOP/s, s). A rule the record enforces beyond the schema becomes a problem
 * at the node's position.
 */
final class Binder {
  private Binder() {}

  /** Where a device sits when named alone. */
  record DefaultSystem(String hostId, String linkId, double gpuMemoryShare, String shareSource) {}

  static Device device(Node n) {
    return guarded(n, () -> {
      Node peaks = n.require("peak_dense_tflops");
      Map<Precision, Double> flops = new EnumMap<>(Precision.class);
      for (Precision p : Precision.values()) {
        peaks.get(p.key()).ifPresent(v -> flops.put(p, v.asDouble() * Units.TERA));
      }
      Node mem = n.require("memory");
      Node cache = n.require("cache");
      Node power = n.require("power");
      return new Device(n.str("id"), n.str("name"), n.str("vendor"), n.strings("aliases"), flops,
          peaks.str("source"), mem.num("capacity_gib") * Units.GIB, mem.num("bandwidth_gb_per_s") * Units.GB,
          mem.str("type"), mem.str("source"), cache.num("on_chip_mib") * Units.MIB, cache.str("source"),
          power.num("tdp_w"), power.str("source"), n.integer("dies", 1), price(n), efficiency(n), emulated(n),
          n.get("compute_units").map(u -> u.integer("count", 0)).orElse(0),
          n.get("compute_units").map(u -> u.str("source")).orElse(""));
    });
  }

  private static Map<Precision, Emulation> emulated(Node n) {
    Map<Precision, Emulation> out = new EnumMap<>(Precision.class);
    n.get("emulated_precisions").ifPresent(e -> e.fields().forEach((k, v) -> {
      Precision p = Precision.fromKey(k);
      if (n.require("peak_dense_tflops").get(k).isPresent()) {
        throw new InputException(e.problemAtKey(k, "'" + k + "' has a native peak in peak_dense_tflops; it cannot also be emulated"));
      }
      Precision via = Precision.fromKey(v.str("via"));
      if (n.require("peak_dense_tflops").get(via.key()).isEmpty()) {
        throw new InputException(v.require("via").problem("'via' " + via.key() + " has no native peak in peak_dense_tflops"));
      }
      out.put(p, new Emulation(via, v.num("rate"), v.strings("software"), v.str("source")));
    }));
    return out;
  }

  static DefaultSystem defaultSystem(Node device) {
    Node d = device.require("default_system");
    return new DefaultSystem(d.str("host"), d.str("host_link"), d.num("gpu_memory_share", 1.0),
        d.optStr("gpu_memory_share_source").orElse("discrete device: all of its memory"));
  }

  private static Efficiency efficiency(Node n) {
    Optional<Node> e = n.get("efficiency");
    double gemm = e.map(x -> x.num("gemm", Efficiency.DEFAULT_GEMM)).orElse(Efficiency.DEFAULT_GEMM);
    double mem = e.map(x -> x.num("memory_streaming", Efficiency.DEFAULT_MEMORY)).orElse(Efficiency.DEFAULT_MEMORY);
    String defaultNote = "documented default (no microbenchmark for this device; docs/CALIBRATION.md)";
    String gemmSource = e.flatMap(x -> x.optStr("gemm_source")).orElse(defaultNote);
    String memSource = e.flatMap(x -> x.optStr("memory_source")).orElse(defaultNote);
    boolean measured = e.isPresent() && e.get().get("gemm").isPresent() && e.get().get("memory_streaming").isPresent();
    double fp8 = e.map(x -> x.num("gemm_fp8", gemm)).orElse(gemm);
    String fp8Source = e.flatMap(x -> x.optStr("gemm_fp8_source")).orElse(gemmSource);
    double fa2 = e.map(x -> x.num("flash_attention", gemm)).orElse(gemm);
    String fa2Source = e.flatMap(x -> x.optStr("flash_attention_source")).orElse(gemmSource);
    double fa2Bwd = e.map(x -> x.num("flash_attention_backward", fa2)).orElse(fa2);
    String fa2BwdSource = e.flatMap(x -> x.optStr("flash_attention_backward_source")).orElse(fa2Source);
    // the sustained rate (at the power limit) where measured; at fp8 the measured one, else the 16-bit share of it
    double sustained = atMostBurst(e, "gemm_sustained", gemm, "gemm", gemm);
    double fp8Sustained = atMostBurst(e, "gemm_fp8_sustained", Math.min(fp8, fp8 * sustained / gemm), "gemm_fp8", fp8);
    String sustainedSource = e.flatMap(x -> x.optStr("gemm_sustained_source")).orElse(gemmSource);
    return new Efficiency(gemm, gemmSource, mem, memSource, measured, fp8, fp8Source, fa2, fa2Source, fa2Bwd,
        fa2BwdSource, sustained, fp8Sustained, sustainedSource);
  }

  /** A sustained fraction ({@code key}, else {@code otherwise}), refused at its key above the burst one. */
  private static double atMostBurst(Optional<Node> e, String key, double otherwise, String burstKey, double burst) {
    double held = e.map(x -> x.num(key, otherwise)).orElse(otherwise);
    if (held > burst) {
      throw new InputException(e.orElseThrow().problemAtKey(key, "'" + key + "' (" + held + ") exceeds the burst rate '"
          + burstKey + "' (" + burst + "): a device cannot hold more under sustained load than in a burst"));
    }
    return held;
  }

  static Optional<Price> price(Node n) {
    return n.get("price").map(p -> new Price(p.num("amount"), p.str("currency"), p.str("per").equals("hour"),
        p.str("date"), p.str("source")));
  }

  static Host host(Node n) {
    return guarded(n, () -> {
      Node mem = n.require("memory");
      Node cpu = n.require("cpu");
      return new Host(n.str("id"), n.str("name"), n.strings("aliases"), n.integer("sockets"), n.integer("cores"),
          n.optStr("cores_detail").orElse(n.integer("cores") + " cores"), mem.num("capacity_gib") * Units.GIB,
          mem.num("bandwidth_gb_per_s") * Units.GB, mem.str("source"), cpu.num("peak_fp32_tflops") * Units.TERA,
          cpu.str("source"));
    });
  }

  static Link link(Node n) {
    // Link's own check said "link my-link: measured bandwidth 1.0E11 B/s exceeds nominal 3.15E10 B/s" at the file's
    // first line: in the core's units, not at the figure, nor in the file's GB/s
    java.util.List<llmsim.hw.yaml.Problem> problems = new java.util.ArrayList<>();
    for (String key : java.util.List.of("measured_gb_per_s_per_direction", "nvls_gb_per_s_per_direction")) {
      n.get(key).filter(v -> v.asDouble() > n.num("nominal_gb_per_s_per_direction")).ifPresent(v -> problems.add(
          v.problem("'" + key + "' must be <= nominal_gb_per_s_per_direction (" + n.require(
              "nominal_gb_per_s_per_direction").asText() + "), was " + v.asText() + ": no transfer outruns the link's"
              + " signalling rate")));
    }
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    return guarded(n, () -> new Link(n.str("id"), n.str("name"), n.strings("aliases"),
        LinkKind.valueOf(n.str("type").toUpperCase(java.util.Locale.ROOT).replace('-', '_')),
        n.num("nominal_gb_per_s_per_direction") * Units.GB, n.str("nominal_source"),
        n.num("measured_gb_per_s_per_direction") * Units.GB, n.str("measured_source"),
        n.num("latency_us") * 1e-6, n.str("latency_source"),
        n.get("nvls_gb_per_s_per_direction").isPresent() ? n.num("nvls_gb_per_s_per_direction") * Units.GB : 0,
        n.optStr("nvls_source").orElse(""),
        n.get("nvls_latency_us").isPresent() ? n.num("nvls_latency_us") * 1e-6 : 0,
        n.optStr("nvls_latency_source").orElse("")).withChannels(
            n.get("nccl_channels").isPresent() ? n.integer("nccl_channels") : 0, n.optStr("nccl_channels_source").orElse(""),
            n.get("nvls_channels").isPresent() ? n.integer("nvls_channels") : 0, n.optStr("nvls_channels_source").orElse(""))
        .withRingCurves(n.get("ring_allreduce_busbw_by_size").map(Binder::busBandwidthCurves).orElse(null))
        .withNvlsCurve(n.get("nvls_allreduce_busbw_by_size").map(Binder::busBandwidthCurve).orElse(null)));
  }

  /**
   * A link's ring all-reduce tables: one table (a mapping), or a list of tables each measured at its own rank count
   * ({@code ranks}), no two at the same count.
   */
  static llmsim.core.hw.BusBandwidthCurves busBandwidthCurves(Node c) {
    if (c.kind() != Node.Kind.ARRAY) {
      return llmsim.core.hw.BusBandwidthCurves.of(busBandwidthCurve(c));
    }
    if (c.items().isEmpty()) {
      throw new InputException(c.problem("a list of bus bandwidth tables needs at least one table"));
    }
    java.util.Map<Integer, Node> seen = new java.util.HashMap<>();
    java.util.List<llmsim.core.hw.BusBandwidthCurve> tables = new java.util.ArrayList<>();
    for (Node t : c.items()) {
      llmsim.core.hw.BusBandwidthCurve curve = busBandwidthCurve(t);
      Node first = seen.putIfAbsent(curve.ranks(), t);
      if (first != null) {
        throw new InputException(t.require("ranks").problem("a second table measured at " + curve.ranks()
            + " ranks (the first is at line " + first.line() + "): give one table per rank count"));
      }
      tables.add(curve);
    }
    return new llmsim.core.hw.BusBandwidthCurves(tables);
  }

  /** A link's measured all-reduce bus bandwidth by message size: sizes in bytes, busbw in GB/s. */
  static llmsim.core.hw.BusBandwidthCurve busBandwidthCurve(Node c) {
    return guarded(c, () -> new llmsim.core.hw.BusBandwidthCurve(c.integer("ranks"),
        c.require("bytes").items().stream().map(Node::asDouble).toList(),
        c.require("busbw_gb_per_s").items().stream().map(i -> i.asDouble() * Units.GB).toList(), c.str("source")));
  }

  /** The computed parameter count may differ from the published one by this fraction at most. */
  static final double PUBLISHED_PARAMETERS_TOLERANCE = 0.10;

  static ModelSpec model(Node n) {
    return model(n, true);
  }

  /** {@code checkPublished}: hold the shape to the published parameter count (not when --set changed the shape). */
  static ModelSpec model(Node n, boolean checkPublished) {
    int hidden = n.integer("hidden_size");
    int heads = n.integer("heads");
    int kvHeads = n.integer("kv_heads", heads);
    if (n.get("head_dim").isEmpty() && hidden % heads != 0) {
      throw new InputException(n.require("heads").problem("hidden_size " + hidden + " is not a multiple of heads "
          + heads + "; give head_dim"));
    }
    if (heads % kvHeads != 0) {
      throw new InputException(n.require("kv_heads").problem("'kv_heads' must divide heads (" + heads + "), was "
          + kvHeads));
    }
    ModelSpec m = guarded(n, () -> new ModelSpec(n.str("id"), n.str("name"), n.str("family"), n.strings("aliases"),
        n.integer("layers"), hidden, heads, kvHeads, n.integer("head_dim", hidden / heads),
        n.integer("ffn_hidden_size"), FfnKind.fromKey(n.str("ffn_kind")), n.integer("vocab_size"),
        n.require("tied_embeddings").asBoolean(), n.integer("max_context"), NormKind.fromKey(n.str("norm")),
        n.bool("linear_bias", false), n.bool("qkv_bias", false), n.bool("learned_positions", false),
        n.bool("parallel_attention", false), n.integer("norms_per_layer", 2), n.num("published_parameters"),
        n.str("published_source")));
    double computed = m.parameterCount();
    double published = m.publishedParameters();
    if (checkPublished && Math.abs(computed - published) > PUBLISHED_PARAMETERS_TOLERANCE * published) {
      throw new InputException(n.require("published_parameters").problem(String.format(java.util.Locale.ROOT,
          "'published_parameters' is %.0f but the shape gives %d parameters (%+.1f%%; at most %.0f%% apart):"
              + " the shape or the published count is wrong", published, m.parameterCount(),
          100 * (computed - published) / published, 100 * PUBLISHED_PARAMETERS_TOLERANCE)));
    }
    return m;
  }

  /** Runs a record constructor; a rule it rejects becomes a problem at the node. */
  static <T> T guarded(Node n, java.util.function.Supplier<T> build) {
    try {
      return build.get();
    } catch (IllegalArgumentException e) {
      throw new InputException(n.problem(e.getMessage()));
    }
  }
}
