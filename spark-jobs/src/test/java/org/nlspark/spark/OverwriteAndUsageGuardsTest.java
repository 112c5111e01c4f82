package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --overwrite never replaces the inputs; a usage mistake is exit 2 and loses nothing. */
class OverwriteAndUsageGuardsTest {
  @TempDir Path dir;
  Path x;

  @BeforeEach
  void data() {
    x = TestData.matrix(dir, "x.npy", 6, 20, TestData.gaussian(1, 6, 20, 0));
  }

  @Test
  void overwriteNeverReplacesADirectoryHoldingTheInputs() throws IOException {
    Path keep = dir.resolve("precious.txt");
    Files.writeString(keep, "keep me");
    CliRun r = CliRun.of("bootstrap", "--input", x.toString(), "--output", dir.toString(),
        "--samples", "10", "--overwrite");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--output").contains("contains the input");
    assertThat(x).exists();
    assertThat(keep).exists();
  }

  @Test
  void overwriteReplacesAnOldResultDirectory() throws IOException {
    Path out = dir.resolve("out");
    assertThat(CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "20").code()).isZero();
    Files.writeString(out.resolve("stale.txt"), "old");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "20", "--overwrite");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(out.resolve("p.npy")).exists();
    // a file no nlspark run wrote is never touched (DESIGN §6)
    assertThat(out.resolve("stale.txt")).hasContent("old");
    try (var s = Files.list(out)) {
      assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("."));
    }
  }

  @Test
  void anUnparsableMasterIsAUsageError() {
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output",
        dir.resolve("o").toString(), "--master", "bogus://x");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--master").contains("bogus://x");
  }

  @Test
  void anOutputUnderAFileIsAUsageErrorBeforeComputing() {
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output",
        x.resolve("sub").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("is a file, not a directory");
  }

  @Test
  void aFlagGivenTwiceIsRefused() {
    CliRun r = CliRun.of("one-sample", "--input", "nope.npy", "--input", x.toString(),
        "--output", dir.resolve("o").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("--input was given twice");
  }

  @Test
  void moreRequestedPartitionsThanTilesRunAsOnePerTile() throws IOException {
    Path out = dir.resolve("parts");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "20", "--partitions", "100000");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.readString(out.resolve("summary.json"))).contains("\"partitions\": 1");
  }

  @Test
  void timeSeriesCommandChecksItsOptionsBeforeSpark() {
    Path y = TestData.vector(dir, "y.npy", TestData.gaussian(2, 1, 6, 0));
    CliRun parts = CliRun.of("timeseries-correlation", "--input", x.toString(), "--target",
        y.toString(), "--output", dir.resolve("t").toString(), "--partitions", "0");
    assertThat(parts.code()).isEqualTo(2);
    assertThat(parts.err()).contains("--partitions");
    CliRun budget = CliRun.of("timeseries-correlation", "--input", x.toString(), "--target",
        y.toString(), "--output", dir.resolve("t").toString(), "--memory-budget-gb", "-5");
    assertThat(budget.code()).isEqualTo(2);
    assertThat(budget.err()).contains("--memory-budget-gb");
  }
}
