package org.nlspark.core.job;

import java.io.Serializable;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;

/**
 * The data of one run: X (n_samples x n_voxels); for two-sample also Y (second group, same
 * voxels); for correlation the target y (n_samples). {@link #validate(Analysis)} applies the
 * shape rules of DESIGN §6 before any resampling.
 */
public final class JobInputs implements Serializable {
  private static final long serialVersionUID = 1L;

  private final DataMatrix x;
  private final DataMatrix y;
  private final double[] target;

  private JobInputs(DataMatrix x, DataMatrix y, double[] target) {
    this.x = x;
    this.y = y;
    this.target = target;
  }

  public static JobInputs of(DataMatrix x) {
    return new JobInputs(x, null, null);
  }

  public static JobInputs twoGroups(DataMatrix x, DataMatrix y) {
    return new JobInputs(x, y, null);
  }

  public static JobInputs withTarget(DataMatrix x, double[] target) {
    return new JobInputs(x, null, target);
  }

  public DataMatrix x() {
    return x;
  }

  /** Second group for two-sample tests, else null. */
  public DataMatrix y() {
    return y;
  }

  /** Target vector for correlation, else null. */
  public double[] target() {
    return target;
  }

  public int voxels() {
    return x.cols();
  }

  /** Rows that enter the kernels (n1 + n2 for two-sample). */
  public int samples() {
    return x.rows() + (y == null ? 0 : y.rows());
  }

  /** Bytes of data a worker holds. */
  public long bytes() {
    return x.bytes() + (y == null ? 0 : y.bytes()) + (target == null ? 0 : 8L * target.length);
  }

  /** Checks the shapes an analysis needs; InvalidInputException naming the values otherwise. */
  public void validate(Analysis analysis) {
    if (x.cols() < 1) {
      throw new InvalidInputException("Cannot resample --input: it has 0 voxels (columns)");
    }
    switch (analysis) {
      case BOOTSTRAP:
      case ONE_SAMPLE:
        requireSamples("--input", x.rows(), 2);
        break;
      case TWO_SAMPLE:
        if (y == null) {
          throw new InvalidInputException("Cannot run two-sample: --input2 is required");
        }
        if (y.cols() != x.cols()) {
          throw new InvalidInputException("Cannot compare groups: --input has " + x.cols()
              + " voxels but --input2 has " + y.cols() + "; both need the same voxels (columns)");
        }
        requireSamples("--input", x.rows(), 2);
        requireSamples("--input2", y.rows(), 2);
        break;
      case CORRELATION:
        if (target == null) {
          throw new InvalidInputException("Cannot run correlation: --target is required");
        }
        if (target.length != x.rows()) {
          throw new InvalidInputException("Cannot correlate: --target has " + target.length
              + " values but --input has " + x.rows() + " samples (rows); they must match");
        }
        requireSamples("--input", x.rows(), 3);
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        for (double v : target) {
          if (!Double.isFinite(v)) {
            throw new InvalidInputException(
                "Cannot use --target: it holds NaN or infinite values; remove them first");
          }
          min = Math.min(min, v);
          max = Math.max(max, v);
        }
        if (min == max) {
          throw new InvalidInputException("Cannot correlate with --target: it has zero variance"
              + " (every value is " + min + ")");
        }
        break;
      default:
        throw new IllegalStateException("[BUG] unknown analysis " + analysis);
    }
  }

  private static void requireSamples(String flag, int rows, int min) {
    if (rows < min) {
      throw new InvalidInputException(flag + " must have at least " + min
          + " samples (rows), but had: " + rows);
    }
  }
}
