package llmsim.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/**
 * The launcher's class-data layer for Hazelcast holds what its training run loads: each of the three training sweeps
 * (an embedded member, analytic and simulated, and a client of a member) must still run to its last row, or the layer
 * quietly stops covering that start.
 */
class ClassDataTrainingTest {
  @Test
  void everyTrainingSweep_writesItsRows() {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = ClassDataTraining.train(new PrintWriter(out), new PrintWriter(err));
    assertThat(code).as("%s", err).isZero();
    // each sweep: a header and one row per point (2 batch sizes)
    String[] lines = out.toString().split("\n");
    assertThat(lines).hasSize(3 * (1 + 2));
    assertThat(lines[0]).startsWith("index,");
    assertThat(lines[3]).isEqualTo(lines[0]); // the simulated sweep's header; its rows say simulate
    assertThat(lines[4]).contains(",simulate,");
    assertThat(lines[7]).isEqualTo(lines[1]); // the client's rows are the embedded member's
    assertThat(lines[8]).isEqualTo(lines[2]);
  }
}
