package llmsim.core.hw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class LinkTest {
  private static Link nvls(double nvlsRate, double nvlsLatency) {
    return new Link("f", "fabric", List.of(), LinkKind.NVLINK, 450e9, "s", 367e9, "s", 2e-6, "s", nvlsRate, "s",
        nvlsLatency, "s");
  }

  @Test
  void anNvlsLink_withoutItsNvlsLatency_isRejected() {
    assertThatThrownBy(() -> nvls(309e9, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("NVLS all-reduce latency");
    assertThat(nvls(309e9, 30e-6).nvlsLatencySeconds()).isEqualTo(30e-6);
  }

  @Test
  void aLinkWithoutNvls_needsNoNvlsLatency() {
    Link plain = new Link("p", "pcie", List.of(), LinkKind.PCIE, 32e9, "s", 26e9, "s", 1e-6, "s");
    assertThat(plain.nvls()).isFalse();
    assertThat(plain.nvlsLatencySeconds()).isZero();
  }
}
