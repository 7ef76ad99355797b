package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import llmsim.hw.validation.ValidationCase;
import org.junit.jupiter.api.Test;

/** vTrain's measured iterations: one generated case per CSV row, each run or skipped for a stated reason. */
class VtrainCasesTest {
  static final Path ROOT = Path.of("..", "validation", "vtrain");

  static List<String> rows(String file) throws IOException {
    List<String> lines = new ArrayList<>(Files.readAllLines(ROOT.resolve(file)));
    lines.remove(0); // the header
    return lines;
  }

  @Test
  void everyCsvRow_hasItsGeneratedCase_quotingTheRow() throws IOException {
    List<ValidationCase> cases = ValidationCase.readAll(List.of(ROOT.resolve("cases")));
    List<String> single = rows("ground_truth_single.csv");
    List<String> multi = rows("ground_truth_multi.csv");
    assertThat(cases).hasSize(single.size() + multi.size());
    for (ValidationCase c : cases) {
      int row = Integer.parseInt(c.id().substring(2)) - 1;
      String line = (c.id().startsWith("VS") ? single : multi).get(row);
      assertThat(c.quote()).as(c.id()).isEqualTo(line);
      String[] f = line.split(",");
      assertThat(c.measured()).as(c.id()).isEqualTo(Double.parseDouble(f[f.length - 1])); // in ms, as published
    }
  }

  @Test
  void everyRow_runs_pipelineStagesIncluded() {
    List<ValidationRunner.Outcome> outcomes = ValidationRunner.run(ValidationCase.readAll(List.of(ROOT.resolve("cases"))));
    assertThat(outcomes).allSatisfy(o -> assertThat(o.ran()).as(o.c().id() + ": " + o.skipped()).isTrue());
    assertThat(outcomes.stream().filter(ValidationRunner.Outcome::ran))
        .allSatisfy(o -> assertThat(o.predicted()).as(o.c().id()).isFinite().isPositive());
  }
}
