package llmsim.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import llmsim.core.hw.SystemSpec;
import llmsim.core.model.ModelSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.hw.catalog.Catalog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * {@code llmsim advise}'s search over at least 1e5 candidates (system, GPU count, plan, micro-batch): the training of
 * {@link #MODELS}, each over every catalog system at 1, 2, 4, ... 4,096 GPUs, as {@code advise --max-gpus 4096} runs it
 * (memory check for each, closed form for those that fit, event simulation of each system's best and its pipeline
 * plans), on every core. One operation is all the searches; setup prints how many candidates they hold.
 *
 * <p>In package llmsim.cli for the package-private search. Run: {@code bench/run AdviseBench}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 1)
@Measurement(iterations = 3)
@Fork(value = 1, jvmArgsAppend = {"--add-modules=jdk.incubator.vector", "-Xmx4g", "-Djava.awt.headless=true"})
public class AdviseBench {
  static final List<String> MODELS = List.of("llama-7b", "llama2-7b", "llama-13b", "llama-33b", "llama2-70b",
      "llama3-8b", "llama3-70b", "falcon-40b", "mpt-30b", "gpt3-175b", "bloom-176b");

  record Search(ScenarioOptions.Resolved r, ModelSpec m, Costing costing) {}

  List<Search> searches;
  List<SystemSpec> systems;

  @Setup(Level.Trial)
  public void setUp() {
    systems = Advisor.systems(llmsim.hw.catalog.Catalog.bundled(), List.of(), 4096);
    searches = new ArrayList<>();
    long candidates = 0;
    for (String id : MODELS) {
      ScenarioOptions o = new ScenarioOptions();
      o.set(ScenarioKey.MODEL, id);
      o.set(ScenarioKey.TASK, "train");
      o.set(ScenarioKey.TOKENS, "1T");
      ScenarioOptions.Resolved r = o.resolve(null, false);
      Search s = new Search(r, Catalog.bundled().model(id, "bench"), Costing.of(r));
      searches.add(s);
      candidates += Advisor.search(s.r(), s.m(), systems, s.costing()).candidates();
    }
    if (candidates < 100_000) {
      throw new IllegalStateException("only " + candidates + " candidates");
    }
    System.out.printf("%nAdviseBench: %,d candidates over %d systems and sizes, %d models%n", candidates,
        systems.size(), MODELS.size());
  }

  /** Every search of {@link #MODELS}: at least 1e5 candidates. */
  @Benchmark
  public long search100k() {
    long simulated = 0;
    for (Search s : searches) {
      simulated += Advisor.search(s.r(), s.m(), systems, s.costing()).simulated();
    }
    return simulated;
  }
}
