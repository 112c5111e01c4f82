package org.nlspark.core.glm;

import org.nlspark.core.resample.GlmDraws;

/**
 * The brute force the GLM kernel is checked against: for every draw, build the Freedman-Lane
 * data Y* = P R_Z Y + H_Z Y explicitly (Z = M (I - C (C'C)^-1 C'), the projection of M onto
 * null(C'), orthonormalised by Gram-Schmidt) and refit the full model by the normal equations.
 * Written independently of the production code (no SVD, no rotated basis, no GEMM).
 */
final class OlsReference {
  private OlsReference() {}

  /** Statistic (t, or F of the rows of ct) of the full-model fit of y (n) on m (n x k). */
  static double statistic(double[][] m, double[] y, double[][] ct, boolean t) {
    return fit(m, y, ct, t)[0];
  }

  /** {statistic, σ² = RSS / (n − k)} of the full-model fit of y (n) on m (n x k). */
  static double[] fit(double[][] m, double[] y, double[][] ct, boolean t) {
    int n = m.length;
    int k = m[0].length;
    double[][] xtx = new double[k][k];
    double[] xty = new double[k];
    for (int i = 0; i < n; i++) {
      for (int a = 0; a < k; a++) {
        xty[a] += m[i][a] * y[i];
        for (int c = 0; c < k; c++) {
          xtx[a][c] += m[i][a] * m[i][c];
        }
      }
    }
    double[][] inv = inverse(xtx);
    double[] beta = times(inv, xty);
    double rss = 0.0;
    for (int i = 0; i < n; i++) {
      double fit = 0.0;
      for (int a = 0; a < k; a++) {
        fit += m[i][a] * beta[a];
      }
      rss += (y[i] - fit) * (y[i] - fit);
    }
    double sigma2 = rss / (n - k);
    int r = ct.length;
    double[] psi = new double[r];
    double[][] cov = new double[r][r]; // C' (M'M)^-1 C
    for (int i = 0; i < r; i++) {
      for (int a = 0; a < k; a++) {
        psi[i] += ct[i][a] * beta[a];
      }
      for (int j = 0; j < r; j++) {
        for (int a = 0; a < k; a++) {
          for (int c = 0; c < k; c++) {
            cov[i][j] += ct[i][a] * inv[a][c] * ct[j][c];
          }
        }
      }
    }
    if (t) {
      return new double[] {psi[0] / Math.sqrt(sigma2 * cov[0][0]), sigma2};
    }
    double[] w = times(inverse(cov), psi);
    double quad = 0.0;
    for (int i = 0; i < r; i++) {
      quad += psi[i] * w[i];
    }
    return new double[] {quad / r / sigma2, sigma2};
  }

  /** Orthonormal basis (columns) of Z = M (I - C (C'C)^-1 C'), by modified Gram-Schmidt. */
  static double[][] nuisanceBasis(double[][] m, double[][] ct) {
    int n = m.length;
    int k = m[0].length;
    int r = ct.length;
    double[][] cc = new double[r][r];
    for (int i = 0; i < r; i++) {
      for (int j = 0; j < r; j++) {
        for (int a = 0; a < k; a++) {
          cc[i][j] += ct[i][a] * ct[j][a];
        }
      }
    }
    double[][] ccInv = inverse(cc);
    double[][] proj = new double[k][k];
    for (int a = 0; a < k; a++) {
      for (int c = 0; c < k; c++) {
        double s = a == c ? 1.0 : 0.0;
        for (int i = 0; i < r; i++) {
          for (int j = 0; j < r; j++) {
            s -= ct[i][a] * ccInv[i][j] * ct[j][c];
          }
        }
        proj[a][c] = s;
      }
    }
    double[][] z = new double[k][n]; // columns of Z as rows
    for (int c = 0; c < k; c++) {
      for (int i = 0; i < n; i++) {
        for (int a = 0; a < k; a++) {
          z[c][i] += m[i][a] * proj[a][c];
        }
      }
    }
    double[][] basis = new double[k][];
    int found = 0;
    for (int c = 0; c < k; c++) {
      double[] v = z[c].clone();
      double before = norm(v);
      for (int f = 0; f < found; f++) {
        double dot = dot(basis[f], v);
        for (int i = 0; i < n; i++) {
          v[i] -= dot * basis[f][i];
        }
      }
      double after = norm(v);
      if (after > 1e-9 * Math.max(before, 1.0)) {
        for (int i = 0; i < n; i++) {
          v[i] /= after;
        }
        basis[found++] = v;
      }
    }
    double[][] out = new double[found][];
    System.arraycopy(basis, 0, out, 0, found);
    return out;
  }

