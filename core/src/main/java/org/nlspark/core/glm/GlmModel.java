package org.nlspark.core.glm;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.nlspark.core.InvalidInputException;

/**
 * A general linear model prepared once on the driver (DESIGN §9): the validated design M
 * (n x k, no intercept added), its rank q and, per contrast, the partition Freedman-Lane needs.
 * Serializable and small (O(n k) per contrast), so it travels to every task.
 *
 * <p>Formulas, for a contrast C (k x r as columns; C' its rows, estimable: C' M+ M = C'):
 * <ul>
 *   <li>Effect direction B = M+' C (n x r), so the estimate is psi = C' beta = B' Y and
 *       C' (M'M)+ C = B'B. Nuisance (Beckmann / Ridgway, Winkler et al. 2014 Appendix A):
 *       Z = M null(C'), with H_Z, R_Z = I - H_Z its hat and residual-forming matrices. The
 *       effect of interest X = M pinv(C') is kept only to count distinct permutations (PALM).
 *   <li>col(M) = col(B) (+) col(Z), orthogonally: B'Z = C' M+ M null(C') = C' null(C') = 0, and
 *       dim Z = q - rank(C). So one orthonormal basis Q = [Q_B, Q_Z] of col(M) (n x q) splits
 *       into the effect part Q_B (n x r, for t simply b / ||b||) and the nuisance part Q_Z.
 *   <li>Freedman-Lane draw j (P_j a row permutation and/or sign flip, orthogonal):
 *       Y*_j = (P_j R_Z + H_Z) Y. With E = R_Z Y and G_j = Q' P_j E (q x V):
 *       psi*_j = B' P_j E + B' H_Z Y = B' P_j E (B is orthogonal to Z), and
 *       RSS*_j = ||R_M P_j E||^2 = ||E||^2 - ||G_j||^2 (P_j keeps norms; R_M H_Z = 0).
 *   <li>t (r = 1): t = psi / sqrt(RSS / df * b'b) = G_j[0] / sqrt(RSS*_j / df), df = n - q.
 *   <li>F (rank r): F = (psi' (B'B)+ psi / r) / (RSS / df) = (sum_{l<r} G_j[l]^2 / r)
 *       / (RSS*_j / df), since psi' (B'B)+ psi = ||H_B P_j E||^2.
 * </ul>
 * The identity draw gives G = Q'E with the nuisance rows zero, so RSS = ||R_M Y||^2 and the
 * statistics are those of the full-model least-squares fit: the observed statistic.
 */
