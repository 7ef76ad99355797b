package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Seeded mutations of the catalog's own files and of a Hugging Face config.json, each fed through the
 * CLI in-process: every run must end with exit 0, or exit 2 with a {@code file:line:col: message} (or
 * {@code file: message}) for the mutated file, and never an exception. Same seed, same mutations.
 * A longer run: {@code -Dllmsim.fuzz.iterations=5000 -Dllmsim.fuzz.seed=7}.
 */
class FuzzTest {
  static final long SEED = Long.getLong("llmsim.fuzz.seed", 20_240_601L);
  static final int ITERATIONS = Integer.getInteger("llmsim.fuzz.iterations", 600);

  static final Pattern NUMBER = Pattern.compile("(?<=[:\\[, ])-?[0-9][0-9._eE+-]*(?=\\s*[,}\\]\\n])");
  static final Pattern KEY_LINE = Pattern.compile("(?m)^(\\s*\"?)([a-z_0-9]+)(\"?\\s*:)");
  static final String[] REPLACEMENTS = {"0", "-1", "1e300", "3000000000", "99999999999999999999999", "4.5", "\"8\"",
      "true", "null", "1e-9", ".nan", "-0", "0x1F", "\"" + "x".repeat(100_000) + "\"", "[]", "{}", "~", "*x", "&x 3"};
  static final String[] INSERTIONS = {"\t", "*x", "&a ", "[", "{", "}", "\"", "'", ":", "- ", "\n  extra: 1\n", "#",
      "!!binary ", "\u0000", "\\u0000", "? ", "%YAML 1.1\n", "---\n", "\n...\n"};

  @TempDir Path dir;

  record Seed(String name, String text) {}

  static List<Seed> seeds() {
    List<Seed> out = new ArrayList<>();
    for (String f : resource("/llmsim/catalog/index.txt").lines().map(String::strip)
        .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList()) {
      out.add(new Seed(f.substring(f.lastIndexOf('/') + 1), resource("/llmsim/catalog/" + f)));
    }
    out.add(new Seed("config.json", resource("/fuzz/config.json")));
    return out;
  }

