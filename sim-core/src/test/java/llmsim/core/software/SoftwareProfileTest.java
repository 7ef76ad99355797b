package llmsim.core.software;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.LocalDate;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The profile builder's defaults (the rules the record documents), its refusals, and the capability flags that select
 * framework-specific behaviour: each set on the profiles whose documented software has it, found by no id.
 */
class SoftwareProfileTest {

  /** Only the required components. */
  static SoftwareProfile.Builder minimal(int forwardKernels, boolean flash) {
    return SoftwareProfile.builder("t", "test").launchSeconds(5e-6).kernelsPerLayer(forwardKernels)
        .flashAttention(flash).workspaceBytes(3.0).source("test");
  }

  @Test
  void defaults_areTheDocumentedRules() {
    int forward = 21;
    SoftwareProfile p = minimal(forward, true).build();
    assertThat(p.aliases()).isEmpty();
    assertThat(p.gemmScale()).isEqualTo(1.0);
    assertThat(p.streamScale()).isEqualTo(1.0);
    assertThat(p.dequantScale()).isEqualTo(1.0);
    // autograd runs about two kernels per forward kernel
    assertThat(p.backwardKernelsPerLayer()).isEqualTo(2 * forward);
    assertThat(p.cpuRunsHostLayers()).isFalse();
    assertThat(p.promptChunkTokens()).isZero();
    assertThat(p.flashAttention2()).isFalse();
    assertThat(p.llamaCpp()).isNull();
    assertThat(p.decodeKvPerQueryHead()).isFalse();
    assertThat(p.decodeKvReads(32, 8, 1)).isEqualTo(1.0);
    assertThat(p.hostSecondsPerLayerPass()).isZero();
    assertThat(p.hostDispatch()).isFalse();
    assertThat(p.eagerOps()).isNull();
    assertThat(p.optimizerImpl()).isEqualTo(OptimizerImpl.FUSED);
    assertThat(p.megatronFusedSoftmax()).isFalse();
    assertThat(p.pipelineScatterGather()).isFalse();
    assertThat(p.transformerEngineFp8()).isFalse();
    // the 16-bit chain with a fused softmax: QK^T written (2 B), softmax read and written (2 + 2 B), read by A x V (2 B)
    assertThat(p.scoreBytesPerElement()).isEqualTo(2 + 2 + 2 + 2);
    // the required components as given
    assertThat(p.launchSeconds()).isEqualTo(5e-6);
    assertThat(p.kernelsPerLayer()).isEqualTo(forward);
    assertThat(p.workspaceBytes()).isEqualTo(3.0);
    assertThat(p.source()).isEqualTo("test");
  }

  @Test
  void causalBlockSkip_defaultsToFlashAttention2sKernelsOutsideLlamaCpp_andCanBeStated() {
    assertThat(minimal(1, true).flashAttention2(true).build().causalBlockSkip()).isTrue();
    assertThat(minimal(1, true).build().causalBlockSkip()).isFalse(); // a vendor flash kernel, not checked
    assertThat(minimal(1, false).flashAttention2(true).build().causalBlockSkip()).isFalse(); // classic attention
    LlamaCppBuild fa = new LlamaCppBuild(LocalDate.of(2024, 6, 1), true);
    assertThat(minimal(1, true).flashAttention2(true).llamaCpp(fa).build().causalBlockSkip()).isFalse();
    assertThat(minimal(1, true).causalBlockSkip(true).build().causalBlockSkip()).isTrue();
    assertThat(minimal(1, true).flashAttention2(true).causalBlockSkip(false).build().causalBlockSkip()).isFalse();
  }

