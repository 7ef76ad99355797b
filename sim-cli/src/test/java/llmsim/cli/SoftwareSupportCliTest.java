package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A software profile is never timed running what it cannot run: a weight or KV-cache format it has no kernels for, or
 * a device its kernels are not built for, is refused at its flag; what it runs still runs.
 */
class SoftwareSupportCliTest {
  static CliRunner simulate(String hardware, String... more) {
    String[] base = {"simulate", "--model", "llama-7b", "--hardware", hardware, "--format", "json"};
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return CliRunner.run(all);
  }

  static void assertRuns(CliRunner r) {
    assertThat(r.code()).as(r.err()).isZero();
  }

  @Test
  void anFp8KvCache_isTensorRtLlmsOnAnFp8Device() {
    assertBadInput(simulate("h100-sxm", "--kv-cache", "fp8"), "--kv-cache:", "pytorch has no fp8 KV cache");
    assertBadInput(simulate("h100-sxm", "--kv-cache", "fp8", "--software", "llama.cpp"), "--kv-cache:",
        "llama.cpp has no fp8 KV cache");
    assertBadInput(simulate("a100", "--kv-cache", "fp8", "--software", "tensorrt-llm"), "--kv-cache:",
        "needs a device with fp8");
    assertRuns(simulate("h100-sxm", "--kv-cache", "fp8", "--software", "tensorrt-llm"));
    assertRuns(simulate("h100-sxm", "--kv-cache", "fp8", "--software", "tensorrt-llm-0.6"));
  }

  @Test
  void ggmlKvCacheFormats_areLlamaCppsWithFlashAttention() {
    assertBadInput(simulate("rtx4090", "--kv-cache", "q8_0"), "--kv-cache:", "llama.cpp's --cache-type-k/-v");
    assertBadInput(simulate("rtx4090", "--kv-cache", "q4_0", "--software", "llama.cpp"), "--kv-cache:",
        "V cache quantization requires flash_attn");
    assertRuns(simulate("rtx4090", "--kv-cache", "q4_0", "--software", "llama.cpp", "--flash-attention"));
  }

  @Test
  void llamaCppsGemms_areF16OrItsInt8OnBlockFormats_neverFp8() {
    // ggml has no fp8 GEMM, and its int8 kernels (MMQ) take quantised block weights: f16 weights at the fp8 or int8
    // peak was a llama.cpp prefill timed about 1.4x faster than its own f16 one
    assertBadInput(simulate("h100-sxm", "--software", "llama.cpp", "--precision", "fp8"), "--precision:",
        "llama.cpp has no fp8");
    assertBadInput(simulate("h100-sxm", "--software", "llama.cpp", "--precision", "int8"), "--precision:",
        "q8_0, q4_0 or q4_k");
    assertRuns(simulate("h100-sxm", "--software", "llama.cpp", "--precision", "int8", "--weights", "q4_0"));
    assertRuns(simulate("h100-sxm", "--software", "llama.cpp", "--precision", "fp16"));
    assertRuns(simulate("h100-sxm", "--software", "tensorrt-llm", "--precision", "fp8"));
  }

