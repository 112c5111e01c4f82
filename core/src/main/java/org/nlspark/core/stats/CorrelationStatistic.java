package org.nlspark.core.stats;

import org.nlspark.core.simd.Simd;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.Draws;

/**
 * Correlation of every voxel with a target under permutations of the target. Columns of X and the
 * target are standardised once (centred, unit norm); then r = D * Xs where D's rows are permuted
 * standardised targets. Spearman is Pearson on average ranks (ties averaged). A voxel constant
 * over samples has no correlation (NaN).
 *
 * <p>With SIMD ({@link Simd#enabled()}) the epilogue is fused with the permutation fold
 * ({@link VectorCorrelationFold}): the same statistic bits, counts and row maxima as
 * {@link #compute} followed by the generic fold, without writing the window's statistics.
 */
final class CorrelationStatistic extends GemmStatistic {
  private final double[] target;
  private final long seed;
  private final int[] perm;
  /** Per-voxel denominators for Spearman's exact integer sums; null for Pearson. */
  private final double[] denominator;
  private final boolean[] undefinedMask;
  /** SIMD fused fold (package-private so tests can compare both paths in one JVM). */
  boolean simd = Simd.enabled();
  /** Per-voxel counts of the current window, in the vector fold's lane type. */
  private double[] windowCounts;
  private Tail thresholdTail;
  private double[] thresholds;

  private CorrelationStatistic(Precision precision, double[] standardised, int n, int b,
      int window, double[] target, long seed, int[] undefined, double[] denominator) {
    super(precision, standardised, null, n, b, window, undefined);
    this.target = target;
    this.seed = seed;
    this.perm = new int[n];
    this.denominator = denominator;
    this.undefinedMask = new boolean[b];
    for (int v : undefined) {
      undefinedMask[v] = true;
    }
  }

  static CorrelationStatistic create(Precision precision, double[] x, int n, int b, int window,
      double[] y, boolean spearman, long seed) {
    int[] undefined = constantColumns(x, n, b);
    if (spearman) {
      return createSpearman(precision, x, n, b, window, y, seed, undefined);
    }
    double[] xs = BlockTransforms.standardiseColumns(x, n, b);
    double[] ys = BlockTransforms.standardise(y.clone());
    return new CorrelationStatistic(precision, xs, n, b, window, ys, seed, undefined, null);
  }

  private static CorrelationStatistic createSpearman(Precision precision, double[] x, int n,
      int b, int window, double[] y, long seed, int[] undefined) {
    BlockTransforms.SpearmanRanks ranks = BlockTransforms.spearmanRanks(x, n, b, y);
    return new CorrelationStatistic(precision, ranks.columns(), n, b, window, ranks.target(), seed,
        undefined, ranks.denominator());
  }

  @Override
  void fillDraw(long replicate, double[] d, int offset) {
    Draws.permutation(seed, replicate, n, perm);
    for (int i = 0; i < n; i++) {
      d[offset + i] = target[perm[i]];
    }
  }

  @Override
  void fillIdentity(double[] d, int offset) {
    System.arraycopy(target, 0, d, offset, n);
  }

  @Override
  void epilogue(int rows, double[] out) {
    final boolean spearman = denominator != null;
    for (int r = 0; r < rows; r++) {
      int base = r * b;
      for (int v = 0; v < b; v++) {
        out[base + v] = statistic(product[base + v], spearman ? denominator[v] : 1.0, spearman);
      }
    }
  }

  /** r from the product p: clamp(p, -1, 1), or clamp(p / den, -1, 1) for Spearman. */
  static double statistic(double p, double den, boolean spearman) {
    return Math.max(-1.0, Math.min(1.0, spearman ? p / den : p));
  }

  @Override
  public boolean foldWindow(long first, int rows, Tail tail, int[] counts, double[] rowMax) {
    if (!simd) {
      return false;
    }
    if (tail != thresholdTail) {
      double[] observed = observedValues();
      thresholds = new double[b];
      for (int v = 0; v < b; v++) {
        thresholds[v] = tail.threshold(observed[v]);
      }
      thresholdTail = tail;
    }
    multiplyWindow(first, rows);
    if (windowCounts == null) {
      windowCounts = new double[b];
    }
    final double[] wc = windowCounts;
    java.util.Arrays.fill(wc, 0.0);
    for (int r = 0; r < rows; r++) {
      rowMax[r] = VectorCorrelationFold.foldRow(product, denominator, r * b, b, tail, thresholds,
          undefinedMask, wc);
    }
    for (int v = 0; v < b; v++) {
      counts[v] += (int) wc[v]; // at most one window of rows: exact in a double
    }
    return true;
  }
}
