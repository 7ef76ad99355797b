package llmsim.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code llmsim compare}: one scenario on several systems side by side. */
@Command(name = "compare", description = {
    "One scenario on several systems side by side: step time, tokens/s, MFU/MBU, time by bound, fit and offload.",
    "Example: llmsim compare --model llama-65b --task train --hardware m2-ultra,13900ks-h100"})
final class CompareCommand extends ScenarioOptions.Command implements Callable<Integer> {
  @Mixin Output output;
  @Mixin ReportOutput report;

  @Mixin ScenarioFileOption scenarioFile;

  @Option(names = "--vary", paramLabel = "ID.FIELD=V1,V2,...", description = {"Simulate again with one catalog field"
      + " (named as in --set) at each value and show how tokens/s and the bound move; with --out, sensitivity.png/svg."
      + " A value ending in x multiplies the catalog's: --vary m2-ultra.memory.bandwidth_gb_per_s=0.5x,1x,2x."})
  String vary;

  @Override
  public Integer call() {
    if (vary != null) {
      return varied();
    }
    SimulateCommand same = new SimulateCommand();
    same.spec = spec;
    same.scenario = scenario;
    same.output = output;
    same.report = report;
    return same.execute(scenarioFile.file, false);
  }

  private int varied() {
    Sensitivity.Axis axis = Sensitivity.parse(scenario, vary);
    if (report.out != null) {
      ReportOutput.prepare(report.out);
    }
    List<Sensitivity.Point> points = Sensitivity.run(scenario, scenarioFile.file, axis);
    spec.commandLine().getOut().print(Output.print(output.format, Sensitivity.table(points, axis),
        Sensitivity.json(points, axis)));
    // JSON carries each point's; the table's follow it, the CSV's go to standard error
    if (output.format == Format.table) {
      List<String> lines = Sensitivity.warningLines(points, axis);
      if (!lines.isEmpty()) {
        spec.commandLine().getOut().println();
        lines.forEach(spec.commandLine().getOut()::println);
      }
    } else if (output.format == Format.csv) {
      Sensitivity.warningLines(points, axis).forEach(spec.commandLine().getErr()::println);
    }
    if (report.out != null) {
      Sensitivity.chart(points, axis, report.out, spec.commandLine().getErr());
    }
    return 0;
  }
}
