package org.nlspark.spark.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.io.NpyWriter;

/**
 * Inputs that would hang, mislead or exhaust the heap are refused before their data is read:
 * FIFOs, symlink loops, dangling links, arrays larger than the heap (from the header of a
 * sparse file), unknown schemes and missing connectors against the right flag, colons in names.
 */
class InputFileChecksTest {
  @TempDir Path tmp;
  final Configuration conf = new Configuration();

  @Test
  void aFifoIsRefusedWithoutOpeningIt() throws Exception {
    Path fifo = tmp.resolve("x.npy");
    assertThat(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor()).isZero();
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(10), () ->
        assertThatThrownBy(() -> NpyInputs.readMatrix(conf, fifo.toString(), "--input"))
            .isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("--input").hasMessageContaining("not a regular file"));
  }

  @Test
  void aSymlinkLoopIsNamedAsSuch() throws IOException {
    Path loop = Files.createSymbolicLink(tmp.resolve("a.npy"), tmp.resolve("b.npy"));
    Files.createSymbolicLink(tmp.resolve("b.npy"), loop);
    assertThatThrownBy(() -> NpyInputs.readVector(conf, loop.toString(), "--target"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--target").hasMessageContaining("symlink loop");
  }

  @Test
  void aDanglingLinkAndAMissingFileAreTold() throws IOException {
    Path dangling = Files.createSymbolicLink(tmp.resolve("d.npy"), tmp.resolve("gone.npy"));
    assertThatThrownBy(() -> NpyInputs.readVector(conf, dangling.toString(), "--input2"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("does not exist");
    assertThatThrownBy(() -> NpyInputs.readVector(conf, tmp.resolve("no.npy").toString(),
        "--input")).isInstanceOf(InvalidInputException.class).hasMessageContaining("no such file");
  }

  @Test
  void aDirectoryIsNotAnNpy() {
    assertThatThrownBy(() -> NpyInputs.readVector(conf, tmp.toString(), "--input"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("directory");
  }

  @Test
  void anArrayLargerThanTheHeapIsRefusedFromItsHeader() throws IOException {
    long max = Runtime.getRuntime().maxMemory();
    long cols = 1000;
    long rows = Math.min((max / 8) / cols * 2 + 1, (Integer.MAX_VALUE - 8) / cols);
    org.junit.jupiter.api.Assumptions.assumeTrue(rows * cols * 8 > max,
        "heap too large for a sparse-file test");
    Path big = tmp.resolve("big.npy");
    String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + rows + ", " + cols
        + "), }";
    int total = 10 + dict.length() + 1;
    int pad = (64 - total % 64) % 64;
    byte[] header = new byte[10 + dict.length() + pad + 1];
    header[0] = (byte) 0x93;
    System.arraycopy("NUMPY".getBytes(StandardCharsets.US_ASCII), 0, header, 1, 5);
    header[6] = 1;
    int len = dict.length() + pad + 1;
    header[8] = (byte) (len & 0xff);
    header[9] = (byte) (len >> 8);
    byte[] d = (dict + " ".repeat(pad) + "\n").getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(d, 0, header, 10, d.length);
    try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
      f.write(header);
      f.setLength(header.length + rows * cols * 8); // sparse: nothing is written
    }
    long t0 = System.nanoTime();
    assertThatThrownBy(() -> NpyInputs.readMatrix(conf, big.toString(), "--input"))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("(" + rows + ", " + cols + ")")
        .hasMessageContaining("-Xmx");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(5.0);
  }

  @Test
  void aColonInAnInputNameIsJustACharacter() {
    Path p = tmp.resolve("scan:1.npy");
    NpyWriter.writeFloat64(p, new long[] {2, 3}, new double[] {1, 2, 3, 4, 5, 6});
    assertThat(NpyInputs.readMatrix(conf, p.toString(), "--input").rows()).isEqualTo(2);
    Path relative = Path.of("").toAbsolutePath().relativize(p);
    assertThat(NpyInputs.readMatrix(conf, relative.toString(), "--input").rows()).isEqualTo(2);
  }

  @Test
  void anUnknownSchemeIsBlamedOnItsOwnFlag() {
    assertThatThrownBy(() -> NpyInputs.readVector(conf, "nosuch://b/y.npy", "--target"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--target nosuch://b/y.npy").hasMessageContaining("'nosuch'");
  }

  @Test
  void aMissingConnectorNamesTheJar() {
    assertThatThrownBy(() -> NpyInputs.readVector(conf, "s3a://bucket/y.npy", "--input"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("hadoop-aws");
    assertThatThrownBy(() -> NpyInputs.readVector(conf, "gs://bucket/y.npy", "--input"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("gcs-connector");
  }

  @Test
  void aRefusedHdfsConnectionIsAUsageError() {
    Configuration fast = new Configuration();
    fast.setInt("ipc.client.connect.max.retries", 0);
    fast.setInt("ipc.client.connect.max.retries.on.timeouts", 0);
    org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(Duration.ofSeconds(60), () ->
        assertThatThrownBy(() -> NpyInputs.readVector(fast, "hdfs://127.0.0.1:1/y.npy",
            "--input")).isInstanceOf(InvalidInputException.class)
            .hasMessageContaining("connection refused"));
  }

  @Test
  void environmentErrorsMapToExitTwoOrThree() {
    assertThat(UserPaths.environment(new IOException("No space left on device"), "write",
        "--output", "/o")).isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("full");
    assertThat(UserPaths.environment(new java.nio.file.FileSystemException("/o", null,
        "Read-only file system"), "write", "--output", "/o"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("read-only");
    assertThat(UserPaths.environment(new IOException("weird"), "write", "--output", "/o"))
        .isInstanceOf(java.io.UncheckedIOException.class);
  }
}
