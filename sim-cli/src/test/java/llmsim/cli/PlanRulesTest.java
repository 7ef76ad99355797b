package llmsim.cli;

import static llmsim.cli.BadInputTest.assertBadInput;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Plan keys a command would drop or bypass without a word: each is either honoured or refused at its flag or file
 * line (exit 2), never run as some other plan than the one the result reports.
 */
class PlanRulesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  @TempDir Path dir;

  @Test
  void planAutoWithHybridShard_searchesHybridZero3Plans_asReadmeAndAdviseSay() throws Exception {
    // it was refused as "'shard: hybrid' ... needs zero 3, was zero 0", and --zero is refused with plan auto: the
    // documented way to search hybrid ZeRO-3 plans (advise points to it) could not be run
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "h100-cluster",
        "--nodes", "2", "--plan", "auto", "--shard", "hybrid", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    // a winner other than ZeRO-3 is not hybrid: the plan line reads 'ZeRO-1' and the flag is said to have shaped only
    // the plans that lost (it was taken without a word)
    JsonNode won = JSON.readTree(r.out());
    boolean zero3 = won.get("plan").get("zero").asInt() == 3;
    assertThat(won.get("plan").get("shard").isNull()).isEqualTo(!zero3);
    assertThat(won.get("warnings").toString().contains("shard hybrid applies to its ZeRO-3 plans, and none of them was"
        + " the fastest")).isEqualTo(!zero3);
    // the search's ZeRO-3 candidates are hybrid; its others are as without shard
    var s = llmsim.hw.catalog.Catalog.bundled().system("h100-cluster", "--hardware");
    var sized = llmsim.core.parallel.Placement.size(s, 2, 0);
    var m = llmsim.hw.catalog.Catalog.bundled().model("llama-7b", "--model");
    var base = new llmsim.core.task.Task(llmsim.core.task.TaskKind.TRAIN, llmsim.core.hw.Precision.BF16,
        llmsim.core.task.WeightFormat.F16, 1, 2048, 512, 128, 1, false, 8, 128, llmsim.core.task.Offload.NONE);
    var hybrid = PlanSearch.candidates(base, sized, m, true);
    var full = PlanSearch.candidates(base, sized, m, false);
    assertThat(hybrid).hasSameSizeAs(full);
    for (int i = 0; i < full.size(); i++) {
      assertThat(hybrid.get(i).hybridShard()).isEqualTo(full.get(i).zero() == 3);
      assertThat(hybrid.get(i).withLayout(full.get(i).tp(), full.get(i).pp(), full.get(i).dp(), 0))
          .isEqualTo(full.get(i).withLayout(full.get(i).tp(), full.get(i).pp(), full.get(i).dp(), 0));
    }
    // where no hybrid plan can run (one node) it is refused, not dropped
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--plan", "auto", "--shard", "hybrid"), "--shard: 'shard: hybrid' shards within a node", "is one node");
  }

  @Test
  void nodesOneWithFewerGpusThanANode_isThoseGpusOfOneNode_asGpusAloneIs() throws Exception {
    // '--gpus 4' on an 8-GPU server runs 4 of its GPUs; '--nodes 1 --gpus 4' says the same and was refused as
    // "4 and 'nodes' 1 disagree: hgx-h100-8x has 8 GPUs per node"
    var s = llmsim.hw.catalog.Catalog.bundled().system("hgx-h100-8x", "--hardware");
    int half = s.deviceCount() / 2;
    assertThat(llmsim.core.parallel.Placement.size(s, 1, half)).isEqualTo(llmsim.core.parallel.Placement.size(s, 0,
        half));
    assertThat(llmsim.core.parallel.Placement.size(s, 1, half).totalDevices()).isEqualTo(half);
    String[] run = {"simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x", "--zero", "1",
        "--format", "json"};
    CliRunner both = CliRunner.run(CatalogOverrideTest.with(run, "--nodes", "1", "--gpus", String.valueOf(half)));
    assertThat(both.code()).as(both.err()).isZero();
    assertThat(both.out()).isEqualTo(CliRunner.run(CatalogOverrideTest.with(run, "--gpus", String.valueOf(half))).out());
    assertThat(JSON.readTree(both.out()).get("plan").get("gpus").asInt()).isEqualTo(half);
    // two nodes of half a node each are not what the system is: still refused
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(run, "--nodes", "2", "--gpus", String.valueOf(s.deviceCount()))),
        "--gpus: " + s.deviceCount() + " and 'nodes' 2 disagree");
  }

  @Test
  void planAutoWithTooManyPlans_pointsToWhatNarrowsIt_notToTpOrPpItRefuses() {
    // 180 layers on 1,440 GPUs: every divisor of 180 divides 1440 / tp for tp 1-8, so each tp has 18 pipeline depths,
    // each with ZeRO 0-3 where dp > 1 (all but tp 8 x pp 180)
    int layers = 180;
    int gpus = 1440;
    int plans = 0;
    for (int tp = 1; tp <= 8; tp *= 2) {
      for (int pp = 1; pp <= layers; pp++) {
        if (layers % pp == 0 && gpus % (tp * pp) == 0) {
          plans += gpus / (tp * pp) > 1 ? 4 : 1;
        }
      }
    }
    assertThat(plans).isGreaterThan(PlanSearch.MAX_CANDIDATES);
    String[] run = {"simulate", "--model", "llama-7b", "--set", "llama-7b.layers=" + layers, "--task", "train",
        "--hardware", "h100-cluster", "--gpus", String.valueOf(gpus), "--plan", "auto"};
    CliRunner r = CliRunner.run(run);
    assertBadInput(r, "--plan: auto would try " + plans + " plans on " + gpus + " GPUs, more than "
        + PlanSearch.MAX_CANDIDATES, "plan: given");
    // it said 'give tp or pp to narrow it', and a tp given beside plan auto is refused
    assertThat(r.err()).doesNotContain("give tp or pp");
    assertBadInput(CliRunner.run(CatalogOverrideTest.with(run, "--tp", "8")), "--tp: cannot go with plan: auto");
  }

  @Test
  void optimizerInBackward_isRefused_whenDpOrMicroBatchesAreDerived() {
    // eight GPUs and no --dp: dp is 8 once the plan is resolved, which the rule (one GPU) forbids
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--optimizer-in-backward"), "--optimizer-in-backward:", "one GPU with one micro-batch", "dp 8");
    // a global batch of 4 on one GPU is 4 micro-batches: gradient accumulation, which the rule forbids
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "a100-sxm-80gb",
        "--optimizer-in-backward", "--global-batch", "4"), "--optimizer-in-backward:", "micro_batches 4");
    // plan auto: every plan on 8 GPUs breaks the rule, so that, not memory, is the reason given
    CliRunner auto = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--optimizer-in-backward", "--plan", "auto");
    assertBadInput(auto, "--optimizer-in-backward:", "one GPU");
    assertThat(auto.err()).doesNotContain("fits per-GPU memory");
    // one GPU, one micro-batch: still runs
    CliRunner one = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "a100-sxm-80gb",
        "--optimizer-in-backward", "--format", "json");
    assertThat(one.code()).as(one.err()).isZero();
  }

  @Test
  void memoryWithPlanAuto_showsThePlanTheSearchRuns() throws Exception {
    // LLaMA-13B training needs 16 bytes x 13.0e9 = 208 GB of weights, gradients and AdamW state: plain data
    // parallelism on 80 GB GPUs cannot hold it, so the plan auto runs must shard or split it and fit
    String[] scenario = {"--model", "llama-13b", "--task", "train", "--hardware", "hgx-h100-8x", "--plan", "auto",
        "--recompute", "full", "--format", "json"};
    CliRunner mem = CliRunner.run(concat("memory", scenario));
    CliRunner sim = CliRunner.run(concat("simulate", scenario));
    assertThat(mem.code()).as(mem.err()).isZero();
    assertThat(sim.code()).as(sim.err()).isZero();
    JsonNode m = JSON.readTree(mem.out()).get(0);
    JsonNode s = JSON.readTree(sim.out());
    assertThat(m.get("fits").asBoolean()).isTrue();
    assertThat(m.get("memory").get("total_bytes").asDouble()).isLessThanOrEqualTo(80 * Math.pow(2, 30));
    JsonNode p = s.get("plan");
    for (String k : new String[] {"tp", "pp", "dp", "zero"}) {
      assertThat(m.get("plan").get(k)).as(k).isEqualTo(p.get(k));
    }
    assertThat(m.get("memory").get("total_bytes").asDouble()).isEqualTo(s.get("memory").get("total_bytes").asDouble());
    assertThat(m.get("warnings").toString()).contains("plan auto: ");
  }

  @Test
  void planAuto_givesTheResultOfThePlanItNames_andItsJsonCarriesEnoughToGiveThatPlan() throws Exception {
    // the JSON named tp, pp, dp and zero but not the micro-batches the search chose for a pipeline plan, nor the
    // recomputation: a script could not run the plan it was told of; given back, that plan's result is the same
    String[] scenario = {"--model", "llama-13b", "--task", "train", "--hardware", "hgx-h100-8x", "--seq-len", "1024",
        "--recompute", "full", "--format", "json"};
    JsonNode auto = JSON.readTree(CliRunner.run(CatalogOverrideTest.with(concat("simulate", scenario), "--plan", "auto"))
        .out());
    JsonNode p = auto.get("plan");
    int dp = p.get("dp").asInt();
    int microBatches = p.get("micro_batches").asInt();
    assertThat(p.get("tp").asInt() * p.get("pp").asInt() * dp).isEqualTo(8);
    assertThat(p.get("global_batch").asLong()).isEqualTo((long) auto.get("batch").asInt() * microBatches * dp);
    assertThat(p.get("recompute").asText()).isEqualTo("full");
    assertThat(auto.get("seq_len").asInt()).isEqualTo(1024);
    CliRunner given = CliRunner.run(CatalogOverrideTest.with(concat("simulate", scenario), "--tp", p.get("tp").asText(),
        "--pp", p.get("pp").asText(), "--dp", String.valueOf(dp), "--zero", p.get("zero").asText(), "--micro-batches",
        String.valueOf(microBatches)));
    assertThat(given.code()).as(given.err()).isZero();
    com.fasterxml.jackson.databind.node.ObjectNode a = (com.fasterxml.jackson.databind.node.ObjectNode) auto;
    com.fasterxml.jackson.databind.node.ObjectNode g = (com.fasterxml.jackson.databind.node.ObjectNode) JSON.readTree(
        given.out());
    assertThat(a.remove("warnings").toString()).contains("plan auto: ");
    assertThat(g.remove("warnings").toString()).isEqualTo("[]");
    // plan auto searched without offload and its scenario says so; the plan given leaves offload at auto, which
    // comes to the same here (the echo's own round trip: ScenarioEchoTest)
    assertThat(a.remove("scenario").get("offload").asText()).isEqualTo("none");
    assertThat(g.remove("scenario").has("offload")).isFalse();
    assertThat(g).isEqualTo(a);
    // inference: the tokens a run prompts and generates, and no training keys
    JsonNode serve = JSON.readTree(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "hgx-h100-8x",
        "--task", "inference", "--tp", "8", "--prompt-tokens", "300", "--generate-tokens", "50", "--format", "json")
        .out());
    assertThat(serve.get("prompt_tokens").asInt()).isEqualTo(300);
    assertThat(serve.get("generate_tokens").asInt()).isEqualTo(50);
    assertThat(serve.get("seq_len").isNull()).isTrue();
    for (String k : new String[] {"micro_batches", "global_batch", "recompute"}) {
      assertThat(serve.get("plan").get(k).isNull()).as(k).isTrue();
    }
  }

  @Test
  void thePlansJson_namesItsScheduleAndGradientReduction() throws Exception {
    JsonNode gpipe = JSON.readTree(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware",
        "hgx-h100-8x", "--tp", "2", "--pp", "2", "--micro-batches", "4", "--schedule", "gpipe", "--overlap-grad-reduce",
        "false", "--format", "json").out()).get("plan");
    assertThat(gpipe.get("schedule").asText()).isEqualTo("gpipe");
    assertThat(gpipe.get("overlap_grad_reduce").asBoolean()).isFalse();
    JsonNode serve = JSON.readTree(CliRunner.run("simulate", "--model", "llama-7b", "--hardware", "h100-sxm",
        "--format", "json").out()).get("plan");
    assertThat(serve.get("schedule").isNull()).isTrue();
  }

  @Test
  void sweep_refusesPlanAuto_whichItDoesNotRun() {
    assertBadInput(CliRunner.run("sweep", "--hardware", "hgx-h100-8x", "--models", "llama-13b", "--tasks", "train",
        "--plan", "auto,given"), "--plan: auto is not run by sweep");
  }

  @Test
  void planAuto_refusesThePlanKeysItChoosesItself() throws Exception {
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--plan", "auto", "--tp", "2"), "--tp:", "cannot go with plan: auto");
    assertBadInput(CliRunner.run("memory", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--plan", "auto", "--zero", "3", "--offload", "optimizer"), "--zero:", "cannot go with plan: auto");
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--plan", "auto", "--offload", "optimizer"), "--offload:", "cannot go with plan: auto");
    Path file = dir.resolve("auto.yaml");
    Files.writeString(file, "kind: scenario\nhardware: hgx-h100-8x\nmodel: llama-7b\ntask: train\nplan: auto\n"
        + "pp: 2\n");
    assertBadInput(CliRunner.run("simulate", file.toString()), "auto.yaml:6", "'pp' cannot go with plan: auto");
  }

  @Test
  void advise_refusesThePlanKeysItChoosesItself() {
    assertBadInput(CliRunner.run("advise", "--model", "llama-7b", "--task", "train", "--tokens", "1B", "--hardware",
        "dgx-a100-8x80gb", "--tp", "2"), "--tp:", "cannot be given to advise");
    assertBadInput(CliRunner.run("advise", "--model", "llama-7b", "--task", "train", "--tokens", "1B", "--hardware",
        "dgx-a100-8x80gb", "--plan", "given"), "--plan:", "cannot be given to advise");
    // refused before anything is written: no --out folder is left behind
    Path out = dir.resolve("advice");
    assertBadInput(CliRunner.run("advise", "--model", "llama-7b", "--task", "train", "--tokens", "1B", "--hardware",
        "dgx-a100-8x80gb", "--zero", "1", "--out", out.toString()), "--zero:");
    assertThat(out).doesNotExist();
  }

  @Test
  void anUnknownIdInAScenarioFile_isReportedAtItsLine() throws Exception {
    Path model = dir.resolve("model.yaml");
    Files.writeString(model, "kind: scenario\nhardware: hgx-h100-8x\nmodel: llama-14b\ntask: train\n");
    assertBadInput(CliRunner.run("simulate", model.toString()), "model.yaml:3:8: unknown model 'llama-14b'");
    Path hw = dir.resolve("hw.yaml");
    Files.writeString(hw, "kind: scenario\nhardware: [a100, dgx-a100-8x81gb]\nmodel: llama-7b\ntask: train\n");
    assertBadInput(CliRunner.run("simulate", hw.toString()), "hw.yaml:2:", "unknown hardware 'dgx-a100-8x81gb'");
    assertBadInput(CliRunner.run("advise", hw.toString(), "--tokens", "1B"), "hw.yaml:2:", "unknown hardware");
    // given as a flag, it is the flag's problem, as before
    assertBadInput(CliRunner.run("simulate", model.toString(), "--model", "llama-15b"), "--model: unknown model");
  }

  @Test
  void aPlanThatDoesNotFit_suggestsAHigherZeroStageOnlyWhereThereIsOne() throws Exception {
    // LLaMA-13B on eight 24 GB cards: ZeRO-3 still needs more than 24 GB per GPU (the activations alone at 2048
    // tokens); ZeRO-3 is the highest stage, so the advice must not offer a higher one, while ZeRO-1 may
    for (int zero : new int[] {1, 3}) {
      CliRunner r = CliRunner.run("simulate", "--model", "llama-13b", "--task", "train", "--hardware", "rtx4090-8x",
          "--zero", String.valueOf(zero), "--format", "json");
      assertThat(r.code()).as(r.err()).isZero();
      JsonNode j = JSON.readTree(r.out());
      assertThat(j.get("fits").asBoolean()).isFalse();
      if (zero == 3) {
        assertThat(j.get("explanation").asText()).doesNotContain("higher ZeRO stage");
      } else {
        assertThat(j.get("explanation").asText()).contains("higher ZeRO stage");
      }
    }
  }

  @Test
  void planAuto_withAGlobalBatchTheGivenPlanCannotDivide_runsAPlanThatDividesIt() throws Exception {
    // 7 sequences on 8 GPUs: no plan with dp 8 (the flags' default) divides them, but dp 1 plans (tp x pp = 8) do;
    // the search must run one, not refuse the default it never runs
    CliRunner r = CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--global-batch", "7", "--plan", "auto", "--format", "json");
    assertThat(r.code()).as(r.err()).isZero();
    JsonNode j = JSON.readTree(r.out());
    assertThat(j.get("plan").get("dp").asInt()).isEqualTo(1); // 7 is prime: only dp 1 divides it at batch 1
    // the step trains the global batch: 7 sequences of 2048 tokens
    assertThat(j.get("tokens_per_s").asDouble() * j.get("step_time_s").asDouble())
        .isCloseTo(7 * 2048.0, org.assertj.core.data.Percentage.withPercentage(1e-9));
    // a global batch no plan divides is still refused, with the reason
    assertBadInput(CliRunner.run("simulate", "--model", "llama-7b", "--task", "train", "--hardware", "hgx-h100-8x",
        "--global-batch", "7", "--batch", "2", "--plan", "auto"), "--global-batch:", "not a multiple");
  }

  private static String[] concat(String first, String[] rest) {
    String[] out = new String[rest.length + 1];
    out[0] = first;
    System.arraycopy(rest, 0, out, 1, rest.length);
    return out;
  }

  @Test
  void gpuLayersBelowTheModels_onSeveralGpusForInference_isRefused_asOffloadWeightsIs() throws Exception {
    // 'offload: weights' on eight H100s is refused for inference, but '--gpu-layers 10' (offload auto) streamed 22 of
    // LLaMA-7B's layers from the host on each of them, reported as 'weights (10 of 32 layers on the GPU)'
    for (String[] plan : new String[][] {{}, {"--tp", "8"}}) {
      String[] args = CatalogOverrideTest.with(new String[] {"simulate", "--model", "llama-7b", "--task", "inference",
          "--hardware", "hgx-h100-8x", "--gpu-layers", "10"}, plan);
      assertBadInput(CliRunner.run(args), "--gpu-layers: 10 of 32 keeps layers in host memory, which on 8 GPUs",
          "is not simulated for inference");
      args[0] = "memory";
      assertBadInput(CliRunner.run(args), "--gpu-layers: 10 of 32 keeps layers in host memory");
    }
    // every layer on the GPU is no offload, and one GPU still streams the rest
    assertThat(CliRunner.run("simulate", "--model", "llama-7b", "--task", "inference", "--hardware", "hgx-h100-8x",
        "--gpu-layers", "32").code()).isZero();
    JsonNode one = JSON.readTree(CliRunner.run("simulate", "--model", "llama-7b", "--task", "inference", "--hardware",
        "h100-sxm", "--gpu-layers", "10", "--format", "json").out());
    assertThat(one.get("memory").get("gpu_layers").asInt()).isEqualTo(10);
  }
}
