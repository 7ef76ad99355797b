package llmsim.cli;

import java.nio.file.Path;
import llmsim.hw.scenario.ScenarioFile;
import picocli.CommandLine.Option;

/**
 * {@code --scenario FILE} for the commands whose positional parameters mean something else (compare, explain,
 * memory): the same scenario file {@code simulate SCENARIO.yaml} reads, flags overriding its keys.
 */
final class ScenarioFileOption {
  @Option(names = "--scenario", paramLabel = "FILE", description = "Read the scenario from a .yaml file (the keys"
      + " simulate's SCENARIO takes); flags override it.")
  Path file;

  /** The file read and checked (errors at its line, exit 2), or null without --scenario. */
  ScenarioFile.Raw read() {
    return file == null ? null : ScenarioFile.read(file);
  }
}
