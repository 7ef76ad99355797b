package llmsim.distributed;

import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializable;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;
import llmsim.core.sweep.ChunkedJob;

/**
 * One chunk index of a job, as a task a member runs. The job (its grid's axes, not its points) travels with every
 * task as bytes that the sender serializes once per job and each receiving process deserializes once per job, keyed
 * by an id made with them: Java serialization of the job object for every chunk (the executor's default for a
 * Serializable task) cost an embedded member's 50,000-point simulate sweep an object stream out and in per chunk, and
 * the JIT's work on both (docs/DISTRIBUTED.md).
 */
final class ChunkTask<R extends Serializable> implements Callable<R>, DataSerializable {
  /** Jobs a process keeps, as sender and as receiver: a worker serves one sweep after another. */
  private static final int KEPT = 4;
  /** Sender side: the jobs sent lately, with their ids and bytes, by identity. */
  private static final Deque<Wire> SENT = new ArrayDeque<>();
  /** Receiver side: the jobs read lately, by id. */
  private static final Map<String, ChunkedJob<?>> RECEIVED = new LinkedHashMap<>(8, 0.75f, true) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, ChunkedJob<?>> eldest) {
      return size() > KEPT;
    }
  };

  /** A job's wire form: its id and its Java-serialized bytes. */
  private record Wire(ChunkedJob<?> job, String id, byte[] bytes) {}

  private ChunkedJob<R> job;
  private long chunk;

  /** For Hazelcast, which makes the task and then reads it ({@link #readData}). */
  public ChunkTask() {}

  ChunkTask(ChunkedJob<R> job, long chunk) {
    this.job = job;
    this.chunk = chunk;
  }

  @Override
  public R call() {
    return job.compute(chunk);
  }

  @Override
  public void writeData(ObjectDataOutput out) throws IOException {
    Wire w = wire(job);
    out.writeString(w.id());
    out.writeLong(chunk);
    out.writeByteArray(w.bytes());
  }

  @Override
  @SuppressWarnings("unchecked")
  public void readData(ObjectDataInput in) throws IOException {
    String id = in.readString();
    chunk = in.readLong();
    byte[] bytes = in.readByteArray();
    synchronized (RECEIVED) {
      job = (ChunkedJob<R>) RECEIVED.get(id);
    }
    if (job == null) {
      job = (ChunkedJob<R>) read(bytes);
      synchronized (RECEIVED) {
        RECEIVED.put(id, job);
      }
    }
  }

  /** The job's wire form, made on its first task. */
  private static Wire wire(ChunkedJob<?> job) {
    synchronized (SENT) {
      for (Wire w : SENT) {
        if (w.job() == job) {
          return w;
        }
      }
      Wire w = new Wire(job, UUID.randomUUID().toString(), bytes(job));
      SENT.addFirst(w);
      if (SENT.size() > KEPT) {
        SENT.removeLast();
      }
      return w;
    }
  }

  private static byte[] bytes(Object o) {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(b)) {
      out.writeObject(o);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return b.toByteArray();
  }

  /** The job read back, its classes resolved through this module's loader (which sees the CLI's). */
  private static Object read(byte[] bytes) throws IOException {
    ClassLoader loader = ChunkTask.class.getClassLoader();
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes)) {
      @Override
      protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
        try {
          return Class.forName(desc.getName(), false, loader);
        } catch (ClassNotFoundException e) {
          return super.resolveClass(desc);
        }
      }
    }) {
      return in.readObject();
    } catch (ClassNotFoundException e) {
      throw new IOException("a sweep's job names a class this worker does not have: " + e.getMessage()
          + " (start every worker from the same llmsim build)", e);
    }
  }

  @Override
  public String toString() { // Hazelcast's executor names each task it runs: not the whole job
    return "chunk " + chunk;
  }
}
