package llmsim.hw.yaml;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Reads a user's input file as UTF-8 text, refusing what cannot be one: a folder, a file larger than
 * {@link #MAX_BYTES} (or an endless device such as /dev/zero), bytes that are not UTF-8. Each refusal is
 * a {@link Problem} naming the file.
 */
public final class InputFiles {
  /** 4 MiB: the largest catalog file is about 3 KiB, a Hugging Face config.json a few KiB. */
  public static final int MAX_BYTES = 4 * 1024 * 1024;

  private InputFiles() {}

  public static String readText(Path path) {
    String name = path.toString();
    if (name.isEmpty()) {
      throw new InputException(new Problem("(empty path)", 0, 0, "the file name is empty"));
    }
    if (Files.isDirectory(path)) {
      // a downloaded Hugging Face model is a folder: its shape is the config.json in it
      Path config = path.resolve("config.json");
      throw new InputException(new Problem(name, 0, 0, "is a directory, expected a file" + (Files.isRegularFile(config)
          ? "; a Hugging Face model folder's shape is its config.json: give " + config : "")));
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(path)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    } catch (NoSuchFileException e) {
      throw new InputException(new Problem(name, 0, 0, "no such file"));
    } catch (AccessDeniedException e) {
      throw new InputException(new Problem(name, 0, 0, "cannot read: permission denied"));
    } catch (IOException e) {
      throw new InputException(new Problem(name, 0, 0, "cannot read: " + e.getMessage()));
    }
    if (bytes.length > MAX_BYTES) {
      throw new InputException(new Problem(name, 0, 0, "is larger than " + MAX_BYTES / (1024 * 1024)
          + " MiB; input files are small YAML or JSON documents"));
    }
    return decode(name, bytes);
  }

  /** Strict UTF-8; the first bad byte is reported with its line, column and byte offset. */
  static String decode(String name, byte[] bytes) {
    CharsetDecoder d = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult r = d.decode(in, out, true);
    if (r.isError()) {
      int offset = in.position();
      int line = 1;
      int lineStart = 0;
      for (int i = 0; i < offset; i++) {
        if (bytes[i] == '\n') {
          line++;
          lineStart = i + 1;
        }
      }
      int column = new String(bytes, lineStart, offset - lineStart, StandardCharsets.UTF_8).length() + 1;
      throw new InputException(new Problem(name, line, column, String.format(Locale.ROOT,
          "not UTF-8 text (byte 0x%02X at byte offset %d); save the file as UTF-8", bytes[offset] & 0xff, offset)));
    }
    d.flush(out);
    out.flip();
    return out.toString();
  }
}
