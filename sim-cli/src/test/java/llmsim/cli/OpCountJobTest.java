package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.workload.OpBudget;
import llmsim.hw.catalog.Catalog;
import org.junit.jupiter.api.Test;

/** The sweep's op counts, computed chunk by chunk on a backend, are each point's, in index order. */
class OpCountJobTest {

  @Test
  void chunks_coverEveryPointOnce_inIndexOrder_andMoreMicroBatchesCountMoreOps() {
    Map<ScenarioKey, List<String>> axes = new EnumMap<>(ScenarioKey.class);
    axes.put(ScenarioKey.HARDWARE, List.of("h100-sxm"));
    axes.put(ScenarioKey.MODEL, List.of("llama-7b"));
    axes.put(ScenarioKey.TASK, List.of("train"));
    axes.put(ScenarioKey.BATCH, List.of("1", "2"));
    axes.put(ScenarioKey.MICRO_BATCHES, List.of("1", "2", "4", "8"));
    SweepGrid grid = new SweepGrid(axes, Catalog.bundled(), null);
    long n = grid.points();
    assertThat(n).isEqualTo(8);
    // chunks of 3: 3 + 3 + 2 points, the last one short
    SweepJob sweep = SweepJob.of(axes, List.of(), Map.of(), grid, null, "simulate", false, null, null, 3, n);
    OpCountJob job = new OpCountJob(sweep);
    assertThat(job.chunks()).isEqualTo(3);
    List<Long> counted = new ArrayList<>();
    for (long c = 0; c < job.chunks(); c++) {
      for (long ops : job.compute(c)) {
        counted.add(ops);
      }
    }
    assertThat(counted).hasSize(8);
    for (int i = 0; i < n; i++) {
      SweepGrid.Point p = grid.point(i);
      assertThat(counted.get(i)).as("point " + i)
          .isEqualTo(OpBudget.ops(p.system(), p.model(), p.task(), p.software()));
    }
    // each micro-batch runs every layer forward and backward again: the count grows with the micro-batches
    for (int i = 0; i < n; i++) {
      SweepGrid.Point p = grid.point(i);
      for (int j = 0; j < n; j++) {
        SweepGrid.Point q = grid.point(j);
        if (p.task().batch() == q.task().batch() && p.task().microBatches() < q.task().microBatches()) {
          assertThat(counted.get(i)).as(i + " < " + j).isLessThan(counted.get(j));
        }
      }
    }
  }
}
