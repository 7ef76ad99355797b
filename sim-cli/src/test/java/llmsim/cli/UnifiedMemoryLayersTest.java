package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Layers kept off the GPU on unified memory: nothing is freed (one pool), and llama.cpp's CPU layers are not
 * simulated there, so a --gpu-layers below the model's layers is refused rather than reported as "the rest on the
 * CPU" while timed on the GPU.
 */
class UnifiedMemoryLayersTest {
  @Test
  void gpuLayersBelowAll_isRefusedOnUnifiedMemory_forEverySoftware() {
    for (String sw : new String[] {"llama.cpp", "pytorch"}) {
      assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "m2-ultra",
          "--software", sw, "--gpu-layers", "10"), "--gpu-layers:", "10 of 32", "unified memory");
    }
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--task", "inference", "--hardware", "m2-ultra",
        "--gpu-layers", "0"), "--gpu-layers:");
    // the sweep skips the m2-ultra's row, naming why, and runs the RTX 4090's
    CliRunner sweep = CliRunner.run("sweep", "--hardware", "rtx4090,m2-ultra", "--models", "llama-7b", "--tasks",
        "inference", "--gpu-layers", "10");
    assertThat(sweep.code()).as(sweep.err()).isZero();
    assertThat(sweep.err()).startsWith("sweep: skipped 1 row at hardware=m2-ultra, tasks=inference: --gpu-layers:");
    assertThat(sweep.out().lines().skip(1).toList()).singleElement().asString().startsWith("0,rtx4090,");
    assertBadInput(CliRunner.run("sweep", "--hardware", "m2-ultra", "--models", "llama-7b", "--tasks", "inference",
        "--gpu-layers", "10"), "--gpu-layers:", "no point of the grid can run");
  }

  @Test
  void allLayersOnUnifiedMemory_andPartialLayersOnADiscreteCard_stillRun() {
    CliRunner all = CliRunner.run("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "m2-ultra",
        "--software", "llama.cpp", "--gpu-layers", "32");
    assertThat(all.code()).as(all.err()).isZero();
    CliRunner part = CliRunner.run("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "rtx4090",
        "--software", "llama.cpp", "--gpu-layers", "10");
    assertThat(part.code()).as(part.err()).isZero();
    assertThat(part.out()).contains("the rest on the CPU");
  }
}
