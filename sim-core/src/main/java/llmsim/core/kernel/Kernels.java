package llmsim.core.kernel;

import java.util.Locale;

/**
 * Picks the roofline kernel once: {@code -Dllmsim.kernel=auto|scalar|panama}. A forced {@code panama}
 * fails loudly when the Vector API module is absent; {@code auto} falls back to scalar and says, once,
 * how to enable it.
 */
public final class Kernels {
  public static final String PROPERTY = "llmsim.kernel";
  static final String PANAMA_CLASS = "llmsim.core.kernel.panama.PanamaRooflineKernel";

  private Kernels() {}

  static final java.util.List<String> CHOICES = java.util.List.of("auto", "scalar", "panama");

  private static final class Holder {
    static final RooflineKernel KERNEL;
    static final RuntimeException FAILURE;

    static {
      RooflineKernel k = null;
      RuntimeException f = null;
      try {
        k = select(System.getProperty(PROPERTY, "auto"));
      } catch (RuntimeException e) {
        f = e;
      }
      KERNEL = k;
      FAILURE = f;
    }
  }

  /**
   * The kernel this JVM uses. A bad {@code -Dllmsim.kernel} throws {@link IllegalArgumentException}, a forced
   * choice that cannot load {@link IllegalStateException}, on every call and with the message (never an
   * {@link ExceptionInInitializerError}, which hid it behind a stack trace).
   */
  public static RooflineKernel get() {
    checkProperty();
    if (Holder.FAILURE != null) {
      throw new IllegalStateException(Holder.FAILURE.getMessage(), Holder.FAILURE);
    }
    return Holder.KERNEL;
  }

  /**
   * Checks {@code -Dllmsim.kernel} without loading any kernel, so a front end can report a bad value as bad input
   * before any work; throws {@link IllegalArgumentException} naming the property and the allowed values.
   */
  public static void checkProperty() {
    String choice = System.getProperty(PROPERTY, "auto");
    if (!CHOICES.contains(choice.toLowerCase(Locale.ROOT))) {
      throw new IllegalArgumentException("-D" + PROPERTY + "=" + choice + " is not allowed (allowed: "
          + String.join(", ", CHOICES) + ")");
    }
  }

  static RooflineKernel select(String choice) {
    switch (choice.toLowerCase(Locale.ROOT)) {
      case "scalar":
        return new ScalarRooflineKernel();
      case "panama":
        return loadPanama().orElseThrow(() -> new IllegalStateException(
            "-D" + PROPERTY + "=panama but the Vector API is not available: run java with --add-modules jdk.incubator.vector"));
      case "auto": {
        var p = loadPanama();
        if (p.isPresent()) {
          return p.get();
        }
        System.err.println("llmsim: using the scalar roofline kernel; add --add-modules jdk.incubator.vector for the faster Panama one");
        return new ScalarRooflineKernel();
      }
      default:
        throw new IllegalArgumentException("-D" + PROPERTY + "=" + choice + " is not allowed (allowed: "
            + String.join(", ", CHOICES) + ")");
    }
  }

  /** The Panama kernel if the incubator module is in the boot layer and loads. */
  public static java.util.Optional<RooflineKernel> loadPanama() {
    if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
      return java.util.Optional.empty();
    }
    try {
      Class<?> c = Class.forName(PANAMA_CLASS);
      return java.util.Optional.of((RooflineKernel) c.getDeclaredConstructor().newInstance());
    } catch (LinkageError | UnsupportedOperationException | ReflectiveOperationException e) {
      return java.util.Optional.empty();
    }
  }
}
