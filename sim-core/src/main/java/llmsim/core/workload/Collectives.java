package llmsim.core.workload;

import java.util.HashMap;
import java.util.Map;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
import llmsim.core.hw.BusBandwidthCurves;
import llmsim.core.hw.Link;
import llmsim.core.hw.SystemSpec;
import llmsim.core.task.ParallelPlan;

/**
 * The collectives one GPU takes part in, emitted as transfers on the links they cross. GPUs are numbered
 * tensor-parallel rank fastest, so a tensor-parallel group is {@code tp} neighbours and a data-parallel group takes
 * one GPU from each of {@code dp} tensor groups: within a node while the node holds them, across nodes otherwise.
 *
 * <p>Ring algorithms: an all-reduce of S bytes over n ranks moves 2(n-1)/n x S through each rank's link in
 * 2(n-1) steps, a reduce-scatter or all-gather (n-1)/n x S in n-1 steps; each step pays the link's latency. A
 * link's measured figure is the bus bandwidth NCCL reaches on it, so a ring phase runs at it. A group spanning
 * nodes runs hierarchically: reduce-scatter within the node, all-reduce of the 1/k shard across nodes on the
 * network (each GPU's share of the node's NICs), all-gather within the node. Each phase is one transfer on its
 * pool, so that concurrent collectives on one link (tensor- and data-parallel) share it fairly; the steps of a
 * phase are folded into that transfer, their latencies added.
 *
 * <p>NVLink SHARP (NVLS): where a node's switch reduces in-network ({@link Link#nvls()}), an all-reduce within the
 * node may instead send S(n+1)/n through each GPU's link (its data to be reduced, then its reduced shard once to
 * be multicast) at the link's NVLS rate, plus the link's measured NVLS latency (a fixed cost per all-reduce, the
 * small-message floor of nccl-tests with the NVLS algorithm); the faster of the two is taken, as NCCL's tuner
 * chooses (at 2-4 GPUs the ring wins, and at 8 GPUs for messages up to about 1 MB). Reduce-scatter and all-gather
 * stay rings.
 *
 * <p>Double binary tree (NCCL 2.4+): an all-reduce phase across N nodes may instead run as two binary trees over the
 * nodes, each reducing half of the data up and broadcasting it down, pipelined: a node sends and receives 2 x S per
 * direction ({@link #treeBytes}; NCCL's tuner likewise converts a tree's bus bandwidth to algorithm bandwidth by
 * 0.5), at {@link #TREE_BANDWIDTH_FRACTION} of the link's bus bandwidth, in 2 x log2(N) network hops instead of the
 * ring's 2(N-1) steps, each hop {@link #TREE_HOP_LATENCY_RATIO} times the link's step latency. The faster of ring
 * and tree is taken per collective from these two terms, as NCCL's tuner does (tree for small and medium messages
 * across many nodes, ring for large ones and at 2-4 nodes). The phases inside the node are the same for both (NCCL's
 * tree chains the node's GPUs in 2(k-1) steps, the hierarchical ring reduce-scatters and all-gathers in as many).
 *
 * <p>All-to-all: each rank sends S/n to every other rank as point-to-point transfers, those to the peers in its node
 * over the fabric and those to other nodes over its share of the NICs, one peer after another on each (NCCL issues
 * them round by round), each paying one step's latency.
 *
 * <p>SMs: an NCCL collective is a kernel of one CTA per channel, each CTA alone on an SM for the kernel's duration
 * (NVIDIA/nccl issue #689). Each phase's transfer holds, on this GPU, the channels of the communicator it belongs to
 * ({@link Span}): the fabric link's {@link Link#ncclChannels()} (or {@link Link#nvlsChannels()} for an NVLS
 * all-reduce) for a communicator within one node, the NIC's for one spanning nodes, every phase of a hierarchical
 * collective included (NCCL sizes one kernel's channels per communicator). The engine runs the GPU's compute on the
 * SMs left meanwhile ({@link llmsim.core.engine.Simulation}). Where the link gives no count, and for pipeline sends
 * and all-to-all (point-to-point channels per peer, not sourced here), no SMs are held.
 */
