package org.nlspark.core.stats;

import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Statistic.Reduction;
import org.nlspark.core.resample.Draws;

/**
 * Bootstrap mean, sum and std (numpy's default ddof = 0) as GEMMs. D holds how often each row was
 * drawn: sum = D * X, mean = sum / n. For std the block is centred per voxel first (the variance
 * is shift-invariant; centring keeps E[x^2] - E[x]^2 accurate): var = D*Xc^2/n - (D*Xc/n)^2.
 * A voxel constant over samples gets its exact constant statistic in every replicate, so its
 * bootstrap distribution has zero spread and the summary reports it.
 */
final class BootstrapLinearStatistic extends GemmStatistic {

  private final Reduction kind;
  private final long seed;
  private final int[] counts;
  private final int[] constant;
  private final double[] constantValue;
  /** The block as given (n x b), for {@link #replicateSpread}; null for the std (no estimate). */
  private final double[] raw;

  private BootstrapLinearStatistic(Precision precision, double[] data, double[] squares, int n,
      int b, int window, Reduction kind, long seed, int[] constant, double[] constantValue,
      double[] raw) {
    super(precision, data, squares, n, b, window, new int[0]);
    this.raw = raw;
    this.kind = kind;
    this.seed = seed;
    this.counts = new int[n];
    this.constant = constant;
    this.constantValue = constantValue;
  }

  static BootstrapLinearStatistic create(Precision precision, double[] x, int n, int b, int window,
      Reduction kind, long seed) {
    int[] constant = constantColumns(x, n, b);
    double[] constantValue = new double[constant.length];
    for (int k = 0; k < constant.length; k++) {
      double c = x[constant[k]];
      constantValue[k] = kind == Reduction.MEAN ? c : kind == Reduction.SUM ? c * n : 0.0;
    }
    if (kind != Reduction.STD) {
      return new BootstrapLinearStatistic(precision, x, null, n, b, window, kind, seed, constant,
          constantValue, x);
    }
    double[] xc = BlockTransforms.centreColumns(x, n, b);
    double[] sq = BlockTransforms.squares(xc);
    return new BootstrapLinearStatistic(precision, xc, sq, n, b, window, kind, seed, constant,
        constantValue, null);
  }

  /**
   * Resampling n rows with replacement: the replicate mean has expectation x̄ and variance σ²/n
   * (σ² with ddof 0), the sum n times both. The std has no such simple form: no estimate.
   */
  @Override
  public boolean replicateSpread(double[] mean, double[] sd) {
    if (raw == null) {
      return false;
    }
    double scale = kind == Reduction.SUM ? n : 1.0;
    double[] sum = BlockTransforms.columnSums(raw, n, b);
    double[] m2 = BlockTransforms.columnSumSquares(BlockTransforms.centreColumns(raw, n, b), n, b);
    for (int v = 0; v < b; v++) {
      mean[v] = scale * sum[v] / n;
      sd[v] = scale * Math.sqrt(m2[v] / n / n);
    }
    for (int v : constant) { // every replicate is exactly the constant: nothing to seed
      sd[v] = 0.0;
    }
    return true;
  }

  @Override
  void fillDraw(long replicate, double[] d, int offset) {
    Draws.bootstrapCounts(seed, replicate, n, counts);
    for (int i = 0; i < n; i++) {
      d[offset + i] = counts[i];
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
    switch (kind) {
      case SUM:
        System.arraycopy(product, 0, out, 0, end);
        break;
      case MEAN:
        for (int i = 0; i < end; i++) {
          out[i] = product[i] / nd;
        }
        break;
      case STD:
        for (int i = 0; i < end; i++) {
          double m = product[i] / nd;
          out[i] = Math.sqrt(Math.max(0.0, product2[i] / nd - m * m));
        }
        break;
      default:
        throw new IllegalStateException("[BUG] " + kind);
    }
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < constant.length; k++) {
        out[r * b + constant[k]] = constantValue[k];
      }
    }
  }
}
