package llmsim.cli;

import java.io.IOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code llmsim serve}: a local web page to explore one scenario with sliders. */
@Command(name = "serve", description = {
    "Serve a local web page for learning, with sliders for the scenario and the device.",
    "Pick hardware, model and task, move sliders for the nodes of a cluster template or multi-node server, batch, "
        + "context, precision, weight format, and the device's "
        + "memory bandwidth, compute and memory size (x0.1 to x10 of the catalog's), and "
        + "watch the roofline, memory breakdown, timeline, key numbers and the explanation follow. Charts are drawn by "
        + "the server (SVG); the page loads nothing from the internet. It listens on 127.0.0.1 only unless --bind says "
        + "otherwise, writes no files, refuses runs over " + WebServer.MAX_OPS + " simulated ops and answers within "
        + WebServer.TIMEOUT_SECONDS + " s. Ctrl-C stops it.",
    "Example: llmsim serve --port 8080   (then open http://127.0.0.1:8080/)"})
final class ServeCommand implements Callable<Integer> {
  @Spec CommandSpec spec;

  @Option(names = "--port", paramLabel = "PORT", defaultValue = "8080",
      description = "TCP port to listen on, 0 to 65535; 0 picks any free port. The URL is printed. Default: ${DEFAULT-VALUE}.")
  int port;

  @Option(names = "--bind", paramLabel = "ADDRESS", defaultValue = "127.0.0.1",
      description = "Address to listen on. The default, 127.0.0.1, is reachable from this machine only; 0.0.0.0 "
          + "exposes the page (and the CPU time its simulations take) to the network. Default: ${DEFAULT-VALUE}.")
  String bind;

  @Override
  public Integer call() {
    if (port < 0 || port > 65535) {
      throw new BadFlagException("--port: must be 0 to 65535, was " + port);
    }
    WebServer server;
    try {
      server = WebServer.start(bind, port);
    } catch (IOException e) {
      throw new BadFlagException("--port: cannot listen on " + bind + ":" + port + " (" + e.getMessage() + ")");
    }
    spec.commandLine().getOut().println("llmsim serve: open " + server.uri() + " (Ctrl-C stops it)");
    spec.commandLine().getOut().flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      server.close();
      stopped.countDown();
    }));
    try {
      stopped.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      server.close();
    }
    return 0;
  }
}
