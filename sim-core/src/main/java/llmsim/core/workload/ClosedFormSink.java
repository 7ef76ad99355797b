package llmsim.core.workload;

import llmsim.core.engine.OpSink;

/**
 * A sink that walks each repeated section once and weights its ops by how often it repeats (the product of
 * the open repeats), keeping no names: the closed-form sum and the op counter share it.
 */
abstract class ClosedFormSink implements OpSink {
  private final double[] weights = new double[16];
  private int depth;

  ClosedFormSink() {
    resetRepeats();
  }

  final void resetRepeats() {
    depth = 0;
    weights[0] = 1;
  }

  @Override
  public boolean keepsNames() {
    return false;
  }

  @Override
  public int repeat(int n) {
    weights[depth + 1] = weights[depth] * n;
    depth++;
    return n > 0 ? 1 : 0;
  }

  @Override
  public void endRepeat() {
    depth--;
  }

  @Override
  public double weight() {
    return weights[depth];
  }
}
