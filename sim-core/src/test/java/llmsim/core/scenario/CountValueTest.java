package llmsim.core.scenario;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A count (--tokens, --requests, --dataset-tokens): a whole number, with an optional K, M, B or T suffix. */
class CountValueTest {
  @Test
  void suffixes_scaleByPowersOfTen() {
    assertThat(ScenarioKey.TOKENS.parse("20M")).isEqualTo(20_000_000L);
    assertThat(ScenarioKey.TOKENS.parse("1.4T")).isEqualTo(1_400_000_000_000L);
    assertThat(ScenarioKey.TOKENS.parse("1_000")).isEqualTo(1_000L);
    assertThat(ScenarioKey.TOKENS.parse("1e6")).isEqualTo(1_000_000L);
    assertThat(ScenarioKey.TOKENS.parse(".5K")).isEqualTo(500L);
  }

  @Test
  void javasNumberSuffixesAndHex_areRefused_notReadAsNumbers() {
    // Double.parseDouble reads 20d and 20f as 20 and 0x10p0 as 16: "--tokens 20d" was a job of 20 tokens
    for (String typo : new String[] {"20d", "20f", "0x10p0", "20MB", "1,000"}) {
      assertThatThrownBy(() -> ScenarioKey.TOKENS.parse(typo)).as(typo)
          .hasMessage("'tokens' must be a whole number such as 1400000000000 or 1.4T, was '" + typo + "'");
    }
  }

  @Test
  void aFractionAboveTheMinimum_isSaidNotToBeWhole_withItsValue() {
    // 1.23456789K is 1234.56789: the message said "must be a whole number >= 1", which it is not short of
    assertThatThrownBy(() -> ScenarioKey.TOKENS.parse("1.23456789K"))
        .hasMessage("'tokens' must be a whole number, was 1.23456789K (" + new java.math.BigDecimal("1234.56789")
            .toPlainString() + ")");
    assertThatThrownBy(() -> ScenarioKey.TOKENS.parse("1.5")).hasMessage("'tokens' must be a whole number, was 1.5");
    assertThatThrownBy(() -> ScenarioKey.TOKENS.parse("-5M")).hasMessage("'tokens' must be a whole number >= 1, was -5M");
  }
}
