package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdviseCommandTest {
  /** Two single cards at prices fixed here, the micro-batch fixed, so each option's cost follows by hand. */
  static final String[] SMALL = {"advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "10M",
      "--hardware", "rtx4090,a100", "--max-gpus", "1", "--batch", "1", "--price", "rtx4090=0.5usd/h,a100=2usd/h",
      "--format", "json"};

  static JsonNode advise(String[] base, String... more) throws IOException {
    CliRunner r = JobCostCliTest.run(base, more);
    assertThat(r.code()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out());
  }

  @Test
  void ranking_isByCost_andEachCostIsTheJobsHoursTimesTheGivenPrice() throws IOException {
    JsonNode a = advise(SMALL);
    JsonNode options = a.get("options");
    assertThat(options).hasSize(2);
    double previous = 0;
    for (JsonNode o : options) {
      double price = o.get("device").asText().equals("rtx4090") ? 0.5 : 2.0;
      double hours = 10e6 / o.get("tokens_per_s").asDouble() / 3600; // the job's tokens at the simulated rate
      assertThat(o.get("wall_time_s").asDouble() / 3600).isCloseTo(hours, within(1e-9 * hours));
      assertThat(o.get("cost").asDouble()).isCloseTo(hours * 1 * price, within(1e-9 * hours * price));
      assertThat(o.get("cost").asDouble()).isGreaterThanOrEqualTo(previous);
      previous = o.get("cost").asDouble();
    }
    assertThat(a.get("winner").asText()).isEqualTo(options.get(0).get("hardware").asText());
    assertThat(a.get("explanation").asText()).startsWith("Rent 1x ");
  }

  @Test
  void paretoFront_holdsExactlyTheOptionsNothingBeatsOnTimeAndCost() throws IOException {
    JsonNode a = advise(new String[] {"advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "10M",
        "--hardware", "rtx4090,a100,dgx-a100-8x80gb", "--max-gpus", "4", "--format", "json"});
    List<JsonNode> options = new ArrayList<>();
    a.get("options").forEach(options::add);
    assertThat(options).hasSizeGreaterThanOrEqualTo(3);
    for (JsonNode o : options) {
      double t = o.get("wall_time_s").asDouble();
      double c = o.get("cost").asDouble();
      boolean beaten = options.stream().anyMatch(p -> p != o && p.get("wall_time_s").asDouble() <= t
          && p.get("cost").asDouble() <= c * (1 + 1e-9)
          && (p.get("wall_time_s").asDouble() < t || p.get("cost").asDouble() < c * (1 - 1e-9)));
      assertThat(o.get("pareto").asBoolean()).as(o.toString()).isEqualTo(!beaten);
    }
  }

  @Test
  void nothingMeetsTheDeadline_saysWhatComesClosest_andThatTheDeadlineBinds() throws IOException {
    JsonNode a = advise(SMALL, "--deadline", "1s");
    assertThat(a.get("winner").isNull()).isTrue();
    assertThat(a.get("explanation").asText()).contains("Nothing meets the deadline of 1.00 s", "The deadline binds",
        "the fastest option");
    assertThat(a.get("options")).allSatisfy(o -> assertThat(o.get("meets_constraints").asBoolean()).isFalse());
  }

  @Test
  void aBudgetTooSmall_saysTheBudgetBinds() throws IOException {
    JsonNode a = advise(SMALL, "--budget", "0.0001usd");
    assertThat(a.get("explanation").asText()).contains("The budget binds");
  }

  @Test
  void badConstraints_areBadInput() {
    String[] base = {"advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "10M", "--hardware",
        "rtx4090"};
    assertBadInput(JobCostCliTest.run(base, "--budget", "-5usd"), "--budget: must be an amount");
    assertBadInput(JobCostCliTest.run(base, "--budget", "5cny"), "--budget: CNY is not the report currency USD");
    assertBadInput(JobCostCliTest.run(base, "--deadline", "3"), "--deadline: must be a number and a unit");
    assertBadInput(JobCostCliTest.run(base, "--own", "--rent"), "--own and --rent");
    assertBadInput(JobCostCliTest.run(base, "--max-gpus", "0"), "--max-gpus must be >= 1");
    assertBadInput(CliRunner.run("advise", "--model", "llama-7b", "--task", "finetune-lora"), "advise needs the"
        + " job's size");
  }
}
