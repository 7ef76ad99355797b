package llmsim.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReportFolderTest {
  @TempDir Path dir;

  List<String> files() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  void run(String kind, String... names) throws IOException {
    try (ReportFolder f = ReportFolder.open(dir, kind)) {
      for (String n : names) {
        f.writeString(n, kind + " " + n);
      }
      f.commit();
    }
  }

  @Test
  void aSecondRunOfTheSameKind_removesWhatTheFirstWroteAndItDidNot() throws IOException {
    Files.writeString(dir.resolve("notes.txt"), "mine");
    run("report", "timeline-a.png", "timeline-b.png", "report.html");
    try (ReportFolder f = ReportFolder.open(dir, "report")) {
      f.writeString("timeline.png", "one system");
      f.writeString("report.html", "second");
      assertThat(f.commit()).containsExactlyInAnyOrder(dir.resolve("timeline-a.png"), dir.resolve("timeline-b.png"));
    }
    assertThat(files()).containsExactly(ReportFolder.MANIFEST, "notes.txt", "report.html", "timeline.png");
    assertThat(Files.readString(dir.resolve("report.html"))).isEqualTo("second");
    assertThat(Files.readString(dir.resolve("notes.txt"))).isEqualTo("mine"); // never written by llmsim: kept
  }

  @Test
  void anotherKind_leavesTheFirstKindsFilesAlone() throws IOException {
    run("report", "roofline-a.png", "report.html");
    run("validate", "validation.png");
    run("report", "report.html");
    assertThat(files()).containsExactly(ReportFolder.MANIFEST, "report.html", "validation.png");
    assertThat(Files.readAllLines(dir.resolve(ReportFolder.MANIFEST)))
        .containsExactly("report\treport.html", "validate\tvalidation.png");
  }

  @Test
  void closingWithoutACommit_leavesTheFolderAsItWas() throws IOException {
    run("report", "report.html");
    try (ReportFolder f = ReportFolder.open(dir, "report")) {
      f.writeString("report.html", "half");
      f.writeString("memory.png", "half");
      assertThat(files()).hasSize(2 + 2); // the two staged under hidden temporary names
    }
    assertThat(files()).containsExactly(ReportFolder.MANIFEST, "report.html");
    assertThat(Files.readString(dir.resolve("report.html"))).isEqualTo("report report.html");
  }

  @Test
  void aManifestLineOutsideTheFolder_isIgnored() throws IOException {
    Path outside = Files.writeString(dir.resolveSibling(dir.getFileName() + "-victim.txt"), "keep");
    try {
      Files.writeString(dir.resolve(ReportFolder.MANIFEST), "report\t../" + outside.getFileName() + "\nreport\t.hidden\n");
      run("report", "report.html");
      assertThat(outside).hasContent("keep");
    } finally {
      Files.deleteIfExists(outside);
    }
  }

  @Test
  void aNameWithAFolder_isRefused() {
    ReportFolder f = ReportFolder.open(dir, "report");
    assertThatThrownBy(() -> f.writeString("../x.png", "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> f.writeString(".x.png", "")).isInstanceOf(IllegalArgumentException.class);
  }
}