final class Collectives {
  /** The collectives of a group: which links its phases cross. */
  enum Kind { ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER }

  /**
   * The communicator a phase belongs to, which decides the channels its kernel holds: one within a node, one
   * spanning nodes, or a point-to-point exchange whose SMs are not modelled.
   */
  private enum Span { NODE, NODES, NONE }

  /**
   * What a transfer is for: each purpose queues on a stream of its own per kind of link. ZeRO-3's weight gathers queue
   * apart from the gradient reductions (FSDP's unshard stream, DeepSpeed's all-gather stream): the backward's gather
   * of layer l - 1 is issued ahead of layer l's reduce-scatter (FSDP prefetches it from layer l's pre- or
   * post-backward hook, both before layer l's gradients are reduced), so it runs while layer l's backward does; one
   * queue in the builder's order (layer l's gather, backward, reduction, then layer l - 1's gather) held each gather
   * behind the previous layer's reduction, so behind that layer's whole backward: exposed, layer after layer.
   */
  private enum Purpose {
    TENSOR("tensor-parallel comm"), DATA("data-parallel comm"), GATHER("ZeRO-3 weight gather"),
    PIPELINE("pipeline send");

    final String label;

    Purpose(String label) {
      this.label = label;
    }
  }

  private final StepContext ctx;
  private final SystemSpec system;
  final ParallelPlan plan;
  /** Stream per purpose, [intra-node, network]; -1 until first used. */
  private final int[][] streams = new int[Purpose.values().length][2];
  private final int fabricPool;
  private final int networkPool;
  /**
   * Cost group per (algorithm, steps, network, span, latency): a ring phase's latency depends on its steps and,
   * where the link has a measured curve by size, on its size.
   */
  private final Map<GroupKey, Integer> groups = new HashMap<>();
  /** Channels (SMs) a kernel holds, per {@link Span}: within the node (ring, NVLS), across nodes. */
  private final int nodeChannels;
  private final int nvlsChannels;
  private final int nodesChannels;
  /** The NVLS all-reduce's cost groups by latency (one per size where the link has an NVLS curve). */
  private final Map<Double, Integer> nvlsGroups = new HashMap<>();
  /** The zero-cost op that joins an all-to-all's fabric and network halves, -1 until first used. */
  private int joinGroup = -1;
  /** The algorithms an all-reduce may take (NCCL_ALGO); AUTO as NCCL's tuner chooses. */
  CollectiveAlgorithm algorithm = CollectiveAlgorithm.AUTO;

  /**
   * A tree's all-reduce bus bandwidth as a fraction of the channels' (NCCL's cost model, src/graph/tuning.cc:
   * {@code if (a == NCCL_ALGO_TREE && coll == ncclFuncAllReduce) busBw = std::min(busBw*.92, ...)}).
   */
  static final double TREE_BANDWIDTH_FRACTION = 0.92;
  /**
   * A tree hop over the network against a ring step: NCCL's cost model charges 5.0 us per network hop for Tree and
   * 2.7 us for Ring with the LL protocol (src/graph/tuning.cc, hwLat NET), the latter being the NICs' step latency.
   */
  static final double TREE_HOP_LATENCY_RATIO = 5.0 / 2.7;

  Collectives(StepContext ctx, ParallelPlan plan) {
    this.ctx = ctx;
    this.system = ctx.system;
    this.plan = plan;
    boolean any = plan.tp() > 1 || plan.dp() > 1 || plan.pp() > 1;
    boolean multiNode = any && system.nodes() > 1;
    fabricPool = any && system.deviceCount() > 1 ? ctx.sink.addPool(ctx.label + "intra-node link") : -1;
    networkPool = multiNode ? ctx.sink.addPool(ctx.label + "network") : -1;
    for (int[] s : streams) {
      java.util.Arrays.fill(s, -1);
    }
    nodeChannels = system.deviceLink().map(Link::ncclChannels).orElse(0);
    nvlsChannels = system.deviceLink().map(Link::nvlsChannels).orElse(0);
    nodesChannels = system.network().map(net -> net.nic().ncclChannels()).orElse(0);
  }

