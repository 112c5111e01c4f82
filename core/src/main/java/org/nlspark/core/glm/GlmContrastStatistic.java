package org.nlspark.core.glm;

import java.util.Arrays;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.stats.BlockGemm;
import org.nlspark.core.stats.BlockStatistic;

/**
 * Freedman-Lane t or F of one contrast over one voxel block, GEMM-shaped (formulas in
 * {@link GlmModel}). Per block, once: E = R_Z Y and ||E||^2 per voxel. Per window of w draws, one
 * GEMM: the stacked rows Q' P_j (w q rows of length n, Q the contrast's rotated basis of the
 * design space) times E (n x b) give G_j = Q' P_j E; the epilogue reads the first r rows of each
 * G_j as the numerator and ||E||^2 - ||G_j||^2 as the residual sum of squares. The GEMM has
 * the same shape (w q x n x b) for every window of a block, so results do not depend on how the
 * replicates are split (DESIGN §5).
 *
 * <p>RSS = ||E||^2 - ||G_j||^2 loses digits as the model's R^2 approaches 1 (both terms near
 * ||E||^2); sums of squares are kept in float64 and a negative difference, which is rounding
 * only, is clamped to 0. A voxel whose observed fit is exact to rounding (observed RSS <=
 * {@link #EXACT_FIT} ||E||^2, or E = 0: the data lies in the nuisance or design space) has no
 * statistic and is NaN everywhere, as a constant voxel is for the one-sample t. E counts as
 * zero when ||E|| <= 1000 n 2^-52 ||Y||, the rounding left by removing the nuisance.
 *
 * <p>With {@code Precision.FLOAT32} only the GEMM runs in single precision (G carries its
 * rounding, about 1e-7 relative); ||E||^2, ||G||^2 and the statistic are still float64.
 */
public final class GlmContrastStatistic implements BlockStatistic {
  /** Relative RSS at which a fit is exact to rounding: far above the difference's error. */
  static final double EXACT_FIT = 1e-12;

  private final GlmContrast contrast;
  private final GlmDraws draws;
  private final int n;
  private final int b;
  private final int window;
  private final int q;
  private final int r;
  private final double df;
  private final boolean tStat;
  private final double[] basis;
  private final double[] residualSquares;
  private final boolean[] undefined;
  private final int undefinedCount;
  private final BlockGemm gemm;
  private final double[] d;
  private final double[] g;
  private final double[] numerator;
  private final double[] explained;
  private final int[] perm;
  private final double[] signs;
  private long flops;

