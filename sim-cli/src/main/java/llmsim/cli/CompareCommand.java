package llmsim.cli;

import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code llmsim compare}: one scenario on several systems side by side. */
@Command(name = "compare", description = {
    "One scenario on several systems side by side: step time, tokens/s, MFU/MBU, time by bound, fit and offload.",
    "Example: llmsim compare --model llama-65b --task train --hardware m2-ultra,13900ks-h100"})
final class CompareCommand implements ScenarioOptions.Command, Callable<Integer> {
  @Spec CommandSpec spec;
  ScenarioOptions scenario = new ScenarioOptions();

  @Override
  public ScenarioOptions scenario() {
    return scenario;
  }
  @Mixin Output output;
  @Mixin ReportOutput report;

  @Option(names = "--scenario", paramLabel = "FILE", description = "Read the scenario from a .yaml file; flags override it.")
  Path scenarioFile;

  @Override
  public Integer call() {
    SimulateCommand same = new SimulateCommand();
    same.spec = spec;
    same.scenario = scenario;
    same.output = output;
    same.report = report;
    return same.execute(scenarioFile, false);
  }
}