  /**
   * What the result must say when this plan's collectives run on a link whose NCCL/RCCL channel count is not
   * sourced, or on a device whose SM count is not: there, collectives are not taken to slow compute. Null otherwise.
   */
  String warning() {
    java.util.List<String> links = new java.util.ArrayList<>();
    if (fabricPool >= 0 && nodeChannels == 0) {
      links.add(system.deviceLink().orElseThrow().id());
    }
    if (networkPool >= 0 && nodesChannels == 0) {
      links.add(system.network().orElseThrow().nic().id());
    }
    if (fabricPool >= 0 && links.isEmpty() && system.device().computeUnits() == 0) {
      return "collectives are not taken to slow compute: the SM count of " + system.device().id()
          + " is not in the catalog";
    }
    return links.isEmpty() ? null : "collectives on " + String.join(" and ", links)
        + " are not taken to slow compute: no NCCL/RCCL channel count is sourced for that link";
  }

  /** The stream of a purpose's transfers on one kind of link (tensor- and data-parallel traffic queue apart). */
  private int stream(Purpose purpose, boolean network) {
    int[] s = streams[purpose.ordinal()];
    int i = network ? 1 : 0;
    if (s[i] < 0) {
      s[i] = ctx.sink.addStream(ctx.label + purpose.label + (network ? " (network)" : " (intra-node)"),
          network ? Lane.NETWORK : Lane.FABRIC, ctx.compute);
    }
    return s[i];
  }

  private boolean tpCrossesNodes() {
    return plan.tp() > system.deviceCount();
  }

  /** Ranks of a data-parallel group inside one node. */
  private int dpIntraRanks() {
    return plan.replicasPerNode(system.deviceCount());
  }

  /** Replicas a ZeRO stage shards over: every data-parallel replica, or under hybrid shard those in one node. */
  int shardRanks() {
    return plan.shardRanks(system.deviceCount());
  }

  /** A tensor-parallel collective of {@code bytes} on the critical path; returns its last op. */
  int tensorParallel(String name, Kind kind, double bytes, int... deps) {
    return tensorParallel(null, name, kind, bytes, deps);
  }

  /** As above, the collective named {@code prefix + name} ({@code prefix} null for none; see
   * {@link llmsim.core.engine.OpSink#addOp(String, String, OpKind, int, int, double, double, double, int...)}). */
  int tensorParallel(String prefix, String name, Kind kind, double bytes, int... deps) {
    if (plan.tp() <= 1) {
      return deps.length == 0 ? -1 : deps[deps.length - 1];
    }
    if (!tpCrossesNodes()) {
      return phase(prefix, name, Purpose.TENSOR, kind, plan.tp(), bytes, false, Span.NODE, deps);
    }
    return hierarchical(ctx.sink.keepsNames() && prefix != null ? prefix + name : name, Purpose.TENSOR, kind,
        system.deviceCount(), plan.tp() / system.deviceCount(), bytes, deps);
  }

  /** A data-parallel collective of {@code bytes} (gradients, or ZeRO-1/2's weights); returns its last op. */
  int dataParallel(String name, Kind kind, double bytes, int... deps) {
    return dataParallel(name, Purpose.DATA, kind, bytes, deps);
  }

  private int dataParallel(String name, Purpose purpose, Kind kind, double bytes, int... deps) {
    if (plan.dp() <= 1) {
      return deps.length == 0 ? -1 : deps[deps.length - 1];
    }
    int intra = dpIntraRanks();
    int inter = plan.dp() / intra;
    if (inter == 1) {
      return phase(name, purpose, kind, intra, bytes, false, Span.NODE, deps);
    }
    return hierarchical(name, purpose, kind, intra, inter, bytes, deps);
  }

