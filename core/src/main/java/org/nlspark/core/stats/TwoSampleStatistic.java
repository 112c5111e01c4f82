package org.nlspark.core.stats;

import org.nlspark.core.simd.Simd;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.Draws;

/**
 * Two-sample tests under label permutation, group 1 minus group 2. For Welch the stacked data Z
 * (n1 + n2 rows) is centred per voxel first (the statistic is shift-invariant; centring keeps the
 * sums-of-squares form accurate); the mean difference uses the data shifted by its pooled mean rounded to an integer. D holds the group-1 indicator of each permutation:
 * S1 = D * Zc, Q1 = D * Zc^2; group 2's sums are the column totals minus group 1's.
 * Welch t = (m1 - m2) / sqrt(v1/n1 + v2/n2) with ddof = 1 group variances; it is undefined
 * (NaN) for a voxel constant within both groups.
 *
 * <p>With SIMD ({@link Simd#enabled()}) the epilogue is fused with the permutation fold
 * ({@link VectorTwoSampleFold}): the same statistic bits, counts and row maxima as
 * {@link #compute} followed by the generic fold, without writing the window's statistics.
 */
final class TwoSampleStatistic extends GemmStatistic {
  private final boolean welch;
  private final int n1;
  private final int n2;
  private final long seed;
  private final double[] total;
  private final double[] totalSquares;
  private final int[] perm;
  /** Voxels whose statistic is undefined (NaN in every replicate). */
  private final boolean[] undefinedMask;
  /** SIMD fused fold (package-private so tests can compare both paths in one JVM). */
  boolean simd = Simd.enabled();
  /** Per-voxel counts of the current window, in the vector fold's lane type. */
  private double[] windowCounts;
  private Tail thresholdTail;
  private double[] thresholds;

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
    this.undefinedMask = new boolean[b];
    for (int v : undefined) {
      undefinedMask[v] = true;
    }
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
    final double[] q = product2;
    for (int r = 0; r < rows; r++) {
      final int base = r * b;
      for (int v = 0; v < b; v++) {
        out[base + v] = statistic(product[base + v], welch ? q[base + v] : 0.0, total[v],
            totalSquares[v], a, c, welch);
      }
    }
  }

  /**
   * The statistic from group 1's sum s1 (and sum of squares q1 for Welch), the column totals and
   * the group sizes a = n1, c = n2: the one scalar home of the per-value math.
   */
  static double statistic(double s1, double q1, double total, double totalSquares, double a,
      double c, boolean welch) {
    double s2 = total - s1;
    double m1 = s1 / a;
    double m2 = s2 / c;
    if (!welch) {
      return m1 - m2;
    }
    double q2 = totalSquares - q1;
    double v1 = Math.max(0.0, (q1 - s1 * m1) / (a - 1));
    double v2 = Math.max(0.0, (q2 - s2 * m2) / (c - 1));
    return (m1 - m2) / Math.sqrt(v1 / a + v2 / c);
  }

  @Override
  public boolean foldWindow(long first, int rows, Tail tail, int[] counts, double[] rowMax) {
    if (!simd) {
      return false;
    }
    final double[] thr = thresholds(tail);
    multiplyWindow(first, rows);
    if (windowCounts == null) {
      windowCounts = new double[b];
    }
    final double[] wc = windowCounts;
    java.util.Arrays.fill(wc, 0.0);
    for (int r = 0; r < rows; r++) {
      rowMax[r] = VectorTwoSampleFold.foldRow(product, welch ? product2 : null, r * b, b, total,
          totalSquares, n1, n2, tail, thr, undefinedMask, wc);
    }
    for (int v = 0; v < b; v++) {
      counts[v] += (int) wc[v]; // at most one window of rows: exact in a double
    }
    return true;
  }

  /** The observed key per voxel for this tail, +Infinity where it is NaN (never reached). */
  private double[] thresholds(Tail tail) {
    if (tail != thresholdTail) {
      double[] observed = observedValues();
      thresholds = new double[b];
      for (int v = 0; v < b; v++) {
        thresholds[v] = tail.threshold(observed[v]);
      }
      thresholdTail = tail;
    }
    return thresholds;
  }
}
