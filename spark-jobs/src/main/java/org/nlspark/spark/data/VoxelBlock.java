package org.nlspark.spark.data;

import java.io.Serializable;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;

/**
 * One voxel block of the inputs as an executor holds it (DESIGN §8): every sample's values of
 * voxels [from, from + width), samples x width row-major, per input group (X, and Y for
 * two-sample). Held in float32 when all its values came as float32 (no widening in memory),
 * else float64; never more than samples x block values in one array.
 */
public final class VoxelBlock implements Serializable {
  private static final long serialVersionUID = 1L;

  final int block;
  final int from;
  final int width;
  final float[][] f; // per group, or null
  final double[][] d; // per group, or null
  final int[] rows; // per group

  private VoxelBlock(int block, int from, int width, int[] rows, float[][] f, double[][] d) {
    this.block = block;
    this.from = from;
    this.width = width;
    this.rows = rows;
    this.f = f;
    this.d = d;
  }

  /**
   * Fills one block from its slices as they come out of the shuffle, in any order: each slice's
   * values go straight to their rows of a preallocated samples x width array (no collecting,
   * no second copy). Float32 until a float64 slice arrives, then widened (exactly) for good, so
   * the block is the same whatever order the slices came in.
   */
  static final class Assembly {
    private final int block;
    private final int from;
    private final int width;
    private final int[] rows;
    private final long[] filled;
    private float[][] f;
    private double[][] d;

    Assembly(int block, int from, int width, int[] rows) {
      this.block = block;
      this.from = from;
      this.width = width;
      this.rows = rows;
      this.filled = new long[rows.length];
      this.f = new float[rows.length][];
      for (int g = 0; g < rows.length; g++) {
        f[g] = new float[Math.multiplyExact(rows[g], width)];
      }
    }

    void add(byte[] slice) {
      int g = Slice.group(slice);
      int count = Slice.count(slice);
      int at = Slice.first(slice) * width;
      if (Slice.wide(slice) && d == null) {
        d = new double[rows.length][];
        for (int h = 0; h < rows.length; h++) {
          float[] src = f[h];
          double[] dst = new double[src.length];
          for (int i = 0; i < src.length; i++) {
            dst[i] = src[i];
          }
          d[h] = dst;
        }
        f = null;
      }
      if ((long) (slice.length - Slice.HEADER_BYTES) != (long) count * width
          * (Slice.wide(slice) ? 8 : 4)) {
        throw new IllegalStateException("[BUG] voxel block " + block + " got a slice of "
            + slice.length + " bytes for " + count + " samples x " + width + " voxels");
      }
      if (d != null) {
        Slice.copyTo(slice, d[g], at);
      } else {
        Slice.copyTo(slice, f[g], at);
      }
      filled[g] += count;
    }

    VoxelBlock build() {
      for (int g = 0; g < rows.length; g++) {
        if (filled[g] != rows[g]) {
          throw new IllegalStateException("[BUG] voxel block " + block + " of group " + g
              + " got " + filled[g] + " samples, expected " + rows[g]);
        }
      }
      return new VoxelBlock(block, from, width, rows, d != null ? null : f, d);
    }
  }

  public int block() {
    return block;
  }

  /** Bytes of values held. */
  public long bytes() {
    long n = 0;
    for (int r : rows) {
      n += (long) r * width;
    }
    return n * (f != null ? 4 : 8);
  }

  /** The block as the tiles read it: {@code shape}'s inputs with these columns held. */
  public JobInputs inputs(JobInputs shape) {
    DataMatrix x = window(0, shape.voxels());
    DataMatrix y = rows.length > 1 ? window(1, shape.voxels()) : null;
    return shape.block(x, y);
  }

  /** One group's block as a whole matrix of its own (samples x width). */
  public DataMatrix whole(int group) {
    return DataMatrix.window(rows[group], width, 0, width, widened(group));
  }

  private DataMatrix window(int group, int voxels) {
    return DataMatrix.window(rows[group], voxels, from, width, widened(group));
  }

  private double[] widened(int group) {
    double[] values;
    if (d != null) {
      values = d[group];
    } else {
      float[] src = f[group];
      values = new double[src.length];
      for (int i = 0; i < src.length; i++) {
        values[i] = src[i];
      }
    }
    return values;
  }
}
