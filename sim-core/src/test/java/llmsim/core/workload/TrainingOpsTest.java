package llmsim.core.workload;

import static llmsim.core.testing.Fixtures.op;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.data.Percentage.withPercentage;

import java.util.List;
import llmsim.core.engine.Trace;
import llmsim.core.hw.Precision;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.core.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** What a training step launches beyond the layers' GEMMs: the loss over the vocabulary, backward kernels. */
class TrainingOpsTest {
  static final double LAUNCH = 10e-6;
  /** 10 us per kernel, one kernel per op (kernels per layer = ops per layer), classic attention. */
  final ModelSpec llama7b = Fixtures.llama7b();

  static Task training(int batch, int seq) {
    return new Task(TaskKind.TRAIN, Precision.BF16, WeightFormat.BF16, batch, seq, 1, 1, 1, false, 8, 128,
        Offload.NONE);
  }

  private Trace trace(SoftwareProfile sw, int batch, int seq) {
    return Simulator.simulate(Fixtures.discrete(), llama7b, training(batch, seq), sw).trace();
  }

  @Test
  void crossEntropy_movesTheFp32LossChainOverEveryLogit() {
    int b = 2;
    int s = 512;
    Trace t = trace(SimulatorPhysicsTest.IDEAL, b, s);
    double logits = (double) b * s * 32000;
    // forward: upcast (2 + 4), max (4), subtract, exp and divide in place (3 x 8), sum (4) = 38 B per logit
    assertThat(t.ops().memBytes()[op(t, "cross_entropy")]).isCloseTo(38 * logits, withPercentage(1e-9));
    // backward: the saved softmax scaled in place (8), cast back to bf16 (4 + 2) = 14 B per logit
    assertThat(t.ops().memBytes()[op(t, "bwd.cross_entropy")]).isCloseTo(14 * logits, withPercentage(1e-9));
    // the loss runs between the head's forward and its backward
    assertThat(op(t, "lm_head")).isLessThan(op(t, "cross_entropy"));
    assertThat(op(t, "bwd.cross_entropy")).isLessThan(op(t, "bwd.lm_head"));
  }

  @Test
  void embeddingBackward_writesTheDenseZeroedGradient_andSumsATiedHeadsGradientOnTheSameGpu() {
    int b = 2;
    int s = 512;
    double tokens = b * s;
    double gradient = 32000.0 * 4096 * 2; // vocab x hidden, bf16
    // untied: the zeroed (vocab x hidden) gradient written once, then per token its output gradient read and its
    // row read and written
    Trace untied = trace(SimulatorPhysicsTest.IDEAL, b, s);
    int op = op(untied, "bwd.embedding_grad");
    assertThat(untied.ops().memBytes()[op]).isCloseTo(gradient + 3 * tokens * 4096 * 2, withPercentage(1e-9));
    assertThat(untied.ops().flops()[op]).isZero();
    // it comes after the backward reaches the first layer
    assertThat(op).isGreaterThan(op(untied, "L0.qkv_proj.bwd"));
    // tied, on one GPU: autograd also sums the head's weight gradient with this one (reads both, writes one)
    ModelSpec m = llama7b;
    ModelSpec tied = new ModelSpec(m.id(), m.name(), m.family(), m.aliases(), m.layers(), m.hidden(), m.heads(),
        m.kvHeads(), m.headDim(), m.ffnHidden(), m.ffnKind(), m.vocab(), true, m.maxContext(), m.normKind(),
        m.linearBias(), m.qkvBias(), m.learnedPositions(), m.parallelAttention(), m.normsPerLayer(),
        m.publishedParameters(), m.publishedSource());
    Trace t = Simulator.simulate(Fixtures.discrete(), tied, training(b, s), SimulatorPhysicsTest.IDEAL).trace();
    assertThat(t.ops().memBytes()[op(t, "bwd.embedding_grad")])
        .isCloseTo(gradient + 3 * tokens * 4096 * 2 + 3 * gradient, withPercentage(1e-9));
    // a frozen base (LoRA) computes no embedding gradient
    Task lora = new Task(TaskKind.FINETUNE_LORA, Precision.BF16, WeightFormat.BF16, b, s, 1, 1, 1, false, 8, 128,
        Offload.NONE);
    Trace frozen = Simulator.simulate(Fixtures.discrete(), llama7b, lora, SimulatorPhysicsTest.IDEAL).trace();
    assertThat(List.of(frozen.ops().names())).noneMatch(n -> n.contains("embedding_grad"));
  }

