package org.nlspark.core.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;

class NpyReaderTest {
  @TempDir Path dir;

  private static NpyArray read(byte[] file, int expectedRank) {
    return NpyReader.read(new ByteArrayInputStream(file), file.length, "x.npy", expectedRank);
  }

  private static byte[] f64File(long[] shape, double[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    NpyWriter.writeFloat64(out, shape, data);
    return out.toByteArray();
  }

  private static byte[] f32File(long[] shape, float[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    NpyWriter.writeFloat32(out, shape, data);
    return out.toByteArray();
  }

  private static double[] randomDoubles(int n, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] d = new double[n];
    for (int i = 0; i < n; i++) {
      d[i] = (r.nextDouble() - 0.5) * Math.pow(10, r.nextInt(-30, 30));
    }
    return d;
  }

  /** Hands out at most 7 bytes per read, as network streams may. */
  private static InputStream trickle(byte[] bytes) {
    return new FilterInputStream(new ByteArrayInputStream(bytes)) {
      private int call;

      @Override
      public int read(byte[] b, int off, int len) throws IOException {
        return super.read(b, off, Math.min(len, 1 + (call++ % 7)));
      }
    };
  }

  @Test
  void readsWhatNumpyWrites() {
    NpyArray m = read(NpyBytes.base64(NpyBytes.NUMPY_F8_3X2), 2);
    assertThat(m.dtype()).isEqualTo(NpyDtype.FLOAT64);
    assertThat(m.shape()).containsExactly(3, 2);
    assertThat(m.rank()).isEqualTo(2);
    assertThat(m.dim(0)).isEqualTo(3);
    assertThat(m.dim(1)).isEqualTo(2);
    assertThat(m.data()).containsExactly(0, 1, 2, 3, 4, 5);

    NpyArray v = read(NpyBytes.base64(NpyBytes.NUMPY_F4_4), 1);
    assertThat(v.dtype()).isEqualTo(NpyDtype.FLOAT32);
    assertThat(v.data()).containsExactly(1.5, -2.25, 0, (double) 3e38f);

    NpyArray cube = read(NpyBytes.base64(NpyBytes.NUMPY_F8_2X3X4), 3);
    assertThat(cube.shape()).containsExactly(2, 3, 4);
    for (int i = 0; i < 24; i++) {
      assertThat(cube.data()[i]).isEqualTo(i);
    }

    assertThat(read(NpyBytes.base64(NpyBytes.NUMPY_F8_0X5), 2).data()).isEmpty();
    NpyArray scalar = read(NpyBytes.base64(NpyBytes.NUMPY_F8_SCALAR), 0);
    assertThat(scalar.rank()).isZero();
    assertThat(scalar.data()).containsExactly(7.0);
  }

  @Test
  void readsHandBuiltHeadersWithOddSpacingAndVersion2() {
    byte[] v2 =
        NpyBytes.file(
            2, "{'shape': (2, 2), 'descr': '<f8', 'fortran_order': False}", NpyBytes.f8(1, 2, 3, 4));
    assertThat(read(v2, 2).data()).containsExactly(1, 2, 3, 4);
  }

  @Test
  void roundTripsFloat64InEveryRankThroughStreamsAndFiles() {
    long[][] shapes = {{17}, {5, 9}, {3, 4, 6}, {0}, {0, 7}, {7, 0}, {2, 0, 3}};
    for (long[] shape : shapes) {
      int n = (int) Arrays.stream(shape).reduce(1, (a, b) -> a * b);
      double[] data = randomDoubles(n, shape.length * 31L + n);
      byte[] file = f64File(shape, data);
      NpyArray back = read(file, shape.length);
      assertThat(back.shape()).containsExactly(shape);
      assertThat(back.data()).containsExactly(data);
      assertThat(back.dtype()).isEqualTo(NpyDtype.FLOAT64);

      Path path = dir.resolve("a" + Arrays.toString(shape) + ".npy");
      NpyWriter.writeFloat64(path, shape, data);
      assertThat(NpyReader.read(path, 0)).isEqualTo(back);
    }
  }

  @Test
  void roundTripsFloat32ExactlyWidened() {
    long[][] shapes = {{11}, {4, 5}, {2, 3, 2}, {0, 3}};
    for (long[] shape : shapes) {
      int n = (int) Arrays.stream(shape).reduce(1, (a, b) -> a * b);
      double[] wide = randomDoubles(n, 7 + n);
      float[] data = new float[n];
      for (int i = 0; i < n; i++) {
        data[i] = (float) wide[i];
      }
      NpyArray back = read(f32File(shape, data), shape.length);
      assertThat(back.dtype()).isEqualTo(NpyDtype.FLOAT32);
      assertThat(back.shape()).containsExactly(shape);
      for (int i = 0; i < n; i++) {
        assertThat(back.data()[i]).isEqualTo((double) data[i]);
      }
    }
  }

  @Test
  void keepsSpecialFiniteValuesBitExact() {
    double[] data = {-0.0, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MIN_NORMAL, 1e-310};
    NpyArray back = read(f64File(new long[] {5}, data), 1);
    for (int i = 0; i < data.length; i++) {
      assertThat(Double.doubleToRawLongBits(back.data()[i]))
          .isEqualTo(Double.doubleToRawLongBits(data[i]));
    }
  }

  @Test
  void readsAcrossChunkBoundariesFromAStreamThatReturnsFewBytes() {
    int rows = 3 * NpyReader.CHUNK_BYTES / 8 / 7 + 1; // 7 columns; ends mid-chunk
    int n = rows * 7;
    double[] data = randomDoubles(n, 42);
    byte[] file = f64File(new long[] {rows, 7}, data);
    NpyArray back = NpyReader.read(trickle(file), file.length, "x.npy", 2);
    assertThat(back.data()).containsExactly(data);

    float[] small = new float[n];
    for (int i = 0; i < n; i++) {
      small[i] = (float) data[i];
    }
    byte[] f32 = f32File(new long[] {n}, small);
    double[] back32 = NpyReader.read(trickle(f32), f32.length, "x.npy", 1).data();
    for (int i = 0; i < n; i++) {
      assertThat(back32[i]).isEqualTo((double) small[i]);
    }
  }

  @Test
  void missingFile() {
    Path missing = dir.resolve("nope.npy");
    assertThatThrownBy(() -> NpyReader.read(missing, 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read " + missing + ": the file does not exist; check the --input path");
  }

  @Test
  void directoryInsteadOfFile() {
    assertThatThrownBy(() -> NpyReader.read(dir, 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read " + dir + ": it is a directory, not an .npy file");
  }

  @Test
  void notAnNpyFile() throws IOException {
    Path csv = dir.resolve("x.csv");
    Files.writeString(csv, "1,2,3\n4,5,6\n");
    assertThatThrownBy(() -> NpyReader.read(csv, 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot read " + csv + ": not an .npy file");
  }

  @Test
  void truncatedData() {
    byte[] whole = NpyBytes.base64(NpyBytes.NUMPY_F8_3X2);
    byte[] cut = Arrays.copyOf(whole, whole.length - 3);
    assertThatThrownBy(() -> read(cut, 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: its header declares shape (3, 2) of <f8, which needs 128 + 48 ="
                + " 176 bytes, but the file has 173 bytes; the file is truncated or its header is"
                + " corrupt");
  }

  @Test
  void trailingBytesBeyondTheDeclaredShape() {
    byte[] whole = NpyBytes.base64(NpyBytes.NUMPY_F8_3X2);
    byte[] longer = Arrays.copyOf(whole, whole.length + 8);
    assertThatThrownBy(() -> read(longer, 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("needs 128 + 48 = 176 bytes, but the file has 184 bytes");
  }

  @Test
  void hostileShapeInASmallFileFailsBeforeReadingData() {
    byte[] file =
        NpyBytes.file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }\n",
            new byte[1024]);
    int headerEnd = file.length - 1024;
    int[] consumed = {0};
    InputStream counting =
        new FilterInputStream(new ByteArrayInputStream(file)) {
          @Override
          public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            consumed[0] += Math.max(n, 0);
            return n;
          }

          @Override
          public int read() throws IOException {
            int c = super.read();
            consumed[0] += c < 0 ? 0 : 1;
            return c;
          }
        };
    assertThatThrownBy(() -> NpyReader.read(counting, file.length, "x.npy", 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: its header declares shape (1000000, 1000000) of <f8, which needs "
                + headerEnd
                + " + 8000000000000 = "
                + (headerEnd + 8000000000000L)
                + " bytes, but the file has "
                + file.length
                + " bytes; the file is truncated or its header is corrupt");
    assertThat(consumed[0]).isEqualTo(headerEnd);
  }

  @Test
  void shapeWhoseByteCountOverflows() {
    byte[] file =
        NpyBytes.file(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }\n",
            new byte[0]);
    assertThatThrownBy(() -> read(file, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            "which needs more than 9223372036854775807 bytes of data, but the file has");
  }

  @Test
  void moreValuesThanAJavaArrayHolds() {
    long n = 1L << 31;
    byte[] header =
        NpyBytes.file(
            "{'descr': '<f4', 'fortran_order': False, 'shape': (" + n + ",), }\n", new byte[0]);
    // The size agrees with the header; the stream holds only the header, never read further.
    long fileSize = header.length + 4 * n;
    assertThatThrownBy(
            () -> NpyReader.read(new ByteArrayInputStream(header), fileSize, "big.npy", 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read big.npy: shape (2147483648,) holds 2147483648 values, more than the"
                + " 2147483639 one Java array can hold; split the input into smaller files");
  }

  @Test
  void streamShorterThanTheStatedFileSize() {
    byte[] whole = NpyBytes.base64(NpyBytes.NUMPY_F8_3X2);
    byte[] cut = Arrays.copyOf(whole, 150);
    assertThatThrownBy(
            () -> NpyReader.read(new ByteArrayInputStream(cut), whole.length, "x.npy", 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: the data ended after 150 bytes, but the file size is 176 bytes;"
                + " the file is truncated or changed while being read");
  }

  @Test
  void streamLongerThanTheStatedFileSize() {
    byte[] whole = NpyBytes.base64(NpyBytes.NUMPY_F8_3X2);
    byte[] longer = Arrays.copyOf(whole, whole.length + 1);
    assertThatThrownBy(
            () -> NpyReader.read(new ByteArrayInputStream(longer), whole.length, "x.npy", 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: the file has more bytes than its size of 176 bytes;"
                + " it changed while being read");
  }

  @Test
  void wrongDtypeThroughTheReader() {
    byte[] ints = NpyBytes.file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,)}", new byte[16]);
    assertThatThrownBy(() -> read(ints, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("but was: '<i8' (int64)");
    byte[] big =
        NpyBytes.file("{'descr': '>f8', 'fortran_order': False, 'shape': (2,)}", new byte[16]);
    assertThatThrownBy(() -> read(big, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("dtype '>f8' is big-endian");
    byte[] fortran =
        NpyBytes.file("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 1)}", new byte[16]);
    assertThatThrownBy(() -> read(fortran, 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Fortran (column-major) order");
  }

  @Test
  void wrongRank() {
    byte[] vector = NpyBytes.base64(NpyBytes.NUMPY_F4_4);
    assertThatThrownBy(() -> read(vector, 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "x.npy must be a 2-D array (n_samples, n_voxels), but its shape was: (4,) (1-D);"
                + " reshape it before numpy.save");
    byte[] matrix = NpyBytes.base64(NpyBytes.NUMPY_F8_3X2);
    assertThatThrownBy(() -> read(matrix, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "x.npy must be a 1-D array (n_samples,), but its shape was: (3, 2) (2-D);"
                + " reshape it before numpy.save");
    assertThatThrownBy(() -> read(matrix, 3))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith(
            "x.npy must be a 3-D array (subjects, time, voxels), but its shape was: (3, 2)");
    assertThatThrownBy(() -> read(matrix, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] expectedRank must be 0 (any), 1, 2 or 3, but was: 4");
  }

  @Test
  void nonFiniteValuesInAMatrixReportCountAndFirstCell() {
    double[] data = new double[12];
    Arrays.fill(data, 1.0);
    data[1 * 4 + 2] = Double.NaN;
    data[2 * 4 + 0] = Double.POSITIVE_INFINITY;
    assertThatThrownBy(() -> read(f64File(new long[] {3, 4}, data), 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: 2 values are NaN or infinite (the first at row 1, column 2"
                + " (0-based), value NaN); nlspark needs finite values, so replace or mask them"
                + " before numpy.save");
  }

  @Test
  void nonFiniteValuesInVectorsAndCubes() {
    float[] v = {1, 2, 3, 4, 5, Float.NEGATIVE_INFINITY, 7};
    assertThatThrownBy(() -> read(f32File(new long[] {7}, v), 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            "1 value is NaN or infinite (the first at index 5 (0-based), value -Infinity)");
    double[] cube = new double[2 * 3 * 4];
    cube[1 * 12 + 2 * 4 + 3] = Double.NaN;
    assertThatThrownBy(() -> read(f64File(new long[] {2, 3, 4}, cube), 3))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("1 value is NaN or infinite (the first at index (1, 2, 3) (0-based)");
  }

  @Test
  void countsNonFiniteValuesAcrossChunksLikeABruteForceScan() {
    int n = 5 * NpyReader.CHUNK_BYTES / 8 + 3;
    SplittableRandom r = new SplittableRandom(3);
    double[] data = new double[n];
    for (int i = 0; i < n; i++) {
      int k = r.nextInt(1000);
      data[i] = k == 0 ? Double.NaN : k == 1 ? Double.NEGATIVE_INFINITY : r.nextDouble();
    }
    long expected = Arrays.stream(data).filter(x -> !Double.isFinite(x)).count();
    int first = 0;
    while (Double.isFinite(data[first])) {
      first++;
    }
    int cols = 7;
    int rows = n / cols;
    double[] rect = Arrays.copyOf(data, rows * cols);
    long expectedRect = Arrays.stream(rect).filter(x -> !Double.isFinite(x)).count();
    assertThat(expected).isGreaterThan(1);
    assertThatThrownBy(() -> read(f64File(new long[] {rows, cols}, rect), 2))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(
            expectedRect
                + " values are NaN or infinite (the first at row "
                + first / cols
                + ", column "
                + first % cols
                + " (0-based)");
  }

  @Test
  void arrayRecordChecksItsShapeAndCopiesIt() {
    assertThatThrownBy(() -> new NpyArray(NpyDtype.FLOAT64, new long[] {2, 3}, new double[5]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] shape (2, 3) holds 6 values, but data has 5");
    long[] shape = {2, 1};
    NpyArray a = new NpyArray(NpyDtype.FLOAT32, shape, new double[] {1, 2});
    shape[0] = 7;
    a.shape()[1] = 9;
    assertThat(a.shape()).containsExactly(2, 1);
    assertThatThrownBy(() -> a.dim(2))
        .isInstanceOf(IndexOutOfBoundsException.class)
        .hasMessage("dimension must be in [0, 2), but was: 2");
  }
}
