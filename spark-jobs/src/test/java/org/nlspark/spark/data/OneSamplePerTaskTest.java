package org.nlspark.spark.data;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.NpySamples;
import org.nlspark.core.data.SampleSource;
import org.nlspark.spark.io.HadoopOpener;

/**
 * The ingest floor (DESIGN §3.5): every reading task holds at least one sample of every voxel
 * about three times over (28 bytes a voxel from a float64 source), so an executor whose slots
 * times that exceed its heap less Spark's reserved memory is refused before anything is read,
 * naming the heap that would do; the same input on a heap that holds the floor passes.
 */
class OneSamplePerTaskTest {
  @TempDir Path dir;

  @Test
  void aSampleWiderThanTheHeapAllowsIsRefusedFromTheHeader() throws IOException {
    Path npy = dir.resolve("wide.npy");
    int rows = 40;
    int cols = 10_000_000;
    String d = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + rows + ", " + cols
        + "), }";
    int pad = (64 - (10 + d.length() + 1) % 64) % 64;
    try (RandomAccessFile f = new RandomAccessFile(npy.toFile(), "rw")) {
      byte[] magic = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
      f.write(magic);
      int len = d.length() + pad + 1;
      f.write(new byte[] {(byte) len, (byte) (len >> 8)});
      f.write((d + " ".repeat(pad) + "\n").getBytes(StandardCharsets.US_ASCII));
      f.setLength(f.getFilePointer() + (long) rows * cols * 8); // sparse: never read here
    }
    SampleSource.Opener files = new HadoopOpener(new Configuration());
    DistributedInputs inputs = DistributedInputs.of(
        NpySamples.describe(files, npy.toString(), "--input wide.npy", 64L << 20));
    long mib = 1L << 20;
    // 2 slots x 10M voxels x 28 bytes = 534 MiB > 600 - 300 MiB
    assertThatThrownBy(() -> VoxelBlocks.requireOneSamplePerTask(inputs, 600 * mib, 300 * mib,
        2, "NLSPARK_JAVA_OPTS"))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessage("Cannot read --input wide.npy into voxel blocks: each task reads at least"
            + " one sample of 10000000 voxels, about 267 MiB with its copies, and the 2 tasks an"
            + " executor runs at once need 534 MiB, beyond the 300 MiB its heap of 600 MiB"
            + " leaves after Spark's reserved 300 MiB; a heap of at least 835 MiB would do"
            + " (NLSPARK_JAVA_OPTS)");
    assertThatCode(() -> VoxelBlocks.requireOneSamplePerTask(inputs, 835 * mib, 300 * mib, 2,
        "x")).doesNotThrowAnyException();
    assertThatCode(() -> VoxelBlocks.requireOneSamplePerTask(inputs, 600 * mib, 300 * mib, 1,
        "x")).doesNotThrowAnyException(); // one slot: 267 MiB fit
  }
}
