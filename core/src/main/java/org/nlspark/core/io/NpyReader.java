package org.nlspark.core.io;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.FloatBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.nlspark.core.InvalidInputException;

/**
 * Reads whole {@code .npy} arrays and refuses bad input before it can do harm (DESIGN §6): the
 * header is validated by {@link NpyHeader#parse}, the declared size is checked against the file
 * size before anything is allocated (so a hostile shape in a small file fails at once), and
 * every value must be finite.
 *
 * <p>Data is read in fixed chunks and converted with little-endian {@link ByteBuffer} views, so
 * a 100 MB input costs one pass and one extra chunk of memory. Readers take an {@link
 * InputStream} plus the file size so that any file system (local, Hadoop) can supply them; the
 * stream is not closed.
 */
public final class NpyReader {
  /** Bytes converted per step; a multiple of 8 so no element straddles two chunks. */
  static final int CHUNK_BYTES = 1 << 16;

  /** The largest array the JVM allocates (some VMs reserve a few header words). */
  static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

  private NpyReader() {}

  /**
   * Reads a whole array from {@code in}, which must be positioned at the start of the file.
   *
   * @param fileSize the file's size in bytes, as reported by its file system
   * @param name the file's name or URI, used in messages
   * @param expectedRank 1, 2 or 3 to require that rank; 0 accepts any rank
   * @throws InvalidInputException if the file is not a valid float32/float64 C-order .npy of the
   *     expected rank whose size matches its header, or if any value is NaN or infinite
   * @throws UncheckedIOException when the stream itself fails
   */
  public static NpyArray read(InputStream in, long fileSize, String name, int expectedRank) {
    return read(in, fileSize, name, expectedRank, false);
  }

  /**
   * As {@link #read(InputStream, long, String, int)}, but NaN and infinite values are kept:
   * for nlspark's own outputs (a constant voxel has no t statistic), which are read back to be
   * drawn, never resampled.
   */
  public static NpyArray readOutput(InputStream in, long fileSize, String name,
      int expectedRank) {
    return read(in, fileSize, name, expectedRank, true);
  }

