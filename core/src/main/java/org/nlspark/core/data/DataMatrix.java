package org.nlspark.core.data;

import java.io.Serializable;
import org.nlspark.core.InvalidInputException;

/**
 * An n_samples x n_voxels matrix of finite float64 values in row-major (C) order: the input every
 * statistic reads. Rows are samples (subjects, time points), columns voxels.
 *
 * <p>Invariants: 1. values.length == rows * held columns (all cols unless a {@link #window}); 2. every value is finite (checked once here, so
 * kernels never meet NaN/Inf in data).
 */
public final class DataMatrix implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int rows;
  private final int cols;
  private final double[] values;
  // A column window holds only columns [firstCol, firstCol + width); a whole matrix has
  // firstCol 0 and width cols. Executors hold one voxel block of a matrix no machine holds whole.
  private final int firstCol;
  private final int width;

  private DataMatrix(int rows, int cols, double[] values) {
    this(rows, cols, 0, cols, values);
  }

  private DataMatrix(int rows, int cols, int firstCol, int width, double[] values) {
    this.rows = rows;
    this.cols = cols;
    this.firstCol = firstCol;
    this.width = width;
    this.values = values;
  }

  /**
   * Columns [from, from + width) of a rows x cols matrix, the rest not held: what an executor
   * holds of one voxel block. {@code values} is row-major rows x width, checked finite by the
   * reader that filled it. Kernels read it through {@link #copyColumns} like a whole matrix.
   */
  public static DataMatrix window(int rows, int cols, int from, int width, double[] values) {
    if (rows < 0 || from < 0 || width < 0 || (long) from + width > cols
        || (long) rows * width != values.length) {
      throw new IllegalArgumentException("[BUG] window of columns [" + from + ", "
          + ((long) from + width) + ") of a " + rows + " x " + cols + " matrix cannot hold "
          + values.length + " values");
    }
    return new DataMatrix(rows, cols, from, width, values);
  }

  /** The shape of a matrix whose values live elsewhere (on executors): no column is held. */
  public static DataMatrix shapeOnly(int rows, int cols) {
    return window(rows, cols, 0, 0, new double[0]);
  }

  /** Whether every column is held (false for a window or a shape). */
  public boolean isWhole() {
    return firstCol == 0 && width == cols;
  }

  /** Wraps (does not copy) row-major values after checking shape and finiteness. */
  public static DataMatrix of(int rows, int cols, double[] values, String name) {
    if (rows < 0 || cols < 0 || (long) rows * cols != values.length) {
      throw new InvalidInputException("Cannot use " + name + ": shape (" + rows + ", " + cols
          + ") does not match " + values.length + " values");
    }
    for (int i = 0; i < values.length; i++) {
      if (!Double.isFinite(values[i])) {
        long bad = 0;
        for (double v : values) {
          if (!Double.isFinite(v)) {
            bad++;
          }
        }
        throw new InvalidInputException("Cannot use " + name + ": it holds " + bad
            + " NaN or infinite value(s), the first at (row " + (i / Math.max(1, cols)) + ", column "
            + (i % Math.max(1, cols)) + "); remove or impute them before resampling");
      }
    }
    return new DataMatrix(rows, cols, values);
  }

  public int rows() {
    return rows;
  }

  public int cols() {
    return cols;
  }

  /** The backing row-major array (not a copy: callers must not modify it). */
  public double[] values() {
    if (!isWhole()) {
      throw new IllegalStateException("[BUG] the values of a " + rows + " x " + cols
          + " matrix are not all here: only columns [" + firstCol + ", " + (firstCol + width)
          + ") are held");
    }
    return values;
  }

  public double get(int row, int col) {
    requireHeld(col, col + 1);
    return values[row * width + col - firstCol];
  }

  /** Copies columns [from, to) into a new row-major rows x (to - from) array. */
  public double[] copyColumns(int from, int to) {
    requireHeld(from, to);
    int w = to - from;
    double[] out = new double[rows * w];
    for (int i = 0; i < rows; i++) {
      System.arraycopy(values, i * width + from - firstCol, out, i * w, w);
    }
    return out;
  }

  /**
   * Columns [from, to) row-major: the backing array itself when this matrix holds exactly those
   * columns (a voxel block's window; callers must not modify it), else {@link #copyColumns}.
   */
  public double[] columns(int from, int to) {
    return from == firstCol && to == firstCol + width ? values : copyColumns(from, to);
  }

  private void requireHeld(int from, int to) {
    if (from < firstCol || to > firstCol + width) {
      throw new IllegalStateException("[BUG] columns [" + from + ", " + to + ") are not held:"
          + " this " + rows + " x " + cols + " matrix holds only columns [" + firstCol + ", "
          + (firstCol + width) + ")");
    }
  }

  /** Size in bytes of the values (what a broadcast or a worker copy costs). */
  public long bytes() {
    return (long) values.length * Double.BYTES;
  }
}
