package llmsim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import llmsim.core.memory.MemoryPlan;
import llmsim.core.task.Offload;
import llmsim.core.util.Units;
import org.junit.jupiter.api.Test;

class MemoryChartTest {
  static final double G = Units.GIB;

  /** An offloaded training plan: 52.8 GiB on an 80 GiB device, 1,100 GiB in 128 GiB of host memory. */
  static final MemoryPlan OFFLOADED = new MemoryPlan(Offload.WEIGHTS, 3 * G, 1 * G, 0, 40 * G, 0, 8.8 * G, 80 * G,
      1100 * G, 128 * G, 0, 0, 0, 80, false, 1050 * G);
  static final MemoryPlan RESIDENT = new MemoryPlan(Offload.NONE, 130 * G, 0, 0, 2 * G, 1 * G, 0.5 * G, 144 * G, 0,
      48 * G, 4, 2048, 80, 80, false, 133.5 * G);

  @Test
  void offload_showsAHostBarAgainstHostCapacity_andWhatTheDeviceNeededWithoutIt() {
    MemoryChart.Data d = MemoryChart.createDataset(List.of(new MemoryChart.Entry("h100", OFFLOADED),
        new MemoryChart.Entry("m2-ultra", RESIDENT)));
    assertThat(d.bars().getColumnKeys()).containsExactly("h100 device", "h100 host", "m2-ultra device");
    assertThat(d.bars().getValue(MemoryChart.HOST, "h100 host").doubleValue()).isEqualTo(1100);
    assertThat(d.markers().getValue(MemoryChart.CAPACITY, "h100 host").doubleValue()).isEqualTo(128);
    assertThat(d.markers().getValue(MemoryChart.CAPACITY, "h100 device").doubleValue()).isEqualTo(80);
    assertThat(d.markers().getValue(MemoryChart.NEEDED, "h100 device").doubleValue()).isEqualTo(1050);
    assertThat(d.markers().getValue(MemoryChart.NEEDED, "m2-ultra device")).isNull();
    // the axis reaches the largest of every bar and marker: the 1,100 GiB in host memory
    assertThat(d.maxGib()).isCloseTo(1100, within(1e-9));
    double device = 0;
    for (Object row : d.bars().getRowKeys()) {
      Number v = d.bars().getValue((Comparable<?>) row, "h100 device");
      device += v == null ? 0 : v.doubleValue();
    }
    assertThat(device).isCloseTo(OFFLOADED.totalBytes() / G, within(1e-9));
  }
}
