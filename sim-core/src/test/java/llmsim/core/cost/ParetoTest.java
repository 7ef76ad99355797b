package llmsim.core.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParetoTest {
  record P(String name, double hours, double usd) {}

  @Test
  void front_keepsWhatNothingBeatsOnBothTimeAndCost() {
    P fastDear = new P("fast-dear", 1, 100);
    P middle = new P("middle", 5, 40);
    P slowCheap = new P("slow-cheap", 20, 10);
    P dominated = new P("dominated", 6, 50); // slower and dearer than middle
    P tiedSlower = new P("tied-slower", 21, 10); // same cost as slow-cheap, slower
    P unpriced = new P("unpriced", 0.5, Double.NaN);
    List<P> front = Pareto.front(List.of(dominated, slowCheap, fastDear, tiedSlower, middle, unpriced), P::hours,
        P::usd);
    assertThat(front).containsExactly(slowCheap, fastDear, middle);
  }
}
