package llmsim.cli;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import llmsim.core.scenario.ScenarioKey;
import llmsim.core.scenario.ScenarioKeyException;
import llmsim.core.sweep.SweepBackend;
import llmsim.core.workload.OpBudget;
import llmsim.hw.catalog.Catalog;
import llmsim.hw.scenario.GridFile;
import llmsim.report.AtomicFiles;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code llmsim sweep}: a cartesian grid of scenarios, in parallel, as CSV or JSON Lines. */
@Command(name = "sweep", description = {
    "Sweep a cartesian grid of scenarios: one CSV or JSON Lines row per combination of the listed values.",
    "Rows come in a stable order, written as they complete. --mode analytic sums the roofline kernel's costs in "
        + "closed form (no overlap); --mode simulate runs the event engine per point. Without --output, rows stream to standard output a whole line "
        + "at a time. With --output, rows go to a temporary file beside FILE that replaces it when the sweep ends; Ctrl-C "
        + "keeps the complete rows so far (without --top), a failure or a hard kill leaves FILE as it was.",
    "Example: llmsim sweep --hardware m2-ultra,13900ks-h100 --models llama-7b,llama-13b --tasks inference --batch 1,8,64 --output out.csv"})
final class SweepCommand implements ScenarioOptions.GridCommand, Callable<Integer> {
  /** Points per unit of work: large for the closed form, small for event simulations (progress, Ctrl-C). */
  static final int ANALYTIC_CHUNK = 2048;
  static final int SIMULATE_CHUNK = 16;
  /** Simulated points per chunk at most, on a grid large enough ({@link #simulateChunk}). */
  static final int SIMULATE_CHUNK_MAX = 64;
  /** A simulated grid is cut into at least this many chunks before its chunks grow past {@link #SIMULATE_CHUNK}. */
  static final int SIMULATE_CHUNKS_KEPT = 1024;

  /**
   * Points per chunk of a simulated grid of {@code points}: {@link #SIMULATE_CHUNK}, or on grids of more than 16,384
   * points as many as keep {@link #SIMULATE_CHUNKS_KEPT} chunks, up to {@link #SIMULATE_CHUNK_MAX}. A chunk costs its
   * backend a hand-off besides its points: on an embedded Hazelcast member ~0.2 ms of CPU (an invocation, the task's
   * bytes, a response and its callback), 12,500 of them (with the op count's) in a 100,000-point sweep of 16-point
   * chunks: +11% against the local backend, +5% with 64-point ones (docs/DISTRIBUTED.md, twelfth run). With a thousand
   * chunks or more, far more than a machine's or a small cluster's threads, the last ones still end close together
   * (ChunkLayout halves them). Small grids keep 16 points, where a cluster's tail decides the end of the run.
   */
  static int simulateChunk(long points) {
    return (int) Math.max(SIMULATE_CHUNK, Math.min(SIMULATE_CHUNK_MAX, points / SIMULATE_CHUNKS_KEPT));
  }

  @Spec CommandSpec spec;

  @Parameters(arity = "0..1", paramLabel = "GRID", description = "A grid .yaml (keys as the flags, lists allowed); flags override its keys.")
  Path gridFile;

  /** The axes given as flags, one per sweepable scenario key (added by {@link ScenarioOptions#addAxesTo}). */
  final Map<ScenarioKey, List<String>> axisFlags = new EnumMap<>(ScenarioKey.class);

  @Override
  public Map<ScenarioKey, List<String>> axisFlags() {
    return axisFlags;
  }

  /** --set changes to the catalog (added by {@link ScenarioOptions#addAxesTo}). */
  final List<String> sets = new java.util.ArrayList<>();

  /** The job's size and prices, one value each (added by {@link ScenarioOptions#addTo}). */
  final ScenarioOptions job = new ScenarioOptions();

  @Override
  public ScenarioOptions job() {
    return job;
  }

  @Override
  public List<String> sets() {
    return sets;
  }

