package org.nlspark.core.data;

import java.io.Serializable;
import org.nlspark.core.InvalidInputException;

/**
 * An n_samples x n_voxels matrix of finite float64 values in row-major (C) order: the input every
 * statistic reads. Rows are samples (subjects, time points), columns voxels.
 *
 * <p>Invariants: 1. values.length == rows * cols; 2. every value is finite (checked once here, so
 * kernels never meet NaN/Inf in data).
 */
public final class DataMatrix implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int rows;
  private final int cols;
  private final double[] values;

  private DataMatrix(int rows, int cols, double[] values) {
    this.rows = rows;
    this.cols = cols;
    this.values = values;
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
    return values;
  }

  public double get(int row, int col) {
    return values[row * cols + col];
  }

  /** Copies columns [from, to) into a new row-major rows x (to - from) array. */
  public double[] copyColumns(int from, int to) {
    int w = to - from;
    double[] out = new double[rows * w];
    for (int i = 0; i < rows; i++) {
      System.arraycopy(values, i * cols + from, out, i * w, w);
    }
    return out;
  }

  /** Size in bytes of the values (what a broadcast or a worker copy costs). */
  public long bytes() {
    return (long) values.length * Double.BYTES;
  }
}
