package org.nlspark.core.stats;

import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.Draws;

/**
 * Correlation of every voxel with a target under permutations of the target. Columns of X and the
 * target are standardised once (centred, unit norm); then r = D * Xs where D's rows are permuted
 * standardised targets. Spearman is Pearson on average ranks (ties averaged). A voxel constant
 * over samples has no correlation (NaN).
 */
final class CorrelationStatistic extends GemmStatistic {
  private final double[] target;
  private final long seed;
  private final int[] perm;
  /** Per-voxel denominators for Spearman's exact integer sums; null for Pearson. */
  private final double[] denominator;

  private CorrelationStatistic(Precision precision, double[] standardised, int n, int b,
      int window, double[] target, long seed, int[] undefined, double[] denominator) {
    super(precision, standardised, null, n, b, window, undefined);
    this.target = target;
    this.seed = seed;
    this.perm = new int[n];
    this.denominator = denominator;
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
    if (denominator == null) {
      final int end = rows * b;
      for (int i = 0; i < end; i++) {
        out[i] = Math.max(-1.0, Math.min(1.0, product[i]));
      }
      return;
    }
    for (int r = 0; r < rows; r++) {
      int base = r * b;
      for (int v = 0; v < b; v++) {
        out[base + v] = Math.max(-1.0, Math.min(1.0, product[base + v] / denominator[v]));
      }
    }
  }
}