  @Option(names = "--mode", defaultValue = "analytic", paramLabel = "MODE", description = "analytic or simulate (default: ${DEFAULT-VALUE}).")
  String mode;

  @Option(names = "--format", defaultValue = "csv", paramLabel = "FMT", description = "csv or jsonl (default: ${DEFAULT-VALUE}).")
  String format;

  @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write rows here (default: standard output).")
  Path output;

  @Option(names = "--top", paramLabel = "K", description = "Only the K best rows by --by, best first.")
  Integer top;

  @Option(names = "--by", defaultValue = "tokens_per_s", paramLabel = "KEY",
      description = "Ranking for --top (with it only): tokens_per_s, mfu (higher is better), step_time_s, ttft_s,"
          + " tpot_s (lower is better); with a job (--tokens, --requests) also cost, cost_per_million_tokens and"
          + " wall_time_s (lower is better). Points that do not fit memory are not ranked. Default: ${DEFAULT-VALUE}.")
  String by;

  @Option(names = "--max-points", defaultValue = "20000000", paramLabel = "N", description = "Refuse grids larger than this (default: ${DEFAULT-VALUE}).")
  long maxPoints;

  @Option(names = "--threads", paramLabel = "N", description = "Worker threads (default: all cores); with --backend "
      + "hazelcast and no --cluster, the embedded member's.")
  Integer threads;

  @Option(names = "--backend", defaultValue = SweepBackends.LOCAL, paramLabel = "NAME", description = {
      "Where points run: local (threads of this process; default) or hazelcast (the members of a cluster given with",
      "--cluster, or without it one member embedded in this process). Same rows, same bytes. See docs/DISTRIBUTED.md."})
  String backend;

  @Option(names = "--cluster", paramLabel = "HOST:PORT[,...]",
      description = "With --backend hazelcast: members of a running cluster (started with 'llmsim worker').")
  String cluster;

  /** Test seam: a child JVM given this property stops writing after that many chunks and waits for a signal. */
  static final String PAUSE_PROPERTY = "llmsim.test.sweepPauseAfterChunks";

