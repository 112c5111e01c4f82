package org.nlspark.core.stats;

import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.Draws;

/**
 * Two-sample tests under label permutation, group 1 minus group 2. For Welch the stacked data Z
 * (n1 + n2 rows) is centred per voxel first (the statistic is shift-invariant; centring keeps the
 * sums-of-squares form accurate); the mean difference uses the data shifted by its pooled mean rounded to an integer. D holds the group-1 indicator of each permutation:
 * S1 = D * Zc, Q1 = D * Zc^2; group 2's sums are the column totals minus group 1's.
 * Welch t = (m1 - m2) / sqrt(v1/n1 + v2/n2) with ddof = 1 group variances; it is undefined
 * (NaN) for a voxel constant within both groups.
 */
final class TwoSampleStatistic extends GemmStatistic {
  private final boolean welch;
  private final int n1;
  private final int n2;
  private final long seed;
  private final double[] total;
  private final double[] totalSquares;
  private final int[] perm;

  private TwoSampleStatistic(Precision precision, double[] centred, double[] squares, int n1,
      int n2, int b, int window, boolean welch, long seed, int[] undefined) {
    super(precision, centred, squares, n1 + n2, b, window, undefined);
    this.welch = welch;
    this.n1 = n1;
    this.n2 = n2;
    this.seed = seed;
    this.total = new double[b];
    this.totalSquares = new double[b];
    for (int i = 0; i < n1 + n2; i++) {
      for (int v = 0; v < b; v++) {
        double z = centred[i * b + v];
        total[v] += z;
        totalSquares[v] += z * z;
      }
    }
    this.perm = new int[n1 + n2];
  }

  /** @param x group 1 block (n1 x b), @param y group 2 block (n2 x b) */
  static TwoSampleStatistic create(Precision precision, double[] x, int n1, double[] y, int n2,
      int b, int window, boolean welch, long seed) {
    // Welch needs sums of squares, so the data is centred; the mean difference only needs sums,
    // taken on data shifted by an integer (exact for integer-valued inputs: ties stay ties).
    double[] z = welch ? BlockTransforms.stackAndCentre(x, n1, y, n2, b)
        : BlockTransforms.stackAndShift(x, n1, y, n2, b);
    double[] squares = welch ? BlockTransforms.squares(z) : null;
    int[] undefined = welch ? BlockTransforms.constantInBoth(x, n1, y, n2, b) : new int[0];
    return new TwoSampleStatistic(precision, z, squares, n1, n2, b, window, welch, seed,
        undefined);
  }

  @Override
  void fillDraw(long replicate, double[] d, int offset) {
    Draws.permutation(seed, replicate, n, perm);
    java.util.Arrays.fill(d, offset, offset + n, 0.0);
    for (int j = 0; j < n1; j++) {
      d[offset + perm[j]] = 1.0;
    }
  }

  @Override
  void fillIdentity(double[] d, int offset) {
    java.util.Arrays.fill(d, offset, offset + n1, 1.0);
    java.util.Arrays.fill(d, offset + n1, offset + n, 0.0);
  }

  @Override
  void epilogue(int rows, double[] out) {
    final double a = n1;
    final double c = n2;
    for (int r = 0; r < rows; r++) {
      final int base = r * b;
      for (int v = 0; v < b; v++) {
        double s1 = product[base + v];
        double s2 = total[v] - s1;
        double m1 = s1 / a;
        double m2 = s2 / c;
        if (!welch) {
          out[base + v] = m1 - m2;
        } else {
          double q1 = product2[base + v];
          double q2 = totalSquares[v] - q1;
          double v1 = Math.max(0.0, (q1 - s1 * m1) / (a - 1));
          double v2 = Math.max(0.0, (q2 - s2 * m2) / (c - 1));
          out[base + v] = (m1 - m2) / Math.sqrt(v1 / a + v2 / c);
        }
      }
    }
  }
}