  @Test
  void backwardPass_spreadsTheProfilesBackwardKernelCountOverItsOps_asTheForwardSpreadsItsOwn() {
    int opsPerLayer = LayerEmitter.opsPerLayer(llama7b, true, 0);
    int backwardOps = 7 + 2; // residual, down, SwiGLU, gate/up, o_proj, attention, qkv, and the two norms
    assertThat(LayerEmitter.backwardOpsPerLayer(llama7b, 0)).isEqualTo(backwardOps);
    int forwardKernels = 30;
    int backwardKernels = 75;
    SoftwareProfile sw = SoftwareProfile.builder("launch", "test").launchSeconds(LAUNCH).kernelsPerLayer(forwardKernels)
        .backwardKernelsPerLayer(backwardKernels).flashAttention(true).workspaceBytes(0).source("test").build();
    Trace t = trace(sw, 1, 256);
    double forward = LAUNCH * forwardKernels / opsPerLayer;
    double backward = LAUNCH * backwardKernels / backwardOps;
    assertThat(t.costs().launch[op(t, "L0.qkv_proj")]).isCloseTo(forward, withPercentage(1e-9));
    assertThat(t.costs().launch[op(t, "L0.attn_norm")]).isCloseTo(forward, withPercentage(1e-9));
    assertThat(t.costs().launch[op(t, "L0.qkv_proj.bwd")]).isCloseTo(backward, withPercentage(1e-9));
    assertThat(t.costs().launch[op(t, "L0.attention.bwd")]).isCloseTo(backward, withPercentage(1e-9));
    assertThat(t.costs().launch[op(t, "L0.attn_norm.bwd")]).isCloseTo(backward, withPercentage(1e-9));
    // a layer's backward launches pay the profile's backward count in all
    double perLayer = java.util.stream.IntStream.range(0, t.size())
        .filter(i -> t.ops().names()[i].startsWith("L0.") && t.ops().names()[i].contains(".bwd")
            && t.lanes().get(t.ops().streams()[i]) == llmsim.core.engine.Lane.COMPUTE)
        .mapToDouble(i -> t.costs().launch[i]).sum();
    assertThat(perLayer).isCloseTo(LAUNCH * backwardKernels, withPercentage(1e-9));
  }

  @Test
  void profilesWithoutACount_launchTwiceTheForwardsKernelsBackward() {
    SoftwareProfile sw = SoftwareProfile.builder("launch", "test").launchSeconds(LAUNCH).kernelsPerLayer(30)
        .flashAttention(true).workspaceBytes(0).source("test").build();
    assertThat(sw.backwardKernelsPerLayer()).isEqualTo(60);
  }

  @Test
  void megatronClassic_attention_movesThirteenBytesPerScoreInTheForwardChain() {
    int b = 1;
    int s = 1024;
    SoftwareProfile sw = SoftwareProfiles.find("megatron-classic").orElseThrow();
    assertThat(sw.flashAttention()).isFalse();
    Trace t = trace(sw, b, s);
    double scores = (double) b * 32 * s * s; // heads x queries x keys
    double qDim = 4096;
    double kvRead = 2.0 * b * s * qDim * 2;
    // QK^T writes 2 B and attention x V reads 2 B; softmax (4) and dropout (5) move the other 9 in between
    assertThat(t.ops().memBytes()[op(t, "L0.softmax")]).isCloseTo(9 * scores, withPercentage(1e-9));
    assertThat(t.ops().memBytes()[op(t, "L0.attn_scores")])
        .isCloseTo(b * s * qDim * 2 + kvRead / 2 + 2 * scores, withPercentage(1e-9));
  }