  @Override
  public Integer call() throws Exception {
    // first: a distributed backend starts (a member) or connects (a client) on its own thread while this one reads
    // the catalog and builds the grid; the refusals of flags and grid below still come first, whatever it answers
    // (a simulated grid's op budget is checked once it is open, since its workers count the ops)
    FutureTask<SweepBackend> opening = open();
    SweepJob job;
    AtomicFiles.Staged staged;
    try {
      Map<ScenarioKey, List<String>> axes = axes();
      SweepCosts costs = SweepCosts.of(this.job, axes.get(ScenarioKey.HARDWARE));
      SweepGrid grid = inGridFile(() -> new SweepGrid(axes, Catalog.bundled().withOverrides(sets), costs));
      ScenarioOptions.refuseUnusedOverrides(grid.catalog, grid.systems, grid.models);
      if (costs != null) {
        costs.refuseUnusedPrices(grid.catalog, grid.systems);
      }
      ScenarioOptions.warnOverrides(grid.catalog, spec.commandLine().getErr());
      long n = grid.points();
      checkOptions(n, costs, grid); // every flag is checked before the output is touched
      if (mode.equals("analytic") && grid.hasPipelineStages()) {
        throw new BadFlagException("--pp: the closed form (--mode analytic) sums ops as if nothing overlapped, which a"
            + " pipeline's stages do by design: sweep pp > 1 with --mode simulate");
      }
      if (mode.equals("analytic") && grid.simulatesEveryGpu()) {
        // the closed form simulates no GPU: all_gpus true gave the rows all_gpus false gives, as if it had acted
        throw new BadFlagException("--all-gpus: the closed form (--mode analytic) simulates no GPU, so all_gpus changes"
            + " none of its rows: sweep all_gpus with --mode simulate");
      }
      for (String line : grid.refusalLines()) {
        spec.commandLine().getErr().println(line); // in grid order, once every flag is checked
      }
      spec.commandLine().getErr().flush();
      job = SweepJob.of(axes, sets, costs == null ? Map.of() : this.job.flags(), grid, costs, mode,
          format.equals("jsonl"), top, by, mode.equals("analytic") ? ANALYTIC_CHUNK : simulateChunk(n), n);
      staged = output == null ? null : stageOutput();
    } catch (RuntimeException | Error e) {
      closeWhenOpen(opening);
      throw e;
    }
    try (SweepBackend engine = opened(opening)) {
      if (mode.equals("simulate")) {
        // counted on the backend's workers and checked here before any row; a refusal leaves --output's FILE as it
        // was (the staged file is dropped below)
        // at most one worker per chunk simulates at once: --threads 100000 on a one-point grid is one simulation
        int workers = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
        checkSimulable(engine, job, (int) Math.max(1, Math.min(workers, job.chunks())));
      }
      Writer w = staged == null ? new PrintWriter(spec.commandLine().getOut())
          : new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(staged.tmp()), StandardCharsets.UTF_8), 1 << 16);
      Progress progress = new Progress(spec.commandLine().getErr(), job.points(), output != null && TerminalWriter.attached());
      Run run = new Run(job, w, staged, progress);
      Thread hook = new Thread(run::interrupt, "llmsim-sweep-interrupt");
      if (staged != null) {
        staged.onShutdown(run::interrupt); // AtomicFiles' one hook: keep the complete rows, then clean up
      } else {
        Runtime.getRuntime().addShutdownHook(hook);
      }
      try {
        run.execute(engine);
      } finally {
        if (staged == null) {
          try {
            Runtime.getRuntime().removeShutdownHook(hook);
          } catch (IllegalStateException shuttingDown) {
            // the hook is running: it flushes the rows
          }
        }
      }
      progress.done();
      return 0;
    } finally {
      if (staged != null) {
        staged.close(); // no-op after the commit; otherwise the temporary file goes and FILE stays as it was
      }
    }
  }

  /**
   * Opens the backend: a distributed one on its own thread, so that a cluster's client connects (or an embedded member
   * starts, half a second to a second either way) while this thread reads the catalog and builds the grid; the local
   * one at once.
   */
  private FutureTask<SweepBackend> open() {
    FutureTask<SweepBackend> task = new FutureTask<>(
        () -> SweepBackends.open(backend, cluster, threads, spec.commandLine().getErr()));
    if (backend.equals(SweepBackends.LOCAL)) {
      task.run();
    } else {
      Thread t = new Thread(task, "llmsim-sweep-connect");
      t.setDaemon(true);
      t.start();
    }
    return task;
  }

  /** The opened backend, or the exception opening it threw. */
  private static SweepBackend opened(FutureTask<SweepBackend> opening) throws InterruptedException {
    try {
      return opening.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error er) {
        throw er;
      }
      throw new IllegalStateException(e.getCause());
    }
  }

  /** Closes a backend still opening when the sweep is refused before it ran (a refusal's message comes first). */
  private static void closeWhenOpen(FutureTask<SweepBackend> opening) {
    if (opening.isDone()) {
      closeOpened(opening);
      return;
    }
    // still starting or connecting (a client gives up after its connect timeout): the refusal goes out now, and
    // the backend is closed on a thread of its own once it is open (or, in the CLI, ends with the JVM)
    Thread t = new Thread(() -> closeOpened(opening), "llmsim-sweep-close");
    t.setDaemon(true);
    t.start();
  }

  private static void closeOpened(FutureTask<SweepBackend> opening) {
    try {
      opening.get().close();
    } catch (ExecutionException e) {
      // it failed to open: nothing to close, and the refusal is the message the user gets
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      // closing a backend nobody used: the refusal is still what the user sees
    }
  }

  /** Whether --format was given (rather than left at csv). */
  private boolean formatGiven() {
    return spec.commandLine().getParseResult().hasMatchedOption("--format");
  }

  /** Refuses an --output that cannot be written, before any work, and creates its temporary file. */
  private AtomicFiles.Staged stageOutput() {
    if (Files.isDirectory(output)) {
      throw new BadFlagException("--output: " + output + " is a folder; give a file name (for example "
          + output.resolve(format.equals("jsonl") ? "sweep.jsonl" : "sweep.csv") + ")");
    }
    Path parent = output.toAbsolutePath().getParent();
    if (parent == null || !Files.isDirectory(parent)) {
      throw new BadFlagException("--output: folder " + parent + (parent != null && Files.exists(parent)
          ? " is not a folder" : " does not exist; create it first"));
    }
    if (gridFile != null && sameFile(output, gridFile)) { // the rows replaced the grid they came from
      throw new BadFlagException("--output: " + output + " is the grid file the sweep reads; give another file for"
          + " its rows");
    }
    if (Files.exists(output) && !Files.isWritable(output)) {
      throw new BadFlagException("--output: " + output + " is not writable");
    }
    if (!Files.isWritable(parent)) {
      throw new BadFlagException("--output: folder " + parent + " is not writable (rows are written to a temporary "
          + "file there, then moved over " + output.getFileName() + ")");
    }
    try {
      return AtomicFiles.stage(output);
    } catch (IOException | SecurityException e) {
      throw new BadFlagException("--output: cannot write in folder " + parent + " (" + e.getClass().getSimpleName()
          + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
    }
  }

  private static boolean sameFile(Path a, Path b) {
    try {
      return Files.exists(a) && Files.exists(b) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return a.toAbsolutePath().normalize().equals(b.toAbsolutePath().normalize());
    }
  }

  private void checkOptions(long n, SweepCosts costs, SweepGrid grid) {
    if (!mode.equals("analytic") && !mode.equals("simulate")) {
      throw new BadFlagException("--mode", mode, "analytic, simulate");
    }
    if (!format.equals("csv") && !format.equals("jsonl")) {
      throw new BadFlagException("--format", format, "csv, jsonl");
    }
    if (output != null) { // a .jsonl file of CSV rows (or the reverse) reads as broken to whatever opens it
      String name = output.getFileName().toString().toLowerCase(Locale.ROOT);
      String says = name.endsWith(".jsonl") || name.endsWith(".json") ? "jsonl" : name.endsWith(".csv") ? "csv" : format;
      if (!says.equals(format)) {
        throw new BadFlagException("--output: " + output.getFileName() + " names " + (says.equals("csv") ? "CSV" : "JSON"
            + " Lines") + " but the rows would be " + format + (formatGiven() ? "" : " (the default)") + "; give --format "
            + says + " or a ." + format + " name");
      }
    }
    if (maxPoints < 1) { // else "the grid has 1 points, more than --max-points -1"
      throw new BadFlagException("--max-points must be >= 1, was " + maxPoints);
    }
    if (n > maxPoints) {
      throw new BadFlagException(String.format(Locale.US, "the grid has %,d point%s, more than --max-points %,d; "
          + "narrow it or raise --max-points", n, n == 1 ? "" : "s", maxPoints));
    }
    if (top != null && top < 1) {
      throw new BadFlagException("--top must be >= 1, was " + top);
    }
    if (!SweepRows.RANKABLE.contains(by)) {
      throw new BadFlagException("--by", by, String.join(", ", SweepRows.RANKABLE));
    }
    if (top == null && spec.commandLine().getParseResult().hasMatchedOption("--by")) {
      // every row is written, in grid order: the ranking asked for was dropped without a word
      throw new BadFlagException("--by " + by + " ranks the rows --top keeps; give --top K (such as --top 10), or"
          + " leave --by out to write every row in grid order");
    }
    if (top != null && (by.equals("ttft_s") || by.equals("tpot_s")) && !grid.hasInference()) {
      throw new BadFlagException("--by " + by + ": the grid's tasks are all training, which has no time to first"
          + " token or per output token; rank them by step_time_s, tokens_per_s or mfu");
    }
    if (costs == null && SweepRows.jobMetric(by)) {
      throw new BadFlagException("--by " + by + " ranks the job: give its size with --tokens (training: tokens trained"
          + " on) or --requests (inference)");
    }
    if (threads != null && threads < 1) {
      throw new BadFlagException("--threads must be >= 1, was " + threads);
    }
    if (cluster != null && backend.equals(SweepBackends.LOCAL)) {
      throw new BadFlagException("--cluster needs a distributed --backend (for example --backend hazelcast)");
    }
    if (cluster != null && threads != null) {
      throw new BadFlagException("--threads with --cluster: each worker sets its own (llmsim worker --threads N)");
    }
  }

  /**
   * Refuses, before any row, a --mode simulate grid with a point whose ops the heap cannot hold while every
   * worker simulates a point that size. The points' ops are counted on {@code engine} ({@link OpCountJob}: walking
   * one step per point, far less than simulating it, and spread over the workers like the sweep itself) and checked
   * here against this process's heap, point by point in index order, so the first point over budget is named.
   */
  private static void checkSimulable(SweepBackend engine, SweepJob job, int workers) throws InterruptedException {
    long[][] counts = new long[(int) job.chunks()][];
    engine.run(new OpCountJob(job), (c, ops) -> counts[(int) c] = ops, () -> false);
    long heap = Runtime.getRuntime().maxMemory();
    SweepGrid grid = job.grid();
    for (int c = 0; c < counts.length; c++) {
      for (int k = 0; k < counts[c].length; k++) {
        long i = job.start(c) + k;
        SweepGrid.Point p = grid.point(i);
        if (p == null) {
          continue; // refused by a rule, skipped
        }
        long ops = counts[c][k];
        try {
          OpBudget.check(ops > Long.MAX_VALUE / workers ? Long.MAX_VALUE : ops * workers, OpBudget.bytesPerOp(p.task(),
              false), workers,
              "sweep threads",
              p.task(), heap);
        } catch (ScenarioKeyException e) {
          throw new BadFlagException(e.key().gridFlag() + ": " + e.getMessage() + " (at point " + i + ": system "
              + p.system().id() + ", model " + p.model().id() + ")");
        }
      }
    }
  }

  /**
   * Run {@code body}, which reports an unknown hardware or model id at its flag; where the id came from the grid file
   * rather than a flag, the problem is moved to the key's line there ('--hardware: unknown hardware' named a flag
   * never typed).
   */
  private <T> T inGridFile(java.util.function.Supplier<T> body) {
    try {
      return body.get();
    } catch (llmsim.hw.yaml.InputException e) {
      if (gridFile == null) {
        throw e;
      }
      throw new llmsim.hw.yaml.InputException(e.problems().stream().map(p -> {
        for (ScenarioKey k : List.of(ScenarioKey.HARDWARE, ScenarioKey.MODEL)) {
          if (p.line() == 0 && p.file().equals(k.gridFlag()) && !axisFlags.containsKey(k)) {
            llmsim.hw.yaml.Problem at = GridFile.problemAt(gridFile, k.gridKey(), p.message());
            return at == null ? p : at;
          }
        }
        return p;
      }).toList());
    }
  }

  /** The grid file's axes, each overridden by its flag. */
  private Map<ScenarioKey, List<String>> axes() {
    Map<ScenarioKey, List<String>> raw = new EnumMap<>(ScenarioKey.class);
    if (gridFile != null) {
      GridFile.read(gridFile).forEach((key, v) -> raw.put(ScenarioKey.byKey(key, true).orElseThrow(), v));
    }
    axisFlags.forEach((k, v) -> {
      if (v.isEmpty()) {
        // picocli splits ',' into no values: the key was swept at its default, as if the flag had not been typed
        throw new BadFlagException(k.gridFlag() + ": no value given; list one or more, comma-separated");
      }
    });
    raw.putAll(axisFlags);
    return raw;
  }

  /** One sweep: the backend's workers fill chunks in any order, the calling thread writes them in index order. */
  private final class Run {
    final long n;
    final boolean jsonl;
    final Writer out;
    final AtomicFiles.Staged staged; // null: standard output
    final Progress progress;
    final AtomicBoolean cancelled = new AtomicBoolean();
    final java.util.concurrent.atomic.AtomicReference<RuntimeException> failure = new java.util.concurrent.atomic.AtomicReference<>();
    final Object writeLock = new Object();
    boolean closed;
    long rowsWritten;
    /** Chunks done and not yet written, by index; guarded by itself, and notified as each arrives. */
    final Map<Long, SweepJob.Chunk> done = new HashMap<>();
    final SweepJob job;

    Run(SweepJob job, Writer out, AtomicFiles.Staged staged, Progress progress) {
      this.job = job;
      this.n = job.points();
      this.jsonl = job.jsonl();
      this.out = out;
      this.staged = staged;
      this.progress = progress;
    }

    void execute(SweepBackend backend) throws InterruptedException, IOException {
      long chunks = job.chunks();
      Thread feeder = new Thread(() -> {
        try {
          backend.run(job, (c, chunk) -> {
            synchronized (done) {
              if (!cancelled.get()) {
                done.putIfAbsent(c, chunk);
                done.notifyAll();
              }
            }
          }, cancelled::get);
        } catch (RuntimeException | Error e) {
          failure.compareAndSet(null, e instanceof RuntimeException re ? re : new IllegalStateException(e));
          cancel();
        } catch (InterruptedException e) {
          cancel();
        }
      }, "llmsim-sweep-backend");
      feeder.setDaemon(true);
      feeder.start();
      if (top == null) {
        write(SweepRows.header(jsonl, job.priced()), 0);
      }
      List<SweepJob.Ranked> best = new ArrayList<>();
      long unfit = 0;
      long unranked = 0;
      long pauseAfter = Long.getLong(PAUSE_PROPERTY, -1);
      for (long c = 0; c < chunks && !cancelled.get(); c++) {
        if (c == pauseAfter) {
          pauseForTest(c);
        }
        SweepJob.Chunk chunk = take(c);
        if (chunk == null) {
          break;
        }
        if (top == null) {
          write(chunk.text(), chunk.text().chars().filter(ch -> ch == '\n').count()); // refused points have no row
        } else {
          best.addAll(chunk.best());
          best = job.keepBest(best);
          unfit += chunk.unfit();
          unranked += chunk.unranked();
        }
        progress.update(job.end(c));
      }
      if (failure.get() != null) {
        finish(false);
        throw failure.get();
      }
      if (top != null && !cancelled.get()) {
        if (unfit > 0) { // their rows, without --top, say fits false; ranked, one was named the best
          progress.err.println(String.format(Locale.US, "sweep: %,d point%s not fit memory and %s left out of --top"
              + " (%s time assumes the memory were there; without --top its row says fits false)", unfit,
              unfit == 1 ? " does" : "s do", unfit == 1 ? "is" : "are", unfit == 1 ? "its" : "each one's"));
        }
        if (unranked > 0) { // else --top 10 answers fewer rows without saying why
          progress.err.println(String.format(Locale.US, "sweep: %,d point%s no %s to rank by and %s left out of --top"
              + " (%s)", unranked, unranked == 1 ? " has" : "s have", by, unranked == 1 ? "is" : "are",
              SweepRows.jobMetric(by) ? "a device without a price has no job cost"
                  : "ttft_s and tpot_s are inference's; a training point has none"));
          progress.err.flush();
        }
        StringBuilder b = new StringBuilder(SweepRows.header(jsonl, job.priced()));
        best.forEach(r -> b.append(r.row()));
        write(b.toString(), best.size());
      }
      feeder.join(TimeUnit.MINUTES.toMillis(1));
      finish(true);
    }

    /**
     * Chunk {@code c} once it is done, or null once the run is cancelled. Waits on the map, woken by each chunk as it
     * arrives: polling it every millisecond (as before) woke this thread thousands of times a second, CPU that a
     * cluster's client takes from the workers on a shared machine (docs/DISTRIBUTED.md, eighth run).
     */
    SweepJob.Chunk take(long c) throws InterruptedException {
      synchronized (done) {
        SweepJob.Chunk chunk;
        while ((chunk = done.remove(c)) == null && !cancelled.get()) {
          done.wait(100); // a cancellation notifies too; the timeout is a backstop
        }
        return chunk;
      }
    }

    /** Stops the run: no more chunks are taken in, and the writer stops waiting. */
    void cancel() {
      synchronized (done) {
        cancelled.set(true);
        done.notifyAll();
      }
    }

    /** See {@link #PAUSE_PROPERTY}: lets a test signal the process at a known row instead of racing the engine. */
    private void pauseForTest(long chunksWritten) throws InterruptedException {
      PrintWriter err = spec.commandLine().getErr();
      err.println("llmsim-test: paused after " + chunksWritten + " chunks");
      err.flush();
      new java.util.concurrent.CountDownLatch(1).await();
    }

    /** Writes whole rows at once: a signal that takes the lock finds only complete lines. */
    void write(String text, long rows) throws IOException {
      synchronized (writeLock) {
        if (closed) {
          return;
        }
        out.write(text);
        out.flush();
        rowsWritten += rows;
      }
    }

    /** Flushes; with --output, closes the temporary file and moves it over FILE ({@code keep}) or deletes it. */
    void finish(boolean keep) throws IOException {
      synchronized (writeLock) {
        if (closed) {
          return;
        }
        closed = true;
        out.flush();
        if (staged != null) {
          out.close();
          if (keep) {
            staged.commit();
          } else {
            staged.close();
          }
        }
      }
    }

    /**
     * Ctrl-C: stop handing out chunks; what is written is whole rows. With --output they replace FILE, unless
     * --top holds them back (nothing is ranked yet): then FILE stays as it was.
     */
    void interrupt() {
      cancel();
      try {
        finish(top == null);
        if (staged != null) {
          PrintWriter err = spec.commandLine().getErr();
          err.println(top == null ? "llmsim: interrupted; " + output + " holds the " + rowsWritten + " complete rows of "
              + n + " written so far" : "llmsim: interrupted before the ranking was complete; " + output + " is unchanged");
          err.flush();
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** A one-line progress bar with rate and ETA on a terminal; silent when output is piped. */
  static final class Progress {
    final PrintWriter err;
    final long total;
    final boolean on;
    final String unit;
    final long start = System.nanoTime();
    long lastDraw;

    Progress(PrintWriter err, long total, boolean on) {
      this(err, total, on, "points");
    }

    /** {@code unit}: what is counted ("points", "systems"). */
    Progress(PrintWriter err, long total, boolean on, String unit) {
      this.err = err;
      this.total = total;
      this.on = on;
      this.unit = unit;
    }

    synchronized void update(long doneCount) {
      long now = System.nanoTime();
      if (!on || now - lastDraw < 200_000_000L && doneCount < total) {
        return;
      }
      lastDraw = now;
      double secs = (now - start) / 1e9;
      double rate = doneCount / Math.max(secs, 1e-9);
      int width = 30;
      int fill = (int) (width * doneCount / Math.max(1, total));
      err.printf(Locale.US, "\r[%s%s] %3d%% %,d/%,d  %,.0f %s/s  ETA %.0f s ", "#".repeat(fill), " ".repeat(width - fill),
          100 * doneCount / Math.max(1, total), doneCount, total, rate, unit, (total - doneCount) / Math.max(rate, 1e-9));
      err.flush();
    }

    void done() {
      if (on) {
        err.println();
      }
    }
  }
}
