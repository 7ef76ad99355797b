package llmsim.core.software;

import llmsim.core.util.Checks;

/**
 * The element-wise work an eager framework's module code launches around the GEMMs of a LLaMA-family layer (RMSNorm
 * with its fp32 upcast, rotary embeddings, SwiGLU as two kernels, unfused projections whose input gradients are
 * summed) and around each LoRA adapter, where a fused runtime runs one kernel per chain. Bytes per element at 16-bit
 * activations, counted from the code path (docs/CALIBRATION.md, "Eager element-wise work"). A profile without it runs
 * fused kernels: a norm reads and writes the activations once (backward twice), SwiGLU reads gate and up and writes
 * one output.
 *
 * @param normForwardBytes one RMSNorm forward, per token x hidden element
 * @param normBackwardBytes one RMSNorm backward with a frozen weight, per token x hidden element
 * @param normWeightGradBytes added to the backward when the norm's weight trains
 * @param ropeForwardBytes rotary embedding forward, per element of q and of k
 * @param ropeBackwardBytes rotary embedding backward, per element of q and of k
 * @param gluForwardBytes SwiGLU's activation and product, per token x ffn element
 * @param gluBackwardBytes their backward, per token x ffn element
 * @param projectionGradSumBytes backward: per token x hidden element, for each further projection that reads the same
 *     input (q, k, v: two sums; gate, up: one), as separate modules' input gradients are added
 * @param loraCastBytes per adapter input element, forward and again backward: the adapter's fp32 weights cast the
 *     16-bit input up to fp32 and autocast casts it back for the GEMM
 * @param loraForwardOutBytes per adapter output element: the scaling and the add into the base layer's output
 * @param loraBackwardOutBytes per adapter output element: the scaling's backward
 * @param loraBackwardInBytes per adapter input element: its input gradient added to the base layer's
 * @param qloraCloneBytes per adapter output element on a 4-bit base: the defensive clone of the base output
 * @param loraForwardKernels kernels one adapter launches forward (GEMMs included)
 * @param loraBackwardKernels kernels one adapter launches backward (GEMMs included)
 */
public record EagerOps(
    double normForwardBytes,
    double normBackwardBytes,
    double normWeightGradBytes,
    double ropeForwardBytes,
    double ropeBackwardBytes,
    double gluForwardBytes,
    double gluBackwardBytes,
    double projectionGradSumBytes,
    double loraCastBytes,
    double loraForwardOutBytes,
    double loraBackwardOutBytes,
    double loraBackwardInBytes,
    double qloraCloneBytes,
    int loraForwardKernels,
    int loraBackwardKernels) {

  public EagerOps {
    for (double b : new double[] {normForwardBytes, normBackwardBytes, normWeightGradBytes, ropeForwardBytes,
        ropeBackwardBytes, gluForwardBytes, gluBackwardBytes, projectionGradSumBytes, loraCastBytes,
        loraForwardOutBytes, loraBackwardOutBytes, loraBackwardInBytes, qloraCloneBytes}) {
      Checks.nonNegative("eager op bytes per element", b);
    }
    Checks.positive("LoRA forward kernels", loraForwardKernels);
    Checks.positive("LoRA backward kernels", loraBackwardKernels);
  }

  /**
   * Hugging Face transformers' LLaMA modules and PEFT's LoRA layer in eager mode under autocast
   * (docs/CALIBRATION.md):
   * <ul>
   *   <li>LlamaRMSNorm: to(fp32) 2+4, pow 4+4, mean 4, x * rsqrt 4+4, to(bf16) 4+2, weight * x 2+2 = 36 B forward;
   *       backward (autograd of the same ops, frozen weight) 4 + 6 + 8 + 16 + 4 + 28 + 12 + 6 = 84 B, and 8 B more
   *       for the weight's gradient (product and reduction over tokens).</li>
   *   <li>apply_rotary_pos_emb on q and k: q*cos 4, rotate_half's neg 2 and cat 4, *sin 4, add 6 = 20 B; backward
   *       the two products 8, neg 2, the two slices' zero-filled gradients 8, two sums 12 = 30 B.</li>
   *   <li>LlamaMLP: act_fn(gate) 2+2, * up 2+2+2 = 10 B; backward two products 12 and silu's 6 = 18 B.</li>
   *   <li>q, k, v (and gate, up) are separate nn.Linear modules: their input gradients are summed, 6 B each.</li>
   *   <li>PEFT lora.Linear: x cast to the adapter's fp32 dtype (2+4) and back by autocast (4+2), both again backward:
   *       12 B per input element each way; "* scaling" 4 and "result +" 6 per output element; backward the scaling
   *       4 per output and the input gradient's sum 6 per input; a 4-bit base's output is cloned first (4). Kernels:
   *       two input casts, two weight casts, two GEMMs, the scaling and the add (8); backward the scaling, four
   *       GEMMs, two weight-gradient casts, two input casts, the sum and two gradient accumulations (12).</li>
   * </ul>
   */
  public static final EagerOps HF_PEFT = new EagerOps(36, 84, 8, 20, 30, 10, 18, 6, 12, 10, 4, 6, 4, 8, 12);

  /**
   * torchtune's modules in eager mode: RMSNorm as transformers' (x.float(), pow, mean, rsqrt, type_as, * scale: the
   * same 36 / 84 / 8 B); SwiGLU as transformers' (w2(silu(w1 x) * w3 x): 10 / 18 B); q, k, v and w1, w3 separate
   * modules (6 B per sum). RotaryPositionalEmbeddings upcasts: x.float() 2+4, four half-width products 4 x 4, their
   * difference and sum 2 x 6, stack 4+4, type_as 4+2 = 48 B forward; backward type_as 6, the difference's negation 4,
   * four products 16, four select gradients zero-filled and copied 32, their three sums 36, x.float()'s 6 = 100 B.
   * LoRALinear keeps its adapters in the model dtype (no casts): the scaling 4 and the add 6 per output element, and
   * backward the scaling 4 per output and the input gradient's sum 6 per input; two GEMMs, the scaling and the add
   * forward (4 kernels), the scaling, four GEMMs, the sum and two gradient accumulations backward (8).
   */
  public static final EagerOps TORCHTUNE = new EagerOps(36, 84, 8, 48, 100, 10, 18, 6, 0, 10, 4, 6, 0, 4, 8);

  /**
   * Unsloth's Triton kernels and manual autograd (unslothai/unsloth, unsloth/kernels: rms_layernorm.py, rope_embedding.py,
   * swiglu.py, fast_lora.py): RMSNorm one kernel each way (read and write the activations: 4 B forward, 8 backward,
   * as a fused norm); rotary in place on q and k (2+2 each way); SwiGLU one kernel forward (gate and up read, one
   * output: 6 B) and one backward (the upstream gradient and both inputs read, both input gradients written in
   * place: 10 B); the input gradients of q, k, v (and gate, up) summed inside the GEMMs (addmm_, beta 1: the running
   * sum read and written, 4 B per further projection). LoRA (matmul_lora, late 2023): out += (X @ A) @ (s * B), the
   * adapters cast to the input dtype and B scaled (tiny), the product added into the base output (6 B per output
   * element), no separate scaling pass; backward the input gradient's adapter term added in place by addmm_ (4 B per
   * input element). Kernels: two casts, B's scaling, two GEMMs and the add forward (6); four GEMMs, two scalings
   * backward (6).
   */
  public static final EagerOps UNSLOTH = new EagerOps(4, 8, 0, 4, 4, 6, 10, 4, 0, 6, 0, 4, 0, 6, 6);
}
