package org.nlspark.core.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The expected bytes are numpy's own output (see {@link NpyBytes}), not this writer's. */
class NpyWriterTest {
  @TempDir Path dir;

  private static byte[] f64(long[] shape, double[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    NpyWriter.writeFloat64(out, shape, data);
    return out.toByteArray();
  }

  private static double[] iota(int n) {
    double[] d = new double[n];
    for (int i = 0; i < n; i++) {
      d[i] = i;
    }
    return d;
  }

  @Test
  void float64MatrixMatchesNumpyByteForByte() {
    assertThat(f64(new long[] {3, 2}, iota(6)))
        .isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F8_3X2));
  }

  @Test
  void float32VectorMatchesNumpyByteForByte() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    NpyWriter.writeFloat32(out, new long[] {4}, new float[] {1.5f, -2.25f, 0f, 3e38f});
    assertThat(out.toByteArray()).isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F4_4));
  }

  @Test
  void cubeScalarAndEmptyArraysMatchNumpyByteForByte() {
    assertThat(f64(new long[] {2, 3, 4}, iota(24)))
        .isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F8_2X3X4));
    assertThat(f64(new long[] {}, new double[] {7.0}))
        .isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F8_SCALAR));
    assertThat(f64(new long[] {0, 5}, new double[0]))
        .isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F8_0X5));
    assertThat(f64(new long[] {12345678901L, 0}, new double[0]))
        .isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F8_LONG_AXIS_EMPTY));
  }

  @Test
  void alreadyAlignedHeaderGetsAFullBlockOfPaddingLikeNumpy() {
    long[] shape = {0, 10, 10, 10, 10, 10, 10, 10, 1000, 10000};
    byte[] bytes = f64(shape, new double[0]);
    assertThat(bytes).hasSize(192).isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F8_ALIGNED_RANK10));
  }

  @Test
  void everyHeaderIsAlignedEndsInNewlineAndParsesBack() {
    SplittableRandom r = new SplittableRandom(11);
    for (int trial = 0; trial < 200; trial++) {
      int rank = r.nextInt(0, 9);
      long[] shape = new long[rank];
      for (int d = 0; d < rank; d++) {
        shape[d] = d == 0 ? 0 : r.nextLong(0, 1L << (1 + r.nextInt(20)));
      }
      if (rank == 0) {
        shape = new long[] {};
      }
      int n = rank == 0 ? 1 : 0;
      byte[] bytes = f64(shape, new double[n]);
      NpyHeader h = NpyHeader.parse(new ByteArrayInputStream(bytes), "t.npy");
      assertThat(h.dataOffset() % 64).as(Arrays.toString(shape)).isZero();
      assertThat(bytes[h.dataOffset() - 1]).isEqualTo((byte) '\n');
      assertThat(h.shape()).containsExactly(shape);
      assertThat(bytes).hasSize(h.dataOffset() + 8 * n);
      String text =
          new String(bytes, 10, h.dataOffset() - 10, StandardCharsets.ISO_8859_1);
      assertThat(text).startsWith("{'descr': '<f8', 'fortran_order': False, 'shape': (");
    }
  }

  @Test
  void writesFilesThatReadBack() throws IOException {
    Path path = dir.resolve("m.npy");
    NpyWriter.writeFloat64(path, new long[] {3, 2}, iota(6));
    assertThat(Files.readAllBytes(path)).isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F8_3X2));
    // Overwrites an existing file completely.
    NpyWriter.writeFloat64(path, new long[] {1}, new double[] {2.5});
    assertThat(NpyReader.read(path, 1).data()).containsExactly(2.5);
    Path p32 = dir.resolve("v.npy");
    NpyWriter.writeFloat32(p32, new long[] {4}, new float[] {1.5f, -2.25f, 0f, 3e38f});
    assertThat(Files.readAllBytes(p32)).isEqualTo(NpyBytes.base64(NpyBytes.NUMPY_F4_4));
  }

  @Test
  void rejectsShapeThatDoesNotMatchTheData() {
    assertThatThrownBy(() -> f64(new long[] {3, 2}, new double[5]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] Cannot write .npy: shape (3, 2) holds 6 values, but the data has 5");
    assertThatThrownBy(() -> f64(new long[] {3, -2}, new double[0]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] Cannot write .npy: dimensions must be >= 0, but shape was: (3, -2)");
    assertThatThrownBy(() -> f64(new long[] {1L << 20, 1L << 20}, new double[1]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "[BUG] Cannot write .npy: shape (1048576, 1048576) holds more values than a Java"
                + " array, but the data has 1");
  }
}
