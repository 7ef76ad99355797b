package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A result's {@code scenario} runs its step again: written back as a scenario file, and given as the flags its
 * command names, each gives the same JSON to the byte (the echo included), whatever the step's keys were.
 */
class ScenarioEchoTest {
  @TempDir Path dir;

  /** Steps whose keys reach every kind of value: plan auto, LoRA and prefixes, llama.cpp and MLX builds, offload. */
  static final List<String[]> STEPS = List.of(
      args("--model", "llama-7b", "--hardware", "h100-sxm", "--task", "finetune-lora", "--lora-rank", "16",
          "--lora-targets", "all", "--batch", "4", "--seq-len", "1024"),
      args("--model", "llama-7b", "--hardware", "13900ks-rtx4090", "--task", "finetune-qlora", "--recompute", "full",
          "--optimizer", "adamw-8bit"),
      args("--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train", "--seq-len", "512", "--tp", "2",
          "--pp", "2", "--micro-batches", "8", "--schedule", "gpipe", "--overlap-grad-reduce", "false"),
      args("--model", "llama-7b", "--hardware", "hgx-h100-8x", "--task", "train", "--seq-len", "512", "--pp", "4",
          "--virtual-stages", "2", "--micro-batches", "8", "--tp", "2", "--sequence-parallel", "--all-gpus"),
      args("--model", "llama-13b", "--hardware", "a100-80gb-cluster", "--gpus", "16", "--task", "train", "--seq-len",
          "1024", "--zero", "3", "--shard", "hybrid", "--global-batch", "64", "--batch", "2"),
      args("--model", "llama-65b", "--hardware", "a100-80gb-cluster", "--gpus", "64", "--task", "train", "--seq-len",
          "2048", "--plan", "auto"),
      args("--model", "llama-7b", "--hardware", "h100-sxm", "--task", "ptuning-v2", "--prefix-tokens", "64"),
      args("--model", "llama2-7b", "--hardware", "m2-ultra", "--task", "inference", "--software", "llama.cpp",
          "--weights", "q4_0", "--flash-attention", "--software-date", "2024-06", "--kv-cache", "q8_0", "--context",
          "4096", "--prompt-tokens", "256", "--generate-tokens", "64"),
      args("--model", "llama-65b", "--hardware", "13900ks-h100", "--task", "inference", "--software", "llama.cpp",
          "--weights", "q4_0", "--gpu-layers", "40"),
      args("--model", "llama2-70b", "--hardware", "hgx-h100-8x", "--gpus", "4", "--tp", "4", "--task", "inference",
          "--precision", "fp8", "--weights", "fp8", "--software", "tensorrt-llm-0.6", "--software-date", "v0.5",
          "--prompt-tokens", "128", "--generate-tokens", "1"),
      args("--model", "llama-7b", "--hardware", "m2-ultra", "--task", "finetune-lora", "--software", "mlx",
          "--software-date", "2024-01", "--batch", "4", "--seq-len", "512"));

  static String[] args(String... a) {
    return a;
  }

  static JsonNode json(String... args) throws IOException {
    CliRunner r = CliRunner.run(args);
    assertThat(r.code()).as(String.join(" ", args) + "\n" + r.err()).isZero();
    return SimulateCommandTest.JSON.readTree(r.out());
  }

  /** A result as its echo runs it again: plan auto's note on how it chose is the one line the echo does not repeat. */
  static JsonNode chosen(JsonNode result) {
    ObjectNode copy = result.deepCopy();
    ArrayNode kept = copy.putArray("warnings");
    result.get("warnings").forEach(w -> {
      if (!w.asText().startsWith("plan auto: ")) {
        kept.add(w);
      }
    });
    return copy;
  }

  static String[] with(String[] head, String... tail) {
    String[] all = Arrays.copyOf(head, head.length + tail.length);
    System.arraycopy(tail, 0, all, head.length, tail.length);
    return all;
  }

  @Test
  void echo_writtenBackAsAFile_runsTheSameStep() throws IOException {
    int n = 0;
    for (String[] step : STEPS) {
      JsonNode first = json(with(with(new String[] {"simulate"}, step), "--format", "json"));
      StringBuilder yaml = new StringBuilder("kind: scenario\n");
      for (Iterator<Map.Entry<String, JsonNode>> it = first.get("scenario").fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        yaml.append(e.getKey()).append(": ").append(e.getValue().asText()).append('\n');
      }
      Path file = dir.resolve("step" + n++ + ".yaml");
      Files.writeString(file, yaml);
      JsonNode again = json("simulate", file.toString(), "--format", "json");
      assertThat(again).as(String.join(" ", step) + " -> " + yaml).isEqualTo(chosen(first));
    }
  }

  @Test
  void echo_asItsCommandsFlags_runsTheSameStep() throws IOException {
    for (String[] step : STEPS) {
      JsonNode first = json(with(with(new String[] {"simulate"}, step), "--format", "json"));
      assertThat(json(commandArgs(commandOf(first)))).as(String.join(" ", step)).isEqualTo(chosen(first));
    }
  }

