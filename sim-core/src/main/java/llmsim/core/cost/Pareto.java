package llmsim.core.cost;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToDoubleFunction;

/** The time-cost Pareto front: the options no other option beats on both time and cost. */
public final class Pareto {
  private Pareto() {}

  /**
   * The items of {@code all} that no other item dominates (no longer and no dearer, and better on one), in the
   * order given. Items with a NaN time or cost are never on the front.
   */
  public static <T> List<T> front(List<T> all, ToDoubleFunction<T> time, ToDoubleFunction<T> cost) {
    List<T> out = new ArrayList<>();
    for (T a : all) {
      double ta = time.applyAsDouble(a);
      double ca = cost.applyAsDouble(a);
      if (Double.isNaN(ta) || Double.isNaN(ca)) {
        continue;
      }
      boolean dominated = false;
      for (T b : all) {
        double tb = time.applyAsDouble(b);
        double cb = cost.applyAsDouble(b);
        if (b != a && tb <= ta && cb <= ca && (tb < ta || cb < ca)) {
          dominated = true;
          break;
        }
      }
      if (!dominated) {
        out.add(a);
      }
    }
    return out;
  }
}
