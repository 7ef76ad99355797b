package llmsim.core.scenario;

/** A scenario value that breaks a rule; names the key so the caller can point at the flag or the file line. */
public final class ScenarioKeyException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final transient ScenarioKey key;

  public ScenarioKeyException(ScenarioKey key, String message) {
    super(message);
    this.key = key;
  }

  public ScenarioKey key() {
    return key;
  }
}
