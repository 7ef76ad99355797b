package llmsim.core.model;

import java.util.List;
import llmsim.core.util.Checks;

/**
 * A decoder-only transformer. The parameter count is computed from the shape ({@link #parameterCount()}),
 * never typed in; {@code publishedParameters} is what it is checked against.
 *
 * @param headDim width of one attention head (usually hidden / heads)
 * @param kvHeads key/value heads: = heads for MHA, fewer for GQA, 1 for MQA
 * @param ffnHidden inner width of the feed-forward block
 * @param linearBias whether the attention and MLP projections carry biases (GPT-3, OPT, BLOOM)
 * @param qkvBias whether only the QKV projection carries a bias (ChatGLM2, Qwen)
 * @param learnedPositions whether the model has a learned absolute position table of maxContext rows
 * @param parallelAttention attention and MLP read the same normalised input (Falcon, GPT-J)
 * @param normsPerLayer 2 usually; 1 for Falcon-7B's shared input norm
 */
public record ModelSpec(
    String id,
    String name,
    String family,
    List<String> aliases,
    int layers,
    int hidden,
    int heads,
    int kvHeads,
    int headDim,
    int ffnHidden,
    FfnKind ffnKind,
    int vocab,
    boolean tiedEmbeddings,
    int maxContext,
    NormKind normKind,
    boolean linearBias,
    boolean qkvBias,
    boolean learnedPositions,
    boolean parallelAttention,
    int normsPerLayer,
    double publishedParameters,
    String publishedSource) {

  public ModelSpec {
    Checks.notBlank("model id", id);
    aliases = List.copyOf(aliases);
    Checks.positive("layers", layers);
    Checks.positive("hidden size", hidden);
    Checks.positive("heads", heads);
    Checks.positive("kv heads", kvHeads);
    Checks.positive("head dim", headDim);
    Checks.positive("ffn hidden size", ffnHidden);
    Checks.positive("vocabulary", vocab);
    Checks.positive("max context", maxContext);
    Checks.positive("norms per layer", normsPerLayer);
    if (heads % kvHeads != 0) {
      throw new IllegalArgumentException("heads (" + heads + ") must be a multiple of kv heads (" + kvHeads + ")");
    }
  }

  /** Width of the query projection output. */
  public long qDim() {
    return (long) heads * headDim;
  }

  /** Width of each of the key and value projection outputs. */
  public long kvDim() {
    return (long) kvHeads * headDim;
  }

  public long attentionParametersPerLayer() {
    long w = hidden * qDim() + 2L * hidden * kvDim() + qDim() * hidden;
    if (linearBias) {
      w += qDim() + 2 * kvDim() + hidden;
    } else if (qkvBias) {
      w += qDim() + 2 * kvDim();
    }
    return w;
  }

  public long ffnParametersPerLayer() {
    long w = (long) ffnKind.matrices() * hidden * ffnHidden;
    if (linearBias) {
      w += (long) (ffnKind.matrices() - 1) * ffnHidden + hidden;
    }
    return w;
  }

  public long normParametersPerLayer() {
    return (long) normsPerLayer * normKind.paramsPerChannel() * hidden;
  }

  public long parametersPerLayer() {
    return attentionParametersPerLayer() + ffnParametersPerLayer() + normParametersPerLayer();
  }

  public long embeddingParameters() {
    long e = (long) vocab * hidden;
    if (learnedPositions) {
      e += (long) maxContext * hidden;
    }
    return e;
  }

  public long unembeddingParameters() {
    return tiedEmbeddings ? 0 : (long) vocab * hidden;
  }

  /** All parameters: embeddings, layers, final norm and (untied) output head. */
  public long parameterCount() {
    return embeddingParameters() + layers * parametersPerLayer()
        + (long) normKind.paramsPerChannel() * hidden + unembeddingParameters();
  }

  /** Parameters in the matrices that take part in per-token GEMMs (everything but the embedding lookup). */
  public long gemmParameterCount() {
    return (long) layers * (attentionParametersPerLayer() + ffnParametersPerLayer()) + (long) vocab * hidden;
  }
}
