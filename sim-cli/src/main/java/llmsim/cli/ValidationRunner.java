package llmsim.cli;

import java.util.ArrayList;
import java.util.List;
import llmsim.core.hw.Device;
import llmsim.core.hw.Link;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.kernel.GemmTiles;
import llmsim.core.kernel.Kernels;
import llmsim.core.kernel.RooflineKernel;
import llmsim.core.parallel.Placement;
import llmsim.core.workload.CollectiveAlgorithm;
import llmsim.core.workload.CollectiveBench;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.validation.ValidationCase;
import llmsim.hw.yaml.InputException;
import llmsim.hw.yaml.Problem;

/** Predicts each case's metric in the case's unit; skipped cases keep their reason. */
final class ValidationRunner {
  private ValidationRunner() {}

  /**
   * One case's outcome; {@code predicted} is NaN for a skipped case. {@code parts} are a ratio case's per-run ratios
   * (in the case's unit, in the order of its runs), empty for any other case.
   */
  record Outcome(ValidationCase c, double predicted, String skipped, List<Double> parts) {
    Outcome(ValidationCase c, double predicted, String skipped) {
      this(c, predicted, skipped, List.of());
    }

    double signedError() {
      return (predicted - c.measured()) / c.measured();
    }

    boolean ran() {
      return skipped == null;
    }
  }

  /** Run every case; throws the problems of the cases that could not run, if any. */
  static List<Outcome> run(List<ValidationCase> cases) {
    List<Problem> problems = new ArrayList<>();
    List<Outcome> out = run(cases, problems);
    if (!problems.isEmpty()) {
      throw new InputException(problems);
    }
    return out;
  }

  /** Run every case that can run; a case that cannot adds its problems and the others still run. */
  static List<Outcome> run(List<ValidationCase> cases, List<Problem> problems) {
    List<Outcome> out = new ArrayList<>();
    for (ValidationCase c : cases) {
      if (c.skip().isPresent()) {
        out.add(new Outcome(c, Double.NaN, c.skip().get()));
        continue;
      }
      try {
        if (c.ratio().isPresent()) {
          List<Double> parts = ratios(c);
          out.add(new Outcome(c, summarise(parts, c.ratio().get().summary()), null, parts));
          continue;
        }
        out.add(new Outcome(c, c.micro().isPresent() ? toUnit(micro(c), c) : endToEnd(c), null));
      } catch (BadFlagException | IllegalArgumentException e) {
        problems.add(new Problem(c.file(), c.line(), 1, e.getMessage()));
      } catch (InputException e) {
        e.problems().stream().map(p -> p.line() > 0 ? p
            : new Problem(c.file(), c.line(), 1, p.file() + ": " + p.message())).forEach(problems::add);
      }
    }
    return out;
  }

  private static double endToEnd(ValidationCase c) {
    StepResult s = simulate(c.scenario().orElseThrow());
    double si = metric(s, c.metric());
    if (perGpu(c.unit())) {
      si /= s.system().totalDevices(); // the step's rates are the whole system's; these units are one GPU's share
    }
    return c.unit().equals("GPU-hours") ? si * s.system().totalDevices() / 3600 : toUnit(si, c);
  }

  private static StepResult simulate(llmsim.hw.scenario.ScenarioFile.Raw scenario) {
    ScenarioOptions.Resolved r = new ScenarioOptions().resolve(scenario, true);
    if (r.hardware().size() != 1) {
      throw new IllegalArgumentException("a case's scenario names exactly one hardware id");
    }
    return SimulateCommand.run(r).get(0);
  }

  /**
   * A ratio case's runs, each the scenario's metric per published GPU over the baseline's, in the case's unit. The
   * step's rates are the whole system's; each is divided by the GPUs the source counts in that system, which must
   * divide the simulated devices (an MI250 package is 2 GCD ranks: 4 GPUs over 8 ranks).
   */
  static List<Double> ratios(ValidationCase c) {
    ValidationCase.Ratio q = c.ratio().orElseThrow();
    List<Double> out = new ArrayList<>();
    for (int i = 0; i < q.scenarios().size(); i++) {
      StepResult s = simulate(q.scenarios().get(i));
      StepResult b = simulate(q.baselines().get(i));
      checkGpus("scenario_gpus", q.scenarioGpus(), s);
      checkGpus("baseline_gpus", q.baselineGpus(), b);
      double perGpu = metric(s, c.metric()) / q.scenarioGpus();
      double basePerGpu = metric(b, c.metric()) / q.baselineGpus();
      out.add(toUnit(perGpu / basePerGpu, c));
    }
    return out;
  }

  private static void checkGpus(String key, int gpus, StepResult s) {
    int devices = s.system().totalDevices();
    if (devices % gpus != 0) {
      throw new IllegalArgumentException("ratio: " + key + " " + gpus + " does not divide the " + devices
          + " devices the system simulates");
    }
  }

