package org.nlspark.core.glm;

import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.linear.SingularValueDecomposition;

/**
 * The small dense algebra of a model's preparation (design-sized, done once on the driver):
 * ranks, pseudo-inverses and orthonormal bases, all from one SVD rule. Matrices are double[rows][cols].
 */
final class Linalg {
  private Linalg() {}

  /** Singular values at or below max(m, n) * s_max * 2^-52 count as zero (numpy's matrix_rank). */
  static double rankTolerance(double[] singular, int m, int n) {
    double max = singular.length == 0 ? 0.0 : singular[0];
    return Math.max(m, n) * max * Math.ulp(1.0);
  }

  /** Numerical rank of a (m x n). */
  static int rank(double[][] a) {
    if (a.length == 0 || a[0].length == 0) {
      return 0;
    }
    SingularValueDecomposition svd = new SingularValueDecomposition(new Array2DRowRealMatrix(a));
    return countAbove(svd.getSingularValues(), a.length, a[0].length);
  }

  private static int countAbove(double[] s, int m, int n) {
    double tol = rankTolerance(s, m, n);
    int r = 0;
    while (r < s.length && s[r] > tol) {
      r++;
    }
    return r;
  }

  /** Moore-Penrose pseudo-inverse (n x m) of a (m x n), singular values under the rank rule dropped. */
  static double[][] pinv(double[][] a) {
    int m = a.length;
    int n = a[0].length;
    SingularValueDecomposition svd = new SingularValueDecomposition(new Array2DRowRealMatrix(a));
    double[] s = svd.getSingularValues();
    int r = countAbove(s, m, n);
    RealMatrix u = svd.getU();
    RealMatrix v = svd.getV();
    double[][] out = new double[n][m];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < m; j++) {
        double acc = 0.0;
        for (int l = 0; l < r; l++) {
          acc += v.getEntry(i, l) * u.getEntry(j, l) / s[l];
        }
        out[i][j] = acc;
      }
    }
    return out;
  }

  /** Orthonormal basis (m x rank) of the column space of a (m x n); m x 0 when a is zero. */
  static double[][] columnBasis(double[][] a) {
    int m = a.length;
    int n = m == 0 ? 0 : a[0].length;
    if (n == 0) {
      return new double[m][0];
    }
    SingularValueDecomposition svd = new SingularValueDecomposition(new Array2DRowRealMatrix(a));
    int r = countAbove(svd.getSingularValues(), m, n);
    RealMatrix u = svd.getU();
    double[][] out = new double[m][r];
    for (int i = 0; i < m; i++) {
      for (int l = 0; l < r; l++) {
        out[i][l] = u.getEntry(i, l);
      }
    }
    return out;
  }

  /**
   * Orthonormal basis (n x (n - rank)) of null(a) for a (m x n): the orthogonal complement of
   * its row space, from the SVD of the projector I - V_r V_r' (square, so every commons-math
   * shape rule holds).
   */
  static double[][] nullSpace(double[][] a) {
    int n = a[0].length;
    double[][] rowBasis = columnBasis(transpose(a));
    int r = rowBasis[0].length;
    if (r == n) {
      return new double[n][0];
    }
    double[][] proj = new double[n][n];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < n; j++) {
        double acc = i == j ? 1.0 : 0.0;
        for (int l = 0; l < r; l++) {
          acc -= rowBasis[i][l] * rowBasis[j][l];
        }
        proj[i][j] = acc;
      }
    }
    SingularValueDecomposition svd = new SingularValueDecomposition(new Array2DRowRealMatrix(proj));
    RealMatrix u = svd.getU();
    double[][] out = new double[n][n - r];
    for (int i = 0; i < n; i++) {
      for (int l = 0; l < n - r; l++) {
        out[i][l] = u.getEntry(i, l);
      }
    }
    return out;
  }

  static double[][] transpose(double[][] a) {
    int m = a.length;
    int n = m == 0 ? 0 : a[0].length;
    double[][] t = new double[n][m];
    for (int i = 0; i < m; i++) {
      for (int j = 0; j < n; j++) {
        t[j][i] = a[i][j];
      }
    }
    return t;
  }

  /** a (m x p) times b (p x n). */
  static double[][] multiply(double[][] a, double[][] b) {
    int m = a.length;
    int p = b.length;
    int n = p == 0 ? 0 : b[0].length;
    double[][] out = new double[m][n];
    for (int i = 0; i < m; i++) {
      for (int l = 0; l < p; l++) {
        double ail = a[i][l];
        for (int j = 0; j < n; j++) {
          out[i][j] += ail * b[l][j];
        }
      }
    }
    return out;
  }

  static double frobenius(double[][] a) {
    double acc = 0.0;
    for (double[] row : a) {
      for (double x : row) {
        acc += x * x;
      }
    }
    return Math.sqrt(acc);
  }
}
