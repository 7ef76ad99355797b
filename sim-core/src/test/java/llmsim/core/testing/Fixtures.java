package llmsim.core.testing;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Device;
import llmsim.core.hw.Efficiency;
import llmsim.core.hw.Host;
import llmsim.core.hw.Link;
import llmsim.core.hw.LinkKind;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.FfnKind;
import llmsim.core.model.ModelSpec;
import llmsim.core.model.NormKind;
import llmsim.core.util.Units;

/** Hand-built hardware and models for core tests (core cannot read the catalog). */
public final class Fixtures {
  private Fixtures() {}

  public static ModelSpec llama7b() {
    return new ModelSpec("llama-7b", "LLaMA 7B", "llama", List.of(), 32, 4096, 32, 32, 128, 11008, FfnKind.SWIGLU,
        32000, false, 2048, NormKind.RMSNORM, false, false, false, false, 2, 6738415616.0, "test");
  }

  public static ModelSpec llama65b() {
    return new ModelSpec("llama-65b", "LLaMA 65B", "llama", List.of(), 80, 8192, 64, 64, 128, 22016, FfnKind.SWIGLU,
        32000, false, 2048, NormKind.RMSNORM, false, false, false, false, 2, 65285660672.0, "test");
  }

  public static ModelSpec llama13b() {
    return new ModelSpec("llama-13b", "LLaMA 13B", "llama", List.of(), 40, 5120, 40, 40, 128, 13824, FfnKind.SWIGLU,
        32000, false, 2048, NormKind.RMSNORM, false, false, false, false, 2, 13015864320.0, "test");
  }

  /** An RTX-4090-like card: 165 TFLOP/s fp16, 24 GiB at 1008 GB/s, on PCIe 4.0 (26 GB/s measured). */
  public static SystemSpec discrete24GiB() {
    Device d = new Device("gpu24", "Test GPU 24GB", "test", List.of(),
        Map.of(Precision.FP16, 165e12, Precision.BF16, 165e12, Precision.FP32, 82.6e12), "test",
        24 * Units.GIB, 1008e9, "GDDR6X", "test", 72 * Units.MIB, "test", 450, "test", 1, Optional.empty(),
        new Efficiency(0.9, "test", 0.9, "test", true));
    Host h = new Host("host", "Test host", List.of(), 1, 24, "24", 128 * Units.GIB, 89.6e9, "test", 2.4e12, "test");
    Link l = new Link("pcie4", "PCIe 4.0 x16", List.of(), LinkKind.PCIE, 32e9, "test", 26e9, "test", 1e-6, "test");
    return new SystemSpec("discrete24", "Test 24GB", List.of(), h, d, 1, l, Optional.empty(), 1.0, "test", Optional.empty());
  }

  /** An H100-PCIe-like card: 756 TFLOP/s bf16, 80 GiB at 2 TB/s, on PCIe 5.0 (55 GB/s measured). */
  public static SystemSpec discrete() {
    return discrete(0);
  }

  /** {@link #discrete()} with {@code sms} streaming multiprocessors for the GEMM tile model (0: none). */
  public static SystemSpec discrete(int sms) {
    return discrete(sms, new Efficiency(0.8, "test", 0.9, "test", true), Map.of(Precision.FP16, 756e12,
        Precision.BF16, 756e12, Precision.FP32, 51e12));
  }

  /** {@link #discrete()} with its own efficiencies and peaks. */
  public static SystemSpec discrete(int sms, Efficiency e, Map<Precision, Double> peaks) {
    Device d = new Device("gpu", "Test GPU 80GB", "test", List.of(), peaks, "test",
        80 * Units.GIB, 2.0e12, "HBM", "test", 50 * Units.MIB, "test", 350, "test", 1, Optional.empty(),
        e, Map.of(), sms, "test");
    Host h = new Host("host", "Test host", List.of(), 1, 24, "24", 128 * Units.GIB, 89.6e9, "test", 2.4e12, "test");
    Link l = new Link("pcie5", "PCIe 5.0 x16", List.of(), LinkKind.PCIE, 63e9, "test", 55e9, "test", 1e-6, "test");
    return new SystemSpec("discrete", "Test discrete", List.of(), h, d, 1, l, Optional.empty(), 1.0, "test", Optional.empty());
  }

  /**
   * {@code nodes} nodes of 8 {@link #discrete()} GPUs on a switch fabric of 200 GB/s bus bandwidth (2 us a
   * ring step), with 8 NICs per node of 20 GB/s bus bandwidth (5 us a step), rail-optimised.
   */
  public static SystemSpec cluster(int nodes) {
    return cluster(nodes, 0);
  }