  @Test
  void qlora_dequantisesEachNf4WeightInAKernelOfItsOwn_beforeEveryPassThatUsesIt() {
    Task t = new Task(TaskKind.FINETUNE_QLORA, Precision.BF16, WeightFormat.NF4, 2, 512, 1, 1, 1, true, 8, 128,
        Offload.NONE);
    Trace tr = Simulator.simulate(Fixtures.discrete(), llama7b, t, SimulatorPhysicsTest.IDEAL).trace();
    double h = 4096;
    double ffn = 11008;
    double nf4Bytes = 4.127 / 8;
    // read the packed weight, write its bf16 copy; the GEMM then reads 2 B per weight. With double quantisation the
    // block's fp32 absmax (one per 64 weights) is written by the nested dequantisation (4 B), read and written by
    // `absmax += offset` (8 B) and read by the 4-bit kernel (4 B)
    double downProj = ffn * h;
    double absmaxFp32 = (4 + 8 + 4) / 64.0;
    assertThat(tr.ops().memBytes()[op(tr, "L0.down_proj.dequant_nf4")])
        .isCloseTo(downProj * (nf4Bytes + 2 + absmaxFp32), withPercentage(1e-9));
    double tokens = 2 * 512;
    assertThat(tr.ops().memBytes()[op(tr, "L0.down_proj")])
        .isCloseTo(downProj * 2 + tokens * (ffn + h) * 2, withPercentage(1e-9));
    // forward, recomputed forward and backward (the input gradient needs the weight too) each dequantise
    long passes = java.util.Arrays.stream(tr.ops().names()).filter(n -> n.endsWith("L0.down_proj.dequant_nf4")
        || n.endsWith("L0.recompute.down_proj.dequant_nf4") || n.endsWith("L0.down_proj.bwd.dequant_nf4")).count();
    assertThat(passes).isEqualTo(3);
  }

  @Test
  void nf4Decode_ofOneSequence_readsThePackedWeightsInTheFusedMatVec() {
    Task t = new Task(TaskKind.INFERENCE, Precision.BF16, WeightFormat.NF4, 1, 2048, 16, 2, 1, false, 8, 128,
        Offload.NONE);
    Trace tr = Simulator.simulate(Fixtures.discrete(), llama7b, t, SimulatorPhysicsTest.IDEAL).trace();
    assertThat(java.util.Arrays.stream(tr.ops().names()).filter(n -> n.startsWith("t1.") && n.contains("dequant")))
        .isEmpty();
    double downProj = 11008.0 * 4096;
    assertThat(tr.ops().memBytes()[op(tr, "t1.L0.down_proj")])
        .isCloseTo(downProj * 4.127 / 8 + (11008 + 4096) * 2, withPercentage(1e-9));
  }

  @Test
  void loraTargets_attachAnAdapterToEachNamedProjection_andTrainItsParameters() {
    int r = 16;
    Task qv = new Task(TaskKind.FINETUNE_LORA, Precision.BF16, WeightFormat.BF16, 1, 512, 1, 1, 1, false, r, 128,
        Offload.NONE);
    Task all = qv.withLoraTargets(llmsim.core.task.LoraTarget.parse("all"));
    double h = 4096;
    double f = 11008;
    // q, k, v: h -> 4096 (MHA); o: 4096 -> h; gate, up: h -> f; down: f -> h; r x (in + out) each, 32 layers
    double perLayerAll = r * (3 * (h + 4096) + (4096 + h) + 2 * (h + f) + (f + h));
    assertThat(llmsim.core.memory.Footprint.loraParameters(llama7b, r, all.loraTargets()))
        .isCloseTo(32 * perLayerAll, withPercentage(1e-9));
    assertThat(llmsim.core.memory.Footprint.loraParameters(llama7b, r, qv.loraTargets()))
        .isCloseTo(32 * r * 2 * (h + 4096), withPercentage(1e-9));
    Trace tr = Simulator.simulate(Fixtures.discrete(), llama7b, all, SimulatorPhysicsTest.IDEAL).trace();
    for (String target : new String[] {"q", "k", "v", "o", "gate", "up", "down"}) {
      op(tr, "L0.lora_" + target);
      op(tr, "L0.lora_" + target + ".bwd");
    }
    // an adapter's forward: 2 x tokens x r x (in + out) FLOPs (its two GEMMs)
    assertThat(tr.ops().flops()[op(tr, "L0.lora_down")]).isCloseTo(2 * 512 * r * (f + h), withPercentage(1e-9));
    Trace trQv = Simulator.simulate(Fixtures.discrete(), llama7b, qv, SimulatorPhysicsTest.IDEAL).trace();
    assertThat(java.util.Arrays.stream(trQv.ops().names()).filter(n -> n.startsWith("L0.lora_"))).containsExactly(
        "L0.lora_q", "L0.lora_v", "L0.lora_v.bwd", "L0.lora_q.bwd");
  }

