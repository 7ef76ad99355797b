package llmsim.hw.catalog;

/**
 * Upper bounds of a model's shape, the same as {@code model.schema.json} states (a test keeps them equal).
 * They are generous (about 100x the largest published model) and chosen so that every product the
 * simulator forms from a shape stays inside a 64-bit integer: per layer at most
 * 4 x hidden x heads x head_dim = 2^52 attention weights, times 1000 layers, is below 2^63.
 */
final class ModelLimits {
  private ModelLimits() {}

  static final int LAYERS = 1000;
  static final int HIDDEN = 1_048_576;
  static final int HEADS = 65_536;
  static final int HEAD_DIM = 16_384;
  static final int FFN_HIDDEN = 4_194_304;
  static final int VOCAB = 16_777_216;
  static final int CONTEXT = 16_777_216;
}
