package llmsim.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkLayoutTest {
  /** The chunks' sizes, checking on the way that they tile 0..points-1 in order. */
  static List<Long> sizes(ChunkLayout l) {
    List<Long> sizes = new ArrayList<>();
    long at = 0;
    for (long c = 0; c < l.chunks(); c++) {
      assertThat(l.start(c)).as("chunk " + c + " starts where the one before ended").isEqualTo(at);
      assertThat(l.end(c)).as("chunk " + c + " is not empty").isGreaterThan(at);
      sizes.add(l.end(c) - l.start(c));
      at = l.end(c);
    }
    assertThat(at).as("every point once").isEqualTo(l.points());
    return sizes;
  }

  @Test
  void longRun_endsInPairsOfHalvedChunks_downToASixteenth() {
    // 432 points of 16: the tail is 8 + 8 + 4 + 4 + 2 + 2 + 1 + 1 = 30 points; 402 before it are 25 chunks of 16 and 2
    List<Long> sizes = sizes(new ChunkLayout(432, 16));
    List<Long> expected = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      expected.add(16L);
    }
    expected.addAll(List.of(2L, 8L, 8L, 4L, 4L, 2L, 2L, 1L, 1L));
    assertThat(sizes).isEqualTo(expected);
  }

  @Test
  void analyticChunks_stopHalvingAt128() {
    List<Long> sizes = sizes(new ChunkLayout(100_000, 2048));
    long tail = 2 * (1024 + 512 + 256 + 128);
    assertThat(sizes.subList(sizes.size() - 8, sizes.size())).containsExactly(1024L, 1024L, 512L, 512L, 256L, 256L,
        128L, 128L);
    assertThat(sizes).hasSize((int) ((100_000 - tail + 2047) / 2048) + 8);
  }

  @Test
  void underFourFullChunks_orChunksOfOne_areCutEvenly_theLastShort() {
    assertThat(sizes(new ChunkLayout(8, 3))).containsExactly(3L, 3L, 2L);
    assertThat(sizes(new ChunkLayout(63, 16))).containsExactly(16L, 16L, 16L, 15L);
    assertThat(sizes(new ChunkLayout(5, 1))).containsExactly(1L, 1L, 1L, 1L, 1L);
    assertThat(new ChunkLayout(0, 16).chunks()).isZero();
  }

  @Test
  void everyLayout_tilesItsPoints() {
    for (int size : new int[] {1, 2, 3, 5, 16, 17, 64}) {
      for (long points = 0; points < 600; points++) {
        sizes(new ChunkLayout(points, size));
      }
    }
  }
}
