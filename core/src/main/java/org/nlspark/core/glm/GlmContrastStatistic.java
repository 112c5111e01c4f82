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
 *
 * <p>Variance groups (the model's {@link GlmModel#varianceGroups}, PALM's {@code -vg}): the
 * GEMM's rows are split by group, H_g = Q_g' P_j E (Q_g: Q's rows of the samples in group g,
 * so G_j = sum_g H_g), and each group's residual sum of squares follows without forming the
 * residuals: RSS_g = ||(P_j E)_g||^2 - 2 G_j' H_g + G_j' (Q_g'Q_g) G_j. With W_g = tr(R_M)_g /
 * RSS_g (PALM's weights) and A = sum_g W_g Q_g'Q_g, in the basis Q the contrast is the first r
 * coordinates, so the Aspin–Welch v = G_j[0] / sqrt((A^-1)_00) and Welch's G = G_j[:r]'
 * ((A^-1)_rr)^-1 G_j[:r] / r / (1 + 2 (r - 1) b), b = sum_g (1 - W_g n_g / sum W n)^2 / tr_g /
 * (r (r + 2)) (Winkler et al. 2014; PALM's fastv and fastg, which use the design's own basis:
 * both are invariant to it). The inverse's block comes from a Cholesky factor of A ordered
 * nuisance first, whose trailing block is the Schur complement's.
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
  /** Variance groups: their count (0 without), each sample's group, Q_g'Q_g, tr(R_M)_g. */
  private final int groups;
  private final int[] groupOf;
  private final double[][] groupGram;
  private final double[] groupTrace;
  private final int[] groupSize;
  /** Without groups q, with them q per group: the GEMM rows of one draw. */
  private final int rowsPerDraw;
  /** E^2 per sample and voxel, and per draw in a window ||(P_j E)_g||^2 per group and voxel. */
  private final double[] squares;
  private final double[] groupSquares;
  /** With groups: the observed statistic, computed once here (it also marks undefined voxels). */
  private final double[] observedWithGroups;

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
    VarianceGroups vg = model.varianceGroups();
    this.groups = vg == null ? 0 : vg.count();
    this.rowsPerDraw = q * Math.max(groups, 1);
    this.groupOf = new int[n];
    this.groupGram = new double[groups][q * q];
    this.groupTrace = new double[groups];
    this.groupSize = groups == 0 ? new int[0] : vg.sizes();
    for (int i = 0; i < n && groups > 0; i++) {
      int gi = vg.groupOf(i);
      groupOf[i] = gi;
      groupTrace[gi] += 1.0;
      for (int l = 0; l < q; l++) {
        groupTrace[gi] -= basis[l * n + i] * basis[l * n + i];
        for (int m = 0; m < q; m++) {
          groupGram[gi][l * q + m] += basis[l * n + i] * basis[m * n + i];
        }
      }
    }
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
    this.gemm = new BlockGemm(precision, e, n, b, window * rowsPerDraw);
    this.d = new double[window * rowsPerDraw * n];
    this.g = new double[window * rowsPerDraw * b];
    this.squares = groups == 0 ? null : new double[n * b];
    this.groupSquares = groups == 0 ? null : new double[window * groups * b];
    for (int i = 0; i < n * b && groups > 0; i++) {
      squares[i] = e[i] * e[i];
    }
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
    double[] observed = null;
    if (groups > 0) { // also undefined: a group whose observed residuals vanish
      observed = new double[b];
      computeObserved(observed, null);
      for (int v = 0; v < b; v++) {
        if (Double.isNaN(observed[v]) && !undefined[v]) {
          undefined[v] = true;
          count++;
        }
      }
    }
    this.undefinedCount = count;
    this.observedWithGroups = observed;
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
    Arrays.fill(d, rows * rowsPerDraw * n, d.length, 0.0);
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
    if (observedWithGroups != null) {
      System.arraycopy(observedWithGroups, 0, out, 0, b);
      return;
    }
    computeObserved(out, variance);
  }

  private void computeObserved(double[] out, double[] variance) {
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
    if (variance != null && groups > 0) {
      throw new IllegalStateException("[BUG] a variance map of " + contrast.outputName()
          + ": variance smoothing is not defined with variance groups");
    }
    if (variance != null && !tStat) {
      throw new IllegalStateException("[BUG] a variance map of the F contrast "
          + contrast.outputName() + ": variance smoothing is for t contrasts");
    }
  }

  private void fillIdentityRow() {
    draws.identity(perm, signs);
    fillRows(0);
    Arrays.fill(d, rowsPerDraw * n, d.length, 0.0);
  }

  /**
   * Rows [j q, (j + 1) q) of D: row l is Q[:, l]' P_j, so that (D E)_l = sum_p Q[p, l] s_p
   * E[perm[p]], that is D[l, perm[p]] = Q[p, l] s_p.
   */
  private void fillRows(int j) {
    if (groups > 0) {
      fillGroupRows(j);
      return;
    }
    for (int l = 0; l < q; l++) {
      int src = l * n;
      int dst = (j * q + l) * n;
      for (int p = 0; p < n; p++) {
        d[dst + perm[p]] = basis[src + p] * signs[p];
      }
    }
  }

  /**
   * With variance groups: rows [j k q, (j + 1) k q) hold Q[:, l]' P_j restricted to each
   * group's positions (group-major), and ||(P_j E)_g||^2 is summed from E^2 by position.
   */
  private void fillGroupRows(int j) {
    int base = j * rowsPerDraw * n;
    Arrays.fill(d, base, base + rowsPerDraw * n, 0.0);
    int sq = j * groups * b;
    Arrays.fill(groupSquares, sq, sq + groups * b, 0.0);
    for (int p = 0; p < n; p++) {
      int gp = groupOf[p];
      for (int l = 0; l < q; l++) {
        d[base + (gp * q + l) * n + perm[p]] = basis[l * n + p] * signs[p];
      }
      int src = perm[p] * b;
      int dst = sq + gp * b;
      for (int v = 0; v < b; v++) {
        groupSquares[dst + v] += squares[src + v];
      }
    }
  }

  private void multiply() {
    gemm.multiply(d, g);
    flops += gemm.flops();
  }

  private void epilogue(int rows, double[] out, double[] variance) {
    if (groups > 0) {
      groupEpilogue(rows, out);
      return;
    }
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

  /** v or G per draw and voxel from the group rows (see the class comment). */
  private void groupEpilogue(int rows, double[] out) {
    int k = groups;
    double[] gj = new double[q];
    double[] h = new double[k * q];
    double[] a = new double[q * q];
    double[] w = new double[k];
    for (int j = 0; j < rows; j++) {
      int base = j * rowsPerDraw * b;
      int sq = j * k * b;
      for (int v = 0; v < b; v++) {
        Arrays.fill(gj, 0.0);
        for (int gi = 0; gi < k; gi++) {
          for (int l = 0; l < q; l++) {
            double x = g[base + (gi * q + l) * b + v];
            h[gi * q + l] = x;
            gj[l] += x;
          }
        }
        boolean defined = !undefined[v];
        for (int gi = 0; gi < k && defined; gi++) {
          double cross = 0.0;
          double quad = 0.0;
          double[] gram = groupGram[gi];
          for (int l = 0; l < q; l++) {
            cross += gj[l] * h[gi * q + l];
            double row = 0.0;
            for (int m = 0; m < q; m++) {
              row += gram[l * q + m] * gj[m];
            }
            quad += gj[l] * row;
          }
          double total = groupSquares[sq + gi * b + v];
          double rss = total - 2.0 * cross + quad;
          // A group whose residuals vanish to rounding has no variance to weigh by.
          defined = rss > EXACT_FIT * total && groupTrace[gi] > 0;
          w[gi] = groupTrace[gi] / rss;
        }
        out[j * b + v] = defined ? groupStatistic(gj, w, a) : Double.NaN;
      }
    }
  }

  /** v (t contrasts) or G (F) of one voxel and draw, given its coordinates and weights. */
  private double groupStatistic(double[] gj, double[] w, double[] a) {
    // A = sum_g W_g Q_g'Q_g, coordinates reordered nuisance first (r..q-1, then 0..r-1).
    for (int l = 0; l < q; l++) {
      for (int m = 0; m < q; m++) {
        double x = 0.0;
        for (int gi = 0; gi < groups; gi++) {
          x += w[gi] * groupGram[gi][l * q + m];
        }
        a[nuisanceFirst(l) * q + nuisanceFirst(m)] = x;
      }
    }
    if (!cholesky(a, q)) {
      return Double.NaN;
    }
    int off = q - r; // the trailing r x r block of L: the Schur complement's factor
    if (tStat) {
      return gj[0] * a[off * q + off];
    }
    double quad = 0.0;
    for (int c = 0; c < r; c++) { // u = L22' gamma: u_c = sum_{l >= c} L22[l][c] gamma_l
      double u = 0.0;
      for (int l = c; l < r; l++) {
        u += a[(off + l) * q + off + c] * gj[l];
      }
      quad += u * u;
    }
    double sumWn = 0.0;
    for (int gi = 0; gi < groups; gi++) {
      sumWn += w[gi] * groupSize[gi];
    }
    double bsum = 0.0;
    for (int gi = 0; gi < groups; gi++) {
      double share = 1.0 - w[gi] * groupSize[gi] / sumWn;
      bsum += share * share / groupTrace[gi];
    }
    bsum /= r * (r + 2.0);
    return quad / r / (1.0 + 2.0 * (r - 1) * bsum);
  }

  private int nuisanceFirst(int l) {
    return l >= r ? l - r : q - r + l;
  }

  /** In-place lower Cholesky factor of the q x q matrix a (row-major); false if not positive. */
  private static boolean cholesky(double[] a, int q) {
    for (int i = 0; i < q; i++) {
      for (int j = 0; j <= i; j++) {
        double sum = a[i * q + j];
        for (int m = 0; m < j; m++) {
          sum -= a[i * q + m] * a[j * q + m];
        }
        if (i == j) {
          if (!(sum > 0)) {
            return false;
          }
          a[i * q + i] = Math.sqrt(sum);
        } else {
          a[i * q + j] = sum / a[j * q + j];
        }
      }
    }
    return true;
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