  @Test
  void aBuilderIsRefused_blankId_scalesAboveOne_missingRequired_flagsAgainstItsAttention() {
    assertThatThrownBy(() -> SoftwareProfile.builder(" ", "test").launchSeconds(0).kernelsPerLayer(1)
        .flashAttention(true).workspaceBytes(0).source("test").build()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> minimal(1, true).gemmScale(1.01).build()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> minimal(1, true).streamScale(2).build()).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> minimal(1, true).kernelsPerLayer(0).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SoftwareProfile.builder("t", "test").launchSeconds(0).kernelsPerLayer(1)
        .flashAttention(true).workspaceBytes(0).build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("source");
    assertThatThrownBy(() -> SoftwareProfile.builder("t", "test").launchSeconds(0).kernelsPerLayer(1)
        .workspaceBytes(0).source("test").build()).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("flash attention");
    assertThatThrownBy(() -> minimal(1, false).causalBlockSkip(true).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> minimal(1, true).megatronFusedSoftmax(true).build())
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void capabilityFlags_areOnExactlyTheProfilesWhoseSoftwareHasThem() {
    // FusedScaleMaskSoftmax and scatter-gather pipeline sends: Megatron-LM before Megatron-Core, Megatron-DeepSpeed
    assertThat(ids(SoftwareProfile::megatronFusedSoftmax)).containsExactly("megatron-classic", "megatron-deepspeed");
    assertThat(ids(SoftwareProfile::pipelineScatterGather)).containsExactly("megatron-classic", "megatron-deepspeed");
    // a host sync before each layer's MLP: Microsoft's Megatron-DeepSpeed only (torch.tensor(0.0, device=...))
    assertThat(ids(p -> p.mlpHostSyncShare() > 0)).containsExactly("megatron-deepspeed");
    // Transformer Engine's fp8 recipe: Megatron-Core / NeMo with TE layers
    assertThat(ids(SoftwareProfile::transformerEngineFp8)).containsExactly("megatron");
    // found by an alias, the profile carries its flags
    assertThat(SoftwareProfiles.find("nemo").orElseThrow().transformerEngineFp8()).isTrue();
    assertThat(SoftwareProfiles.find("nemo").orElseThrow().id()).isEqualTo("megatron");
  }

  @Test
  void megatronDeepSpeed_isMegatronClassicWithTheHostSyncBeforeTheMlp() {
    SoftwareProfile ds = SoftwareProfiles.find("megatron-deepspeed").orElseThrow();
    SoftwareProfile classic = SoftwareProfiles.MEGATRON_CLASSIC;
    assertThat(ds.id()).isEqualTo("megatron-deepspeed");
    // 52 of a forward layer's 65 Python-level events come before the second torch.tensor(0.0, device=...)
    assertThat(ds.mlpHostSyncShare()).isEqualTo(52.0 / 65);
    assertThat(ds.toBuilder().mlpHostSyncShare(0).source(classic.source()).build())
        .isEqualTo(classic.toBuilder("megatron-deepspeed", ds.description()).build());
    assertThat(classic.mlpHostSyncShare()).isZero();
  }

  @Test
  void aHostSyncBeforeTheMlp_needsAShareBelowOne_andAHostThatIssuesThePasses() {
    assertThatThrownBy(() -> minimal(1, false).mlpHostSyncShare(1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("[0, 1)");
    assertThatThrownBy(() -> minimal(1, false).mlpHostSyncShare(-0.1).build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> minimal(1, false).mlpHostSyncShare(0.5).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("host seconds per layer pass");
    assertThat(minimal(1, false).hostSecondsPerLayerPass(1e-3).mlpHostSyncShare(0.5).build().mlpHostSyncShare())
        .isEqualTo(0.5);
  }

  static List<String> ids(Predicate<SoftwareProfile> flag) {
    return SoftwareProfiles.ALL.stream().filter(flag).map(SoftwareProfile::id).toList();
  }

  @Test
  void toBuilder_keepsEveryComponent_andWithersChangeOnlyTheirOwn() {
    for (SoftwareProfile p : SoftwareProfiles.ALL) {
      assertThat(p.toBuilder().build()).as(p.id()).isEqualTo(p);
      SoftwareProfile host = p.withHostDispatch(p.hostSecondsPerLayerPass() + 1e-3);
      assertThat(host.hostSecondsPerLayerPass()).isEqualTo(p.hostSecondsPerLayerPass() + 1e-3);
      assertThat(host.withHostDispatch(p.hostSecondsPerLayerPass())).as(p.id()).isEqualTo(p);
    }
    // a build with -fa turns flash attention on and keeps the causal flag as it was (llama.cpp is not assumed to skip)
    SoftwareProfile fa = SoftwareProfiles.LLAMA_CPP.atBuild(new LlamaCppBuild(LocalDate.of(2024, 6, 1), true));
    assertThat(fa.flashAttention()).isTrue();
    assertThat(fa.causalBlockSkip()).isFalse();
    assertThat(fa.scoreBytesPerElement()).isEqualTo(SoftwareProfiles.LLAMA_CPP.scoreBytesPerElement());
    assertThat(Set.of(SoftwareProfiles.TENSORRT_LLM_0_6.withDecodeKvPerQueryHead()))
        .containsExactly(SoftwareProfiles.TENSORRT_LLM_0_6);
  }
}