  @Test
  void aKvCacheForTraining_isRefused() {
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", "train",
        "--kv-cache", "fp8"), "--kv-cache: applies to inference");
  }

  @Test
  void ggmlWeights_areLlamaCpps_andNf4IsBitsandbytes() {
    for (String sw : new String[] {"pytorch", "hf", "tensorrt-llm"}) {
      assertBadInput(simulate("h100-sxm", "--weights", "q4_0", "--software", sw), "--weights:", "ggml block format",
          sw + " does not");
    }
    assertRuns(simulate("rtx4090", "--weights", "q4_0", "--software", "llama.cpp"));
    assertBadInput(simulate("rtx4090", "--weights", "nf4", "--software", "llama.cpp"), "--weights:",
        "llama.cpp has no kernels for");
    assertBadInput(simulate("h100-sxm", "--weights", "nf4", "--software", "tensorrt-llm"), "--weights:");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task",
        "finetune-qlora", "--software", "megatron"), "--task: 'weights' nf4", "megatron has no kernels for");
    assertRuns(simulate("rtx4090", "--weights", "nf4", "--software", "hf"));
  }

  @Test
  void tensorRtLlmRunsOnNvidia_andMlxOnApple() {
    assertBadInput(simulate("m2-ultra", "--software", "tensorrt-llm"), "--software:", "NVIDIA GPUs only");
    assertBadInput(simulate("mi300x", "--software", "tensorrt-llm-0.6"), "--software:", "NVIDIA GPUs only");
    assertBadInput(simulate("h100-sxm", "--software", "mlx"), "--software:", "Apple silicon only");
    assertRuns(simulate("m2-ultra", "--software", "mlx"));
  }

  @Test
  void unslothMegatronAndBitsandbytesNf4_haveNoKernelsForAppleGpus() {
    // Unsloth's kernels are Triton's (CUDA, ROCm), Megatron's CUDA, bitsandbytes' CUDA/ROCm: none has a Metal build,
    // and each was timed on the M2 Ultra as if it ran there
    for (String sw : new String[] {"unsloth", "megatron", "megatron-classic", "megatron-deepspeed"}) {
      assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task",
          "finetune-lora", "--software", sw), "--software: " + sw, "does not run on Apple M2 Ultra");
      assertRuns(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "finetune-lora",
          "--software", sw));
    }
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task",
        "finetune-qlora"), "--task: 'weights' nf4 is bitsandbytes'", "none for Metal", "does not run on Apple M2 Ultra");
    // nf4 is finetune-qlora's base: the task was typed, --weights was not (it was named); given, it is named
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task",
        "finetune-qlora", "--weights", "nf4"), "--weights: nf4 is bitsandbytes'");
    java.nio.file.Path f;
    try {
      f = java.nio.file.Files.createTempFile("qlora", ".yaml");
      java.nio.file.Files.writeString(f, "kind: scenario\nhardware: m2-ultra\nmodel: llama-7b\ntask: finetune-qlora\n");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertBadInput(CliRunner.run("simulate", f.toString()), f + ":4:", "'weights' nf4 is bitsandbytes'");
    // on Apple the reason is the device, whatever the profile (it was told to use pytorch, which fails there too)
    assertBadInput(simulate("m1-max-32", "--weights", "nf4", "--software", "llama.cpp"), "--weights:",
        "none for Metal", "or q4_0 (llama.cpp)");
    assertRuns(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "finetune-qlora"));
    assertRuns(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task", "finetune-lora",
        "--software", "mlx", "--weights", "int4"));
  }

  @Test
  void tensorRtLlmTrainsNothing_andBitsandbytesOptimizersNeedBitsandbytes() {
    // TensorRT-LLM builds inference engines: LLaMA-7B training under it was timed (559 ms on an H100)
    for (String task : new String[] {"train", "finetune-lora"}) {
      assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", task,
          "--software", "tensorrt-llm"), "--software: tensorrt-llm builds inference engines", "cannot run " + task);
    }
    assertRuns(simulate("h100-sxm", "--software", "tensorrt-llm"));
    // adamw-8bit and paged-adamw-8bit are bitsandbytes': no Metal build, no hook in Megatron or MLX
    for (String opt : new String[] {"adamw-8bit", "paged-adamw-8bit"}) {
      assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task",
          "finetune-lora", "--optimizer", opt), "--optimizer: " + opt + " is bitsandbytes'", "none for Metal");
      assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "m2-ultra", "--task",
          "finetune-lora", "--software", "mlx", "--optimizer", opt), "--optimizer: " + opt, "none for Metal");
      assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "train",
          "--software", "megatron", "--optimizer", opt), "--optimizer: " + opt, "megatron has no hook for");
      assertRuns(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--task", "finetune-qlora",
          "--optimizer", opt));
    }
  }

  @Test
  void compareOverMixedHardware_namesTheSystemThatCannotRunIt() {
    CliRunner r = CliRunner.run("compare", "--model", "llama-7b", "--hardware", "m2-ultra,h100-sxm", "--software",
        "mlx");
    assertBadInput(r, "--software:", "H100");
  }

  @Test
  void advise_skipsTheSystemsASoftwareCannotRunOn_withTheReason() {
    CliRunner r = CliRunner.run("advise", "--model", "llama-7b", "--requests", "100", "--software", "mlx",
        "--hardware", "m2-ultra,h100-sxm", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("Apple silicon only");
  }

  @Test
  void aKeyTheTaskDoesNotUse_isRefusedAtItsFlag_notDropped() throws java.io.IOException {
    assertBadInput(simulate("rtx4090", "--seq-len", "1000"), "--seq-len: does not apply to inference");
    assertBadInput(simulate("rtx4090", "--micro-batches", "4"), "--micro-batches: does not apply to inference");
    assertBadInput(simulate("rtx4090", "--recompute", "full"), "--recompute: does not apply to inference");
    assertBadInput(simulate("rtx4090", "--task", "train", "--prompt-tokens", "100"),
        "--prompt-tokens: does not apply to train");
    assertBadInput(simulate("rtx4090", "--task", "train", "--lora-rank", "16"), "--lora-rank: does not apply to train");
    assertBadInput(simulate("rtx4090", "--task", "finetune-lora", "--prefix-tokens", "16"),
        "--prefix-tokens: does not apply to finetune-lora");
    assertRuns(simulate("rtx4090", "--task", "finetune-lora", "--lora-rank", "16"));
    assertRuns(simulate("rtx4090", "--task", "ptuning-v2", "--prefix-tokens", "16"));
    // a scenario file's keys for its own task: refused at their line; kept when --task changes the task
    java.nio.file.Path f = java.nio.file.Files.createTempFile("decode", ".yaml");
    try {
      java.nio.file.Files.writeString(f, String.join("\n", "kind: scenario", "hardware: rtx4090", "model: llama-7b",
          "task: inference", "prompt_tokens: 256", "seq_len: 1024", ""));
      assertBadInput(CliRunner.run("simulate", f.toString()), ":6:", "'seq_len' does not apply to inference");
      java.nio.file.Files.writeString(f, String.join("\n", "kind: scenario", "hardware: rtx4090", "model: llama-7b",
          "task: inference", "prompt_tokens: 256", ""));
      assertRuns(CliRunner.run("simulate", f.toString(), "--task", "finetune-lora"));
    } finally {
      java.nio.file.Files.delete(f);
    }
  }

  @Test
  void aStoredWeightFormat_onFullTraining_isRefused_asTheWeightsItTrainsAreAtTheComputePrecision() throws Exception {
    // 'simulate --task train --weights int4' (or f32) ran and echoed "weights": "int4", with the bytes and the time of
    // f16: full training holds the weights it updates at the compute precision, so the format changed nothing
    for (String task : new String[] {"train", "finetune-full"}) {
      for (String w : new String[] {"int4", "f32"}) {
        assertBadInput(simulate("h100-sxm", "--task", task, "--weights", w), "--weights: does not apply to " + task,
            "set precision");
      }
    }
    // on a frozen base the format is the base's: 4-bit weights hold a quarter of f16's bytes (plus their scales)
    double p = llmsim.hw.catalog.Catalog.bundled().model("llama-7b", "--model").parameterCount();
    for (String task : new String[] {"finetune-lora", "ptuning-v2"}) {
      var f16 = SimulateCommandTest.json("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", task,
          "--weights", "f16", "--format", "json").get("memory").get("weights_bytes").asDouble();
      var int4 = SimulateCommandTest.json("simulate", "--model", "llama-7b", "--hardware", "h100-sxm", "--task", task,
          "--weights", "int4", "--format", "json").get("memory").get("weights_bytes").asDouble();
      assertThat(f16).as(task).isGreaterThanOrEqualTo(2 * p);
      assertThat(int4).as(task).isLessThan(f16 / 3);
    }
    // a sweep over weights runs training at its first format and names the rest, which would repeat its rows
    CliRunner sweep = CliRunner.run("sweep", "--hardware", "h100-sxm", "--models", "llama-7b", "--tasks",
        "train,inference", "--weights", "f16,int4");
    assertRuns(sweep);
    assertThat(sweep.err()).contains("skipped 1 row at tasks=train, weights=int4: --weights: does not apply to train");
    assertThat(sweep.out().lines().count()).isEqualTo(1 + 3);
  }

  @Test
  void int4Int8AndFp8Weights_underLlamaCpp_areRefused_asGgmlFormatsElsewhereAre() throws Exception {
    // llama.cpp computes on a GGUF file's ggml types; '--weights int4' under it was timed by its bytes alone and ran
    // faster than its own q4_0, and advise recommended 'llama.cpp, weights int4'
    for (String w : new String[] {"int4", "int8", "fp8"}) {
      assertBadInput(simulate("rtx4090", "--software", "llama.cpp", "--weights", w), "--weights: " + w + " is not a"
          + " ggml type: llama.cpp computes on a GGUF file's q4_0, q4_k or q8_0");
      assertRuns(simulate("rtx4090", "--weights", w));
    }
    assertRuns(simulate("rtx4090", "--software", "llama.cpp", "--weights", "q4_0"));
    CliRunner advise = CliRunner.run("advise", "--model", "llama-7b", "--software", "llama.cpp", "--requests", "100",
        "--hardware", "rtx4090", "--format", "json");
    assertRuns(advise);
    assertThat(advise.out()).doesNotContain("weights int4").doesNotContain("weights int8");
    assertBadInput(simulate("rtx4090", "--software", "llama.cpp", "--weights", "nf4"), "or weights q4_0 for llama.cpp");
  }
}
