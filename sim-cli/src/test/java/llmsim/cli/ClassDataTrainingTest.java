package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launcher's class-data archive holds the classes its training run loads: every training command
 * must still run (the last two are bad input on purpose), or the archive quietly stops covering it.
 */
class ClassDataTrainingTest {
  @Test
  void everyTrainingCommand_runsAsIntended() {
    List<String[]> commands = ClassDataTraining.COMMANDS;
    for (int i = 0; i < commands.size(); i++) {
      StringWriter err = new StringWriter();
      int code = Main.execute(commands.get(i), new PrintWriter(new StringWriter()), new PrintWriter(err));
      int expected = i < commands.size() - 2 ? 0 : Main.EXIT_BAD_INPUT;
      assertThat(code).as("%s: %s", String.join(" ", commands.get(i)), err).isEqualTo(expected);
    }
  }
}
