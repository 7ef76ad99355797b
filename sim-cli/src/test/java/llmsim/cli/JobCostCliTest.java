package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Jobs priced from the command line: the cost follows from the price, the GPUs and the wall time. */
class JobCostCliTest {
  @TempDir Path dir;

  static JsonNode job(String... args) throws IOException {
    CliRunner r = CliRunner.run(args);
    assertThat(r.code()).as(r.err()).isZero();
    return new ObjectMapper().readTree(r.out()).get("job");
  }

  @Test
  void theUsersPricePerGpuHour_timesGpuHours_isTheCost() throws IOException {
    JsonNode job = job("simulate", "--model", "llama-7b", "--task", "finetune-lora", "--hardware", "rtx4090",
        "--tokens", "10M", "--price", "rtx4090=0.5usd/h", "--format", "json");
    double hours = job.get("wall_time_s").asDouble() / 3600;
    assertThat(job.get("cost").asDouble()).isCloseTo(hours * 1 * 0.5, within(1e-9));
    assertThat(job.get("energy_kwh").asDouble()).isCloseTo(0.450 * hours, within(1e-9)); // 450 W TDP
    assertThat(job.get("cost_per_million_tokens").asDouble()).isCloseTo(hours * 0.5 / 10, within(1e-9));
    assertThat(job.get("price_source").asText()).startsWith("--price rtx4090=");
  }

  @Test
  void inferenceRequests_areRequestsTimesGeneratedTokens() throws IOException {
    JsonNode job = job("simulate", "--model", "llama-7b", "--hardware", "rtx4090", "--generate-tokens", "100",
        "--requests", "1000", "--price", "rtx4090=1usd/h", "--format", "json");
    assertThat(job.get("tokens").asDouble()).isEqualTo(100_000);
    assertThat(job.get("cost_per_million_tokens_counts").asText()).isEqualTo("generated");
  }

  @Test
  void cnyPrices_needARate_andConvertAtIt() throws IOException {
    JsonNode none = job("simulate", "--model", "llama-7b", "--hardware", "t4", "--requests", "10", "--format", "json");
    assertThat(none.get("cost").isNull()).isTrue();
    assertThat(none.get("price_missing").asText()).contains("--rate cny=");
    JsonNode at = job("simulate", "--model", "llama-7b", "--hardware", "t4", "--requests", "10", "--rate",
        "cny=0.14usd", "--format", "json");
    // the catalog's cheapest T4 is Tencent's 8.68 CNY per hour (article 004)
    assertThat(at.get("price_per_gpu_hour").asDouble()).isCloseTo(8.68 * 0.14, within(1e-12));
  }

  @Test
  void badPriceInputs_areBadInput_namingTheFlagOrFileLine() throws IOException {
    String[] base = {"simulate", "--model", "llama-7b", "--hardware", "t4", "--tokens", "1M"};
    assertBadInput(run(base, "--price", "t4=abc"), "--price: must be an amount and a three-letter currency");
    assertBadInput(run(base, "--price", "t5=1usd/h"), "--price: unknown device 't5'");
    assertBadInput(run(base, "--currency", "dollars"), "--currency: must be a three-letter code");
    assertBadInput(run(base, "--rate", "cny=-1usd"), "--rate: must be an amount");
    assertBadInput(run(base, "--amortization", "-3y"), "--amortization: must be a number and a unit");
    assertBadInput(run(base, "--electricity", "0.15usd"), "--electricity: must be an amount, a currency and /kwh");
    assertBadInput(run(base, "--requests", "5"), "--requests: cannot be given with 'tokens': both size the job");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "t4", "--price", "t4=1usd/h"),
        "give its size with --tokens");
    Path file = Files.writeString(dir.resolve("prices.yaml"), String.join("\n", "kind: prices", "provider: me",
        "offers:", "  - device: t4", "    pricing: on-demand", "    amount: 1", "    currency: USD",
        "    date: \"2026-02-30x\"", "    source: me", ""));
    assertBadInput(run(base, "--price", file.toString()), "prices.yaml:8:11:", "YYYY-MM");
  }

  static CliRunner run(String[] base, String... more) {
    String[] all = java.util.Arrays.copyOf(base, base.length + more.length);
    System.arraycopy(more, 0, all, base.length, more.length);
    return CliRunner.run(all);
  }
}
