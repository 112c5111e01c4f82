package org.nlspark.core.stats;

import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.Draws;

/**
 * One-sample tests under sign flips. With g = D * X (D rows of +-1):
 * mean = g / n; and since a flip leaves sum(x^2) unchanged,
 * var = (sum(x^2) - g * mean) / (n - 1) and t = mean / sqrt(var / n) — one GEMM for both.
 * A voxel whose values are all equal has no t (NaN); the mean is always defined.
 */
final class SignFlipStatistic extends GemmStatistic {
  private final boolean tStat;
  private final boolean enumerated;
  private final long seed;
  private final double[] sumSquares;

  SignFlipStatistic(Precision precision, double[] block, int n, int b, int window, boolean tStat,
      boolean enumerated, long seed) {
    super(precision, block, null, n, b, window, tStat ? constantColumns(block, n, b) : new int[0]);
    this.tStat = tStat;
    this.enumerated = enumerated;
    this.seed = seed;
    this.sumSquares = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        double x = block[i * b + v];
        sumSquares[v] += x * x;
      }
    }
  }

  @Override
  void fillDraw(long replicate, double[] d, int offset) {
    if (enumerated) {
      Draws.enumeratedSignFlips(replicate, n, d, offset);
    } else {
      Draws.signFlips(seed, replicate, n, d, offset);
    }
  }

  @Override
  void fillIdentity(double[] d, int offset) {
    java.util.Arrays.fill(d, offset, offset + n, 1.0);
  }

  @Override
  void epilogue(int rows, double[] out) {
    final double nd = n;
    final int end = rows * b;
    final double[] g = product;
    if (!tStat) {
      for (int i = 0; i < end; i++) {
        out[i] = g[i] / nd;
      }
      return;
    }
    final double[] ssq = sumSquares;
    final double dof = n - 1;
    for (int r = 0; r < rows; r++) {
      final int base = r * b;
      for (int v = 0; v < b; v++) {
        double gv = g[base + v];
        double mean = gv / nd;
        double var = (ssq[v] - gv * mean) / dof;
        out[base + v] = mean / Math.sqrt(var / nd);
      }
    }
  }
}
