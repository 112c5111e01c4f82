package org.nlspark.core.tfce;

import java.util.Random;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Tail;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.tile.Grid;

/**
 * The test study of the whole-map tests (TFCE, cluster extent; voxelwise and glm, CPU and the
 * host build of the GPU kernels): a 6 x 5 x 4 grid with a random mask, blobs of either sign,
 * and the brute force's building blocks (every replicate's map stored, keys, maxima).
 */
public final class SmallBrain {
  public static final int NI = 6;
  public static final int NJ = 5;
  public static final int NK = 4;
  /** Voxel blocks and replicate windows small enough that every test crosses both. */
  public static final Grid SMALL = new Grid(16, 32);

  private SmallBrain() {}

  /** About 88% of the grid, the same every time. */
  public static boolean[] mask() {
    Random rng = new Random(3);
    boolean[] m = new boolean[NI * NJ * NK];
    for (int c = 0; c < m.length; c++) {
      m[c] = rng.nextDouble() > 0.12;
    }
    return m;
  }

  public static int count(boolean[] mask) {
    int v = 0;
    for (boolean b : mask) {
      v += b ? 1 : 0;
    }
    return v;
  }

  /**
   * n samples of noise plus {@code shift} times a positive blob in one corner and a negative one
   * in the other; voxel {@code constantVoxel} is 2.0 in every sample (undefined t).
   */
  public static DataMatrix data(int n, boolean[] mask, long seed, double shift,
      int constantVoxel) {
    Random rng = new Random(seed);
    int voxels = count(mask);
    double[] x = new double[n * voxels];
    for (int s = 0; s < n; s++) {
      int v = 0;
      for (int i = 0; i < NI; i++) {
        for (int j = 0; j < NJ; j++) {
          for (int k = 0; k < NK; k++) {
            if (!mask[(i * NJ + j) * NK + k]) {
              continue;
            }
            double effect = i < 3 && j < 3 ? 1.5 : i >= 4 && j >= 3 ? -1.4 : 0;
            x[s * voxels + v] = v == constantVoxel ? 2.0 : shift * effect + rng.nextGaussian();
            v++;
          }
        }
      }
    }
    return DataMatrix.of(n, voxels, x, "test");
  }

  /** Builds the kernel of voxels [from, to) with the grid's window. */
  public interface Kernel {
    BlockStatistic of(int from, int to);
  }

  /**
   * Every replicate's map (row r = replicate r) and the observed map, by a kernel per voxel
   * block of {@code grid}, as the analysis computes them.
   */
  public static double[][] maps(int voxels, int replicates, Grid grid, Kernel kernel,
      double[] observed) {
    double[][] maps = new double[replicates][voxels];
    int w = grid.window();
    for (int block = 0; block < grid.blocks(voxels); block++) {
      int from = grid.blockStart(block);
      int to = grid.blockEnd(block, voxels);
      int b = to - from;
      BlockStatistic k = kernel.of(from, to);
      double[] buf = new double[w * b];
      k.observed(buf);
      System.arraycopy(buf, 0, observed, from, b);
      for (int first = 0; first < replicates; first += w) {
        int rows = Math.min(w, replicates - first);
        k.compute(first, rows, buf);
        for (int r = 0; r < rows; r++) {
          System.arraycopy(buf, r * b, maps[first + r], from, b);
        }
      }
    }
    return maps;
  }

  public static double[] keys(double[] values, Tail tail) {
    double[] k = new double[values.length];
    for (int v = 0; v < k.length; v++) {
      k[v] = tail.key(values[v]);
    }
    return k;
  }

  public static double max(double[] keys) {
    double m = Double.NEGATIVE_INFINITY;
    for (double k : keys) {
      if (k > m) {
        m = k;
      }
    }
    return m;
  }
}
