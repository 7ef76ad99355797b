package llmsim.cli;

import static llmsim.cli.Output.num;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import llmsim.core.model.ModelSpec;
import llmsim.hw.catalog.Catalog;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code llmsim models list|show}. */
@Command(name = "models", description = "The model catalog: decoder-only transformers, parameter counts computed from their shape.",
    subcommands = {ModelsCommand.ListCmd.class, ModelsCommand.Show.class})
final class ModelsCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  @Command(name = "list", description = {"List every catalog model.", "Example: llmsim models list --format csv"})
  static final class ListCmd implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Output output;

    @Override
    public Integer call() {
      TextTable t = new TextTable(List.of("id", "name", "params (computed)", "published", "layers", "hidden", "heads/kv", "ffn", "vocab", "context"));
      List<Map<String, Object>> json = new ArrayList<>();
      for (ModelSpec m : Catalog.bundled().models()) {
        t.row(List.of(m.id(), m.name(), num(m.parameterCount() / 1e9, 2) + " B", num(m.publishedParameters() / 1e9, 2) + " B",
            String.valueOf(m.layers()), String.valueOf(m.hidden()), m.heads() + "/" + m.kvHeads(),
            m.ffnHidden() + " " + m.ffnKind().key(), String.valueOf(m.vocab()), String.valueOf(m.maxContext())));
        json.add(modelJson(m));
      }
      spec.commandLine().getOut().print(Output.print(output.format, t, json));
      return 0;
    }
  }

  @Command(name = "show", description = {"Show one model: shape, computed and published parameter counts.",
      "Example: llmsim models show llama-7b"})
  static final class Show implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin Output output;

    @Parameters(paramLabel = "MODEL", description = "A model id or alias, a model .yaml, or a Hugging Face config.json.")
    String id;

    @Override
    public Integer call() {
      ModelSpec m = Catalog.bundled().model(id, "models show");
      Map<String, Object> json = modelJson(m);
      TextTable t = new TextTable(List.of("field", "value"));
      FieldCells.flatten("", json, t);
      spec.commandLine().getOut().print(Output.print(output.format, t, json));
      return 0;
    }
  }

  static Map<String, Object> modelJson(ModelSpec m) {
    Map<String, Object> j = new LinkedHashMap<>();
    j.put("id", m.id());
    j.put("name", m.name());
    j.put("family", m.family());
    j.put("parameters", m.parameterCount());
    // a count, as "parameters" is (6.738415616E9 was printed beside 6738415616); a file may write it as 6.7e9
    double published = m.publishedParameters();
    j.put("published_parameters", published == Math.rint(published) && Math.abs(published) < 9e18 ? (Object) (long) published
        : (Object) published);
    j.put("published_source", m.publishedSource());
    j.put("layers", m.layers());
    j.put("hidden_size", m.hidden());
    j.put("heads", m.heads());
    j.put("kv_heads", m.kvHeads());
    j.put("head_dim", m.headDim());
    j.put("ffn_hidden_size", m.ffnHidden());
    j.put("ffn_kind", m.ffnKind().key());
    j.put("vocab_size", m.vocab());
    j.put("tied_embeddings", m.tiedEmbeddings());
    j.put("max_context", m.maxContext());
    j.put("norm", m.normKind().key());
    // the rest of the shape the parameter count is computed from (Falcon's parallel attention, GPT's learned positions
    // and biases): without them the count shown could not be worked out from the fields beside it
    j.put("norms_per_layer", m.normsPerLayer());
    j.put("linear_bias", m.linearBias());
    j.put("qkv_bias", m.qkvBias());
    j.put("learned_positions", m.learnedPositions());
    j.put("parallel_attention", m.parallelAttention());
    j.put("aliases", m.aliases());
    return j;
  }
}
