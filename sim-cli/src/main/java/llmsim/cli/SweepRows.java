package llmsim.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import llmsim.core.cost.JobCost;
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

  /**
   * Columns a sweep with a job (--tokens, --requests) adds after {@link #COLUMNS}, named as simulate's JSON names
   * them: empty where the point does not fit memory, and the cost columns where the device has no price.
   */
  static final List<String> JOB_COLUMNS = List.of("job_tokens", "wall_time_s", "gpu_hours", "energy_kwh", "cost",
      "currency", "cost_per_million_tokens");

  private static List<String> columns() {
    List<String> c = new ArrayList<>();
    c.add("index");
    SCENARIO.forEach(k -> c.add(k.key()));
    c.addAll(List.of("fits", "offload_used", "step_time_s", "tokens_per_s", "ttft_s", "tpot_s", "mfu", "bound",
        "device_bytes", "capacity_bytes", "mode", "kernel"));
    return List.copyOf(c);
  }

  /** The columns of a sweep, with or without a job. */
  static List<String> columns(boolean job) {
    if (!job) {
      return COLUMNS;
    }
    List<String> c = new ArrayList<>(COLUMNS);
    c.addAll(JOB_COLUMNS);
    return c;
  }

  /** Metrics --by can rank on. */
  static final List<String> RANKABLE = List.of("tokens_per_s", "mfu", "step_time_s", "ttft_s", "tpot_s", "cost",
      "cost_per_million_tokens", "wall_time_s");

  /** The metrics of {@link #RANKABLE} that need a job. */
  static boolean jobMetric(String key) {
    return JOB_COLUMNS.contains(key);
  }

  static String header(boolean jsonl, boolean job) {
    return jsonl ? "" : String.join(",", columns(job)) + "\n";
  }

  /** One point's row; {@code job} null: no job columns, else {@code cost} the point's job (null: it does not fit). */
  static void append(StringBuilder b, SweepGrid.Point p, Estimate e, String mode, String kernel, boolean jsonl,
      SweepCosts job, JobCost cost) {
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
    if (job != null) {
      row.add(job.tokens(p.task()));
      row.addAll(cost == null ? java.util.Collections.nCopies(JOB_COLUMNS.size() - 1, null) : Arrays.asList(
          cost.wallSeconds(), cost.gpuHours(), cost.energyKwh(), cost.cost(), cost.currency(),
          cost.costPerMillionTokens()));
    }
    List<String> names = job == null ? COLUMNS : columns(true);
    Object[] v = row.toArray();
    if (jsonl) {
      b.append('{');
      for (int i = 0; i < v.length; i++) {
        if (i > 0) {
          b.append(',');
        }
        b.append(Escape.json(names.get(i))).append(':');
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

  /** The value of a rankable metric; NaN for a job metric where the point has no job (it does not fit). */
  static double metric(Estimate e, JobCost job, String key) {
    return switch (key) {
      case "cost" -> job == null ? Double.NaN : job.cost();
      case "cost_per_million_tokens" -> job == null ? Double.NaN : job.costPerMillionTokens();
      case "wall_time_s" -> job == null ? Double.NaN : job.wallSeconds();
      case "tokens_per_s" -> e.tokensPerSecond();
      case "step_time_s" -> e.stepTimeSeconds();
      case "ttft_s" -> e.ttftSeconds();
      case "tpot_s" -> e.tpotSeconds();
      case "mfu" -> e.mfu();
      default -> throw new BadFlagException("--by", key, String.join(", ", RANKABLE));
    };
  }

  /** Whether larger is better for this metric (throughput, MFU) or smaller (times). */
  static boolean higherIsBetter(String key) {
    return key.equals("tokens_per_s") || key.equals("mfu");
  }
}