  @Test
  void attention_runsAtTheDevicesFlashAttention2Fraction_underFa2Profiles_andIn16BitUnderFp8Training() {
    java.util.Map<Precision, Double> peaks = java.util.Map.of(Precision.BF16, 1000e12, Precision.FP16, 1000e12,
        Precision.FP8, 2000e12, Precision.FP32, 60e12);
    llmsim.core.hw.Efficiency e = new llmsim.core.hw.Efficiency(0.8, "test", 0.9, "test", true, 0.7, "test", 0.35,
        "test");
    llmsim.core.hw.SystemSpec gpu = Fixtures.discrete(0, e, peaks);
    SoftwareProfile fa2 = SoftwareProfile.builder("fa2", "test").launchSeconds(0).kernelsPerLayer(1)
        .flashAttention(true).flashAttention2(true).workspaceBytes(0).source("test").build();
    SoftwareProfile vendor = SimulatorPhysicsTest.IDEAL;
    int s = 4096; // long enough that the attention kernel is compute-bound
    Task bf16 = training(1, s);
    double attnFlops = 4.0 * s * s * 4096; // 4 x queries x keys x q_dim
    // FA2 under the causal mask: query block m of 128 rows visits (m + 1) x 128 keys (key blocks of 64)
    int blocks = s / 128;
    double causalFlops = 4.0 * 4096 * 128.0 * 128 * blocks * (blocks + 1) / 2;
    Trace t = Simulator.simulate(gpu, llama7b, bf16, fa2).trace();
    assertThat(t.costs().time[op(t, "L0.attention")]).isCloseTo(causalFlops / (1000e12 * 0.35), withPercentage(1e-6));
    Trace v = Simulator.simulate(gpu, llama7b, bf16, vendor).trace();
    assertThat(v.costs().time[op(v, "L0.attention")]).isCloseTo(attnFlops / (1000e12 * 0.8), withPercentage(1e-6));
    // fp8 training: the GEMMs at the fp8 peak and its fraction, attention in bf16
    Task fp8 = new Task(TaskKind.TRAIN, Precision.FP8, WeightFormat.BF16, 1, s, 1, 1, 1, false, 8, 128, Offload.NONE);
    Trace f = Simulator.simulate(gpu, llama7b, fp8, vendor).trace();
    assertThat(f.costs().time[op(f, "L0.attention")]).isCloseTo(attnFlops / (1000e12 * 0.8), withPercentage(1e-6));
    double up = 2.0 * s * 4096 * 2 * 11008;
    assertThat(f.costs().time[op(f, "L0.gate_up_proj")]).isCloseTo(up / (2000e12 * 0.7), withPercentage(1e-6));
  }

  private static Task lora(WeightFormat weights, int batch, int seq) {
    return new Task(weights == WeightFormat.NF4 ? TaskKind.FINETUNE_QLORA : TaskKind.FINETUNE_LORA, Precision.BF16,
        weights, batch, seq, 1, 1, 1, false, 8, 128, Offload.NONE);
  }

