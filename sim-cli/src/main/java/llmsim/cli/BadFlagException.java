package llmsim.cli;

/** A flag value that is well-formed but not allowed; names the flag and the allowed values. */
final class BadFlagException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  BadFlagException(String flag, String value, String allowed) {
    super(flag + ": '" + value + "' is not allowed (allowed: " + allowed + ")");
  }

  BadFlagException(String message) {
    super(message);
  }
}
