package llmsim.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ReplicatedSinkTest {
  /** Forwards to a simulation without being one, so that ReplicatedSink adds every peer's copy one by one. */
  private record OneByOne(Simulation sim) implements OpSink {
    @Override
    public int addPool(String name) {
      return sim.addPool(name);
    }

    @Override
    public int addStream(String name, Lane lane) {
      return sim.addStream(name, lane);
    }

    @Override
    public int addGroup(CostGroup g) {
      return sim.addGroup(g);
    }

    @Override
    public int addOp(String name, OpKind kind, int stream, int group, double flops, double memBytes,
        double linkBytes, int... deps) {
      return sim.addOp(name, kind, stream, group, flops, memBytes, linkBytes, deps);
    }

    @Override
    public int addGemm(String name, OpKind kind, int stream, int group, double flops, double memBytes, double m,
        double n, double k, int... deps) {
      return sim.addGemm(name, kind, stream, group, flops, memBytes, m, n, k, deps);
    }

    @Override
    public void layer(int index) {
      sim.layer(index);
    }
  }

  /**
   * A random symmetric workload as a builder would emit it for one GPU: compute on a shared memory pool (GEMMs
   * with shapes, launches), transfers on the fabric and the network (each followed by the peers' synchronisation),
   * host copies, dependencies on what the builder got back; many equal times (whole-number sizes).
   */
  static void build(OpSink sink, long seed) {
    build(sink, seed, false);
  }

  /** As above; {@code ownGpus}: each peer's streams on a GPU of its own (else every stream on one GPU). */
  static void build(OpSink sink, long seed, boolean ownGpus) {
    SplittableRandom rnd = new SplittableRandom(seed);
    int mem = sink.addPool("device memory");
    int fabric = sink.addPool("intra-node link");
    int network = sink.addPool("network");
    int h2d = sink.addPool("host link H2D");
    int compute = ownGpus ? sink.addStream("GPU compute", Lane.COMPUTE, -1)
        : sink.addStream("GPU compute", Lane.COMPUTE);
    int[] comm = {stream(sink, "tensor-parallel comm", Lane.FABRIC, compute, ownGpus),
        stream(sink, "data-parallel comm", Lane.NETWORK, compute, ownGpus),
        stream(sink, "pipeline send", Lane.FABRIC, compute, ownGpus)};
    int copy = stream(sink, "H2D copy", Lane.H2D, compute, ownGpus);
    int gemm = sink.addGroup(new CostGroup("gemm", 8, mem, 2, -1, 1, 0.25, 4));
    int elementwise = sink.addGroup(new CostGroup("element-wise", 8, mem, 2, -1, 1, 0));
    int ring = sink.addGroup(new CostGroup("intra-node ring", 1, -1, 1, fabric, 4, 0.5));
    int net = sink.addGroup(new CostGroup("network ring", 1, -1, 1, network, 1, 1));
    int copyGroup = sink.addGroup(new CostGroup("H2D copy", 1, -1, 1, h2d, 2, 0));
    List<Integer> ids = new ArrayList<>();
    int n = 30 + rnd.nextInt(120);
    for (int i = 0; i < n; i++) {
      sink.layer(rnd.nextInt(4) - 1);
      int[] deps = ids.isEmpty() ? new int[0] : rnd.nextInt(4) == 0
          ? new int[] {ids.get(rnd.nextInt(ids.size())), ids.get(rnd.nextInt(ids.size()))}
          : rnd.nextBoolean() ? new int[] {ids.get(rnd.nextInt(ids.size()))} : new int[0];
      int id = switch (rnd.nextInt(6)) {
        // names given as a pass's prefix and the op's own part, as the builders give them, on GEMMs and transfers
        case 0 -> sink.addGemm("L" + i + ".", "gemm", OpKind.MLP, compute, gemm, rnd.nextInt(64), rnd.nextInt(8),
            1 + rnd.nextInt(16), 1 + rnd.nextInt(16), 1 + rnd.nextInt(8), deps);
        case 1 -> sink.addOp("norm" + i, OpKind.NORM_ELEMENTWISE, compute, elementwise, rnd.nextInt(4), rnd.nextInt(8), 0, deps);
        case 2 -> sink.addOp("mb" + i + ".", "allreduce", OpKind.TRANSFER, comm[0], ring, 0, 0, rnd.nextInt(8), deps);
        case 3 -> sink.addOp("send" + i, OpKind.TRANSFER, comm[2], ring, 0, 0, rnd.nextInt(8), deps);
        case 4 -> sink.addOp("grads" + i, OpKind.TRANSFER, comm[1], net, 0, 0, rnd.nextInt(8), deps);
        default -> sink.addOp("copy" + i, OpKind.TRANSFER, copy, copyGroup, 0, 0, rnd.nextInt(8), deps);
      };
      ids.add(id);
    }
  }

  private static int stream(OpSink sink, String name, Lane lane, int compute, boolean ownGpus) {
    return ownGpus ? sink.addStream(name, lane, compute) : sink.addStream(name, lane);
  }

  @Test
  void copiesAsRows_runEventForEventAsCopiesOneByOne() {
    for (long seed = 0; seed < 60; seed++) {
      int peers = 1 + (int) (seed % 7);
      Simulation rows = new Simulation();
      build(new ReplicatedSink(rows, peers), seed);
      Simulation oneByOne = new Simulation();
      build(new ReplicatedSink(new OneByOne(oneByOne), peers), seed);
      Trace a = rows.run();
      Trace b = oneByOne.run();
      String at = "seed " + seed;
      assertThat(a.size()).as(at).isEqualTo(b.size());
      assertThat(a.events()).as(at).isEqualTo(b.events());
      assertThat(a.makespan()).as(at).isEqualTo(b.makespan());
      assertThat(a.start()).as(at).isEqualTo(b.start());
      assertThat(a.end()).as(at).isEqualTo(b.end());
      assertThat(a.timeByBound()).as(at).isEqualTo(b.timeByBound());
      assertThat(a.timeByBound()).as(at).isEqualTo(TraceTest.sortingSweep(a));
      assertThat(a.streams()).as(at).isEqualTo(b.streams());
      assertThat(a.pools()).as(at).isEqualTo(b.pools());
      assertThat(a.ops().names()).as(at).isEqualTo(b.ops().names());
      assertThat(a.ops().kinds()).as(at).isEqualTo(b.ops().kinds());
      assertThat(a.ops().streams()).as(at).isEqualTo(b.ops().streams());
      assertThat(a.ops().groups()).as(at).isEqualTo(b.ops().groups());
      assertThat(a.ops().flops()).as(at).isEqualTo(b.ops().flops());
      assertThat(a.ops().memBytes()).as(at).isEqualTo(b.ops().memBytes());
      assertThat(a.ops().linkBytes()).as(at).isEqualTo(b.ops().linkBytes());
      assertThat(a.ops().layers()).as(at).isEqualTo(b.ops().layers());
      assertThat(a.costs().time).as(at).isEqualTo(b.costs().time);
      assertThat(a.costs().launch).as(at).isEqualTo(b.costs().launch);
      assertThat(a.costs().bound).as(at).isEqualTo(b.costs().bound);
      assertThat(a.costs().attained).as(at).isEqualTo(b.costs().attained);
      assertThat(a.costs().intensity).as(at).isEqualTo(b.costs().intensity);
      for (int i = 0; i < a.size(); i++) {
        assertThat(a.opBound(i)).as(at).isEqualTo(b.opBound(i));
        assertThat(a.lane(i)).isEqualTo(b.lanes().get(b.ops().streams()[i]));
        assertThat(a.linkBytes(i)).isEqualTo(b.ops().linkBytes()[i]);
        assertThat(a.memBytes(i)).isEqualTo(b.ops().memBytes()[i]);
      }
    }
  }

  @Test
  void peersOnTheirOwnResources_endTogether_andTheSynchronisationWaitsForAll() {
    int peers = 3;
    Simulation sim = new Simulation();
    ReplicatedSink sink = new ReplicatedSink(sim, peers);
    int mem = sink.addPool("memory");
    int link = sink.addPool("link");
    int compute = sink.addStream("compute", Lane.COMPUTE);
    int comm = sink.addStream("comm", Lane.FABRIC);
    int gpu = sink.addGroup(new CostGroup("gpu", 10, mem, 5, -1, 1, 0));
    int ring = sink.addGroup(new CostGroup("ring", 1, -1, 1, link, 2, 0));
    int a = sink.addOp("a", OpKind.MLP, compute, gpu, 20, 0, 0); // 2 s on each peer's own device
    int s = sink.addOp("send", OpKind.TRANSFER, comm, ring, 0, 0, 6, a); // 3 s on each peer's own link
    int b = sink.addOp("mb0.", "b", OpKind.MLP, compute, gpu, 0, 5, 0, s); // 1 s, after every peer's send
    Trace t = sim.run();
    // per peer: a, send; then the send's synchronisation (one op), then b per peer
    assertThat(t.size()).isEqualTo(3 * peers + 1);
    assertThat(t.makespan()).isEqualTo(2 + 3 + 1);
    int sync = s;
    assertThat(t.ops().names()[sync]).isEqualTo("send.sync");
    assertThat(t.ops().names()[a + 1]).isEqualTo("peer 1 a");
    // a name given in two parts reads whole, on every peer's copy
    assertThat(t.ops().names()[b]).isEqualTo("mb0.b");
    assertThat(t.ops().names()[b + 2]).isEqualTo("peer 2 mb0.b");
    for (int j = 0; j < peers; j++) {
      assertThat(t.end()[a + j]).isEqualTo(2.0);
      assertThat(t.end()[sync - peers + j]).isEqualTo(5.0);
      assertThat(t.ops().streams()[a + j]).isEqualTo(compute + j);
    }
    assertThat(t.end()[sync]).isEqualTo(5.0);
  }

  @Test
  void aDependencyOnACopyOtherThanTheFirst_isRefused() {
    Simulation sim = new Simulation();
    ReplicatedSink sink = new ReplicatedSink(sim, 2);
    int mem = sink.addPool("memory");
    int compute = sink.addStream("compute", Lane.COMPUTE);
    int gpu = sink.addGroup(new CostGroup("gpu", 10, mem, 5, -1, 1, 0));
    int a = sink.addOp("a", OpKind.MLP, compute, gpu, 20, 0, 0);
    assertThatThrownBy(() -> sim.addOp("b", OpKind.MLP, compute, gpu, 1, 0, 0, a + 1))
        .hasMessageContaining("a copy other than the first");
  }
}
