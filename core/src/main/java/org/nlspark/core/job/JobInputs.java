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
  // 0 when the values are in x and y; else the bytes per value of the voxel blocks that
  // executors hold (4 for float32 data, 8 for float64), and x and y are shapes only.
  private final int blockValueBytes;

  private JobInputs(DataMatrix x, DataMatrix y, double[] target) {
    this(x, y, target, 0);
  }

  private JobInputs(DataMatrix x, DataMatrix y, double[] target, int blockValueBytes) {
    this.x = x;
    this.y = y;
    this.target = target;
    this.blockValueBytes = blockValueBytes;
  }

  /**
   * The shapes of inputs whose values executors hold as voxel blocks (DESIGN §8): what the
   * driver plans with. {@code rows2} is the second group's samples (two-sample) or 0.
   *
   * @param valueBytes bytes per value of the held blocks (4 for float32, 8 for float64)
   */
  public static JobInputs onExecutors(int rows, int cols, int rows2, double[] target,
      int valueBytes) {
    if (valueBytes != 4 && valueBytes != 8) {
      throw new IllegalArgumentException("[BUG] valueBytes must be 4 or 8, but was: "
          + valueBytes);
    }
    return new JobInputs(DataMatrix.shapeOnly(rows, cols),
        rows2 > 0 ? DataMatrix.shapeOnly(rows2, cols) : null, target, valueBytes);
  }

  /** One voxel block of these inputs, as a task holds it: x and y are column windows. */
  public JobInputs block(DataMatrix xBlock, DataMatrix yBlock) {
    return new JobInputs(xBlock, yBlock, target, blockValueBytes);
  }

  /** Whether the values live on executors (voxel blocks) rather than in this object. */
  public boolean onExecutors() {
    return blockValueBytes > 0;
  }

  /**
   * Bytes of one voxel block of {@code width} voxels that a task holds beside its tiles' working
   * set: 0 for in-memory inputs (the whole data are counted once per process), else samples x
   * width in the blocks' precision.
   */
  public long blockBytes(int width) {
    return (long) samples() * width * blockValueBytes;
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