  static String resource(String name) {
    try (InputStream in = FuzzTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** One random mutation of {@code text}, as bytes (some mutations are not UTF-8). */
  static byte[] mutate(String text, Random r, StringBuilder what) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    int kind = r.nextInt(10);
    switch (kind) {
      case 0 -> {
        int i = r.nextInt(lines.size());
        what.append("delete line ").append(i + 1);
        lines.remove(i);
      }
      case 1 -> {
        int i = r.nextInt(lines.size());
        what.append("duplicate line ").append(i + 1);
        lines.add(i, lines.get(i));
      }
      case 2, 3, 4 -> {
        List<int[]> spans = spans(NUMBER, text);
        if (spans.isEmpty()) {
          break;
        }
        int[] s = spans.get(r.nextInt(spans.size()));
        String rep = REPLACEMENTS[r.nextInt(REPLACEMENTS.length)];
        what.append("number at ").append(s[0]).append(" -> ").append(rep.length() > 20 ? "huge string" : rep);
        return bytes(text.substring(0, s[0]) + rep + text.substring(s[1]));
      }
      case 5 -> {
        Matcher m = KEY_LINE.matcher(text);
        List<String> keys = new ArrayList<>();
        while (m.find()) {
          keys.add(m.group(2));
        }
        if (keys.size() < 2) {
          break;
        }
        String a = keys.get(r.nextInt(keys.size()));
        String b = keys.get(r.nextInt(keys.size()));
        what.append("swap keys ").append(a).append(" and ").append(b);
        return bytes(text.replace(a + "\":", "\u0001").replace(a + ":", "\u0002").replace(b + "\":", a + "\":")
            .replace(b + ":", a + ":").replace("\u0001", b + "\":").replace("\u0002", b + ":"));
      }
      case 6 -> {
        int at = r.nextInt(text.length());
        what.append("truncate at ").append(at);
        return bytes(text.substring(0, at));
      }
      case 7 -> {
        int at = r.nextInt(text.length() + 1);
        String ins = INSERTIONS[r.nextInt(INSERTIONS.length)];
        what.append("insert ").append(ins.replace("\n", "\\n").replace("\t", "\\t")).append(" at ").append(at);
        return bytes(text.substring(0, at) + ins + text.substring(at));
      }
      case 8 -> {
        byte[] b = bytes(text);
        int at = r.nextInt(b.length);
        byte bad = (byte) (0x80 + r.nextInt(0x80));
        what.append(String.format("byte 0x%02X at %d", bad & 0xff, at));
        b[at] = bad;
        return b;
      }
      default -> {
        List<int[]> spans = spans(NUMBER, text);
        if (spans.isEmpty()) {
          break;
        }
        int[] s = spans.get(r.nextInt(spans.size()));
        int depth = 1 + r.nextInt(200);
        what.append("nest ").append(depth).append(" deep at ").append(s[0]);
        return bytes(text.substring(0, s[0]) + "[".repeat(depth) + "1" + "]".repeat(depth) + text.substring(s[1]));
      }
    }
    if (what.length() == 0) {
      what.append("unchanged");
    }
    return bytes(String.join("\n", lines));
  }

  static List<int[]> spans(Pattern p, String text) {
    List<int[]> out = new ArrayList<>();
    Matcher m = p.matcher(text);
    while (m.find()) {
      out.add(new int[] {m.start(), m.end()});
    }
    return out;
  }

  static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Why a run is not acceptable, or null. */
  static String judge(CliRunner r, Path file) {
    String all = r.out() + r.err();
    for (String leak : List.of("Exception", "java.", "at llmsim", "\tat ", "jackson", "snakeyaml")) {
      if (all.contains(leak)) {
        return "leaks '" + leak + "'";
      }
    }
    if (r.code() == 0) {
      return null;
    }
    if (r.code() != 2) {
      return "exit " + r.code();
    }
    Pattern located = Pattern.compile("(?m)^error: " + Pattern.quote(file.toString()) + "(:\\d+:\\d+)?: \\S");
    return located.matcher(r.err()).find() ? null : "exit 2 without a file:line:col message";
  }

  @Test
  void mutatedCatalogFilesAndConfigJson_neverCrash() throws IOException {
    Random random = new Random(SEED);
    List<Seed> seeds = seeds();
    List<String> failures = new ArrayList<>();
    int ok = 0;
    int rejected = 0;
    for (int i = 0; i < ITERATIONS; i++) {
      Seed seed = seeds.get(random.nextInt(seeds.size()));
      StringBuilder what = new StringBuilder();
      byte[] mutated = mutate(seed.text(), random, what);
      if (random.nextInt(4) == 0) {
        what.append("; ");
        mutated = mutate(new String(mutated, StandardCharsets.UTF_8), random, what);
      }
      Path file = dir.resolve(i + "-" + seed.name());
      Files.write(file, mutated);
      boolean model = seed.name().endsWith(".json") || seed.text().contains("kind: model");
      List<String[]> commands = new ArrayList<>();
      if (!seed.name().endsWith(".json")) {
        commands.add(new String[] {"hardware", "validate", file.toString()});
      }
      if (model) {
        commands.add(new String[] {"models", "show", file.toString(), "--format", "json"});
      }
      for (String[] args : commands) {
        CliRunner r = CliRunner.run(args);
        String why = judge(r, file);
        if (why != null) {
          failures.add(String.join(" ", args) + " [" + seed.name() + ": " + what + "]: " + why + "\n" + r.err());
        } else if (r.code() == 0) {
          ok++;
        } else {
          rejected++;
        }
      }
      Files.delete(file);
    }
    System.out.printf("fuzz: %d iterations (seed %d): %d accepted, %d rejected with a location, %d crashes%n",
        ITERATIONS, SEED, ok, rejected, failures.size());
    assertThat(failures).as("first failures:\n" + String.join("\n", failures.subList(0, Math.min(5, failures.size()))))
        .isEmpty();
    assertThat(rejected).as("the mutations must actually break files").isGreaterThan(ITERATIONS / 4);
  }
}
