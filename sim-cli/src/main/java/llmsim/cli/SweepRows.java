package llmsim.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioValues;
import llmsim.core.workload.Estimate;
import llmsim.report.Escape;

/**
 * Sweep rows as CSV (RFC 4180 quoting) or JSON Lines (escaped strings), with a fixed column order and locale-free
 * numbers. Ids come from user files and may hold commas, quotes or line breaks: one point is still one record.
 */
final class SweepRows {
  private SweepRows() {}

  /** Scenario columns: every sweepable key of the scenario key table, in its order. */
  static final List<ScenarioKey> SCENARIO = Arrays.stream(ScenarioKey.values()).filter(ScenarioKey::sweepable).toList();

  static final List<String> COLUMNS = columns();

  private static List<String> columns() {
    List<String> c = new ArrayList<>();
    c.add("index");
    SCENARIO.forEach(k -> c.add(k.key()));
    c.addAll(List.of("fits", "offload_used", "step_time_s", "tokens_per_s", "ttft_s", "tpot_s", "mfu", "bound",
        "device_bytes", "capacity_bytes", "mode", "kernel"));
    return List.copyOf(c);
  }

  /** Metrics --by can rank on. */
  static final List<String> RANKABLE = List.of("tokens_per_s", "mfu", "step_time_s", "ttft_s", "tpot_s");

  static String header(boolean jsonl) {
    return jsonl ? "" : String.join(",", COLUMNS) + "\n";
  }

  static void append(StringBuilder b, SweepGrid.Point p, Estimate e, String mode, String kernel, boolean jsonl) {
    Map<ScenarioKey, Object> scenario = ScenarioValues.describe(p.task(), p.software());
    scenario.put(ScenarioKey.HARDWARE, p.system().id());
    scenario.put(ScenarioKey.MODEL, p.model().id());
    scenario.put(ScenarioKey.NODES, p.system().nodes());
    scenario.put(ScenarioKey.GPUS, p.system().totalDevices());
    List<Object> row = new ArrayList<>(COLUMNS.size());
    row.add(p.index());
    SCENARIO.forEach(k -> row.add(scenario.get(k)));
    row.addAll(Arrays.asList(e.memory().fits(), e.memory().offload().key(), e.stepTimeSeconds(), e.tokensPerSecond(),
        e.ttftSeconds(), e.tpotSeconds(), e.mfu(), e.bound().key(), e.memory().totalBytes(), e.memory().capacityBytes(),
        mode, kernel));
    Object[] v = row.toArray();
    if (jsonl) {
      b.append('{');
      for (int i = 0; i < v.length; i++) {
        if (i > 0) {
          b.append(',');
        }
        b.append(Escape.json(COLUMNS.get(i))).append(':');
        Object x = v[i];
        if (x == null) {
          b.append("null");
        } else if (x instanceof String s) {
          b.append(Escape.json(s));
        } else if (x instanceof Double d) {
          b.append(Double.isFinite(d) ? Double.toString(d) : "null");
        } else {
          b.append(x);
        }
      }
      b.append("}\n");
    } else {
      for (int i = 0; i < v.length; i++) {
        if (i > 0) {
          b.append(',');
        }
        Object x = v[i];
        if (x == null) {
          continue;
        } else if (x instanceof Double d) {
          b.append(Double.isFinite(d) ? Double.toString(d) : "");
        } else if (x instanceof String s) {
          b.append(Escape.csv(s));
        } else {
          b.append(x);
        }
      }
      b.append('\n');
    }
  }

  /** The value of a rankable metric. */
  static double metric(Estimate e, String key) {
    return switch (key) {
      case "tokens_per_s" -> e.tokensPerSecond();
      case "step_time_s" -> e.stepTimeSeconds();
      case "ttft_s" -> e.ttftSeconds();
      case "tpot_s" -> e.tpotSeconds();
      case "mfu" -> e.mfu();
      default -> throw new BadFlagException("--by", key, "tokens_per_s, step_time_s, ttft_s, tpot_s, mfu");
    };
  }

  /** Whether larger is better for this metric (throughput, MFU) or smaller (times). */
  static boolean higherIsBetter(String key) {
    return key.equals("tokens_per_s") || key.equals("mfu");
  }
}
