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

  @Test
  void theClustersFabric_isTheCatalogsNvlink3_figureForFigure_withVtrainsOwnAllReduceTablesAt2And4And8Gpus() {
    llmsim.hw.catalog.Catalog catalog = llmsim.hw.catalog.Catalog.bundled();
    llmsim.core.hw.Link mine = catalog.system(ROOT.resolve("vtrain-a100-cluster.yaml").toString(), "--hardware")
        .deviceLink().orElseThrow();
    llmsim.core.hw.Link nvlink3 = catalog.system("dgx-a100-8x80gb", "--hardware").deviceLink().orElseThrow();
    assertThat(nvlink3.id()).isEqualTo("nvlink3");
    assertThat(mine.id()).isEqualTo("vtrain-nvlink3");
    // every figure but the ring curves, as the catalog's
    assertThat(mine.withRingCurves(null)).usingRecursiveComparison().ignoringFields("id", "name", "aliases")
        .isEqualTo(nvlink3.withRingCurves(null));
    llmsim.core.hw.BusBandwidthCurves tables = mine.ringCurves().orElseThrow();
    assertThat(tables.tables()).extracting(llmsim.core.hw.BusBandwidthCurve::ranks).containsExactly(2, 4, 8);
    for (llmsim.core.hw.BusBandwidthCurve t : tables.tables()) {
      assertThat(t.source()).contains("VIA-Research/vTrain @ f8dda8473a48b373b1d25f51f52d685bff5150c5")
          .contains("trace/a100/AR_GPU" + t.ranks() + "_1M_1024M_LUT");
      // the rows quoted in the source are the table's first and last points: size, count, type, then the
      // out-of-place time and busbw and the in-place time and busbw, of which the in-place busbw is taken
      java.util.regex.Matcher m = java.util.regex.Pattern
          .compile("'(\\d+),\\d+,float,\\d+,[0-9.]+,(\\d+),([0-9.]+)'").matcher(t.source());
      for (int i : new int[] {0, t.bytes().size() - 1}) {
        assertThat(m.find()).as("%d GPUs: a quoted row", t.ranks()).isTrue();
        double size = Double.parseDouble(m.group(1));
        double busbw = Double.parseDouble(m.group(3)) * 1e9;
        assertThat(t.bytes().get(i)).isEqualTo(size);
        assertThat(t.busBytesPerSecond().get(i)).isCloseTo(busbw, org.assertj.core.api.Assertions.within(1.0));
        // nccl-tests' busbw of an all-reduce: size / time x 2(n-1)/n, to the printed two decimals
        double fromTime = size / (Double.parseDouble(m.group(2)) * 1e-9) * 2.0 * (t.ranks() - 1) / t.ranks();
        assertThat(fromTime).isCloseTo(busbw, org.assertj.core.api.Assertions.within(0.01e9));
      }
    }
  }
}
