package llmsim.distributed;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** A worker's bad flags are bad input (exit 2, the rule and the value), refused before any member starts. */
class WorkerInputTest {
  record Run(int code, String err) {}

  static Run run(String... args) {
    StringWriter err = new StringWriter();
    CommandLine cl = Worker.commandLine(new PrintWriter(new StringWriter()));
    cl.setErr(new PrintWriter(err));
    return new Run(cl.execute(args), err.toString());
  }

  @Test
  void aPortOutOfRange_orAMemberThatIsNoAddress_isBadInput_notAStackTrace() {
    // both came out of Hazelcast or the parser as a stack trace, exit 1
    Run port = run("--port", "99999");
    assertThat(port.code()).isEqualTo(2);
    assertThat(port.err()).startsWith("error: --port must be 1 to 65535, was 99999\nTry 'llmsim worker --help'")
        .doesNotContain("\tat ").doesNotContain("Usage:");
    Run members = run("--members", "bad host:x");
    assertThat(members.code()).isEqualTo(2);
    assertThat(members.err()).startsWith("error: --members: 'bad host:x' is not HOST:PORT").doesNotContain("\tat ")
        .doesNotContain("Usage:");
  }
}
