package llmsim.report;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Files are written whole or not at all: to a hidden temporary name ({@code .NAME<digits>.tmp}) in the target's
 * folder, then moved into place. A temporary file that is still open when the JVM is stopped by a signal (Ctrl-C's
 * SIGINT, SIGTERM) is removed by one shutdown hook, or handed to its own shutdown action (a sweep keeps its
 * complete rows); after SIGKILL nothing runs, the target keeps its old content and a temporary file may remain.
 */
public final class AtomicFiles {
  private AtomicFiles() {}

  /** Something that writes bytes to a stream. */
  @FunctionalInterface
  public interface Writer {
    void write(OutputStream out) throws IOException;
  }

  private static final Set<Staged> IN_FLIGHT = ConcurrentHashMap.newKeySet();
  private static volatile boolean shuttingDown;

  static {
    Runtime.getRuntime().addShutdownHook(new Thread(AtomicFiles::shutdown, "llmsim-temporary-files"));
  }

  /**
   * A temporary file beside {@code target}, moved over it by {@link #commit()}; {@link #close()} without a commit
   * deletes it. Both are idempotent and safe to call from a shutdown hook and the main thread at once.
   */
  public static final class Staged implements AutoCloseable {
    private final Path target;
    private final Path tmp;
    private volatile Runnable onShutdown;
    private boolean finished;

    private Staged(Path target, Path tmp) {
      this.target = target;
      this.tmp = tmp;
    }

    /** Where to write. */
    public Path tmp() {
      return tmp;
    }

    public Path target() {
      return target;
    }

    /** What to do instead of deleting the temporary file when the JVM is stopped by a signal before the commit. */
    public void onShutdown(Runnable action) {
      this.onShutdown = action;
    }

    /** Moves the temporary file over the target (atomically where the file system can). */
    public synchronized void commit() throws IOException {
      if (finished) {
        return;
      }
      try {
        // temporary files are created owner-only; the result should read like any other file
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system: keep the default permissions
      }
      try {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        finished = true;
        Files.deleteIfExists(tmp);
        IN_FLIGHT.remove(this);
      }
    }

    /** Deletes the temporary file unless it was committed; the target is untouched. */
    @Override
    public synchronized void close() {
      if (finished) {
        return;
      }
      finished = true;
      IN_FLIGHT.remove(this);
      try {
        Files.deleteIfExists(tmp);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void shutdown() {
      Runnable action = onShutdown;
      try {
        if (action != null) {
          action.run();
        }
      } finally {
        close();
      }
    }
  }

  /** Creates the temporary file for {@code target}; the caller writes it, then commits or closes it. */
  public static Staged stage(Path target) throws IOException {
    Path dir = target.toAbsolutePath().getParent();
    Path tmp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
    Staged s = new Staged(target, tmp);
    IN_FLIGHT.add(s);
    if (shuttingDown) { // the hook may have passed already: do not leave this one behind
      s.close();
      throw new IOException("not writing " + target + ": the program is being stopped");
    }
    return s;
  }

  public static void write(Path target, Writer w) throws IOException {
    try (Staged s = stage(target)) {
      try (OutputStream out = Files.newOutputStream(s.tmp())) {
        w.write(out);
      }
      s.commit();
    }
  }

  public static void writeString(Path target, String text) throws IOException {
    write(target, out -> out.write(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
  }

  private static void shutdown() {
    shuttingDown = true;
    for (Staged s : IN_FLIGHT) {
      try {
        s.shutdown();
      } catch (RuntimeException e) {
        // best effort while the JVM stops: try the others
      }
    }
  }
}