  @Test
  void hfEagerModules_moveTheUpcastNormsRotaryAndUnfusedSwiGluBytes_whereFusedKernelsMoveOnePass() {
    int b = 2;
    int s = 512;
    double tokens = b * s;
    double h = 4096;
    double ffn = 11008;
    SoftwareProfile hf = SoftwareProfiles.find("hf").orElseThrow();
    Trace t = Simulator.simulate(Fixtures.discrete(), llama7b, training(b, s), hf).trace();
    // LlamaRMSNorm: to(fp32) 2+4, pow 4+4, mean 4, x * rsqrt 4+4, to(bf16) 4+2, weight * x 2+2
    double normForward = 6 + 8 + 4 + 8 + 6 + 4;
    assertThat(t.ops().memBytes()[op(t, "L0.attn_norm")]).isCloseTo(normForward * tokens * h, withPercentage(1e-9));
    // rotary on q and k (k as wide as q in LLaMA-7B): q*cos 4, neg 2, cat 4, *sin 4, add 6
    assertThat(t.ops().memBytes()[op(t, "L0.rope")]).isCloseTo(20 * tokens * 2 * h, withPercentage(1e-9));
    // silu 2+2 and the product 2+2+2 per ffn element
    assertThat(t.ops().memBytes()[op(t, "L0.swiglu")]).isCloseTo(10 * tokens * ffn, withPercentage(1e-9));
    // backward of a trained norm: 84 B of autograd ops, 8 for its weight's gradient, and the sums of the three
    // separate projections' input gradients (q, k, v: two of 6 B)
    assertThat(t.ops().memBytes()[op(t, "L0.attn_norm.bwd")])
        .isCloseTo((84 + 8 + 2 * 6) * tokens * h, withPercentage(1e-9));
    // a fused profile: one read and one write per norm, no separate rotary pass
    Trace fused = Simulator.simulate(Fixtures.discrete(), llama7b, training(b, s),
        SoftwareProfiles.find("torch-compile").orElseThrow()).trace();
    assertThat(fused.ops().memBytes()[op(fused, "L0.attn_norm")]).isCloseTo(4 * tokens * h, withPercentage(1e-9));
    assertThat(java.util.Arrays.stream(fused.ops().names()).filter(n -> n.endsWith("rope"))).isEmpty();
  }

  @Test
  void peftAdapters_castTheirInputToFp32AndBack_scaleAndAdd_andLaunchTheirOwnKernels() {
    int b = 2;
    int s = 512;
    double tokens = b * s;
    double h = 4096;
    SoftwareProfile hf = SoftwareProfiles.find("hf").orElseThrow();
    Trace t = Simulator.simulate(Fixtures.discrete(), llama7b, lora(WeightFormat.BF16, b, s), hf).trace();
    // q's adapter (4096 -> 4096): 12 B per input element (fp32 round trip), 4 + 6 per output (scaling, add)
    assertThat(t.ops().memBytes()[op(t, "L0.lora_q.glue")]).isCloseTo((12 * h + 10 * h) * tokens, withPercentage(1e-9));
    // backward: the round trip again, the input gradient's sum (6) and the scaling's backward (4)
    assertThat(t.ops().memBytes()[op(t, "L0.lora_q.glue.bwd")])
        .isCloseTo((12 * h + 6 * h + 4 * h) * tokens, withPercentage(1e-9));
    // on a 4-bit base PEFT runs the adapter under autocast as the input comes, after cloning the base output
    Trace q = Simulator.simulate(Fixtures.discrete(), llama7b, lora(WeightFormat.NF4, b, s), hf).trace();
    assertThat(q.ops().memBytes()[op(q, "L0.lora_q.glue")]).isCloseTo((4 + 10) * h * tokens, withPercentage(1e-9));
    // a forward layer's launches: the profile's 48 kernels and 8 for each of the two default adapters (q, v)
    double forward = java.util.stream.IntStream.range(0, t.size())
        .filter(i -> t.ops().names()[i].startsWith("L0.") && !t.ops().names()[i].contains("bwd")
            && !t.ops().names()[i].contains("recompute"))
        .mapToDouble(i -> t.costs().launch[i]).sum();
    assertThat(forward).isCloseTo(hf.launchSeconds() * (48 + 2 * 8), withPercentage(1e-9));
  }