  /**
   * ZeRO-3's gather of a layer's weight shards: from every replica, or under hybrid shard from the node's; on a queue
   * of its own ({@link Purpose#GATHER}).
   */
  int gatherShards(String name, double bytes, int... deps) {
    if (!plan.hybridShard() || plan.dp() <= 1) {
      return dataParallel(name, Purpose.GATHER, Kind.ALL_GATHER, bytes, deps);
    }
    return phase(name, Purpose.GATHER, Kind.ALL_GATHER, dpIntraRanks(), bytes, false, Span.NODE, deps);
  }

  /**
   * ZeRO's reduction of a layer's gradients to the shards that update them: a reduce-scatter over every replica,
   * or under hybrid shard a reduce-scatter inside the node and an all-reduce of the shard with the other nodes'
   * replicas holding the same shard.
   */
  int reduceToShards(String name, double bytes, int... deps) {
    if (!plan.hybridShard() || plan.dp() <= 1) {
      return dataParallel(name, Kind.REDUCE_SCATTER, bytes, deps);
    }
    int intra = dpIntraRanks();
    int last = phase(name + ".intra_rs", Purpose.DATA, Kind.REDUCE_SCATTER, intra, bytes, false, Span.NODE, deps);
    return phase(name + ".inter", Purpose.DATA, Kind.ALL_REDUCE, plan.dp() / intra, bytes / intra, true, Span.NODES,
        last);
  }

  /**
   * An all-to-all over the data-parallel group (laid out as an expert-parallel group would be: the node's ranks
   * first): each rank sends {@code bytes} / n to each of the n - 1 others, one transfer per peer, the node's peers
   * over the fabric and the rest over the network, the two at once; returns its last op.
   */
  int allToAll(String name, double bytes, int... deps) {
    int n = plan.dp();
    if (n <= 1) {
      return deps.length == 0 ? -1 : deps[deps.length - 1];
    }
    int intra = dpIntraRanks();
    double perPeer = bytes / n;
    boolean names = ctx.sink.keepsNames();
    int fabricLast = -1;
    for (int peer = 1; peer < intra; peer++) {
      fabricLast = ctx.sink.addOp(names ? name + ".peer" + peer : "", OpKind.TRANSFER, stream(Purpose.DATA, false),
          ringGroup(1, false, Span.NONE, fabricStepSeconds()), 0, 0, perPeer,
          fabricLast < 0 ? deps : new int[] {fabricLast});
    }
    int networkLast = -1;
    for (int peer = intra; peer < n; peer++) {
      networkLast = ctx.sink.addOp(names ? name + ".peer" + peer : "", OpKind.TRANSFER, stream(Purpose.DATA, true),
          ringGroup(1, true, Span.NONE, networkStepSeconds()), 0, 0, perPeer,
          networkLast < 0 ? deps : new int[] {networkLast});
    }
    if (fabricLast < 0 || networkLast < 0) {
      return Math.max(fabricLast, networkLast);
    }
    if (joinGroup < 0) {
      joinGroup = ctx.sink.addGroup(new CostGroup("all-to-all join", 1, -1, 1, -1, 1, 0));
    }
    return ctx.sink.addOp(names ? name + ".join" : "", OpKind.TRANSFER, stream(Purpose.DATA, false), joinGroup, 0, 0,
        0, fabricLast, networkLast);
  }

  private int hierarchical(String name, Purpose stream, Kind kind, int intra, int inter, double bytes, int... deps) {
    int last;
    double shard = bytes / intra;
    if (kind == Kind.ALL_GATHER) {
      last = phase(name + ".inter", stream, kind, inter, shard, true, Span.NODES, deps);
      return intra > 1 ? phase(name + ".intra", stream, kind, intra, bytes, false, Span.NODES, last) : last;
    }
    last = intra > 1
        ? phase(name + ".intra_rs", stream, Kind.REDUCE_SCATTER, intra, bytes, false, Span.NODES, deps) : -1;
    int[] after = last < 0 ? deps : new int[] {last};
    last = phase(name + ".inter", stream, kind, inter, shard, true, Span.NODES, after);
    if (kind == Kind.ALL_REDUCE && intra > 1) {
      last = phase(name + ".intra_ag", stream, Kind.ALL_GATHER, intra, bytes, false, Span.NODES, last);
    }
    return last;
  }

