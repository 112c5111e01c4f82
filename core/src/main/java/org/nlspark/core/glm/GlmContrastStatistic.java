package org.nlspark.core.glm;

import java.util.Arrays;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.stats.BlockGemm;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.ZScores;

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
 *
 * <p>With variance groups every draw's v or G has its own degrees of freedom ν = 1 / (3 b) per
 * voxel (Welch's; at r = 1 Welch–Satterthwaite's, the df of Welch's two-sample t), so the
 * largest v of a map is not its most significant value. The kernel therefore gives every draw's
 * statistic, the observed one included, on one scale: z of v through t with ν, of G through F
 * with (r, ν) ({@link ZScores}), as PALM converts them before it counts; p-values, maxima, TFCE
 * and clusters all see z. {@link #observedStatistic} gives the observed v or G themselves, the
 * map that is written. (PALM's fastv takes ν = 1 / (3 Σ) without the division by r (r + 2) = 3:
 * a third of Welch's df for v; nlspark keeps Welch's, which its fastg and the paper give at r = 1.)
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
  /** With groups: the observed z, computed once here (it also marks undefined voxels). */
  private final double[] observedWithGroups;
  /** With groups: the observed v or G themselves (the written map), and their ν. */
  private final double[] observedGroupStatistic;
  private final double[] observedGroupDegrees;
  /** The degrees of freedom of the last {@link #groupStatistic}. */
  private double groupDegrees;
  /**
   * With groups and a t contrast, for {@link #computeForCounts}: the fewest degrees of freedom
   * any draw can have, each window value's v and ν, per voxel the |v| above which z surely
   * reaches the observed |z| (NaN: not yet computed), and which values of a row are exact z.
   */
  private final double leastDegrees;
  private double[] drawStatistic;
  private double[] drawDegrees;
  private double[] sureBound;
  private boolean[] exactInRow;
  /** For G: per voxel the observed P(F &gt; G) (NaN: not yet computed), and a row's. */
  private double[] observedTail;
  private double[] drawTail;
  /** Values {@link #computeForCounts} converted to z, and all it was given (for tests). */
  long convertedForCounts;
  long valuesForCounts;

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
    double[] statistic = null;
    double[] degrees = null;
    if (groups > 0) { // also undefined: a group whose observed residuals vanish
      fillIdentityRow();
      multiply();
      double[] full = new double[window * b];
      double[] fullStatistic = new double[window * b];
      double[] fullDegrees = new double[window * b];
      groupEpilogue(1, full, fullStatistic, fullDegrees);
      observed = Arrays.copyOf(full, b);
      statistic = Arrays.copyOf(fullStatistic, b);
      degrees = Arrays.copyOf(fullDegrees, b);
      for (int v = 0; v < b; v++) {
        if (Double.isNaN(observed[v]) && !undefined[v]) {
          undefined[v] = true;
          count++;
        }
      }
    }
    this.undefinedCount = count;
    this.observedWithGroups = observed;
    this.observedGroupStatistic = statistic;
    this.observedGroupDegrees = degrees;
    this.leastDegrees = groups > 0 ? leastDegrees() : Double.NaN;
  }

  /**
   * The fewest degrees of freedom ν = r (r + 2) / (3 Σ_g s_g² / tr_g) of any draw: the shares s_g
   * = 1 − W_g n_g / Σ W n lie in [0, 1] and add up to k − 1, so Σ s_g² / tr_g is at most Σ 1/tr_g
   * less the smallest 1/tr_g (a convex sum is largest at a vertex); lowered by 1e-9 against
   * rounding.
   */
  private double leastDegrees() {
    double sum = 0.0;
    double least = Double.POSITIVE_INFINITY;
    for (double tr : groupTrace) {
      if (!(tr > 0)) {
        return Double.NaN; // every voxel is undefined (groupEpilogue)
      }
      sum += 1.0 / tr;
      least = Math.min(least, 1.0 / tr);
    }
    return r * (r + 2.0) / (3.0 * (sum - least)) * (1 - 1e-9);
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

  /**
   * The draws' values for per-voxel counts and each draw's largest key only (the voxelwise
   * tiles; never maps that TFCE, clusters or retained tails read): with variance groups and a t
   * contrast a value whose key reaches the observed key exactly when the key of z does, and is
   * never above it, so counts and maxima are those of {@link #compute}'s z while most values
   * skip their z. Bounds: |z| ≤ |v| (a t tail is heavier than the normal's), and |z| at ν is at
   * least |z| at {@link #leastDegrees} (z grows with ν at a fixed t); a value between the
   * bounds, and every value that could be its draw's largest, gets its exact z. G (upper tail
   * only) compares probabilities instead ({@link #countingRowOfG}). Without groups it is {@link
   * #compute}.
   */
  public void computeForCounts(long first, int rows, double[] out, Tail tail) {
    if (groups == 0 || Double.isNaN(leastDegrees)) {
      compute(first, rows, out);
      return;
    }
    for (int j = 0; j < rows; j++) {
      draws.fill(first + j, perm, signs);
      fillRows(j);
    }
    Arrays.fill(d, rows * rowsPerDraw * n, d.length, 0.0);
    multiply();
    if (drawStatistic == null) {
      drawStatistic = new double[window * b];
      drawDegrees = new double[window * b];
      sureBound = new double[b];
      Arrays.fill(sureBound, Double.NaN);
      observedTail = new double[b];
      Arrays.fill(observedTail, Double.NaN);
      drawTail = new double[b];
      exactInRow = new boolean[b];
    }
    groupEpilogue(rows, null, drawStatistic, drawDegrees);
    for (int j = 0; j < rows; j++) {
      if (tStat) {
        countingRow(j * b, out, tail);
      } else {
        countingRowOfG(j * b, out);
      }
    }
  }

  /**
   * One draw's counting values of G (upper tail): F's tail is not monotone in ν, so no bound in
   * ν serves; but z of G is the normal quantile of P(F &gt; G), and that probability (most of
   * the cost is the quantile's) decides a count wherever it is more than 1e-9 (relative) away
   * from the observed one, and the draw's largest z is at its smallest probability; values
   * within 1e-9 of either get their exact z.
   */
  private void countingRowOfG(int o, double[] out) {
    valuesForCounts += b;
    double least = Double.POSITIVE_INFINITY; // the smallest probability of a counting value
    for (int v = 0; v < b; v++) {
      if (undefinedInRow(o, v, out)) {
        continue;
      }
      double x = drawStatistic[o + v];
      double zo = observedWithGroups[v];
      double xo = observedGroupStatistic[v];
      if (!(x > 0) || x == Double.POSITIVE_INFINITY || !(xo > 0)
          || xo == Double.POSITIVE_INFINITY) {
        out[o + v] = ZScores.ofF(x, r, drawDegrees[o + v]); // the special values: as ofF
        convertedForCounts++;
        continue;
      }
      double p = ZScores.upperTailOfF(x, r, drawDegrees[o + v]);
      double po = observedTail(v);
      drawTail[v] = p;
      if (p < po * (1 - 1e-9)) {
        out[o + v] = zo; // a smaller probability: z above the observed z
      } else if (p > po * (1 + 1e-9)) {
        out[o + v] = Double.NEGATIVE_INFINITY;
      } else {
        out[o + v] = ZScores.ofF(x, r, drawDegrees[o + v]);
        convertedForCounts++;
        continue;
      }
      exactInRow[v] = false;
      least = Math.min(least, p);
    }
    if (least == Double.POSITIVE_INFINITY) {
      return;
    }
    for (int v = 0; v < b; v++) {
      if (!exactInRow[v] && drawTail[v] <= least * (1 + 1e-9)) {
        out[o + v] = ZScores.upperQuantile(drawTail[v]); // ofF's z, bit for bit
        convertedForCounts++;
        exactInRow[v] = true;
      }
    }
  }

  /**
   * Starts voxel v of a counting row as exact; true (its value NaN) where the voxel has no
   * statistic in this draw or observed.
   */
  private boolean undefinedInRow(int o, int v, double[] out) {
    exactInRow[v] = true;
    if (Double.isNaN(drawStatistic[o + v]) || Double.isNaN(observedWithGroups[v])) {
      out[o + v] = Double.NaN;
      return true;
    }
    return false;
  }

  /** The observed G's probability P(F &gt; G) at voxel v (computed once). */
  private double observedTail(int v) {
    double p = observedTail[v];
    if (Double.isNaN(p)) {
      p = ZScores.upperTailOfF(observedGroupStatistic[v], r, observedGroupDegrees[v]);
      observedTail[v] = p;
    }
    return p;
  }

  /** One draw's values for counting (see {@link #computeForCounts}) at {@code o}. */
  private void countingRow(int o, double[] out, Tail tail) {
    boolean two = tail == Tail.TWO;
    double sign = tail == Tail.LOWER ? -1.0 : 1.0; // tested side: sign * z
    double best = Double.NEGATIVE_INFINITY; // the largest key of an exact value so far
    valuesForCounts += b;
    for (int v = 0; v < b; v++) {
      if (undefinedInRow(o, v, out)) {
        continue;
      }
      double x = drawStatistic[o + v];
      double zo = observedWithGroups[v];
      // Exceeding is |z| ≥ |zo| (two tails; on the tested side with zo > 0) or |z| ≤ |zo| (a
      // value on the other side of a one-tailed test whose observed z is there too).
      double a = two ? Math.abs(x) : sign * x;
      double target = Math.abs(zo);
      boolean below = !two && sign * zo <= 0; // the observed key is ≤ 0: exceed is |z| ≤ |zo|
      if (below && a >= 0) {
        out[o + v] = zo; // z on the tested side (or 0) reaches a key ≤ 0
        exactInRow[v] = false;
        continue;
      }
      if (!two && !below && a <= 0) {
        out[o + v] = sign * Double.NEGATIVE_INFINITY; // z off the tested side: no key > 0
        exactInRow[v] = false;
        continue;
      }
      double magnitude = Math.abs(x);
      boolean surelySmaller = magnitude < target * (1 - 1e-9) - 1e-10; // |z| ≤ |v| < |zo|
      boolean surelyLarger = magnitude > sureBound(v, target); // |z| ≥ |z at least ν| > |zo|
      if (!surelySmaller && !surelyLarger) {
        out[o + v] = ZScores.ofT(x, drawDegrees[o + v]);
        convertedForCounts++;
        best = Math.max(best, tail.key(out[o + v]));
        continue;
      }
      exactInRow[v] = false;
      if (below) { // |z| ≤ |zo| exceeds: the observed z itself; else a key below everything
        out[o + v] = surelySmaller ? zo : sign * Double.NEGATIVE_INFINITY;
      } else if (two) {
        out[o + v] = surelyLarger ? target : 0.0;
      } else {
        out[o + v] = surelyLarger ? zo : sign * Double.NEGATIVE_INFINITY;
      }
    }
    // The draw's largest key: every value whose bound could reach above the best exact key
    // gets its exact z (the bound's largest first, so that few do).
    int top = -1;
    double topBound = best;
    for (int v = 0; v < b; v++) {
      double u = exactInRow[v] ? Double.NEGATIVE_INFINITY : keyBound(drawStatistic[o + v], two,
          sign);
      if (u > topBound) {
        topBound = u;
        top = v;
      }
    }
    if (top < 0) {
      return;
    }
    for (int v = top, seen = 0; seen < b; v = (v + 1) % b, seen++) {
      if (exactInRow[v] || !(keyBound(drawStatistic[o + v], two, sign) > best)) {
        continue;
      }
      out[o + v] = ZScores.ofT(drawStatistic[o + v], drawDegrees[o + v]);
      convertedForCounts++;
      exactInRow[v] = true;
      best = Math.max(best, tail.key(out[o + v]));
    }
  }

  /** A key z cannot pass: |v| on two tails, else v on the tested side (z has v's sign). */
  private static double keyBound(double x, boolean two, double sign) {
    double a = two ? Math.abs(x) : Math.max(sign * x, 0.0);
    return a * (1 + 1e-12) + 1e-300; // above z's rounding
  }

  /**
   * The |v| beyond which z surely reaches {@code target} (voxel v's observed |z|) whatever the
   * draw's degrees of freedom: the t at which z at {@link #leastDegrees} is the target, widened
   * by 1e-8 against the inversion's 1e-10; +Infinity where the inversion does not settle.
   */
  private double sureBound(int v, double target) {
    double bound = sureBound[v];
    if (Double.isNaN(bound)) {
      double t = target > 0 ? ZScores.tOfZ(target, leastDegrees, target * 2 + 1,
          ZScores.logDensityRatio(leastDegrees)) : 0.0;
      bound = Double.isNaN(t) ? Double.POSITIVE_INFINITY : t * (1 + 1e-8) + 1e-10;
      sureBound[v] = bound;
    }
    return bound;
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

  /**
   * The observed statistic as it is written: t or F, or with variance groups v or G themselves
   * (where {@link #observed} gives their z, the scale every count and maximum is on).
   */
  public void observedStatistic(double[] out) {
    if (observedGroupStatistic != null) {
      System.arraycopy(observedGroupStatistic, 0, out, 0, b);
      return;
    }
    observed(out);
  }

  /** Whether {@link #observed} and {@link #observedStatistic} differ: z of v or G. */
  public boolean onZ() {
    return groups > 0;
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
      groupEpilogue(rows, out, null, null);
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

  /**
   * v or G per draw and voxel from the group rows (see the class comment): their z into {@code
   * out}, themselves into {@code statistic} and their degrees of freedom into {@code degrees},
   * each where non-null.
   */
  private void groupEpilogue(int rows, double[] out, double[] statistic, double[] degrees) {
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
        double x = defined ? groupStatistic(gj, w, a) : Double.NaN;
        if (out != null) {
          out[j * b + v] = tStat ? ZScores.ofT(x, groupDegrees)
              : ZScores.ofF(x, r, groupDegrees);
        }
        if (statistic != null) {
          statistic[j * b + v] = x;
        }
        if (degrees != null) {
          degrees[j * b + v] = groupDegrees;
        }
      }
    }
  }

  /**
   * v (t contrasts) or G (F) of one voxel and draw, given its coordinates and weights; its
   * degrees of freedom ν = 1 / (3 b) go to {@link #groupDegrees}.
   */
  private double groupStatistic(double[] gj, double[] w, double[] a) {
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
    groupDegrees = 1.0 / (3.0 * bsum);
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