  /** One value from a ratio case's runs: mean, median, min or max (the schema admits no other). */
  static double summarise(List<Double> parts, String summary) {
    double[] v = parts.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return switch (summary) {
      case "mean" -> java.util.Arrays.stream(v).sum() / v.length;
      case "median" -> v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
      case "min" -> v[0];
      case "max" -> v[v.length - 1];
      default -> throw new IllegalArgumentException("ratio: unknown summary '" + summary + "'");
    };
  }

  /** A scenario metric in SI units, for the whole system. */
  private static double metric(StepResult s, String metric) {
    return switch (metric) {
      case "prefill_tokens_per_s" -> s.prefillTokensPerSecond();
      case "decode_tokens_per_s" -> s.decodeTokensPerSecond();
      case "tokens_per_s" -> s.tokensPerSecond();
      case "ttft_s" -> s.ttftSeconds();
      case "tpot_s" -> s.tpotSeconds();
      case "step_time_s" -> s.stepTimeSeconds();
      case "job_time_s" -> {
        if (!(s.jobTokens() > 0)) {
          throw new IllegalArgumentException("metric 'job_time_s' needs the scenario's 'tokens' (the run's length)");
        }
        yield s.jobSeconds();
      }
      case "mfu" -> s.mfu();
      case "hfu" -> s.hfu();
      case "mbu" -> s.mbu();
      default -> throw new IllegalArgumentException("metric '" + metric + "' does not apply to a scenario");
    };
  }

  /** Units that are one GPU's share of the system's rate. */
  static boolean perGpu(String unit) {
    return unit.equals("tokens/s/GPU") || unit.equals("tokens/GPU/s") || unit.equals("TFLOP/s/GPU");
  }

  private static double micro(ValidationCase c) {
    ValidationCase.Micro m = c.micro().orElseThrow();
    Catalog cat = Catalog.bundled();
    switch (m.measure()) {
      case "gemm": {
        Device d = cat.system(m.hardware(), "hardware").device();
        Precision p = Precision.fromKey(m.precision());
        double share = m.dies() > 0 ? (double) m.dies() / d.dies() : 1.0;
        double rate = d.peakFlops(p) * share * d.efficiency().gemmAt(p);
        return m.shaped() ? shapedGemm(d, p, rate, m.gemmM(), m.gemmN(), m.gemmK()) : rate;
      }
      case "all_reduce": {
        SystemSpec s = Placement.size(cat.system(m.hardware(), "hardware"), 0, m.gpus());
        return CollectiveBench.allReduceBusBandwidth(s, m.bytes(), CollectiveAlgorithm.fromKey(m.algorithm()));
      }
      case "all_to_all": {
        SystemSpec s = Placement.size(cat.system(m.hardware(), "hardware"), 0, m.gpus());
        return CollectiveBench.allToAllBusBandwidth(s, m.bytes());
      }
      case "memory": {
        Device d = cat.system(m.hardware(), "hardware").device();
        return d.memoryBandwidthBytesPerSecond() * d.efficiency().memoryStreaming();
      }
      default: {
        String id = cat.canonical(m.link());
        Link l = cat.links().stream().filter(x -> x.id().equals(id)).findFirst()
            .orElseThrow(() -> new IllegalArgumentException("unknown link '" + m.link() + "'"));
        return l.measuredBytesPerSecondPerDirection();
      }
    }
  }

  /**
   * One GEMM of M x N x K timed as a simulated GEMM op is (the roofline kernel with the tile and wave factor over the
   * device's SMs and the GEMM kernel floor, no launch): its FLOP/s, 2MNK over max(compute + floor, memory), memory
   * being A, B and C once each.
   */
  static double shapedGemm(Device d, Precision p, double rate, double m, double n, double k) {
    double[] flops = {2 * m * n * k};
    double[] bytes = {(m * k + k * n + m * n) * p.bytes()};
    double[] factor = new double[1];
    RooflineKernel kernel = Kernels.get();
    kernel.shapeFactors(new double[] {m}, new double[] {n}, new double[] {k}, 0, 1, d.computeUnits(), factor);
    double[] time = new double[1];
    double[] floor = new double[1];
    kernel.gemmFloors(flops, new double[] {m}, new double[] {n}, new double[] {k}, 0, 1,
        GemmTiles.kernelFloorSeconds(d.computeUnits()), floor);
    kernel.evaluate(flops, factor, floor, bytes, new double[1], 0, 1,
        RooflineKernel.Coefficients.of(rate, d.memoryBandwidthBytesPerSecond() * d.efficiency().memoryStreaming(),
            Double.POSITIVE_INFINITY, 0), time, new double[1], new double[1], new double[1]);
    return flops[0] / time[0];
  }

  /** Convert an SI value (seconds, FLOP/s, B/s, a fraction) to the case's unit; GPU-hours are done above. */
  static double toUnit(double si, ValidationCase c) {
    return switch (c.unit()) {
      case "ms" -> si * 1e3;
      case "minutes" -> si / 60;
      case "hours" -> si / 3600;
      case "days" -> si / 86400;
      case "percent" -> si * 100;
      case "TFLOP/s", "TFLOP/s/GPU" -> si / 1e12;
      case "GFLOP/s" -> si / 1e9;
      case "GB/s" -> si / 1e9;
      default -> si;
    };
  }
}