  /**
   * @param y data block (n x b, row-major); not kept
   * @param window replicates per window (the grid's)
   */
  public GlmContrastStatistic(GlmModel model, GlmContrast contrast, GlmDraws draws, double[] y,
      int b, int window, Precision precision) {
    this.contrast = contrast;
    this.draws = draws;
    this.n = model.samples();
    this.b = b;
    this.window = window;
    this.q = contrast.basisSize();
    this.r = contrast.rank();
    this.df = model.degreesOfFreedom();
    this.tStat = contrast.kind() == GlmContrast.Kind.T;
    this.basis = contrast.basisRows();
    if (y.length != (long) n * b) {
      throw new IllegalArgumentException("[BUG] block of " + y.length + " values is not " + n
          + " x " + b);
    }
    if (draws.samples() != n) {
      throw new IllegalArgumentException("[BUG] draws for " + draws.samples() + " samples, model"
          + " for " + n);
    }
    double[] e = nuisanceResiduals(y);
    this.residualSquares = new double[b];
    double[] data = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        double x = e[i * b + v];
        residualSquares[v] += x * x;
        data[v] += y[i * b + v] * y[i * b + v];
      }
    }
    this.gemm = new BlockGemm(precision, e, n, b, window * q);
    this.d = new double[window * q * n];
    this.g = new double[window * q * b];
    this.numerator = new double[b];
    this.explained = new double[b];
    this.perm = new int[n];
    this.signs = new double[n];
    this.undefined = new boolean[b];
    // Undefined where E vanishes to rounding or the observed fit is exact to rounding.
    double vanishing = 1000.0 * n * Math.ulp(1.0);
    vanishing *= vanishing;
    // Observed effect rows Q_B' E by plain loops (the nuisance rows of Q'E vanish): a test
    // of exactness needs no GEMM, and a whole window's GEMM for one row would cost as much
    // as a window of draws.
    double[] ss = new double[b];
    double[] row = new double[b];
    for (int l = 0; l < r; l++) {
      Arrays.fill(row, 0.0);
      for (int i = 0; i < n; i++) {
        double w = basis[l * n + i];
        for (int v = 0; v < b; v++) {
          row[v] += w * e[i * b + v];
        }
      }
      for (int v = 0; v < b; v++) {
        ss[v] += row[v] * row[v];
      }
    }
    int count = 0;
    for (int v = 0; v < b; v++) {
      double rss = residualSquares[v] - ss[v];
      boolean none = residualSquares[v] <= vanishing * data[v]
          || rss <= EXACT_FIT * residualSquares[v];
      undefined[v] = none;
      count += none ? 1 : 0;
    }
    this.undefinedCount = count;
  }

  /** E = R_Z Y = Y - Q_Z (Q_Z' Y), with Q_Z the nuisance rows of the basis. */
  private double[] nuisanceResiduals(double[] y) {
    double[] e = y.clone();
    double[] coef = new double[b];
    for (int l = r; l < q; l++) {
      Arrays.fill(coef, 0.0);
      int row = l * n;
      for (int i = 0; i < n; i++) {
        double w = basis[row + i];
        for (int v = 0; v < b; v++) {
          coef[v] += w * y[i * b + v];
        }
      }
      for (int i = 0; i < n; i++) {
        double w = basis[row + i];
        for (int v = 0; v < b; v++) {
          e[i * b + v] -= w * coef[v];
        }
      }
    }
    return e;
  }

  @Override
  public int width() {
    return b;
  }

  @Override
  public void compute(long first, int rows, double[] out) {
    compute(first, rows, out, null);
  }

  /**
   * As {@link #compute(long, int, double[])}, and with {@code variance} non-null also each
   * draw's residual variance σ² = RSS / dof per voxel (the same layout; NaN where the statistic
   * is undefined), for variance smoothing ({@link org.nlspark.core.tfce.VarianceSmoothing}). The
   * statistic is the same bits either way. t contrasts only.
   */
  public void compute(long first, int rows, double[] out, double[] variance) {
    checkVariance(variance);
    for (int j = 0; j < rows; j++) {
      draws.fill(first + j, perm, signs);
      fillRows(j);
    }
    Arrays.fill(d, rows * q * n, d.length, 0.0);
    multiply();
    epilogue(rows, out, variance);
  }

  @Override
  public void observed(double[] out) {
    observed(out, null);
  }

  /** The observed statistic and, with {@code variance} non-null, its σ² = RSS / dof (b values). */
  public void observed(double[] out, double[] variance) {
    checkVariance(variance);
    fillIdentityRow();
    multiply();
    double[] full = new double[window * b];
    double[] fullVariance = variance == null ? null : new double[window * b];
    epilogue(1, full, fullVariance);
    System.arraycopy(full, 0, out, 0, b);
    if (variance != null) {
      System.arraycopy(fullVariance, 0, variance, 0, b);
    }
  }

  private void checkVariance(double[] variance) {
    if (variance != null && !tStat) {
      throw new IllegalStateException("[BUG] a variance map of the F contrast "
          + contrast.outputName() + ": variance smoothing is for t contrasts");
    }
  }

  private void fillIdentityRow() {
    draws.identity(perm, signs);
    fillRows(0);
    Arrays.fill(d, q * n, d.length, 0.0);
  }

  /**
   * Rows [j q, (j + 1) q) of D: row l is Q[:, l]' P_j, so that (D E)_l = sum_p Q[p, l] s_p
   * E[perm[p]], that is D[l, perm[p]] = Q[p, l] s_p.
   */
  private void fillRows(int j) {
    for (int l = 0; l < q; l++) {
      int src = l * n;
      int dst = (j * q + l) * n;
      for (int p = 0; p < n; p++) {
        d[dst + perm[p]] = basis[src + p] * signs[p];
      }
    }
  }

  private void multiply() {
    gemm.multiply(d, g);
    flops += gemm.flops();
  }

  private void epilogue(int rows, double[] out, double[] variance) {
    final double[] ex = explained;
    final double[] num = numerator;
    for (int j = 0; j < rows; j++) {
      final int base = j * q * b;
      for (int v = 0; v < b; v++) {
        double x = g[base + v];
        ex[v] = x * x;
      }
      for (int l = 1; l < q; l++) {
        if (l == r) {
          System.arraycopy(ex, 0, num, 0, b);
        }
        final int row = base + l * b;
        for (int v = 0; v < b; v++) {
          double x = g[row + v];
          ex[v] += x * x;
        }
      }
      if (r == q) {
        System.arraycopy(ex, 0, num, 0, b);
      }
      final int o = j * b;
      if (tStat) {
        for (int v = 0; v < b; v++) {
          // Clamped: a negative RSS is cancellation in ||E||^2 - ||G||^2, not information.
          double rss = Math.max(residualSquares[v] - ex[v], 0.0);
          out[o + v] = g[base + v] * Math.sqrt(df / rss);
        }
        for (int v = 0; variance != null && v < b; v++) {
          variance[o + v] = Math.max(residualSquares[v] - ex[v], 0.0) / df;
        }
      } else {
        double scale = df / r;
        for (int v = 0; v < b; v++) {
          double rss = Math.max(residualSquares[v] - ex[v], 0.0);
          out[o + v] = num[v] * scale / rss;
        }
      }
      for (int v = 0; undefinedCount > 0 && v < b; v++) {
        if (undefined[v]) {
          out[o + v] = Double.NaN;
          if (variance != null) {
            variance[o + v] = Double.NaN;
          }
        }
      }
    }
  }

  @Override
  public int undefinedVoxels() {
    return undefinedCount;
  }

  @Override
  public long flops() {
    return flops;
  }

  public GlmContrast contrast() {
    return contrast;
  }
}