  @Test
  void adviseOptions_carryTheirStepsCommand_whichSimulatesTheOptionsRate() throws IOException {
    CliRunner text = CliRunner.run("advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "1B",
        "--max-gpus", "8", "--hardware", "hgx-h100-8x,13900ks-rtx4090,a100-80gb-cluster");
    assertThat(text.code()).as(text.err()).isZero();
    JsonNode advice = json("advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "1B", "--max-gpus",
        "8", "--hardware", "hgx-h100-8x,13900ks-rtx4090,a100-80gb-cluster", "--format", "json");
    JsonNode options = advice.get("options");
    assertThat(options.size()).isGreaterThan(2);
    assertThat(text.out()).contains("#1's step: " + options.get(0).get("command").asText() + "\n");
    for (JsonNode o : options) {
      String command = o.get("command").asText();
      assertThat(command).isEqualTo(commandOf(o)); // the command is the scenario's keys as their flags
      JsonNode run = json(commandArgs(command));
      assertThat(run.get("tokens_per_s").asDouble()).as(command).isEqualTo(o.get("tokens_per_s").asDouble());
      assertThat(run.at("/scenario/gpus").asInt()).isEqualTo(o.at("/plan/gpus").asInt());
    }
  }

  /**
   * A --set changes the catalog advise ran, so an option's command must carry the changes that touch its system or
   * model (and no other: simulate refuses a change to a part it does not run). Without it the H100's command ran the
   * catalog's 3.35 TB/s where the option was ranked at 1 TB/s.
   */
  @Test
  void adviseOptions_commandsCarryTheSetChangesTheirStepRan() throws IOException {
    String set = "h100-sxm.memory.bandwidth_gb_per_s=1000";
    JsonNode advice = json("advise", "--model", "llama-7b", "--task", "finetune-lora", "--tokens", "20M",
        "--hardware", "h100-sxm,rtx4090", "--set", set, "--format", "json");
    JsonNode options = advice.get("options");
    assertThat(options.size()).isEqualTo(2);
    for (JsonNode o : options) {
      String command = o.get("command").asText();
      boolean h100 = o.get("hardware").asText().equals("h100-sxm");
      assertThat(command.contains(" --set " + set)).as(command).isEqualTo(h100);
      JsonNode run = json(commandArgs(command));
      assertThat(run.get("tokens_per_s").asDouble()).as(command).isEqualTo(o.get("tokens_per_s").asDouble());
      if (h100) { // the change matters: the catalog's H100 is faster than one at 30% of its memory bandwidth
        JsonNode catalogs = json(commandArgs(command.replace(" --set " + set, "")));
        assertThat(catalogs.get("tokens_per_s").asDouble()).isGreaterThan(o.get("tokens_per_s").asDouble());
      }
    }
  }

  @Test
  void planAuto_isEchoedAsThePlanItChose_andTheJobsKeysAreLeftOut() throws IOException {
    JsonNode r = json("simulate", "--model", "llama-65b", "--hardware", "a100-80gb-cluster", "--gpus", "64", "--task",
        "train", "--plan", "auto", "--tokens", "1B", "--format", "json");
    JsonNode s = r.get("scenario");
    assertThat(s.has("plan")).isFalse();
    // tp and pp at 1, the table's default, are left out
    assertThat(s.path("tp").asInt(1) * s.path("pp").asInt(1) * s.get("dp").asInt()).isEqualTo(64);
    assertThat(s.path("tp").asInt(1)).isEqualTo(r.at("/plan/tp").asInt());
    assertThat(s.path("pp").asInt(1)).isEqualTo(r.at("/plan/pp").asInt());
    assertThat(s.has("seq_len")).isFalse(); // 2048, the default
    assertThat(s.get("zero").asInt()).isEqualTo(r.at("/plan/zero").asInt()).isPositive();
    assertThat(s.has("tokens")).isFalse();
    assertThat(s.get("gpus").asInt()).isEqualTo(64);
  }

  /** {@code llmsim simulate --a b ...} as the arguments of simulate with JSON output. */
  static String[] commandArgs(String command) {
    List<String> words = new ArrayList<>(List.of(command.split(" ")));
    assertThat(words.subList(0, 2)).containsExactly("llmsim", "simulate");
    words.remove(0);
    words.add("--format");
    words.add("json");
    return words.toArray(String[]::new);
  }

  /** The command a result's scenario makes: each key as its flag (--seq-len for seq_len), then its value. */
  static String commandOf(JsonNode result) {
    StringBuilder b = new StringBuilder("llmsim simulate");
    for (Iterator<Map.Entry<String, JsonNode>> it = result.get("scenario").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      b.append(" --").append(e.getKey().replace('_', '-')).append(' ').append(e.getValue().asText());
    }
    return b.toString();
  }
}
