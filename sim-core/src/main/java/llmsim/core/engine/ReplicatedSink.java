package llmsim.core.engine;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every GPU of a symmetric group simulated rather than one standing for all: each resource and op a builder adds
 * is added once per peer, on the peer's own pools and streams, with its dependencies mapped to the same peer's
 * ops. A transfer on the fabric or the network is part of a collective the peers run together: after the peers'
 * copies a zero-cost synchronisation op waits for all of them, and whatever followed the transfer waits for it.
 * Peer 0 keeps the builder's names and its ids are the ones returned, so a trace reads as before.
 *
 * <p>Into a {@link Simulation} the peers' copies of an op go as one row of the op table ({@link OpTable}): names,
 * columns and costs are held and costed once, and each copy gets the ids, streams, groups and pools it would have
 * got one by one (the peers' resources are numbered consecutively), so the run is the same event for event.
 */
public final class ReplicatedSink implements OpSink {
  private final OpSink inner;
  private final int peers;
  private final Map<Integer, int[]> pools = new HashMap<>();
  private final Map<Integer, int[]> streams = new HashMap<>();
  private final Map<Integer, Lane> lanes = new HashMap<>();
  private final Map<Integer, int[]> groups = new HashMap<>();
  private final List<int[]> ops = new ArrayList<>();
  private final Map<Integer, Integer> opIndex = new HashMap<>();
  private int syncGroup = -1;
  /** The simulation the copies go to as rows, or null to add them one by one. */
  private final Simulation rows;

  public ReplicatedSink(OpSink inner, int peers) {
    if (peers < 1) {
      throw new IllegalArgumentException("peers must be >= 1, was " + peers);
    }
    this.inner = inner;
    this.peers = peers;
    this.rows = inner instanceof Simulation sim ? sim : null;
  }

  /** Peers' copies numbered consecutively, as {@link Simulation#addCopies} takes them. */
  private static void checkConsecutive(String what, int[] ids) {
    for (int j = 1; j < ids.length; j++) {
      if (ids[j] != ids[0] + j) {
        throw new IllegalStateException(what + ": peers' copies not numbered consecutively");
      }
    }
  }

  public int peers() {
    return peers;
  }

  private static String peerName(int j, String name) {
    return j == 0 ? name : "peer " + j + " " + name;
  }

  @Override
  public int addPool(String name) {
    int[] ids = new int[peers];
    for (int j = 0; j < peers; j++) {
      ids[j] = inner.addPool(peerName(j, name));
    }
    checkConsecutive("pool " + name, ids);
    pools.put(ids[0], ids);
    return ids[0];
  }

  /** An owner no builder passes: the stream was added without one, and its copies are too. */
  private static final int NO_OWNER = Integer.MIN_VALUE;

  @Override
  public int addStream(String name, Lane lane) {
    return addStream(name, lane, NO_OWNER);
  }

  /** Each peer's copy on the peer's own GPU: its copy of {@code owner}'s, or one of its own. */
  @Override
  public int addStream(String name, Lane lane, int owner) {
    int[] ids = new int[peers];
    for (int j = 0; j < peers; j++) {
      String n = peerName(j, name);
      ids[j] = owner == NO_OWNER ? inner.addStream(n, lane)
          : inner.addStream(n, lane, owner < 0 ? -1 : streams.get(owner)[j]);
    }
    checkConsecutive("stream " + name, ids);
    streams.put(ids[0], ids);
    lanes.put(ids[0], lane);
    return ids[0];
  }

  @Override
  public int addGroup(CostGroup g) {
    int[] ids = new int[peers];
    for (int j = 0; j < peers; j++) {
      int mem = g.memPool() < 0 ? -1 : pools.get(g.memPool())[j];
      int link = g.linkPool() < 0 ? -1 : pools.get(g.linkPool())[j];
      int sm = g.smPool() < 0 ? -1 : pools.get(g.smPool())[j];
      ids[j] = inner.addGroup(new CostGroup(g.name(), g.effectivePeakFlops(), mem, g.effectiveMemBandwidth(), link,
          g.effectiveLinkBandwidth(), g.launchSeconds(), g.computeUnits(), sm, g.smsHeld(), g.smsOfDevice(),
          g.gemmFloorSeconds()));
    }
    checkConsecutive("group " + g.name(), ids);
    groups.put(ids[0], ids);
    return ids[0];
  }

  @Override
  public int addOp(String name, OpKind kind, int stream, int group, double flops, double memBytes, double linkBytes,
      int... deps) {
    return add(null, name, kind, stream, group, flops, memBytes, linkBytes, null, deps);
  }

  @Override
  public int addOp(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double linkBytes, int... deps) {
    return add(prefix, name, kind, stream, group, flops, memBytes, linkBytes, null, deps);
  }

  @Override
  public int addGemm(String name, OpKind kind, int stream, int group, double flops, double memBytes, double m,
      double n, double k, int... deps) {
    return add(null, name, kind, stream, group, flops, memBytes, 0, new double[] {m, n, k}, deps);
  }

  @Override
  public int addGemm(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double m, double n, double k, int... deps) {
    return add(prefix, name, kind, stream, group, flops, memBytes, 0, new double[] {m, n, k}, deps);
  }

  /**
   * One op on every peer, named {@code prefix + name} ({@code prefix} null for none; kept apart into a simulation's
   * rows); {@code shape} (m, n, k) for a GEMM, else null.
   */
  private int add(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double linkBytes, double[] shape, int... deps) {
    if (rows != null) {
      return addRow(prefix, name, kind, stream, group, flops, memBytes, linkBytes, shape, deps);
    }
    if (prefix != null) {
      name = inner.keepsNames() ? prefix + name : name;
    }
    int[] ids = new int[peers];
    for (int j = 0; j < peers; j++) {
      int[] mapped = new int[deps.length];
      for (int d = 0; d < deps.length; d++) {
        mapped[d] = ops.get(opIndex.get(deps[d]))[j];
      }
      ids[j] = shape == null
          ? inner.addOp(peerName(j, name), kind, streams.get(stream)[j], groups.get(group)[j], flops, memBytes,
              linkBytes, mapped)
          : inner.addGemm(peerName(j, name), kind, streams.get(stream)[j], groups.get(group)[j], flops, memBytes,
              shape[0], shape[1], shape[2], mapped);
    }
    Lane lane = lanes.get(stream);
    int result = ids[0];
    if (peers > 1 && (lane == Lane.FABRIC || lane == Lane.NETWORK)) {
      if (syncGroup < 0) {
        syncGroup = inner.addGroup(new CostGroup("peer sync", 1, -1, 1, -1, 1, 0));
      }
      int sync = inner.addOp(inner.keepsNames() ? name + ".sync" : name, OpKind.TRANSFER, streams.get(stream)[0],
          syncGroup, 0, 0, 0, ids.clone());
      java.util.Arrays.fill(ids, sync);
      result = sync;
    }
    opIndex.put(result, ops.size());
    ops.add(ids);
    return result;
  }

  /**
   * The peers' copies as one row; a transfer's synchronisation is a row of one copy depending on all of them. The
   * ids the builder holds are first copies and synchronisations, which is what a row's dependencies name.
   */
  private int addRow(String prefix, String name, OpKind kind, int stream, int group, double flops, double memBytes,
      double linkBytes, double[] shape, int... deps) {
    int[] s = streams.get(stream);
    int[] g = groups.get(group);
    if (s == null || g == null) {
      throw new IllegalArgumentException("op " + OpTable.join(prefix, name) + ": unknown stream " + stream
          + " or cost group " + group);
    }
    if (shape != null && !llmsim.core.kernel.GemmTiles.validShape(shape[0], shape[1], shape[2])) {
      llmsim.core.kernel.GemmTiles.checkShape(OpTable.join(prefix, name), shape[0], shape[1], shape[2]);
    }
    int id = shape == null
        ? rows.addCopies(prefix, name, kind, s[0], g[0], flops, memBytes, linkBytes, 0, 0, 0, peers, deps)
        : rows.addCopies(prefix, name, kind, s[0], g[0], flops, memBytes, 0, shape[0], shape[1], shape[2], peers,
            deps);
    Lane lane = lanes.get(stream);
    if (peers > 1 && (lane == Lane.FABRIC || lane == Lane.NETWORK)) {
      if (syncGroup < 0) {
        syncGroup = inner.addGroup(new CostGroup("peer sync", 1, -1, 1, -1, 1, 0));
      }
      return rows.addCopies(prefix, inner.keepsNames() ? name + ".sync" : name, OpKind.TRANSFER, s[0], syncGroup, 0,
          0, 0, 0, 0, 0, 1, id);
    }
    return id;
  }

  @Override
  public boolean keepsNames() {
    return inner.keepsNames();
  }

  @Override
  public int repeat(int n) {
    return inner.repeat(n);
  }

  @Override
  public void endRepeat() {
    inner.endRepeat();
  }

  @Override
  public double weight() {
    return inner.weight();
  }

  @Override
  public void phase(int index) {
    inner.phase(index);
  }

  @Override
  public void layer(int index) {
    inner.layer(index);
  }
}