  /**
   * A pipeline send of {@code bytes} (activations forward, their gradients backward) to the neighbouring
   * stage: one transfer at the link's rate with one step's latency. Stages are {@code tp x dp} ranks apart,
   * so they sit in different nodes once a node holds a whole stage.
   */
  int pointToPoint(String name, double bytes, int... deps) {
    boolean network = (long) plan.tp() * plan.dp() >= system.deviceCount() && system.nodes() > 1;
    return phase(name, Purpose.PIPELINE, Kind.REDUCE_SCATTER, 2, 2 * bytes, network, Span.NONE, deps);
  }

  /**
   * The all-reduce of a tied word embedding's gradient between the first pipeline stage (the embedding) and the last
   * (the head's copy of the weight), once per step before the optimizer: two ranks, (pp - 1) x tp x dp ranks apart
   * (ranks numbered tensor-parallel fastest, then data-parallel, then pipeline), so across the network once those
   * ranks fill a node.
   */
  int firstToLastStage(String name, double bytes, int... deps) {
    boolean network = (long) (plan.pp() - 1) * plan.tp() * plan.dp() >= system.deviceCount() && system.nodes() > 1;
    return phase(name, Purpose.PIPELINE, Kind.ALL_REDUCE, 2, bytes, network, network ? Span.NODES : Span.NODE, deps);
  }

  /**
   * One phase over {@code n} ranks on the fabric or the network: a ring, an NVLS all-reduce inside the node or a
   * double binary tree across nodes where the algorithm allows it and it is faster.
   */
  private int phase(String name, Purpose purpose, Kind kind, int n, double bytes, boolean network, Span span,
      int... deps) {
    return phase(null, name, purpose, kind, n, bytes, network, span, deps);
  }

  /** As above, the phase's op named {@code prefix + name} ({@code prefix} null for none). */
  private int phase(String prefix, String name, Purpose purpose, Kind kind, int n, double bytes, boolean network,
      Span span, int... deps) {
    if (kind == Kind.ALL_REDUCE && network && treeTaken(n, bytes)) {
      int levels = log2Floor(n);
      int channels = channels(span, false);
      int group = groups.computeIfAbsent(new GroupKey(1, levels, true, span, 0), k -> ctx.sink.addGroup(holding(new CostGroup(
          "network double binary tree, 2 x " + levels + " levels", 1, -1, 1, networkPool,
          networkBusBandwidth() * TREE_BANDWIDTH_FRACTION, treeLatencySeconds(n)), channels)));
      return ctx.sink.addOp(prefix, name, OpKind.TRANSFER, stream(purpose, true), group, 0, 0,
          treeBytes(n, bytes), deps);
    }
    if (kind == Kind.ALL_REDUCE && !network && nvlsFaster(n, bytes)) {
      Link link = system.deviceLink().orElseThrow();
      double latency = nvlsLatencySeconds(n, bytes);
      boolean bySize = latency != link.nvlsLatencySeconds();
      int group = nvlsGroups.computeIfAbsent(latency, k -> ctx.sink.addGroup(holding(new CostGroup(
          "intra-node NVLS all-reduce" + (bySize ? ", latency by size" : ""), 1, -1, 1, fabricPool,
          link.nvlsBytesPerSecondPerDirection(), latency), channels(span, true))));
      return ctx.sink.addOp(prefix, name, OpKind.TRANSFER, stream(purpose, false), group, 0,
          0, bytes * (n + 1) / n, deps);
    }
    int steps = ringSteps(kind, n);
    double moved = ringBytes(kind, n, bytes);
    return ctx.sink.addOp(prefix, name, OpKind.TRANSFER, stream(purpose, network),
        ringGroup(steps, network, span, ringLatencySeconds(n, steps, network, span, bytes, moved)), 0, 0, moved, deps);
  }

  /** A cost group's key: algorithm (0 ring, 1 tree), steps or levels, network or fabric, span, latency (s). */
  private record GroupKey(int algorithm, int steps, boolean network, Span span, double latency) { }