  /** The fixed time of one NVLS all-reduce on {@link #cluster(int, double)}'s fabric. */
  public static final double NVLS_LATENCY = 20e-6;

  /**
   * As {@link #cluster(int)}, the switch reducing in-network (NVLS) at {@code nvls} B/s per direction (0: not), each
   * NVLS all-reduce costing {@link #NVLS_LATENCY} besides its bytes.
   */
  public static SystemSpec cluster(int nodes, double nvls) {
    return cluster(nodes, nvls, 0, 0, 0);
  }

  /**
   * As {@link #cluster(int, double)}, on GPUs of {@code sms} SMs whose NCCL collectives hold {@code fabricChannels}
   * of them within a node and {@code nicChannels} when spanning nodes (0: none).
   */
  public static SystemSpec cluster(int nodes, double nvls, int sms, int fabricChannels, int nicChannels) {
    return cluster(nodes, nvls, sms, fabricChannels, nicChannels, null, null);
  }

  /** As {@link #cluster(int)}, the fabric's ring collectives timed by size from {@code ringCurve}. */
  public static SystemSpec cluster(int nodes, llmsim.core.hw.BusBandwidthCurve ringCurve) {
    return cluster(nodes, llmsim.core.hw.BusBandwidthCurves.of(ringCurve));
  }

  /** As {@link #cluster(int)}, the fabric's ring collectives timed by size and rank count from {@code ringCurves}. */
  public static SystemSpec cluster(int nodes, llmsim.core.hw.BusBandwidthCurves ringCurves) {
    return cluster(nodes, 0, 0, 0, 0, ringCurves, null);
  }

  /** As {@link #cluster(int, double)}, the NVLS all-reduce timed by size from {@code nvlsCurve}. */
  public static SystemSpec clusterNvls(int nodes, double nvls, llmsim.core.hw.BusBandwidthCurve nvlsCurve) {
    return cluster(nodes, nvls, 0, 0, 0, null, nvlsCurve);
  }

  private static SystemSpec cluster(int nodes, double nvls, int sms, int fabricChannels, int nicChannels,
      llmsim.core.hw.BusBandwidthCurves ringCurves, llmsim.core.hw.BusBandwidthCurve nvlsCurve) {
    SystemSpec one = discrete(sms);
    Link fabric = new Link("fabric", "Test fabric", List.of(), LinkKind.NVLINK, 300e9, "test", 200e9, "test", 2e-6, "test",
        nvls, nvls > 0 ? "test" : "", nvls > 0 ? NVLS_LATENCY : 0, nvls > 0 ? "test" : "")
        .withChannels(fabricChannels, "test", 0, "").withRingCurves(ringCurves).withNvlsCurve(nvlsCurve);
    Link nic = new Link("nic", "Test NIC", List.of(), LinkKind.INFINIBAND, 25e9, "test", 20e9, "test", 5e-6, "test")
        .withChannels(nicChannels, "test", 0, "");
    return new SystemSpec("cluster", "Test cluster", List.of(), one.host(), one.device(), 8, one.hostLink(),
        Optional.of(fabric), 1.0, "test", Optional.empty(), nodes, llmsim.core.hw.FabricKind.SWITCH,
        Optional.of(new llmsim.core.hw.Network(nic, 8, true, "test")));
  }

  /** An M2-Ultra-like SoC: 27.2 TFLOP/s fp16, 192 GiB unified at 800 GB/s, GPU share 0.75. */
  public static SystemSpec unified() {
    Device d = new Device("soc", "Test SoC 192GB", "test", List.of(),
        Map.of(Precision.FP16, 27.2e12, Precision.FP32, 27.2e12), "test",
        192 * Units.GIB, 800e9, "LPDDR5", "test", 96 * Units.MIB, "test", 370, "test", 1, Optional.empty(),
        new Efficiency(0.75, "test", 0.775, "test", true));
    Host h = new Host("soc-cpu", "Test SoC CPU", List.of(), 1, 24, "16P+8E", 192 * Units.GIB, 800e9, "test", 1.8e12, "test");
    Link l = new Link("unified", "unified", List.of(), LinkKind.UNIFIED, 800e9, "test", 620e9, "test", 0, "test");
    return new SystemSpec("unified", "Test unified", List.of(), h, d, 1, l, Optional.empty(), 0.75, "test", Optional.empty());
  }

  /** The id of the op named {@code name} in a run's trace (names are kept by simulations that trace). */
  public static int op(Trace t, String name) {
    String[] names = t.ops().names();
    for (int i = 0; i < names.length; i++) {
      if (names[i].equals(name)) {
        return i;
      }
    }
    throw new AssertionError("no op " + name);
  }
}
