package llmsim.core.workload;

import java.util.HashMap;
import java.util.Map;
import llmsim.core.engine.CostGroup;
import llmsim.core.engine.Lane;
import llmsim.core.engine.OpKind;
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
 * be multicast) in two steps at the link's NVLS rate; the faster of the two is taken, as NCCL's tuner chooses (at
 * 2-4 GPUs the ring wins). Reduce-scatter, all-gather and phases across nodes stay rings.
 */
final class Collectives {
  /** The collectives of a group: which links its phases cross. */
  enum Kind { ALL_REDUCE, REDUCE_SCATTER, ALL_GATHER }

  /** What a transfer is for: each purpose queues on a stream of its own per kind of link. */
  private enum Purpose {
    TENSOR("tensor-parallel comm"), DATA("data-parallel comm"), PIPELINE("pipeline send");

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
  /** Cost group per (steps, network): a ring phase's latency depends on its steps. */
  private final Map<Integer, Integer> groups = new HashMap<>();
  /** The NVLS all-reduce's cost group, -1 until first used. */
  private int nvlsGroup = -1;
  /** Rings only, as with NCCL_NVLS_ENABLE=0 (nccl-tests' ring figures). */
  boolean ringOnly;

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
  }

  /** The stream of a purpose's transfers on one kind of link (tensor- and data-parallel traffic queue apart). */
  private int stream(Purpose purpose, boolean network) {
    int[] s = streams[purpose.ordinal()];
    int i = network ? 1 : 0;
    if (s[i] < 0) {
      s[i] = ctx.sink.addStream(ctx.label + purpose.label + (network ? " (network)" : " (intra-node)"),
          network ? Lane.NETWORK : Lane.FABRIC);
    }
    return s[i];
  }

  private boolean tpCrossesNodes() {
    return plan.tp() > system.deviceCount();
  }

  /** Ranks of a data-parallel group inside one node. */
  private int dpIntraRanks() {
    int perNode = Math.max(1, system.deviceCount() / plan.tp());
    return Math.min(plan.dp(), perNode);
  }

  /** A tensor-parallel collective of {@code bytes} on the critical path; returns its last op. */
  int tensorParallel(String name, Kind kind, double bytes, int... deps) {
    if (plan.tp() <= 1) {
      return deps.length == 0 ? -1 : deps[deps.length - 1];
    }
    if (!tpCrossesNodes()) {
      return phase(name, Purpose.TENSOR, kind, plan.tp(), bytes, false, deps);
    }
    return hierarchical(name, Purpose.TENSOR, kind, system.deviceCount(), plan.tp() / system.deviceCount(),
        bytes, deps);
  }

  /** A data-parallel collective of {@code bytes} (gradients, or ZeRO-3 weights); returns its last op. */
  int dataParallel(String name, Kind kind, double bytes, int... deps) {
    if (plan.dp() <= 1) {
      return deps.length == 0 ? -1 : deps[deps.length - 1];
    }
    int intra = dpIntraRanks();
    int inter = plan.dp() / intra;
    if (inter == 1) {
      return phase(name, Purpose.DATA, kind, intra, bytes, false, deps);
    }
    return hierarchical(name, Purpose.DATA, kind, intra, inter, bytes, deps);
  }

  private int hierarchical(String name, Purpose stream, Kind kind, int intra, int inter, double bytes, int... deps) {
    int last;
    double shard = bytes / intra;
    if (kind == Kind.ALL_GATHER) {
      last = phase(name + ".inter", stream, kind, inter, shard, true, deps);
      return intra > 1 ? phase(name + ".intra", stream, kind, intra, bytes, false, last) : last;
    }
    last = intra > 1 ? phase(name + ".intra_rs", stream, Kind.REDUCE_SCATTER, intra, bytes, false, deps) : -1;
    int[] after = last < 0 ? deps : new int[] {last};
    last = phase(name + ".inter", stream, kind, inter, shard, true, after);
    if (kind == Kind.ALL_REDUCE && intra > 1) {
      last = phase(name + ".intra_ag", stream, Kind.ALL_GATHER, intra, bytes, false, last);
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
    return phase(name, Purpose.PIPELINE, Kind.REDUCE_SCATTER, 2, 2 * bytes, network, deps);
  }

  /** One phase over {@code n} ranks on the fabric or the network: a ring, or an NVLS all-reduce where it is faster. */
  private int phase(String name, Purpose purpose, Kind kind, int n, double bytes, boolean network, int... deps) {
    if (kind == Kind.ALL_REDUCE && !network && nvlsFaster(n, bytes)) {
      Link link = system.deviceLink().orElseThrow();
      if (nvlsGroup < 0) {
        nvlsGroup = ctx.sink.addGroup(new CostGroup("intra-node NVLS all-reduce, 2 steps", 1, -1, 1, fabricPool,
            link.nvlsBytesPerSecondPerDirection(), 2 * link.latencySeconds()));
      }
      return ctx.sink.addOp(ctx.sink.keepsNames() ? name : "", OpKind.TRANSFER, stream(purpose, false), nvlsGroup, 0,
          0, bytes * (n + 1) / n, deps);
    }
    int steps = kind == Kind.ALL_REDUCE ? 2 * (n - 1) : n - 1;
    double moved = kind == Kind.ALL_REDUCE ? 2.0 * (n - 1) / n * bytes : (double) (n - 1) / n * bytes;
    Link link = network ? system.network().orElseThrow().nic() : system.deviceLink().orElseThrow();
    double bw = network ? system.network().orElseThrow().bytesPerSecondPerDevice(system.deviceCount())
        : link.measuredBytesPerSecondPerDirection();
    int pool = network ? networkPool : fabricPool;
    int group = groups.computeIfAbsent(2 * steps + (network ? 1 : 0), k -> ctx.sink.addGroup(new CostGroup(
        (network ? "network " : "intra-node ") + "ring, " + steps + " steps", 1, -1, 1, pool, bw,
        steps * link.latencySeconds())));
    return ctx.sink.addOp(ctx.sink.keepsNames() ? name : "", OpKind.TRANSFER, stream(purpose, network), group, 0, 0,
        moved, deps);
  }

  /** Whether an all-reduce of {@code bytes} over {@code n} GPUs of this node runs faster with NVLS than as a ring. */
  private boolean nvlsFaster(int n, double bytes) {
    Link link = system.deviceLink().orElse(null);
    if (ringOnly || link == null || !link.nvls() || system.fabric() != llmsim.core.hw.FabricKind.SWITCH) {
      return false;
    }
    double ring = 2.0 * (n - 1) / n * bytes / link.measuredBytesPerSecondPerDirection()
        + 2 * (n - 1) * link.latencySeconds();
    double nvls = bytes * (n + 1) / n / link.nvlsBytesPerSecondPerDirection() + 2 * link.latencySeconds();
    return nvls < ring;
  }
}