public final class GlmModel implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A contrast row is estimable when ||C' - C' M+ M|| <= this times ||C'|| (rounding only). */
  static final double ESTIMABILITY_TOLERANCE = 1e-8;

  private final int samples;
  private final int columns;
  private final int rank;
  private final String[] columnNames;
  private final List<GlmContrast> contrasts;
  private final boolean interceptOnly;
  /** More than one variance group, or null: the statistics are then v and G. */
  private final VarianceGroups varianceGroups;

  private GlmModel(int samples, int columns, int rank, String[] columnNames,
      List<GlmContrast> contrasts, boolean interceptOnly) {
    this(samples, columns, rank, columnNames, contrasts, interceptOnly, null);
  }

  private GlmModel(int samples, int columns, int rank, String[] columnNames,
      List<GlmContrast> contrasts, boolean interceptOnly, VarianceGroups varianceGroups) {
    this.varianceGroups = varianceGroups;
    this.interceptOnly = interceptOnly;
    this.samples = samples;
    this.columns = columns;
    this.rank = rank;
    this.columnNames = columnNames;
    this.contrasts = contrasts;
  }

  /**
   * Validates and prepares a model; every refusal is an {@link InvalidInputException} raised
   * before any resampling work.
   *
   * @param samples rows of the data Y
   */
  public static GlmModel prepare(GlmDesign design, GlmContrasts contrasts, int samples) {
    double[][] m = design.values();
    String src = design.source();
    int n = m.length;
    if (n != samples) {
      throw new InvalidInputException("Cannot fit the design " + src + ": it has " + n
          + " rows but the data has " + samples + " samples; give one design row per sample, in"
          + " the order of the data");
    }
    int k = design.columns();
    if (k < 1) {
      throw new InvalidInputException("Cannot fit the design " + src + ": it has no columns");
    }
    String[] names = design.names();
    checkValues(m, names, src);
    int constant = -1;
    for (int j = 0; j < k; j++) {
      boolean allZero = true;
      boolean same = true;
      for (int i = 0; i < n; i++) {
        allZero &= m[i][j] == 0.0;
        same &= m[i][j] == m[0][j];
      }
      if (allZero) {
        throw new InvalidInputException("Cannot fit the design " + src + ": column " + (j + 1)
            + " (" + names[j] + ") is all zero; remove it");
      }
      if (same) {
        if (constant >= 0) {
          throw new InvalidInputException("Cannot fit the design " + src + ": columns "
              + (constant + 1) + " (" + names[constant] + ") and " + (j + 1) + " (" + names[j]
              + ") are both constant; keep one intercept column");
        }
        constant = j;
      }
    }
    int q = Linalg.rank(m);
    if (n - q < 1) {
      throw new InvalidInputException("Cannot fit the design " + src + ": its rank " + q
          + " leaves no residual degrees of freedom with " + n + " samples; use fewer columns or"
          + " more samples");
    }
    contrasts = contrasts.matchedTo(design);
    double[][] t = contrasts.t();
    if (t.length == 0) {
      throw new InvalidInputException("Cannot test the design " + src + ": " + contrasts.source()
          + " holds no t contrast; give at least one");
    }
    for (int c = 0; c < t.length; c++) {
      if (t[c].length != k) {
        throw new InvalidInputException("Cannot use t contrast " + (c + 1) + " ("
            + contrasts.tNames()[c] + ") of " + contrasts.source() + ": it has " + t[c].length
            + " values but the design " + src + " has " + k + " columns; give one weight per"
            + " design column");
      }
      checkRow(t[c], "t contrast " + (c + 1) + " (" + contrasts.tNames()[c] + ") of "
          + contrasts.source());
    }
    double[][] pinvM = Linalg.pinv(m);
    double[][] projector = Linalg.multiply(pinvM, m); // M+ M, the row-space projector (k x k)
    List<GlmContrast> out = new ArrayList<>();
    for (int c = 0; c < t.length; c++) {
      String label = "t contrast " + (c + 1) + " (" + contrasts.tNames()[c] + ") of "
          + contrasts.source();
      out.add(partition(GlmContrast.Kind.T, c + 1, contrasts.tNames()[c], new double[][] {t[c]},
          m, pinvM, projector, q, label, src, names));
    }
    int[][] f = contrasts.f();
    for (int c = 0; c < f.length; c++) {
      String label = "F contrast " + (c + 1) + " of " + contrasts.fSource();
      if (f[c].length == 0) {
        throw new InvalidInputException("Cannot use " + label + ": it selects no t contrast");
      }
      double[][] rows = new double[f[c].length][];
      StringBuilder name = new StringBuilder();
      for (int i = 0; i < f[c].length; i++) {
        int idx = f[c][i];
        if (idx < 0 || idx >= t.length) {
          throw new InvalidInputException("Cannot use " + label + ": t contrast " + (idx + 1)
              + " does not exist; " + contrasts.source() + " has " + t.length + " t contrasts");
        }
        rows[i] = t[idx].clone();
        name.append(i == 0 ? "" : "+").append(contrasts.tNames()[idx]);
      }
      out.add(partition(GlmContrast.Kind.F, c + 1, name.toString(), rows, m, pinvM, projector, q,
          label, src, names));
    }
    return new GlmModel(n, k, q, names.clone(), Collections.unmodifiableList(out),
        k == 1 && constant == 0);
  }

  private static void checkValues(double[][] m, String[] names, String src) {
    for (int i = 0; i < m.length; i++) {
      if (m[i].length != names.length) {
        throw new InvalidInputException("Cannot fit the design " + src + ": row " + (i + 1)
            + " has " + m[i].length + " values but the design has " + names.length + " columns");
      }
      for (int j = 0; j < m[i].length; j++) {
        if (!Double.isFinite(m[i][j])) {
          throw new InvalidInputException("Cannot fit the design " + src + ": row " + (i + 1)
              + ", column " + (j + 1) + " (" + names[j] + ") is " + m[i][j]
              + "; every design value must be a finite number");
        }
      }
    }
  }

  private static void checkRow(double[] row, String label) {
    boolean allZero = true;
    for (double x : row) {
      if (!Double.isFinite(x)) {
        throw new InvalidInputException("Cannot use " + label + ": it holds " + x
            + "; every weight must be a finite number");
      }
      allZero &= x == 0.0;
    }
    if (allZero) {
      throw new InvalidInputException("Cannot use " + label + ": all its weights are zero");
    }
  }

  /**
   * Columns whose typical magnitudes (root mean square) differ by more than this are named when
   * the model fails numerically: rounding in M+ M grows with that ratio.
   */
  static final double ILL_CONDITIONED_SCALES = 1e6;

  /** "column 'a' is about 1.5e+09 times column 'b'" when the scales differ that much, or null. */
  static String illConditioned(double[][] m, String[] names) {
    int k = names.length;
    int big = 0;
    int small = 0;
    double[] rms = new double[k];
    for (int j = 0; j < k; j++) {
      double sum = 0;
      for (double[] row : m) {
        sum += row[j] / m.length * row[j];
      }
      rms[j] = Math.sqrt(sum);
      big = rms[j] > rms[big] ? j : big;
      small = rms[j] < rms[small] ? j : small;
    }
    double ratio = rms[big] / rms[small];
    if (!(ratio > ILL_CONDITIONED_SCALES)) {
      return ratio == ratio ? null : "column '" + names[big] + "' overflows when squared";
    }
    return "column '" + names[big] + "' is about " + String.format(java.util.Locale.ROOT, "%.1e",
        ratio) + " times column '" + names[small] + "' in magnitude";
  }

  private static GlmContrast partition(GlmContrast.Kind kind, int number, String name,
      double[][] ct, double[][] m, double[][] pinvM, double[][] projector, int q, String label,
      String src, String[] names) {
    int n = m.length;
    // Estimability: C' must lie in the row space of M (C' M+ M = C').
    double[][] back = Linalg.multiply(ct, projector);
    double[][] diff = new double[ct.length][ct[0].length];
    for (int i = 0; i < ct.length; i++) {
      for (int j = 0; j < ct[0].length; j++) {
        diff[i][j] = back[i][j] - ct[i][j];
      }
    }
    if (Linalg.frobenius(diff) > ESTIMABILITY_TOLERANCE * Linalg.frobenius(ct)) {
      String scales = illConditioned(m, names);
      if (scales != null) {
        throw new InvalidInputException("Cannot test " + label + ": the design " + src + " is"
            + " ill-conditioned (" + scales + "), so its rank and what it can estimate are lost"
            + " to rounding; rescale that column (divide it by a power of ten, or z-score it)");
      }
      throw new InvalidInputException("Cannot test " + label + ": it is not estimable in the"
          + " design " + src + " (rank " + q + " of " + ct[0].length + " columns): it weights a"
          + " combination of columns the data cannot separate; change the contrast or the design");
    }
    double[][] bt = Linalg.multiply(ct, pinvM); // B' = C' M+ (rows x n)
    double[][] effectBasis;
    int r;
    if (kind == GlmContrast.Kind.T) {
      // b / ||b|| keeps the sign of the contrast, so G[0] has the sign of psi.
      double norm = Linalg.frobenius(bt);
      effectBasis = new double[n][1];
      for (int i = 0; i < n; i++) {
        effectBasis[i][0] = bt[0][i] / norm;
      }
      r = 1;
    } else {
      effectBasis = Linalg.columnBasis(Linalg.transpose(bt));
      r = effectBasis[0].length;
    }
    double[][] z = Linalg.multiply(m, Linalg.nullSpace(ct)); // Z = M null(C')
    double[][] nuisanceBasis = z[0].length == 0 ? new double[n][0] : Linalg.columnBasis(z);
    int zr = nuisanceBasis[0].length;
    if (r + zr != q && illConditioned(m, names) != null) {
      throw new InvalidInputException("Cannot test " + label + ": the design " + src + " is"
          + " ill-conditioned (" + illConditioned(m, names) + "), so its partition for this"
          + " contrast is lost to rounding; rescale that column (divide it by a power of ten, or"
          + " z-score it)");
    }
    if (r + zr != q) {
      throw new IllegalStateException("[BUG] partition of " + label + ": effect rank " + r
          + " + nuisance rank " + zr + " != design rank " + q);
    }
    double[] rows = new double[q * n];
    for (int l = 0; l < q; l++) {
      for (int i = 0; i < n; i++) {
        rows[l * n + i] = l < r ? effectBasis[i][l] : nuisanceBasis[i][l - r];
      }
    }
    double[][] effect = Linalg.multiply(m, Linalg.pinv(ct)); // X = M pinv(C')
    return new GlmContrast(kind, number, name, ct, r, zr, n, rows, effect);
  }

  public int samples() {
    return samples;
  }

  public int columns() {
    return columns;
  }

  /** Rank q of the design. */
  public int rank() {
    return rank;
  }

  /** Residual degrees of freedom n - q. */
  public int degreesOfFreedom() {
    return samples - rank;
  }

  /** The design is one constant column (a one-sample test). */
  public boolean interceptOnly() {
    return interceptOnly;
  }

  public String[] columnNames() {
    return columnNames.clone();
  }

  /** t contrasts first (tstat1..), then F contrasts (fstat1..). */
  /**
   * The same model with variance groups (PALM's {@code -vg}): with more than one group every
   * contrast is tested by v or G; with one (or null) the model is unchanged, t and F.
   */
  public GlmModel withVarianceGroups(VarianceGroups groups) {
    if (groups != null && !groups.resolved()) {
      throw new IllegalArgumentException("[BUG] variance groups not resolved against the data");
    }
    if (groups == null || groups.count() < 2) {
      return this;
    }
    if (groups.samples() != samples) {
      throw new IllegalArgumentException("[BUG] variance groups of " + groups.samples()
          + " samples for a model of " + samples);
    }
    List<GlmContrast> flagged = contrasts.stream().map(GlmContrast::withVarianceGroups)
        .toList();
    return new GlmModel(samples, columns, rank, columnNames, flagged, interceptOnly, groups);
  }

  /** The variance groups (more than one), or null. */
  public VarianceGroups varianceGroups() {
    return varianceGroups;
  }

  public List<GlmContrast> contrasts() {
    return contrasts;
  }
}
