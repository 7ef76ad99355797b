package llmsim.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** {@code sweep --output}: bad input never touches FILE; FILE is replaced whole, and no temporary file is left. */
class SweepOutputTest {
  static final String OLD = "precious\n";

  @TempDir Path dir;

  static final String[] GRID = {"sweep", "--hardware", "h100-sxm", "--models", "gpt3-125m", "--batch", "1,2,4"};

  CliRunner sweep(String... more) {
    List<String> args = new ArrayList<>(List.of(GRID));
    args.addAll(List.of(more));
    return CliRunner.run(args.toArray(String[]::new));
  }

  List<String> files() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"--by=nonsense", "--mode=fast", "--format=xml", "--top=0", "--threads=0", "--max-points=2",
      "--batch=0", "--models=no-such-model"})
  void aBadOption_exitsTwo_andLeavesTheExistingFileAsItWas(String bad) throws IOException {
    Path out = dir.resolve("r.csv");
    Files.writeString(out, OLD);
    CliRunner r = bad.startsWith("--top") ? sweep("--output", out.toString(), bad)
        : sweep("--top", "5", "--output", out.toString(), bad);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("error: ").contains(bad.substring(0, bad.indexOf('='))).hasLineCount(1);
    assertThat(Files.readString(out)).isEqualTo(OLD);
    assertThat(files()).containsExactly("r.csv");
  }

  @Test
  void aFolder_isRefusedNamingTheFlag() {
    CliRunner r = sweep("-o", dir.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("error: --output: " + dir + " is a folder; give a file name (for example "
        + dir.resolve("sweep.csv") + ")\n");
  }

  @Test
  void aMissingFolder_isRefusedNamingTheFlag() {
    Path out = dir.resolve("nodir").resolve("x.csv");
    CliRunner r = sweep("-o", out.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("error: --output: folder " + out.getParent() + " does not exist; create it first\n");
  }

  @Test
  void aFileAsTheFolder_isRefusedNamingTheFlag() throws IOException {
    Path notAFolder = Files.writeString(dir.resolve("plain.txt"), OLD);
    CliRunner r = sweep("-o", notAFolder.resolve("x.csv").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("error: --output: folder " + notAFolder + " is not a folder\n");
  }

  @Test
  void anUnwritableFolder_isRefusedNamingTheFlag() throws IOException {
    Path ro = Files.createDirectory(dir.resolve("ro"));
    Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("r-xr-xr-x"));
    try {
      assumeFalse(Files.isWritable(ro), "skipped: this user (root?) may write to a read-only folder");
      CliRunner r = sweep("-o", ro.resolve("x.csv").toString());
      assertThat(r.code()).isEqualTo(2);
      assertThat(r.err()).startsWith("error: --output: folder " + ro + " is not writable");
    } finally {
      Files.setPosixFilePermissions(ro, PosixFilePermissions.fromString("rwxr-xr-x"));
    }
  }

  @Test
  void theGridFileItself_isRefusedAsOutput_andKept() throws IOException {
    // 'sweep grid.yaml --output grid.yaml' replaced the grid with its rows, exit 0: the input was gone
    String grid = "kind: grid\nhardware: [h100-sxm]\nmodels: [gpt3-125m]\nbatch: [1, 2]\n";
    Path g = Files.writeString(dir.resolve("grid.yaml"), grid);
    CliRunner r = CliRunner.run("sweep", g.toString(), "--output", g.toString());
    BadInputTest.assertBadInput(r, "--output: " + g + " is the grid file the sweep reads; give another file for its rows");
    assertThat(Files.readString(g)).isEqualTo(grid);
    // the same file by another spelling
    Path other = dir.resolve(".").resolve("grid.yaml");
    BadInputTest.assertBadInput(CliRunner.run("sweep", g.toString(), "-o", other.toString()), "is the grid file");
    assertThat(Files.readString(g)).isEqualTo(grid);
    assertThat(dir.toFile().list()).containsExactly("grid.yaml");
  }

  @Test
  void aGoodRun_replacesTheFileWhole_andLeavesNoTemporaryFile() throws IOException {
    Path out = dir.resolve("r.csv");
    Files.writeString(out, OLD);
    CliRunner r = sweep("-o", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    List<String> lines = Files.readAllLines(out);
    assertThat(lines).hasSize(1 + 3); // the header and one row per batch size
    assertThat(lines.get(0)).isEqualTo(String.join(",", SweepRows.COLUMNS));
    assertThat(files()).containsExactly("r.csv");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(out))).startsWith("rw-r--r--".substring(0, 4));
    // the same rows as on standard output
    assertThat(Files.readString(out)).isEqualTo(sweep().out());
  }
}
