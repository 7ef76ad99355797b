package llmsim.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The embedded member writes what the local backend writes, byte for byte, whatever the thread count. */
class EmbeddedSweepTest {
  static final String[] GRID = {"sweep", "--hardware", "m2-ultra,13900ks-rtx4090", "--models", "llama-7b,llama-13b",
      "--tasks", "inference,train", "--batch", "1,2,4", "--seq-len", "256", "--prompt-tokens", "64",
      "--generate-tokens", "8"};

  @Test
  void simulatedJsonl_isTheLocalBytes_oneThreadOrTwo() {
    String[] base = Cli.concat(GRID, "--mode", "simulate", "--format", "jsonl");
    Cli local = Cli.run(Cli.concat(base, "--threads", "2"));
    assertThat(local.code).as(local.err.toString()).isZero();
    assertThat(local.out.toString().lines()).hasSize(2 * 2 * 2 * 3);
    for (String threads : new String[] {"1", "2"}) {
      Cli hz = Cli.run(Cli.concat(base, "--backend", "hazelcast", "--threads", threads));
      assertThat(hz.code).as(hz.err.toString()).isZero();
      assertThat(hz.out.toString()).isEqualTo(local.out.toString());
    }
  }

  @Test
  void analyticCsvAndTop_areTheLocalBytes() {
    // the grid with wider batch and seq_len axes (given again, an axis flag would add its values to the grid's)
    java.util.List<String> grid = new java.util.ArrayList<>(java.util.List.of(GRID));
    for (String axis : new String[] {"--batch", "--seq-len"}) {
      int i = grid.indexOf(axis);
      grid.subList(i, i + 2).clear();
    }
    String[] big = Cli.concat(grid.toArray(String[]::new), "--batch", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,"
        + "27,28,29,30,31,32,33,34,35,36,37,38,39,40,41,42,43,44,45,46,47,48,49,50,51,52,53,54,55,56,57,58,59,60,61,62,63,64",
        "--seq-len", "128,256,384,512,640,768,896,1024,1152,1280");
    // 2 x 2 x 2 x 64 x 10 = 5,120 points: three chunks of 2,048, the last one short; inference does not use seq_len,
    // so its points run at the first one alone: 2 x 2 x 64 x 10 training rows and 2 x 2 x 64 inference rows
    Cli local = Cli.run(big);
    Cli hz = Cli.run(Cli.concat(big, "--backend", "hazelcast", "--threads", "2"));
    assertThat(hz.code).as(hz.err.toString()).isZero();
    assertThat(local.out.toString().lines()).hasSize(1 + 2 * 2 * 64 * 10 + 2 * 2 * 64);
    assertThat(hz.out.toString()).isEqualTo(local.out.toString());
    Cli localTop = Cli.run(Cli.concat(big, "--top", "7", "--by", "mfu"));
    Cli hzTop = Cli.run(Cli.concat(big, "--top", "7", "--by", "mfu", "--backend", "hazelcast"));
    assertThat(hzTop.out.toString()).isEqualTo(localTop.out.toString()).hasLineCount(1 + 7);
  }

  @Test
  void aSimulatedGridOverTheHeap_isRefusedBeforeAnyRow_withItsOpsCountedByTheMember() {
    // a million micro-batches: hundreds of millions of ops, beyond any heap a test JVM has
    String[] grid = {"sweep", "--mode", "simulate", "--models", "llama3-70b", "--hardware", "h100-sxm", "--tasks",
        "train", "--micro-batches", "1,1048576", "--backend", "hazelcast", "--threads", "1"};
    Cli r = Cli.run(grid);
    assertThat(r.code).as(r.err.toString()).isEqualTo(2);
    assertThat(r.err.toString()).contains("--micro-batches").contains(" ops (").contains("at point 1");
    assertThat(r.out.toString()).isEmpty();
  }

  @Test
  void anUnreachableCluster_isBadInputNamingIt() {
    System.setProperty("llmsim.hazelcast.connectTimeoutMillis", "1000");
    Cli r;
    try {
      r = Cli.run(Cli.concat(GRID, "--backend", "hazelcast", "--cluster", "127.0.0.1:1"));
    } finally {
      System.clearProperty("llmsim.hazelcast.connectTimeoutMillis");
    }
    assertThat(r.code).isEqualTo(2);
    assertThat(r.err.toString()).contains("no llmsim cluster answered at 127.0.0.1:1").contains("llmsim worker");
    assertThat(r.out.toString()).isEmpty();
  }
}
