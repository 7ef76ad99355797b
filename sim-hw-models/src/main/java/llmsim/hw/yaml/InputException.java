package llmsim.hw.yaml;

import java.util.List;
import java.util.stream.Collectors;

/** Bad input: every problem found in one or more files. The CLI prints them and exits with 2. */
public final class InputException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final transient List<Problem> problems;

  public InputException(List<Problem> problems) {
    super(problems.stream().sorted().map(Problem::toString).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  public InputException(Problem problem) {
    this(List.of(problem));
  }

  public List<Problem> problems() {
    return problems;
  }
}
