package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import llmsim.hw.catalog.Catalog;
import org.junit.jupiter.api.Test;

/** {@code sweep --tokens}: every row's job follows by hand from its throughput and the price fixed here. */
class SweepJobTest {
  static final String[] GRID = {"sweep", "--hardware", "rtx4090,a100", "--models", "llama-7b", "--tasks",
      "finetune-lora", "--batch", "1,2,4", "--tokens", "10M", "--price", "rtx4090=0.5usd/h,a100=2usd/h", "--format",
      "jsonl"};

  static List<JsonNode> rows(String... more) throws IOException {
    List<String> args = new ArrayList<>(List.of(GRID));
    args.addAll(List.of(more));
    CliRunner r = CliRunner.run(args.toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isZero();
    List<JsonNode> out = new ArrayList<>();
    for (String line : r.out().split("\n")) {
      out.add(new ObjectMapper().readTree(line));
    }
    return out;
  }

  static double price(JsonNode row) {
    return row.get("hardware").asText().equals("rtx4090") ? 0.5 : 2.0;
  }

  @Test
  void eachFittingRowsJob_isTheTokensAtItsThroughput_pricedAtTheGivenRate() throws IOException {
    List<JsonNode> rows = rows();
    assertThat(rows).hasSize(6);
    assertThat(rows).filteredOn(r -> r.get("fits").asBoolean()).hasSizeBetween(3, 5); // the 24 GB card runs out
    for (JsonNode row : rows) {
      if (!row.get("fits").asBoolean()) { // a configuration that cannot run has no job
        SweepRows.JOB_COLUMNS.stream().skip(1).forEach(c -> assertThat(row.get(c).isNull()).as(c).isTrue());
        continue;
      }
      double seconds = 10e6 / row.get("tokens_per_s").asDouble();
      double watts = Catalog.bundled().system(row.get("hardware").asText(), "--hardware").device().powerWatts();
      double cost = seconds / 3600 * price(row); // one GPU
      assertThat(row.get("job_tokens").asLong()).isEqualTo(10_000_000L);
      assertThat(row.get("wall_time_s").asDouble()).isCloseTo(seconds, within(1e-9 * seconds));
      assertThat(row.get("gpu_hours").asDouble()).isCloseTo(seconds / 3600, within(1e-9 * seconds));
      assertThat(row.get("energy_kwh").asDouble()).isCloseTo(watts * seconds / 3.6e6, within(1e-9 * seconds));
      assertThat(row.get("cost").asDouble()).isCloseTo(cost, within(1e-9 * cost));
      assertThat(row.get("currency").asText()).isEqualTo("USD");
      assertThat(row.get("cost_per_million_tokens").asDouble()).isCloseTo(cost / 10, within(1e-9 * cost));
    }
  }

  @Test
  void topByCost_isTheCheapestRowsThatFit_cheapestFirst() throws IOException {
    List<JsonNode> all = new ArrayList<>(rows().stream().filter(r -> r.get("fits").asBoolean()).toList());
    all.sort(Comparator.comparingDouble(r -> 10e6 / r.get("tokens_per_s").asDouble() / 3600 * price(r)));
    List<JsonNode> top = rows("--top", "2", "--by", "cost");
    assertThat(top).extracting(r -> r.get("index").asLong())
        .containsExactly(all.get(0).get("index").asLong(), all.get(1).get("index").asLong());
    assertThat(rows("--top", "1", "--by", "cost_per_million_tokens").get(0).get("index").asLong())
        .isEqualTo(all.get(0).get("index").asLong());
  }

  @Test
  void csv_addsTheJobColumnsAfterTheOthers_andOnlyWithAJob() {
    CliRunner with = CliRunner.run("sweep", "--hardware", "a100", "--models", "llama-7b", "--tokens", "1M");
    assertThat(with.out().lines().findFirst().orElseThrow())
        .isEqualTo(String.join(",", SweepRows.COLUMNS) + "," + String.join(",", SweepRows.JOB_COLUMNS));
    CliRunner without = CliRunner.run("sweep", "--hardware", "a100", "--models", "llama-7b");
    assertThat(without.out().lines().findFirst().orElseThrow()).isEqualTo(String.join(",", SweepRows.COLUMNS));
  }

  @Test
  void badJobInput_isRefusedAtItsFlag() {
    String[] grid = {"sweep", "--hardware", "a100", "--models", "llama-7b"};
    assertBadInput(JobCostCliTest.run(grid, "--top", "1", "--by", "cost"), "--by cost ranks the job");
    assertBadInput(JobCostCliTest.run(grid, "--tasks", "finetune-lora", "--requests", "5"), "--requests: ");
    assertBadInput(JobCostCliTest.run(grid, "--price", "a100=2usd/h"), "--price, --pricing and the other cost flags");
    assertBadInput(JobCostCliTest.run(grid, "--tokens", "1M", "--price", "nogpu=2usd/h"), "--price: unknown device");
    assertBadInput(JobCostCliTest.run(grid, "--tokens", "1M", "--currency", "dollars"), "--currency: ");
    assertBadInput(JobCostCliTest.run(grid, "--tokens", "lots"), "--tokens: ");
  }
}