  private static NpyArray read(InputStream in, long fileSize, String name, int expectedRank,
      boolean nonFiniteAllowed) {
    NpyHeader header = header(in, fileSize, name, expectedRank);
    long[] shape = header.shape();
    long count = header.elementCount();
    if (count > MAX_ARRAY_LENGTH) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": shape "
              + NpyHeader.formatShape(shape)
              + " holds "
              + count
              + " values, more than the "
              + MAX_ARRAY_LENGTH
              + " one Java array can hold; split the input into smaller files");
    }
    double[] data = new double[(int) count];
    readData(in, header, data, fileSize, name, nonFiniteAllowed);
    return new NpyArray(header.dtype(), shape, data);
  }

  /**
   * Reads and checks the header only (rank, and the declared size against the file's), leaving
   * {@code in} at the first value: what a reader of row ranges needs before it plans.
   *
   * @throws InvalidInputException as {@link #read} for everything but the values
   */
  public static NpyHeader header(InputStream in, long fileSize, String name, int expectedRank) {
    if (expectedRank < 0 || expectedRank > 3) {
      throw new IllegalArgumentException(
          "[BUG] expectedRank must be 0 (any), 1, 2 or 3, but was: " + expectedRank);
    }
    if (fileSize < 0) {
      throw new IllegalArgumentException("[BUG] fileSize must be >= 0, but was: " + fileSize);
    }
    NpyHeader header = NpyHeader.parse(in, name);
    long[] shape = header.shape();
    if (expectedRank != 0 && shape.length != expectedRank) {
      throw new InvalidInputException(
          name
              + " must be a "
              + expectedRank
              + "-D array "
              + expectedLayout(expectedRank)
              + ", but its shape was: "
              + NpyHeader.formatShape(shape)
              + " ("
              + shape.length
              + "-D); reshape it before numpy.save");
    }
    long dataBytes = header.dataBytes();
    if (dataBytes < 0 || dataBytes != fileSize - header.dataOffset()) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": its header declares shape "
              + NpyHeader.formatShape(shape)
              + " of "
              + header.dtype().descr()
              + ", which needs "
              + (dataBytes < 0
                  ? "more than " + Long.MAX_VALUE + " bytes of data"
                  : header.dataOffset() + " + " + dataBytes + " = "
                      + (header.dataOffset() + dataBytes) + " bytes")
              + ", but the file has "
              + fileSize
              + " bytes; the file is truncated or its header is corrupt");
    }
    return header;
  }

  /**
   * Reads a local file; see {@link #read(InputStream, long, String, int)}.
   *
   * @throws InvalidInputException also when the file does not exist or is a directory
   */
  public static NpyArray read(Path path, int expectedRank) {
    String name = path.toString();
    if (Files.isDirectory(path)) {
      throw new InvalidInputException(
          "Cannot read " + name + ": it is a directory, not an .npy file");
    }
    try (InputStream in = Files.newInputStream(path)) {
      return read(in, Files.size(path), name, expectedRank);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException(
          "Cannot read " + name + ": the file does not exist; check the --input path", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  private static void readData(InputStream in, NpyHeader header, double[] data, long fileSize,
      String name, boolean nonFiniteAllowed) {
    boolean float32 = header.dtype() == NpyDtype.FLOAT32;
    int itemSize = header.dtype().itemSize();
    byte[] chunk = new byte[(int) Math.min(CHUNK_BYTES, (long) data.length * itemSize)];
    ByteBuffer bytes = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
    DoubleBuffer doubles = bytes.asDoubleBuffer();
    FloatBuffer floats = bytes.asFloatBuffer();
    float[] widen = float32 ? new float[chunk.length / 4] : null;
    long nonFinite = 0;
    long firstNonFinite = -1;
    int done = 0;
    try {
      while (done < data.length) {
        int n = Math.min(data.length - done, chunk.length / itemSize);
        int got = in.readNBytes(chunk, 0, n * itemSize);
        if (got < n * itemSize) {
          long have = header.dataOffset() + (long) done * itemSize + got;
          throw new InvalidInputException(
              "Cannot read "
                  + name
                  + ": the data ended after "
                  + have
                  + " bytes, but the file size is "
                  + fileSize
                  + " bytes; the file is truncated or changed while being read");
        }
        if (float32) {
          floats.clear();
          floats.get(widen, 0, n);
          for (int i = 0; i < n; i++) {
            data[done + i] = widen[i];
          }
        } else {
          doubles.clear();
          doubles.get(data, done, n);
        }
        for (int i = done; i < done + n; i++) {
          if (!Double.isFinite(data[i])) {
            if (nonFinite++ == 0) {
              firstNonFinite = i;
            }
          }
        }
        done += n;
      }
      if (in.read() != -1) {
        throw new InvalidInputException(
            "Cannot read "
                + name
                + ": the file has more bytes than its size of "
                + fileSize
                + " bytes; it changed while being read");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
    if (nonFinite > 0 && !nonFiniteAllowed) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": "
              + nonFinite
              + (nonFinite == 1 ? " value is" : " values are")
              + " NaN or infinite (the first "
              + position(header.shape(), firstNonFinite)
              + ", value "
              + data[(int) firstNonFinite]
              + "); nlspark needs finite values, so replace or mask them before numpy.save");
    }
  }

  /** "at row 3, column 7" for a matrix, "at index 4" for a vector, "at index (1, 2, 3)" else. */
  static String position(long[] shape, long flatIndex) {
    long[] index = new long[shape.length];
    long rest = flatIndex;
    for (int d = shape.length - 1; d >= 0; d--) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    switch (shape.length) {
      case 1:
        return "at index " + index[0] + " (0-based)";
      case 2:
        return "at row " + index[0] + ", column " + index[1] + " (0-based)";
      default:
        return "at index " + NpyHeader.formatShape(index) + " (0-based)";
    }
  }

  private static String expectedLayout(int rank) {
    switch (rank) {
      case 1:
        return "(n_samples,)";
      case 2:
        return "(n_samples, n_voxels)";
      default:
        return "(subjects, time, voxels)";
    }
  }
}
