package llmsim.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import llmsim.core.hw.Precision;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.software.SoftwareProfile;
import llmsim.core.software.SoftwareProfiles;
import llmsim.core.task.Offload;
import llmsim.core.task.Task;
import llmsim.core.task.TaskKind;
import llmsim.core.task.WeightFormat;
import llmsim.hw.catalog.Catalog;

/**
 * A resolved cartesian grid. Every value is checked up front; point {@code i} decodes to one value per
 * axis in a fixed order (hardware, model, task, precision, weights, batch, seq_len, prompt_tokens,
 * generate_tokens, micro_batches, activation_checkpointing, offload, software), the last axis fastest.
 */
final class SweepGrid {
  final List<SystemSpec> systems;
  final List<ModelSpec> models;
  final List<TaskKind> tasks;
  final List<Precision> precisions; // null entries mean "the task's default"
  final List<WeightFormat> weights;
  final List<Integer> batch;
  final List<Integer> seqLen;
  final List<Integer> prompt;
  final List<Integer> generate;
  final List<Integer> microBatches;
  final List<Boolean> checkpointing;
  final List<Offload> offload;
  final List<SoftwareProfile> software;
  private final int[] radix;

  SweepGrid(Map<String, List<String>> raw) {
    Catalog c = Catalog.bundled();
    systems = each(raw, "hardware", null, h -> c.system(h, "--hardware"), "");
    models = each(raw, "models", null, m -> c.model(m, "--models"), "");
    tasks = each(raw, "tasks", "inference", TaskKind::fromKey, TaskKind.allowed());
    precisions = each(raw, "precision", "", v -> v.isEmpty() ? null : Precision.fromKey(v), "fp32, tf32, fp16, bf16, fp8, int8");
    weights = each(raw, "weights", "", v -> v.isEmpty() ? null : WeightFormat.fromKey(v), WeightFormat.allowed());
    batch = each(raw, "batch", "1", v -> positive("batch", v), "whole numbers >= 1");
    seqLen = each(raw, "seq_len", "2048", v -> positive("seq_len", v), "whole numbers >= 1");
    prompt = each(raw, "prompt_tokens", "512", v -> positive("prompt_tokens", v), "whole numbers >= 1");
    generate = each(raw, "generate_tokens", "128", v -> positive("generate_tokens", v), "whole numbers >= 1");
    microBatches = each(raw, "micro_batches", "1", v -> positive("micro_batches", v), "whole numbers >= 1");
    checkpointing = each(raw, "activation_checkpointing", "false", SweepGrid::bool, "true, false");
    offload = each(raw, "offload", "auto", Offload::fromKey, "auto, none, optimizer, weights");
    software = each(raw, "software", "pytorch", v -> SoftwareProfiles.find(v).orElseThrow(
        () -> new IllegalArgumentException("unknown software '" + v + "'")), String.join(", ", SoftwareProfiles.ids()));
    radix = new int[] {systems.size(), models.size(), tasks.size(), precisions.size(), weights.size(), batch.size(),
        seqLen.size(), prompt.size(), generate.size(), microBatches.size(), checkpointing.size(), offload.size(),
        software.size()};
  }

  static final String[] AXES = {"hardware", "models", "tasks", "precision", "weights", "batch", "seq_len",
      "prompt_tokens", "generate_tokens", "micro_batches", "activation_checkpointing", "offload", "software"};

  /** The number of points; a grid past 2^63 - 1 points is bad input, named by its axis sizes. */
  long points() {
    long p = 1;
    for (int r : radix) {
      if (p > Long.MAX_VALUE / r) {
        StringBuilder sizes = new StringBuilder();
        for (int a = 0; a < radix.length; a++) {
          if (radix[a] > 1) {
            sizes.append(sizes.length() == 0 ? "" : " x ").append(AXES[a]).append(' ').append(radix[a]);
          }
        }
        throw new BadFlagException("the grid has more than 2^63 - 1 points (" + sizes + "); --max-points allows at "
            + "most the number given (default 20,000,000): narrow it");
      }
      p *= r;
    }
    return p;
  }

  /** One grid point. */
  record Point(long index, SystemSpec system, ModelSpec model, Task task, SoftwareProfile software) {}

  Point point(long index) {
    int[] at = new int[radix.length];
    long rest = index;
    for (int a = radix.length - 1; a >= 0; a--) {
      at[a] = (int) (rest % radix[a]);
      rest /= radix[a];
    }
    TaskKind kind = tasks.get(at[2]);
    Task d = Task.defaults(kind);
    Precision p = precisions.get(at[3]) == null ? d.precision() : precisions.get(at[3]);
    WeightFormat w = weights.get(at[4]) == null ? d.weights() : weights.get(at[4]);
    Offload o = offload.get(at[11]);
    if (o == Offload.OPTIMIZER && !kind.training()) {
      o = Offload.AUTO; // an inference point has no optimizer to offload: the least offload that fits
    }
    Task t = new Task(kind, p, w, batch.get(at[5]), seqLen.get(at[6]), prompt.get(at[7]), generate.get(at[8]),
        microBatches.get(at[9]), checkpointing.get(at[10]), d.loraRank(), d.prefixTokens(), o);
    return new Point(index, systems.get(at[0]), models.get(at[1]), t, software.get(at[12]));
  }

  private static <T> List<T> each(Map<String, List<String>> raw, String key, String dflt, Function<String, T> f,
      String allowed) {
    List<String> values = raw.get(key);
    if (values == null || values.isEmpty()) {
      if (dflt == null) {
        throw new BadFlagException("sweep needs --" + key.replace('_', '-') + " (or '" + key + "' in the grid file)");
      }
      values = List.of(dflt);
    }
    List<T> out = new ArrayList<>();
    for (String v : values) {
      try {
        out.add(f.apply(v.strip()));
      } catch (IllegalArgumentException e) {
        throw new BadFlagException("--" + key.replace('_', '-'), v, allowed.isEmpty() ? e.getMessage() : allowed);
      }
    }
    return out;
  }

  private static int positive(String key, String v) {
    int i = Integer.parseInt(v);
    if (i < 1) {
      throw new IllegalArgumentException(key + " must be >= 1");
    }
    return i;
  }

  private static boolean bool(String v) {
    if (v.equals("true") || v.equals("false")) {
      return Boolean.parseBoolean(v);
    }
    throw new IllegalArgumentException("not a boolean");
  }
}
