package org.nlspark.core.stats;

import org.nlspark.core.job.Statistic.Order;
import org.nlspark.core.resample.Draws;

/**
 * Bootstrap median, min and max without sorting per replicate: each voxel's column is sorted once;
 * a replicate is a vector of draw counts per row, and the k-th order statistic of the resample is
 * found by walking the sorted column accumulating counts (O(n) per voxel and replicate). The median
 * of an even-sized resample is the mean of the two middle values, as numpy computes it.
 */
final class BootstrapOrderStatistic implements BlockStatistic {

  private final Order kind;
  private final int n;
  private final int b;
  private final long seed;
  private final double[] sortedValues; // voxel-major: [v * n + j]
  private final int[] sortedRows;
  private final int[] counts;

  BootstrapOrderStatistic(double[] x, int n, int b, Order kind, long seed) {
    this.kind = kind;
    this.n = n;
    this.b = b;
    this.seed = seed;
    this.sortedValues = new double[n * b];
    this.sortedRows = new int[n * b];
    this.counts = new int[n];
    Integer[] order = new Integer[n];
    for (int v = 0; v < b; v++) {
      final int col = v;
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      java.util.Arrays.sort(order, (p, q) -> Double.compare(x[p * b + col], x[q * b + col]));
      for (int j = 0; j < n; j++) {
        sortedRows[v * n + j] = order[j];
        sortedValues[v * n + j] = x[order[j] * b + v];
      }
    }
  }

  @Override
  public int width() {
    return b;
  }

  @Override
  public void compute(long first, int rows, double[] out) {
    for (int r = 0; r < rows; r++) {
      Draws.bootstrapCounts(seed, first + r, n, counts);
      int base = r * b;
      for (int v = 0; v < b; v++) {
        out[base + v] = orderStatistic(v);
      }
    }
  }

  private double orderStatistic(int v) {
    int off = v * n;
    switch (kind) {
      case MIN:
        for (int j = 0; j < n; j++) {
          if (counts[sortedRows[off + j]] > 0) {
            return sortedValues[off + j];
          }
        }
        break;
      case MAX:
        for (int j = n - 1; j >= 0; j--) {
          if (counts[sortedRows[off + j]] > 0) {
            return sortedValues[off + j];
          }
        }
        break;
      case MEDIAN: {
        int lo = (n - 1) / 2; // 0-based ranks of the middle value(s) of the n drawn values
        int hi = n / 2;
        int seen = 0;
        double a = Double.NaN;
        for (int j = 0; j < n; j++) {
          seen += counts[sortedRows[off + j]];
          if (Double.isNaN(a) && seen > lo) {
            a = sortedValues[off + j];
          }
          if (seen > hi) {
            return lo == hi ? a : (a + sortedValues[off + j]) / 2.0;
          }
        }
        break;
      }
      default:
        break;
    }
    throw new IllegalStateException("[BUG] draw counts of a bootstrap replicate do not sum to n");
  }

  @Override
  public void observed(double[] out) {
    throw new UnsupportedOperationException("[BUG] a bootstrap has no observed null statistic");
  }

  @Override
  public int undefinedVoxels() {
    return 0;
  }

  @Override
  public long flops() {
    return 0;
  }
}