  /** The steps of a ring collective of {@code kind} over {@code n} ranks: 2(n-1) for an all-reduce, else n-1. */
  static int ringSteps(Kind kind, int n) {
    return kind == Kind.ALL_REDUCE ? 2 * (n - 1) : n - 1;
  }

  /** Bytes a ring collective of {@code kind} and {@code bytes} over {@code n} ranks moves through each rank's link. */
  static double ringBytes(Kind kind, int n, double bytes) {
    return kind == Kind.ALL_REDUCE ? 2.0 * (n - 1) / n * bytes : (double) (n - 1) / n * bytes;
  }

  private double fabricStepSeconds() {
    return system.deviceLink().orElseThrow().latencySeconds();
  }

  private double networkStepSeconds() {
    return system.network().orElseThrow().nic().latencySeconds();
  }

  /**
   * The time a ring phase of {@code steps} steps over a collective of {@code bytes} ({@code moved} through each
   * rank's link) takes besides its bytes at the link's rate: its steps' latency, or, where the link carries a
   * measured all-reduce curve by size ({@link Link#ringCurves()}) and the phase is a collective (not a
   * point-to-point send), the time that curve adds at this size ({@link BusBandwidthCurves#extraSeconds}),
   * whichever is larger. The link's table for the collective's {@code n} ranks is read (the one measured at
   * {@code n}, else at the nearest measured rank count; a link with one table reads it at every {@code n}), at
   * the collective's size whatever its kind: a reduce-scatter or all-gather of S bytes runs half an all-reduce of
   * S (the same chunks, n-1 steps instead of 2(n-1)). This time does not take link bandwidth: transfers sharing
   * the link contend for their bytes only.
   */
  private double ringLatencySeconds(int n, int steps, boolean network, Span span, double bytes, double moved) {
    Link link = network ? system.network().orElseThrow().nic() : system.deviceLink().orElseThrow();
    double stepsLatency = steps * link.latencySeconds();
    if (span == Span.NONE || link.ringCurves().isEmpty() || !(moved > 0)) {
      return stepsLatency;
    }
    double rate = network ? networkBusBandwidth() : link.measuredBytesPerSecondPerDirection();
    return Math.max(stepsLatency, link.ringCurves().get().extraSeconds(n, bytes, moved, rate));
  }

  /**
   * The channels a phase's kernel holds on this GPU: the fabric's (ring, or NVLS where {@code nvls}) for a
   * communicator within the node, the NIC's for one spanning nodes; 0 where unknown or for point-to-point.
   */
  private int channels(Span span, boolean nvls) {
    return switch (span) {
      case NONE -> 0;
      case NODES -> nodesChannels;
      case NODE -> nvls ? nvlsChannels : nodeChannels;
    };
  }

  /**
   * {@code g} with each op holding {@code channels} of this GPU's SMs, where the count and the GPU's SMs are known
   * and leave SMs for compute; else {@code g} as it is.
   */
  private CostGroup holding(CostGroup g, int channels) {
    int sms = system.device().computeUnits();
    return channels > 0 && sms > channels ? g.holdingSms(ctx.devicePool, channels, sms) : g;
  }

  /**
   * The cost group of {@code steps} ring steps (or point-to-point rounds) on the fabric or the network, each op
   * holding the SMs of its {@code span}'s communicator.
   */
  private int ringGroup(int steps, boolean network, Span span, double latencySeconds) {
    int channels = channels(span, false);
    Link link = network ? system.network().orElseThrow().nic() : system.deviceLink().orElseThrow();
    double bw = network ? networkBusBandwidth() : link.measuredBytesPerSecondPerDirection();
    int pool = network ? networkPool : fabricPool;
    boolean bySize = latencySeconds != steps * link.latencySeconds();
    // get, then put: computeIfAbsent's lambda would capture (and allocate) on every one of a step's 10^4 calls
    GroupKey key = new GroupKey(0, steps, network, span, latencySeconds);
    Integer known = groups.get(key);
    if (known != null) {
      return known;
    }
    int group = ctx.sink.addGroup(holding(new CostGroup((network ? "network " : "intra-node ") + "ring, " + steps
        + " steps" + (bySize ? ", latency by size" : ""), 1, -1, 1, pool, bw, latencySeconds), channels));
    groups.put(key, group);
    return group;
  }

