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

  /** Puts the slices of one block in sample order; every sample must be there once. */
  static VoxelBlock assemble(int block, int from, int width, int[] rows, Iterable<Slice> slices) {
    boolean wide = false;
    for (Slice s : slices) {
      wide |= s.d != null;
    }
    int groups = rows.length;
    float[][] f = wide ? null : new float[groups][];
    double[][] d = wide ? new double[groups][] : null;
    long[] filled = new long[groups];
    for (int g = 0; g < groups; g++) {
      if (wide) {
        d[g] = new double[Math.multiplyExact(rows[g], width)];
      } else {
        f[g] = new float[Math.multiplyExact(rows[g], width)];
      }
    }
    for (Slice s : slices) {
      int at = s.first * width;
      int len = s.count * width;
      if (wide) {
        if (s.d != null) {
          System.arraycopy(s.d, 0, d[s.group], at, len);
        } else {
          for (int i = 0; i < len; i++) {
            d[s.group][at + i] = s.f[i];
          }
        }
      } else {
        System.arraycopy(s.f, 0, f[s.group], at, len);
      }
      filled[s.group] += s.count;
    }
    for (int g = 0; g < groups; g++) {
      if (filled[g] != rows[g]) {
        throw new IllegalStateException("[BUG] voxel block " + block + " of group " + g
            + " got " + filled[g] + " samples, expected " + rows[g]);
      }
    }
    return new VoxelBlock(block, from, width, rows, f, d);
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
