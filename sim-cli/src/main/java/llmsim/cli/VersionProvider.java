package llmsim.cli;

import llmsim.core.kernel.Kernels;
import picocli.CommandLine.IVersionProvider;

/** Version, Java runtime and the roofline kernel that runs. */
final class VersionProvider implements IVersionProvider {
  @Override
  public String[] getVersion() {
    String v = Main.class.getPackage().getImplementationVersion();
    return new String[] {
      "llmsim " + (v == null ? "0.1.0-SNAPSHOT" : v),
      "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vendor") + ")",
      "roofline kernel: " + Kernels.get().name()
    };
  }
}
