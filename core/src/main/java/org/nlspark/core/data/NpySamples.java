package org.nlspark.core.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyDtype;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * The rows of a 2-D {@code .npy} (samples x voxels, C order) as a {@link SampleSource}: the
 * driver reads only the header; each split is a range of rows that an executor reads by seeking
 * to it, so no process reads the whole file. float32 files stay float32.
 */
public final class NpySamples implements SampleSource {
  private static final long serialVersionUID = 1L;

  private final String path;
  private final String name;
  private final boolean float32;
  private final int rows;
  private final int cols;
  private final long dataOffset;
  private final long fileSize;
  private final int rowsPerSplit;
  private final int rank;
  private final long[] shape;

  private NpySamples(String path, String name, boolean float32, int rows, int cols,
      long dataOffset, long fileSize, int rowsPerSplit, long[] shape) {
    this.rank = shape.length;
    this.shape = shape.clone();
    this.path = path;
    this.name = name;
    this.float32 = float32;
    this.rows = rows;
    this.cols = cols;
    this.dataOffset = dataOffset;
    this.fileSize = fileSize;
    this.rowsPerSplit = rowsPerSplit;
  }

  /**
   * Describes {@code path} from its header (checked against the file size before anything is
   * allocated, as {@link org.nlspark.core.io.NpyReader} does).
   *
   * @param name the flag and path for messages ("--input x.npy")
   * @param splitBytes about how many bytes one split reads (at least one row)
   */
  public static NpySamples describe(Opener files, String path, String name, long splitBytes) {
    return describe(files, path, name, splitBytes, 2);
  }

  /**
   * As {@link #describe(Opener, String, String, long)} for an array of {@code rank} 1, 2 or 3
   * whose last axis is the voxels: a 3-D (subjects, timepoints, voxels) series array is read as
   * its (subjects · timepoints) rows in C order, subject by subject; a 1-D array as one column.
   * Rank 0 takes the rank of the header (1, 2 or 3).
   */
  public static NpySamples describe(Opener files, String path, String name, long splitBytes,
      int rank) {
    if (rank < 0 || rank > 3) {
      throw new IllegalArgumentException("[BUG] rank must be 0, 1, 2 or 3, but was: " + rank);
    }
    NpyHeader header;
    long size;
    try {
      size = files.size(path);
      try (InputStream in = files.open(path)) {
        header = NpyReader.header(in, size, name, rank);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
    long[] shape = header.shape();
    if (rank == 0) {
      rank = shape.length;
      if (rank < 1 || rank > 3) {
        throw new InvalidInputException("Cannot read " + name + ": it must be a 1-D, 2-D or 3-D"
            + " array, but its shape was: " + NpyHeader.formatShape(shape)
            + (rank == 0 ? " (a scalar)" : ""));
      }
    }
    long leading = rank == 3 ? shape[0] * shape[1] : shape[0];
    long last = rank == 1 ? 1 : shape[rank - 1];
    if (leading > Integer.MAX_VALUE || last > Integer.MAX_VALUE) {
      throw new InvalidInputException("Cannot read " + name + ": its shape "
          + NpyHeader.formatShape(shape) + " has more than " + Integer.MAX_VALUE
          + " rows or columns");
    }
    int item = header.dtype().itemSize();
    int rows = (int) leading;
    int cols = (int) last;
    long rowBytes = Math.max(1L, (long) cols * item);
    int perSplit = (int) Math.max(1, Math.min(Integer.MAX_VALUE, splitBytes / rowBytes));
    return new NpySamples(path, name, header.dtype() == NpyDtype.FLOAT32, rows, cols,
        header.dataOffset(), size, perSplit, shape);
  }

  /**
   * The whole matrix on this JVM through core's {@link NpyReader} (the in-memory path): the
   * same checks and messages as every other {@code .npy} read whole.
   */
  @Override
  public DataMatrix readAll(Opener files) {
    try (InputStream in = files.open(path)) {
      NpyArray a = NpyReader.read(in, files.size(path), name, rank);
      return DataMatrix.of(rows, cols, a.data(), name);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  /** The array's shape as its header declares it (rows are its leading axes). */
  public long[] shape() {
    return shape.clone();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int samples() {
    return rows;
  }

  @Override
  public int voxels() {
    return cols;
  }

  @Override
  public NiftiMask mask() {
    return null;
  }

  @Override
  public int splits() {
    return SampleSource.splitCount(rows, rowsPerSplit);
  }

  @Override
  public int firstSample(int split) {
    return split * rowsPerSplit;
  }

  @Override
  public int splitSamples(int split) {
    return Math.min(rows, (split + 1) * rowsPerSplit) - split * rowsPerSplit;
  }

  @Override
  public boolean float32() {
    return float32;
  }

  @Override
  public void read(int split, Opener files, Sink sink) {
    int first = firstSample(split);
    int count = splitSamples(split);
    int item = float32 ? 4 : 8;
    byte[] row = new byte[cols * item];
    ByteBuffer bytes = ByteBuffer.wrap(row).order(ByteOrder.LITTLE_ENDIAN);
    float[] f = float32 ? new float[cols] : null;
    double[] d = float32 ? null : new double[cols];
    try {
      if (files.size(path) != fileSize) {
        throw new InvalidInputException("Cannot read " + name + ": its size changed from "
            + fileSize + " to " + files.size(path) + " bytes while the run read it");
      }
      try (InputStream in = files.open(path)) {
        in.skipNBytes(dataOffset + (long) first * cols * item);
        for (int r = first; r < first + count; r++) {
          if (in.readNBytes(row, 0, row.length) < row.length) {
            throw new InvalidInputException("Cannot read " + name + ": the data ended inside"
                + " row " + r + "; the file is truncated or changed while being read");
          }
          bytes.clear();
          if (float32) {
            bytes.asFloatBuffer().get(f);
            SampleChecks.requireFinite(f, cols, name, r, "row");
            sink.float32(r, f);
          } else {
            bytes.asDoubleBuffer().get(d);
            SampleChecks.requireFinite(d, cols, name, r, "row");
            sink.float64(r, d);
          }
        }
      }
    } catch (java.io.EOFException e) {
      throw new InvalidInputException("Cannot read " + name + ": the file ended before row "
          + first + "; it is truncated or changed while being read");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
  }
}