  /** This GPU's share of its node's NICs (bytes/s): the network bus bandwidth a ring reaches per GPU. */
  private double networkBusBandwidth() {
    return system.network().orElseThrow().bytesPerSecondPerDevice(system.deviceCount());
  }

  /**
   * Bytes a double binary tree all-reduce of {@code bytes} over {@code n} nodes moves each way through the busiest
   * node: every tree edge carries half the data up (reduce) and half down (broadcast); a node is interior in one
   * tree (a parent and two children) and a leaf in the other, 4 edges x S/2 = 2S. With two nodes each tree is one
   * edge: S, as the ring's 2(n-1)/n x S.
   */
  static double treeBytes(int n, double bytes) {
    return n == 2 ? bytes : 2 * bytes;
  }

  /** A tree all-reduce's latency over {@code n} nodes: 2 x log2(n) network hops (NCCL's tuning.cc, log2i). */
  private double treeLatencySeconds(int n) {
    return 2 * log2Floor(n) * system.network().orElseThrow().nic().latencySeconds() * TREE_HOP_LATENCY_RATIO;
  }

  private static int log2Floor(int n) {
    return 31 - Integer.numberOfLeadingZeros(Math.max(1, n));
  }

  /**
   * Whether an all-reduce of {@code bytes} over {@code n} nodes runs as a double binary tree: always with
   * {@link CollectiveAlgorithm#TREE}, never with RING, and under AUTO where its bandwidth and latency terms beat the
   * ring's.
   */
  private boolean treeTaken(int n, double bytes) {
    if (algorithm != CollectiveAlgorithm.AUTO || n < 2) {
      return algorithm == CollectiveAlgorithm.TREE && n >= 2;
    }
    double bw = networkBusBandwidth();
    double step = system.network().orElseThrow().nic().latencySeconds();
    double ring = 2.0 * (n - 1) / n * bytes / bw + 2 * (n - 1) * step;
    double tree = treeBytes(n, bytes) / (bw * TREE_BANDWIDTH_FRACTION) + treeLatencySeconds(n);
    return tree < ring;
  }

  /** Whether an all-reduce of {@code bytes} over {@code n} GPUs of this node runs faster with NVLS than as a ring. */
  private boolean nvlsFaster(int n, double bytes) {
    Link link = system.deviceLink().orElse(null);
    if (algorithm != CollectiveAlgorithm.AUTO || link == null || !link.nvls()
        || system.fabric() != llmsim.core.hw.FabricKind.SWITCH) {
      return false;
    }
    double moved = ringBytes(Kind.ALL_REDUCE, n, bytes);
    double ring = moved / link.measuredBytesPerSecondPerDirection()
        + ringLatencySeconds(n, ringSteps(Kind.ALL_REDUCE, n), false, Span.NODE, bytes, moved);
    double nvls = bytes * (n + 1) / n / link.nvlsBytesPerSecondPerDirection() + nvlsLatencySeconds(n, bytes);
    return nvls < ring;
  }

  /**
   * The time an NVLS all-reduce of {@code bytes} over {@code n} GPUs takes besides its bytes at the NVLS rate: the
   * link's fixed NVLS latency, or, where the link carries a measured NVLS all-reduce curve by size ({@link
   * Link#nvlsCurve()}), the time that curve's shape adds at this size, whichever is larger (read at the
   * all-reduce's size whatever n: a link gives one NVLS table).
   */
  private double nvlsLatencySeconds(int n, double bytes) {
    Link link = system.deviceLink().orElseThrow();
    double moved = bytes * (n + 1) / n;
    double rate = link.nvlsBytesPerSecondPerDirection();
    return link.nvlsCurve().filter(c -> moved > 0)
        .map(c -> Math.max(link.nvlsLatencySeconds(), c.extraSeconds(bytes, moved, rate)))
        .orElse(link.nvlsLatencySeconds());
  }
}
