package org.nlspark.core.glm;

import java.io.Serializable;

/**
 * One contrast of a prepared model, with the design partitioned for it (see {@link GlmModel} for
 * the formulas). Immutable; the arrays are owned and never handed out for writing.
 */
public final class GlmContrast implements Serializable {
  private static final long serialVersionUID = 1L;

  /** t (one row, signed statistic) or F (rank r rows, non-negative statistic). */
  public enum Kind {
    T("tstat"),
    F("fstat");

    private final String prefix;

    Kind(String prefix) {
      this.prefix = prefix;
    }

    public String prefix() {
      return prefix;
    }
  }

  private final Kind kind;
  private final int number;
  private final String name;
  private final double[][] matrix;
  private final int rank;
  private final int nuisanceRank;
  private final int samples;
  private final double[] basisRows;
  private final double[][] effect;
  /** Tested with variance groups: the Aspin–Welch v (t) or Welch's G (F), PALM's names. */
  private final boolean groups;

  GlmContrast(Kind kind, int number, String name, double[][] matrix, int rank, int nuisanceRank,
      int samples, double[] basisRows, double[][] effect) {
    this(kind, number, name, matrix, rank, nuisanceRank, samples, basisRows, effect, false);
  }

  private GlmContrast(Kind kind, int number, String name, double[][] matrix, int rank,
      int nuisanceRank, int samples, double[] basisRows, double[][] effect, boolean groups) {
    this.groups = groups;
    this.kind = kind;
    this.number = number;
    this.name = name;
    this.matrix = matrix;
    this.rank = rank;
    this.nuisanceRank = nuisanceRank;
    this.samples = samples;
    this.basisRows = basisRows;
    this.effect = effect;
  }

  public Kind kind() {
    return kind;
  }

  /** 1-based within its kind, as randomise numbers outputs (tstat1, fstat1). */
  public int number() {
    return number;
  }

  public String name() {
    return name;
  }

  /**
   * Output stem of DESIGN §9: {@code tstat1}, {@code fstat2}, ...; with variance groups PALM's
   * {@code vstat1}, {@code gstat2}.
   */
  public String outputName() {
    return (groups ? (kind == Kind.T ? "vstat" : "gstat") : kind.prefix()) + number;
  }

  /** Whether the statistic is v or G (variance groups), not t or F. */
  public boolean varianceGroups() {
    return groups;
  }

  /** The same contrast tested with variance groups (v or G). */
  GlmContrast withVarianceGroups() {
    return new GlmContrast(kind, number, name, matrix, rank, nuisanceRank, samples, basisRows,
        effect, true);
  }

  /** C' (rows x k): one row for t, the chosen t rows for F. */
  public double[][] matrix() {
    return copy(matrix);
  }

  /** Rank r of the contrast: the F numerator's degrees of freedom (1 for t). */
  public int rank() {
    return rank;
  }

  /** Dimension of the nuisance space Z (rank(M) - r). */
  public int nuisanceRank() {
    return nuisanceRank;
  }

  /** Dimension of the whole basis: r + nuisance rank = rank(M). */
  public int basisSize() {
    return rank + nuisanceRank;
  }

  /**
   * The rotated basis Q_c' of the design space, (r + z) rows of length n, row-major: rows
   * [0, r) span the contrast's effect B = M+' C, rows [r, r + z) span the nuisance Z.
   */
  double[] basisRows() {
    return basisRows;
  }

  /** Effect part X = M pinv(C') (n x rows), used to count distinct permutations as PALM. */
  public double[][] effect() {
    return copy(effect);
  }

  public int samples() {
    return samples;
  }

  private static double[][] copy(double[][] a) {
    double[][] c = new double[a.length][];
    for (int i = 0; i < a.length; i++) {
      c[i] = a[i].clone();
    }
    return c;
  }
}