  @Test
  void unslothQlora_backwardRunsSixAdapterGemms_addsIntoDxOutOfPlace_andEachDequantisationLaunchesThreeKernels() {
    int b = 2;
    int s = 512;
    double tokens = b * s;
    double h = 4096;
    SoftwareProfile unsloth = SoftwareProfiles.find("unsloth").orElseThrow();
    Trace t = Simulator.simulate(Fixtures.discrete(), llama7b, lora(WeightFormat.NF4, b, s), unsloth).trace();
    // LoRA_QKV.backward (unsloth/kernels/fast_lora.py): d_A = X.t() @ (dY @ B.t()), d_B = (A.t() @ X.t()) @ dY,
    // dX += dY @ B.t() @ (S * A.t()): dY is read three times and X twice, the dX term written once. The adapter's
    // GEMM op reads dY twice, X once and writes the term once, so its glue carries one dY read (2 B per output
    // element), one X read (2 B per input element) and the out-of-place `dX +=` (read both, write: 6 B per input)
    double in = h;
    double out = h;
    assertThat(t.ops().memBytes()[op(t, "L0.lora_q.glue.bwd")])
        .isCloseTo((2 * out + (2 + 6) * in) * tokens, withPercentage(1e-9));
    // forward: matmul_lora's `out += (X @ A) @ (s * B)` reads the base output and the product, writes the sum (6)
    assertThat(t.ops().memBytes()[op(t, "L0.lora_q.glue")]).isCloseTo(6 * out * tokens, withPercentage(1e-9));
    // fast_dequantize: cdequantize_blockwise_fp32 (the nested absmax), `out_absmax += offset`,
    // cdequantize_blockwise_bf16_nf4: three launches for each weight matrix, forward and backward alike
    assertThat(t.costs().launch[op(t, "L0.down_proj.dequant_nf4")])
        .isCloseTo(3 * unsloth.launchSeconds(), withPercentage(1e-9));
    assertThat(t.costs().launch[op(t, "L0.down_proj.bwd.dequant_nf4")])
        .isCloseTo(3 * unsloth.launchSeconds(), withPercentage(1e-9));
    // a forward layer's other launches: 15 of the layer (norm x2, q, k, v, rotary on q and on k, attention, o, two
    // residual adds, gate, up, SwiGLU, down) and 6 for each of the two default adapters (q, v): two casts, s * B,
    // two GEMMs, the add
    double forward = java.util.stream.IntStream.range(0, t.size())
        .filter(i -> t.ops().names()[i].startsWith("L0.") && !t.ops().names()[i].contains("bwd")
            && !t.ops().names()[i].contains("dequant"))
        .mapToDouble(i -> t.costs().launch[i]).sum();
    assertThat(forward).isCloseTo(unsloth.launchSeconds() * (15 + 2 * 6), withPercentage(1e-9));
  }

