package org.nlspark.spark.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.Json;
import org.nlspark.spark.output.HadoopOutput.OutputDir;

/**
 * {@link ResultCopy} (Python's Result.write): the copy is a run's output directory, byte for
 * byte, and its summary.json lists exactly the files copied, so that a later --overwrite
 * replaces them and nothing else.
 */
class ResultCopyTest {
  @TempDir Path tmp;
  final Configuration conf = new Configuration();

  void run(Path out, boolean overwrite, double v, String... outputs) {
    try (OutputDir d = OutputDir.open(conf, out.toString(), overwrite)) {
      for (String name : outputs) {
        d.writeNpy(name, new long[] {1}, new double[] {v});
      }
      d.writeJson("summary.json", Map.of("command", "test", "run", v));
      d.commit();
    }
  }

  static byte[] bytes(Path p) throws IOException {
    return Files.readAllBytes(p);
  }

  @Test
  void aCopyIsTheRunByteForByteReportIncluded() throws IOException {
    Path src = tmp.resolve("src");
    run(src, false, 1, "p.npy", "observed.npy");
    Files.writeString(src.resolve("report.html"), "<html>1</html>");
    Path dst = tmp.resolve("dst");
    ResultCopy.copy(conf, src.toString(), dst.toString(), false);
    assertThat(OutputDirTest.names(dst)).containsExactly("observed.npy", "p.npy", "report.html",
        "summary.json");
    for (String f : OutputDirTest.names(dst)) {
      assertThat(bytes(dst.resolve(f))).as(f).isEqualTo(bytes(src.resolve(f)));
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void aSummaryThatListsOtherFilesIsWrittenWithTheFilesCopied() throws IOException {
    Path src = tmp.resolve("src");
    run(src, false, 1, "p.npy");
    Files.write(src.resolve("extra.npy"), bytes(src.resolve("p.npy")));
    Path dst = tmp.resolve("dst");
    ResultCopy.copy(conf, src.toString(), dst.toString(), false);
    Map<String, Object> summary = (Map<String, Object>) Json.parse(
        Files.readString(dst.resolve("summary.json")));
    assertThat((List<Object>) summary.get("outputs"))
        .containsExactly("extra.npy", "p.npy", "summary.json");
    assertThat(summary).containsEntry("command", "test").containsEntry("run", 1.0);
    // a later run over the copy replaces extra.npy too: nothing stale stays
    run(dst, true, 2, "p.npy");
    assertThat(OutputDirTest.names(dst)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void anEarlierReportGoesWhenTheCopyHasNone() throws IOException {
    Path first = tmp.resolve("first");
    run(first, false, 1, "p.npy");
    Files.writeString(first.resolve("report.html"), "<html>1</html>");
    Path second = tmp.resolve("second");
    run(second, false, 2, "p.npy");
    Path dst = tmp.resolve("dst");
    ResultCopy.copy(conf, first.toString(), dst.toString(), false);
    ResultCopy.copy(conf, second.toString(), dst.toString(), true);
    assertThat(OutputDirTest.names(dst)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void aDirectoryInTheWayIsNamedAndNothingIsReplaced() throws IOException {
    Path first = tmp.resolve("first");
    run(first, false, 1, "p.npy", "observed.npy");
    Path second = tmp.resolve("second");
    run(second, false, 2, "p.npy", "observed.npy");
    Path dst = tmp.resolve("dst");
    ResultCopy.copy(conf, first.toString(), dst.toString(), false);
    Files.delete(dst.resolve("p.npy"));
    Files.createDirectory(dst.resolve("p.npy"));
    byte[] observed = bytes(dst.resolve("observed.npy"));
    assertThatThrownBy(() -> ResultCopy.copy(conf, second.toString(), dst.toString(), true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("p.npy there is a directory");
    assertThat(bytes(dst.resolve("observed.npy"))).isEqualTo(observed);
    assertThat(Files.isDirectory(dst.resolve("p.npy"))).isTrue();
  }

  @Test
  void aDirectoryWithoutSummaryIsNotAResult() throws IOException {
    Path src = Files.createDirectories(tmp.resolve("src"));
    Files.writeString(src.resolve("p.npy"), "x");
    assertThatThrownBy(() -> ResultCopy.copy(conf, src.toString(), tmp.resolve("d").toString(),
        false)).isInstanceOf(InvalidInputException.class).hasMessageContaining("no summary.json");
    assertThat(Files.exists(tmp.resolve("d"))).isFalse();
  }
}
