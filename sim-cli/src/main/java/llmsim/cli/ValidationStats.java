package llmsim.cli;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** Median absolute error, MAPE and the worst cases, per category and overall. */
record ValidationStats(String group, int cases, double medianAbsError, double mape, List<ValidationRunner.Outcome> worst,
    List<ValidationRunner.Outcome> skipped) {

  static ValidationStats of(String group, List<ValidationRunner.Outcome> outcomes) {
    List<ValidationRunner.Outcome> ran = outcomes.stream().filter(ValidationRunner.Outcome::ran).toList();
    double[] abs = ran.stream().mapToDouble(o -> Math.abs(o.signedError())).sorted().toArray();
    double median = abs.length == 0 ? Double.NaN
        : abs.length % 2 == 1 ? abs[abs.length / 2] : 0.5 * (abs[abs.length / 2 - 1] + abs[abs.length / 2]);
    double mape = abs.length == 0 ? Double.NaN : java.util.Arrays.stream(abs).average().orElse(Double.NaN);
    List<ValidationRunner.Outcome> worst = ran.stream()
        .sorted(Comparator.comparingDouble((ValidationRunner.Outcome o) -> -Math.abs(o.signedError()))
            .thenComparing(o -> o.c().id()))
        .limit(3).toList();
    List<ValidationRunner.Outcome> skipped = outcomes.stream().filter(o -> !o.ran()).toList();
    return new ValidationStats(group, abs.length, median, mape, worst, skipped);
  }

  /** Per category (sorted), then "end-to-end" (every category but microbenchmarks), then "all". */
  static List<ValidationStats> summarise(List<ValidationRunner.Outcome> outcomes) {
    Map<String, List<ValidationRunner.Outcome>> byCategory = new TreeMap<>();
    for (ValidationRunner.Outcome o : outcomes) {
      byCategory.computeIfAbsent(o.c().category(), k -> new ArrayList<>()).add(o);
    }
    List<ValidationStats> out = new ArrayList<>();
    byCategory.forEach((k, v) -> out.add(of(k, v)));
    out.add(of("end-to-end", outcomes.stream().filter(o -> o.c().endToEnd()).toList()));
    out.add(of("all", outcomes));
    return out;
  }

  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("group", group);
    m.put("cases", cases);
    m.put("run", cases);
    m.put("skipped", skipped.size());
    m.put("skip_reasons", skipped.stream().map(o -> {
      Map<String, Object> r = new LinkedHashMap<>();
      r.put("id", o.c().id());
      r.put("reason", o.skipped());
      return r;
    }).toList());
    m.put("median_abs_error", ResultFormat.finite(medianAbsError));
    m.put("mape", ResultFormat.finite(mape));
    m.put("worst", worst.stream().map(o -> o.c().id()).toList());
    return m;
  }
}
