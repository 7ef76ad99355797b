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
 * @param loraDropoutBytes per adapter input element, forward and again backward: the adapter's dropout on its input
 *     (forward reads the input, writes the output and a 1-byte mask; backward reads the gradient and the mask and
 *     writes the input gradient); 0 where the framework's default dropout is 0
 * @param fusedQkv whether q, k and v are one Linear (one GEMM, no sums of separate input gradients) whose LoRA is one
 *     module for the enabled q/k/v: one A for them all, and its B's output zero-padded across the whole qkv width
 *     ({@link #fusedQkvLoraExtraBytes})
 * @param repeatsKv whether grouped-query attention expands k and v to every query head before the attention kernel
 *     (a copy forward, its reduction backward)
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
    int loraBackwardKernels,
    double loraDropoutBytes,
    boolean fusedQkv,
    boolean repeatsKv) {

  public EagerOps {
    for (double b : new double[] {normForwardBytes, normBackwardBytes, normWeightGradBytes, ropeForwardBytes,
        ropeBackwardBytes, gluForwardBytes, gluBackwardBytes, projectionGradSumBytes, loraCastBytes,
        loraForwardOutBytes, loraBackwardOutBytes, loraBackwardInBytes, qloraCloneBytes}) {
      Checks.nonNegative("eager op bytes per element", b);
    }
    Checks.positive("LoRA forward kernels", loraForwardKernels);
    Checks.positive("LoRA backward kernels", loraBackwardKernels);
    Checks.nonNegative("LoRA dropout bytes per element", loraDropoutBytes);
  }

  /** Separate q, k, v modules, no LoRA dropout, no k/v expansion (the profiles counted before LitGPT's). */
  public EagerOps(double normForwardBytes, double normBackwardBytes, double normWeightGradBytes,
      double ropeForwardBytes, double ropeBackwardBytes, double gluForwardBytes, double gluBackwardBytes,
      double projectionGradSumBytes, double loraCastBytes, double loraForwardOutBytes, double loraBackwardOutBytes,
      double loraBackwardInBytes, double qloraCloneBytes, int loraForwardKernels, int loraBackwardKernels) {
    this(normForwardBytes, normBackwardBytes, normWeightGradBytes, ropeForwardBytes, ropeBackwardBytes,
        gluForwardBytes, gluBackwardBytes, projectionGradSumBytes, loraCastBytes, loraForwardOutBytes,
        loraBackwardOutBytes, loraBackwardInBytes, qloraCloneBytes, loraForwardKernels, loraBackwardKernels, 0, false,
        false);
  }

  /** Kernels a fused-qkv LoRA module launches forward beyond a plain adapter's (see {@link #fusedQkvLoraExtraBytes}). */
  public static final int FUSED_QKV_LORA_EXTRA_FORWARD_KERNELS = 4;
  /** The same backward: the gather of the enabled columns' gradient, B's gradient made contiguous, a second B. */
  public static final int FUSED_QKV_LORA_EXTRA_BACKWARD_KERNELS = 4;

  /**
   * The element-wise work, per token, of LitGPT's fused-qkv LoRA module ({@code LoRAQKVLinear}, litgpt/lora.py) beyond
   * what a plain adapter of the padded width moves (its input's dropout and input-gradient sum, the scaling and the add
   * over its output): {@code enabled} is the width of the enabled q/k/v outputs (B's rows), {@code padded} the whole
   * qkv width q + 2 kv, over which the scaling and the add run. Forward: B runs as a kernel-size-1 conv1d, one per
   * enabled part under grouped-query attention, their outputs joined by {@code torch.cat} (2 + 2 per enabled element;
   * without GQA one grouped conv1d writes them); where a part is not enabled, {@code zero_pad} allocates zeros over
   * the padded width (2) and {@code index_copy_}s the enabled columns in (2 + 2). Backward: {@code index_copy_}'s
   * source gradient gathered by {@code index_select} (2 + 2 per enabled element, where padded), and conv1d's output
   * gradient made contiguous from its transposed view (2 + 2 per enabled element). At 16-bit activations.
   */
  public static double fusedQkvLoraExtraBytes(double enabled, double padded, boolean grouped, boolean backward) {
    boolean zeroPad = enabled < padded;
    if (backward) {
      return (zeroPad ? 4 * enabled : 0) + 4 * enabled;
    }
    return (grouped ? 4 * enabled : 0) + (zeroPad ? 2 * padded + 4 * enabled : 0);
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
   * Unsloth's Triton kernels and manual autograd as they stood from its first release (2023-12) to its April 2024
   * release (unslothai/unsloth, unsloth/kernels: rms_layernorm.py, rope_embedding.py, swiglu.py, fast_lora.py, utils.py;
   * docs/CALIBRATION.md, "Unsloth"): RMSNorm one kernel each way (read and write the activations: 4 B forward, 8
   * backward, as a fused norm); rotary in place on q and k (2+2 each way); SwiGLU one kernel forward (gate and up
   * read, one output: 6 B) and one backward ({@code swiglu_DWf_DW_dfg_kernel}: the upstream gradient and both inputs
   * read, h, df and de written in their place: 12 B); the input gradients of k, v (and gate) added to the running
   * dX by {@code dX += dK @ KW.t()}: the GEMM writes its product, the add reads both and writes (6 B per further
   * projection). LoRA, forward ({@code matmul_lora}): {@code out += (X @ A.to(dtype)) @ (s * B.to(dtype))}, the
   * adapters fp32 (Unsloth's prepare_model_for_kbit_training: "Also must be in float32!"), the product added into
   * the base output (6 B per output element beyond the product's write). Backward ({@code LoRA_QKV}, {@code LoRA_MLP},
   * {@code LoRA_W}): six GEMMs where autograd would run four, {@code d_A = X.t() @ (dY @ B.t())},
   * {@code d_B = (A.t() @ X.t()) @ dY} and {@code dX += dY @ B.t() @ (S * A.t())}: dY read three times (one more
   * than the adapter's two GEMM reads: 2 B per output element), X read twice and the dX term written once (one
   * more: 2 B per input element) and added into dX (6 B). Kernels forward: two casts, B's scaling, two GEMMs and the
   * add (6); backward: the six GEMMs, autocast's casts of B and A for the first two products, the two
   * {@code *= S}, the dX term's two casts, A's scaling and the add, the gradients cast to the fp32 parameters and
   * accumulated (2 + 2): 18.
   */
  public static final EagerOps UNSLOTH = new EagerOps(4, 8, 0, 4, 4, 6, 12, 6, 0, 6, 2, 8, 0, 6, 18);

  /**
   * LitGPT's modules in eager PyTorch (Lightning-AI/litgpt, litgpt/model.py and litgpt/lora.py; docs/CALIBRATION.md):
   * <ul>
   *   <li>RMSNorm: x.float() 2+4, x * x 4+4, mean 4, x * rsqrt 4+4, * weight.float() 4+4 (in fp32), .to(dtype) 4+2 =
   *       40 B forward; backward (frozen weight) the cast 6, the weight product 8, x * rsqrt's two gradients 8 and
   *       16 (product and reduction of the broadcast operand), mean 4, x * x's two products 24, the three gradients of
   *       x summed 24, x.float()'s 6 = 96 B; 16 B more when the weight trains (an fp32 product and its reduction).</li>
   *   <li>apply_rope on q and k, with the cos/sin cache in fp32 (build_rope_cache's .float(), rebuilt when the
   *       fine-tune scripts set max_seq_length): neg 2, cat 4, x * cos 2+4, rotated * sin 2+4, add 12, .to(dtype) 6, and
   *       the cat with the (empty) unroped part 4 = 40 B; backward the cast 6, the two products 8 each cast back to
   *       bf16 6 each (28), neg 2, the two half slices' zero-filled gradients 8, their sums 12, the outer slices'
   *       zero-filled gradients and sum 14 = 70 B.</li>
   *   <li>LLaMAMLP: F.silu(fc_1(x)) * fc_2(x): 10 B forward, 18 backward (as transformers'); fc_1 and fc_2 separate
   *       modules (one 6 B sum of input gradients); q, k, v one Linear ({@code attn}/{@code qkv}: no sums).</li>
   *   <li>Grouped-query attention: k and v repeat_interleave'd to every query head before SDPA ("flash attention
   *       requires it in training mode").</li>
   *   <li>LoRALinear: lora_dropout (0.05 in finetune/lora.py and the config hub: 2+2+1 each way), (x @ A^T @ B^T) *
   *       scaling 2+2 and the add 2+2+2 per output element; backward the scaling 4 per output and the input gradient's
   *       sum 6 per input; adapters in the model dtype under bf16-true (no casts). Kernels: dropout, two GEMMs, the
   *       scaling and the add (5); backward the scaling, four GEMMs, dropout, the sum and two gradient
   *       accumulations (9). LoRAQKVLinear as {@link #fusedQkvLoraExtraBytes}.</li>
   * </ul>
   */
  public static final EagerOps LITGPT = new EagerOps(40, 96, 16, 40, 70, 10, 18, 6, 0, 10, 4, 6, 0, 5, 9, 5, true,
      true);
}