  /** Statistics (replicates x voxels) of replicates [0, count) of the draws, and row -1 observed. */
  static double[][] nullStatistics(double[][] m, double[][] y, double[][] ct, boolean t,
      GlmDraws draws, long count) {
    int n = m.length;
    int v = y[0].length;
    double[][] fitted = nuisanceFit(m, y, ct);
    double[][] resid = minus(y, fitted);
    double[][] out = new double[(int) count][v];
    int[] perm = new int[n];
    double[] signs = new double[n];
    double[] ystar = new double[n];
    for (int r = 0; r < count; r++) {
      draws.fill(r, perm, signs);
      for (int col = 0; col < v; col++) {
        for (int p = 0; p < n; p++) {
          ystar[p] = signs[p] * resid[perm[p]][col] + fitted[p][col];
        }
        out[r][col] = statistic(m, ystar, ct, t);
      }
    }
    return out;
  }

  /** The statistic of every voxel (column of y), by {@link #statistic}. */
  static double[] statistics(double[][] m, double[][] y, double[][] ct, boolean t) {
    double[] out = new double[y[0].length];
    for (int col = 0; col < out.length; col++) {
      double[] ycol = new double[m.length];
      for (int i = 0; i < m.length; i++) {
        ycol[i] = y[i][col];
      }
      out[col] = statistic(m, ycol, ct, t);
    }
    return out;
  }

  /** Freedman-Lane's fixed part: y's fit on the contrast's nuisance (n x v, per column). */
  static double[][] nuisanceFit(double[][] m, double[][] y, double[][] ct) {
    int n = m.length;
    int v = y[0].length;
    double[][] zb = nuisanceBasis(m, ct);
    double[][] fitted = new double[n][v];
    for (int col = 0; col < v; col++) {
      for (double[] q : zb) {
        double dot = 0.0;
        for (int i = 0; i < n; i++) {
          dot += q[i] * y[i][col];
        }
        for (int i = 0; i < n; i++) {
          fitted[i][col] += dot * q[i];
        }
      }
    }
    return fitted;
  }

  /** a - b, element by element. */
  static double[][] minus(double[][] a, double[][] b) {
    double[][] out = new double[a.length][];
    for (int i = 0; i < a.length; i++) {
      out[i] = new double[a[i].length];
      for (int j = 0; j < a[i].length; j++) {
        out[i][j] = a[i][j] - b[i][j];
      }
    }
    return out;
  }

  static double[][] inverse(double[][] a) {
    int k = a.length;
    double[][] w = new double[k][2 * k];
    for (int i = 0; i < k; i++) {
      System.arraycopy(a[i], 0, w[i], 0, k);
      w[i][k + i] = 1.0;
    }
    for (int col = 0; col < k; col++) {
      int piv = col;
      for (int i = col + 1; i < k; i++) {
        if (Math.abs(w[i][col]) > Math.abs(w[piv][col])) {
          piv = i;
        }
      }
      double[] tmp = w[col];
      w[col] = w[piv];
      w[piv] = tmp;
      double d = w[col][col];
      for (int j = 0; j < 2 * k; j++) {
        w[col][j] /= d;
      }
      for (int i = 0; i < k; i++) {
        if (i != col) {
          double f = w[i][col];
          for (int j = 0; j < 2 * k; j++) {
            w[i][j] -= f * w[col][j];
          }
        }
      }
    }
    double[][] inv = new double[k][k];
    for (int i = 0; i < k; i++) {
      System.arraycopy(w[i], k, inv[i], 0, k);
    }
    return inv;
  }

  private static double[] times(double[][] a, double[] x) {
    double[] out = new double[a.length];
    for (int i = 0; i < a.length; i++) {
      for (int j = 0; j < x.length; j++) {
        out[i] += a[i][j] * x[j];
      }
    }
    return out;
  }

  private static double dot(double[] a, double[] b) {
    double s = 0.0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  private static double norm(double[] a) {
    return Math.sqrt(dot(a, a));
  }
}