  @Test
  void offloadedCheckpointing_copiesEachLayerInputToTheHostAndBack_beforeTheLayerRunsOnIt() {
    int b = 2;
    int s = 512;
    Task task = new Task(TaskKind.FINETUNE_QLORA, Precision.BF16, WeightFormat.NF4, b, s, 1, 1, 1,
        llmsim.core.task.Recompute.FULL_OFFLOAD, 8, 128, Offload.NONE, 0, llmsim.core.task.KvCacheFormat.F16,
        Task.GPU_LAYERS_AUTO, new llmsim.core.task.ParallelPlan(1, 1, 1, 0));
    Trace t = Simulator.simulate(Fixtures.discrete(), llama7b, task, SoftwareProfiles.find("unsloth").orElseThrow())
        .trace();
    // one layer input, tokens x hidden in bf16, out in the forward and back before the recomputed forward
    double input = b * s * 4096 * 2.0;
    int out = op(t, "L0.checkpoint_to_host");
    int back = op(t, "L0.checkpoint_from_host");
    assertThat(t.linkBytes(out)).isCloseTo(input, withPercentage(1e-9));
    assertThat(t.linkBytes(back)).isCloseTo(input, withPercentage(1e-9));
    // the copies are in the compute stream's order: the layer waits for them
    assertThat(t.start()[op(t, "L0.attn_norm")]).isGreaterThanOrEqualTo(t.end()[out]);
    assertThat(t.start()[op(t, "L0.recompute.attn_norm")]).isGreaterThanOrEqualTo(t.end()[back]);
    // plain full recomputation copies nothing
    Task full = new Task(TaskKind.FINETUNE_QLORA, Precision.BF16, WeightFormat.NF4, b, s, 1, 1, 1, true, 8, 128,
        Offload.NONE);
    Trace f = Simulator.simulate(Fixtures.discrete(), llama7b, full, SoftwareProfiles.find("unsloth").orElseThrow())
        .trace();
    assertThat(java.util.Arrays.stream(f.ops().names()).filter(n -> n.contains("checkpoint_"))).isEmpty();
  }

  @Test
  void foreachAdamW_movesEighteenFp32StatePassesAndThreeGradientReads_inEightListOpsPerChunkOfTensors() {
    double adapters = 32 * 2; // q and v in every layer
    double params = adapters * 8 * (4096 + 4096);
    SoftwareProfile hf = SoftwareProfiles.find("hf").orElseThrow();
    Trace t = Simulator.simulate(Fixtures.discrete(), llama7b, lora(WeightFormat.BF16, 2, 512), hf).trace();
    int opt = op(t, "optimizer.adamw");
    // the adapters' gradients are fp32: 18 x 4 B of state and 3 x 4 B of gradient per parameter
    assertThat(t.ops().memBytes()[opt]).isCloseTo((18 * 4 + 3 * 4) * params, withPercentage(1e-9));
    // 128 tensors of 4.2M elements in all: two launches of 64 tensors for each of the eight list ops
    assertThat(t.costs().launch[opt]).isCloseTo(8 * 2 * hf.launchSeconds(), withPercentage(1e-9));
    // a fused step reads and writes each parameter's state once: 28 B, no launches of its own
    Trace fused = Simulator.simulate(Fixtures.discrete(), llama7b, lora(WeightFormat.BF16, 2, 512),
        SoftwareProfiles.find("torch-compile").orElseThrow()).trace();
    assertThat(fused.ops().memBytes()[op(fused, "optimizer.adamw")]).isCloseTo(28 * params, withPercentage(1e-9));
  }

  @Test
  void llmFoundry_runsComposersDecoupledAdamW_eightSingleTensorOpsPerParameterTensor() {
    SoftwareProfile foundry = SoftwareProfiles.find("composer").orElseThrow();
    assertThat(foundry.id()).isEqualTo("llm-foundry");
    assertThat(SoftwareProfiles.find("mosaicml")).contains(foundry);
    Trace t = trace(foundry, 1, 512);
    Trace fused = trace(SoftwareProfiles.find("pytorch").orElseThrow(), 1, 512);
    int opt = op(t, "optimizer.adamw");
    // bf16 gradients: 18 fp32 state passes (4 B) and 3 gradient reads (2 B) against the fused kernel's 28 B
    assertThat(t.ops().memBytes()[opt] / fused.ops().memBytes()[op(fused, "optimizer.adamw")])
        .isCloseTo((18 * 4 + 3 * 2) / 28.0, withPercentage(1e-9));
    // LLaMA-7B's tensors: q, k, v, o, gate, up, down and two norm weights per layer, the embedding, the untied
    // head and the final norm; eight launches each
    double tensors = 32 * 9 + 3;
    assertThat(t.costs().launch[opt]).isCloseTo(8 * tensors * foundry.launchSeconds(), withPercentage(1e-9));
  }
}
