package llmsim.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import llmsim.core.sweep.LocalSweepBackend;
import llmsim.core.sweep.SweepBackend;
import llmsim.core.sweep.SweepBackendProvider;

/**
 * The sweep backends by name: {@code local} here, the others ({@code hazelcast}) from the sim-distributed module,
 * whose jars are not in llmsim.jar and load, in a class loader of their own, only when such a backend is chosen. So
 * the default launcher and its start-up do not carry a cluster engine.
 *
 * <p>Where those jars are: {@code -Dllmsim.distributed.lib=DIR}, else {@code sim-distributed/target/lib} under
 * {@code llmsim.home} (set by the launcher) or beside the checkout llmsim.jar was built in. On a class path that
 * already holds a provider (the module's own tests) that one is used.
 */
final class SweepBackends {
  static final String LOCAL = "local";
  static final String LIB_PROPERTY = "llmsim.distributed.lib";

  private SweepBackends() {}

  /** The backends there are: the local one and those sim-distributed provides. */
  static final List<String> KNOWN = List.of(LOCAL, "hazelcast");

  static SweepBackend open(String name, String cluster, Integer threads, PrintWriter log) {
    if (name.equals(LOCAL)) {
      return new LocalSweepBackend(threads == null ? Runtime.getRuntime().availableProcessors() : threads);
    }
    if (!KNOWN.contains(name)) { // checked before any jar is looked for, so the answer is the same with or without them
      throw new BadFlagException("--backend", name, String.join(", ", KNOWN));
    }
    List<SweepBackendProvider> found = providers(name);
    for (SweepBackendProvider p : found) {
      if (p.name().equals(name)) {
        try {
          return p.open(cluster, threads, log);
        } catch (IllegalArgumentException e) {
          throw new BadFlagException("--backend " + name + ": " + e.getMessage());
        }
      }
    }
    List<String> names = new ArrayList<>(List.of(LOCAL));
    found.forEach(p -> names.add(p.name()));
    throw new BadFlagException("--backend", name, String.join(", ", names));
  }

  private static List<SweepBackendProvider> providers(String wanted) {
    List<SweepBackendProvider> onClassPath = load(SweepBackends.class.getClassLoader());
    if (!onClassPath.isEmpty()) {
      return onClassPath;
    }
    Path lib = libraryFolder();
    List<URL> jars = new ArrayList<>();
    try (Stream<Path> files = Files.list(lib)) {
      for (Path f : files.filter(f -> f.getFileName().toString().endsWith(".jar")).sorted().toList()) {
        jars.add(f.toUri().toURL());
      }
    } catch (IOException e) {
      throw new BadFlagException("--backend " + wanted + ": its jars are not in " + lib + " (" + e.getClass()
          .getSimpleName() + "); build them with ./mvnw install (module sim-distributed), or name the folder with -D"
          + LIB_PROPERTY + "=DIR");
    }
    // not closed: the backend's classes stay in use for the rest of the run
    URLClassLoader loader = new URLClassLoader("llmsim-distributed", jars.toArray(URL[]::new),
        SweepBackends.class.getClassLoader());
    return load(loader);
  }

  private static List<SweepBackendProvider> load(ClassLoader loader) {
    List<SweepBackendProvider> list = new ArrayList<>();
    ServiceLoader.load(SweepBackendProvider.class, loader).forEach(list::add);
    return list;
  }

  static Path libraryFolder() {
    String given = System.getProperty(LIB_PROPERTY);
    if (given != null) {
      return Path.of(given);
    }
    String home = System.getProperty("llmsim.home");
    if (home != null) {
      return Path.of(home, "sim-distributed", "target", "lib");
    }
    try { // llmsim.jar in CHECKOUT/sim-cli/target, or classes in CHECKOUT/sim-cli/target/classes
      Path here = Path.of(SweepBackends.class.getProtectionDomain().getCodeSource().getLocation().toURI());
      return here.getParent().getParent().getParent().resolve("sim-distributed").resolve("target").resolve("lib");
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return Path.of("sim-distributed", "target", "lib");
    }
  }
}
