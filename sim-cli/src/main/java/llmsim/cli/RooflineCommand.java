package llmsim.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import llmsim.core.hw.SystemSpec;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.workload.StepResult;
import llmsim.hw.catalog.Catalog;
import llmsim.report.ChartFiles;
import llmsim.report.ReportFolder;
import llmsim.report.roofline.RooflineChart;
import llmsim.report.roofline.RooflineData;
import org.jfree.chart.JFreeChart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code llmsim roofline}: roofline charts per system and an overlay, with the workload's ops if one is given. */
@Command(name = "roofline", description = {
    "Draw roofline charts (PNG and SVG) per system and an overlay, with the model's ops and decode batches.",
    "Each chart has the compute ceiling of each precision the device runs natively, the device-memory roof, the "
        + "host-link roof (PCIe, or unified memory) and ridge points (peak FLOP/s / bandwidth, in FLOP/byte). "
        + "With --model: the ceiling of the precision the work runs in drawn bold; each op class (attention, MLP, ...) as its "
        + "own labelled point at the FLOP/s it attained, squares for prefill and circles for decode, hollow and labelled "
        + "'launch-bound' where launch overhead, not the roof, holds it down. For inference, the decode step at batch 1, 2, "
        + "4 ... 1,024 walks right toward the ridge; the critical batch size, where decode turns compute-bound, is marked on "
        + "the roof (or the chart says why decode never gets there: a long context's KV-cache reads grow with the batch).",
    "Example: llmsim roofline --hardware h100-sxm,m2-ultra --model llama-7b --task inference --out charts/"})
final class RooflineCommand extends ScenarioOptions.Command implements Callable<Integer> {
  RooflineCommand() {
    super(false); // no job is sized or priced here
  }

  @Option(names = "--out", required = true, paramLabel = "DIR", description = "Folder for roofline-<id>.png/svg and roofline-overlay.png/svg.")
  Path out;

  @Override
  public Integer call() {
    String hardware = scenario.given(ScenarioKey.HARDWARE);
    if (hardware == null || hardware.isBlank()) {
      throw new BadFlagException("--hardware is required (for example h100-sxm,m2-ultra)");
    }
    @SuppressWarnings("unchecked")
    List<String> ids = (List<String>) ScenarioKey.HARDWARE.parse(hardware);
    ReportOutput.checkSystemsDrawn(ids.size(), "roofline");
    scenario.refuseJobFlags(); // before the folder is made; without --model nothing else reads the flags
    scenario.refuseAllGpus("the roofline places one GPU's kernels against that GPU's ceilings, the same on every GPU of"
        + " the plan"); // it was taken and drew the same points
    // its chart file would be written twice (an internal error), for a system named twice, by an alias or by a file
    SweepGrid.refuseRepeats("--hardware", ids, ids.stream().map(h -> scenario.catalog().system(h, "--hardware").id())
        .toList());
    for (ScenarioKey k : ScenarioKey.values()) {
      if (scenario.given(ScenarioKey.MODEL) == null && k != ScenarioKey.HARDWARE && scenario.given(k) != null) {
        // the charts are then the devices' ceilings alone: --task train --batch 8 drew the same ones, without a word
        throw new BadFlagException(k.flag() + ": roofline without --model draws each device's ceilings alone, which "
            + k.key() + " does not change; give --model to place a run's ops on them, or leave " + k.flag() + " out");
      }
    }
    if (scenario.given(ScenarioKey.MODEL) == null) { // with a model, simulate's checks refuse it
      ScenarioOptions.refuseUnusedOverrides(scenario.catalog(), ids.stream().map(h -> scenario.catalog().system(h,
          "--hardware")).toList(), List.of());
    }
    // with a model, the run's own refusals (a precision the device lacks, a flag its task does not use) come before
    // the folder is made: they made it, and left it empty, exit 2
    ScenarioOptions.Resolved run = scenario.given(ScenarioKey.MODEL) == null ? null : scenario.resolve(null, true);
    if (run != null) {
      SimulateCommand.check(run, false);
    }
    ReportOutput.prepare(out, ids.size(), "--hardware");
    Catalog c = scenario.catalog();
    List<RooflineData> data = new ArrayList<>();
    if (scenario.given(ScenarioKey.MODEL) == null) {
      for (String h : ids) {
        SystemSpec s = c.system(h, "--hardware");
        data.add(RooflineData.of(s));
      }
    } else {
      for (StepResult r : SimulateCommand.run(run)) {
        data.add(ReportOutput.roofline(r));
        // what simulate says of the run the chart draws (a changed default precision, a model that does not fit);
        // the --set notes follow below, once
        r.warnings().stream().filter(w -> !w.startsWith("override in effect"))
            .forEach(w -> spec.commandLine().getErr().println(r.system().id() + ": warning: " + w));
        if (!r.memory().fits()) {
          spec.commandLine().getErr().println(r.system().id() + ": warning: it does not fit (device memory short by "
              + llmsim.core.util.Units.gib(r.memory().shortfallBytes()) + "); its ops are drawn as if the memory were"
              + " there");
        }
      }
    }
    try (ReportFolder folder = ReportOutput.open(out, "roofline")) {
      List<Path> written = new ArrayList<>();
      for (RooflineData d : data) {
        JFreeChart chart = RooflineChart.create("Roofline: " + d.system(), List.of(d), ReportOutput.style());
        written.addAll(ChartFiles.write(chart, folder, "roofline-" + ReportOutput.safe(d.system()),
            ReportOutput.style().width(), ReportOutput.style().height()));
      }
      JFreeChart overlay = RooflineChart.create("Roofline overlay: " + String.join(", ", data.stream().map(RooflineData::system).toList()),
          data, ReportOutput.style());
      written.addAll(ChartFiles.write(overlay, folder, "roofline-overlay", ReportOutput.style().width(), ReportOutput.style().height()));
      ReportOutput.commit(folder, spec.commandLine().getErr());
      written.forEach(p -> spec.commandLine().getOut().println(p));
      scenario.warnOverrides(spec.commandLine().getErr());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return 0;
  }
}
