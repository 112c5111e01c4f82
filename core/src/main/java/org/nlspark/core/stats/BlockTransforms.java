package org.nlspark.core.stats;

import java.util.Arrays;

/**
 * Host-side preparation of a voxel block shared by the CPU kernels and the GPU executor, so both
 * backends see the same transformed data and the same undefined voxels. Blocks are row-major
 * n x b arrays (samples x voxels).
 */
public final class BlockTransforms {
  private BlockTransforms() {}

  /** Indices of columns whose values are all equal (zero variance). */
  public static int[] constantColumns(double[] x, int n, int b) {
    int count = 0;
    boolean[] constant = new boolean[b];
    for (int v = 0; v < b; v++) {
      double first = x[v];
      boolean same = true;
      for (int i = 1; i < n && same; i++) {
        same = x[i * b + v] == first;
      }
      constant[v] = same;
      if (same) {
        count++;
      }
    }
    int[] idx = new int[count];
    for (int v = 0, k = 0; v < b; v++) {
      if (constant[v]) {
        idx[k++] = v;
      }
    }
    return idx;
  }

  /** Columns constant in both groups (Welch t is undefined there). */
  public static int[] constantInBoth(double[] x, int n1, double[] y, int n2, int b) {
    int[] cx = constantColumns(x, n1, b);
    int[] cy = constantColumns(y, n2, b);
    return Arrays.stream(cx).filter(v -> Arrays.binarySearch(cy, v) >= 0).toArray();
  }

  /** (v - mean) / ||v - mean||; all zeros for a constant vector. */
  public static double[] standardise(double[] v) {
    int n = v.length;
    double mean = 0;
    for (double x : v) {
      mean += x;
    }
    mean /= n;
    double ss = 0;
    double[] out = new double[n];
    for (int i = 0; i < n; i++) {
      out[i] = v[i] - mean;
      ss += out[i] * out[i];
    }
    double norm = Math.sqrt(ss);
    for (int i = 0; i < n; i++) {
      out[i] = norm > 0 ? out[i] / norm : 0.0;
    }
    return out;
  }

  /** Every column standardised (see {@link #standardise}). */
  public static double[] standardiseColumns(double[] x, int n, int b) {
    double[] xs = new double[n * b];
    double[] column = new double[n];
    for (int v = 0; v < b; v++) {
      for (int i = 0; i < n; i++) {
        column[i] = x[i * b + v];
      }
      double[] s = standardise(column);
      for (int i = 0; i < n; i++) {
        xs[i * b + v] = s[i];
      }
    }
    return xs;
  }

  /** Two groups stacked: x rows, then y rows. */
  public static double[] stack(double[] x, int n1, double[] y, int n2, int b) {
    double[] z = new double[(n1 + n2) * b];
    System.arraycopy(x, 0, z, 0, n1 * b);
    System.arraycopy(y, 0, z, n1 * b, n2 * b);
    return z;
  }

  /** Two groups stacked (x rows, then y rows) and centred per voxel on the pooled mean. */
  public static double[] stackAndCentre(double[] x, int n1, double[] y, int n2, int b) {
    int n = n1 + n2;
    double[] z = stack(x, n1, y, n2, b);
    double[] mean = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        mean[v] += z[i * b + v];
      }
    }
    for (int v = 0; v < b; v++) {
      mean[v] /= n;
    }
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        z[i * b + v] -= mean[v];
      }
    }
    return z;
  }

  /**
   * Two groups stacked and shifted per voxel by the pooled mean rounded to an integer: removes
   * the offset (raw BOLD intensities sit near 1e3-1e4, which would cost float32 sums their digits)
   * while integer-valued data stay integers, so equal group sums stay exactly equal.
   */
  public static double[] stackAndShift(double[] x, int n1, double[] y, int n2, int b) {
    int n = n1 + n2;
    double[] z = stack(x, n1, y, n2, b);
    double[] shift = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        shift[v] += z[i * b + v];
      }
    }
    for (int v = 0; v < b; v++) {
      shift[v] = Math.rint(shift[v] / n);
    }
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        z[i * b + v] -= shift[v];
      }
    }
    return z;
  }

  /** Per-column sums. */
  public static double[] columnSums(double[] x, int n, int b) {
    double[] sum = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        sum[v] += x[i * b + v];
      }
    }
    return sum;
  }

  /** Every column centred on its mean (the bootstrap std works on centred data). */
  public static double[] centreColumns(double[] x, int n, int b) {
    double[] sum = columnSums(x, n, b);
    double[] xc = new double[n * b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        xc[i * b + v] = x[i * b + v] - sum[v] / n;
      }
    }
    return xc;
  }

  /** Element-wise squares. */
  public static double[] squares(double[] x) {
    double[] s = new double[x.length];
    for (int i = 0; i < x.length; i++) {
      s[i] = x[i] * x[i];
    }
    return s;
  }

  /** Per-column sums of squares. */
  public static double[] columnSumSquares(double[] x, int n, int b) {
    double[] s = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        double xv = x[i * b + v];
        s[v] += xv * xv;
      }
    }
    return s;
  }

  /**
   * Spearman's inputs, shared by the CPU kernel and the GPU block: columns and target as exact
   * integer ranks 2·rank − (n + 1) (average ranks are multiples of 1/2, so ties stay ties), and
   * per voxel the denominator sqrt(Σx² · Σy²) of the rank correlation.
   */
  public record SpearmanRanks(double[] columns, double[] target, double[] denominator) {}

  public static SpearmanRanks spearmanRanks(double[] x, int n, int b, double[] y) {
    double[] xs = new double[n * b];
    double[] column = new double[n];
    double[] sxx = new double[b];
    for (int v = 0; v < b; v++) {
      for (int i = 0; i < n; i++) {
        column[i] = x[i * b + v];
      }
      double[] r = centredDoubledRanks(column);
      for (int i = 0; i < n; i++) {
        xs[i * b + v] = r[i];
        sxx[v] += r[i] * r[i];
      }
    }
    double[] ys = centredDoubledRanks(y);
    double syy = 0;
    for (double r : ys) {
      syy += r * r;
    }
    double[] denominator = new double[b];
    for (int v = 0; v < b; v++) {
      denominator[v] = Math.sqrt(sxx[v] * syy);
    }
    return new SpearmanRanks(xs, ys, denominator);
  }

  /** 2 * rank - (n + 1): exact integers (average ranks are multiples of 1/2), mean zero. */
  public static double[] centredDoubledRanks(double[] v) {
    double[] r = Ranks.average(v);
    int n = v.length;
    for (int i = 0; i < n; i++) {
      r[i] = 2 * r[i] - (n + 1);
    }
    return r;
  }
}
