package org.nlspark.core.stats;

import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.Draws;

/**
 * One-sample tests under sign flips. With g = D * X (D rows of +-1) the mean is g / n, and since a
 * flip leaves sum(x^2) unchanged, t^2 = (n - 1) * g^2 / (n * sum(x^2) - g^2): one GEMM gives both.
 * t is computed as sign(g) * sqrt((n - 1) * ratio) with ratio = g^2 / (n * sum(x^2) - g^2), a
 * monotone function of |g| per voxel; that lets the fused two-tailed epilogue count and take
 * maxima on ratio (one division, no square root, no branch per value) and take the square root
 * only of each replicate's maximum — the same bits as taking the maximum of |t|.
 * A voxel whose values are all equal has no t (NaN); the mean is always defined.
 */
final class SignFlipStatistic extends GemmStatistic {
  private final boolean tStat;
  private final boolean enumerated;
  private final long seed;
  /** n * sum(x^2) per voxel; +Infinity for undefined voxels (they then never count or win). */
  private final double[] scale;
  private final boolean anyDefined;
  /** Observed core key per voxel (ratio for t, |g| for the mean); +Infinity where undefined. */
  private double[] observedCore;

  SignFlipStatistic(Precision precision, double[] block, int n, int b, int window, boolean tStat,
      boolean enumerated, long seed) {
    super(precision, block, null, n, b, window, tStat ? constantColumns(block, n, b) : new int[0]);
    this.tStat = tStat;
    this.enumerated = enumerated;
    this.seed = seed;
    this.scale = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        double x = block[i * b + v];
        scale[v] += x * x;
      }
    }
    for (int v = 0; v < b; v++) {
      scale[v] *= n;
    }
    int[] undefined = tStat ? constantColumns(block, n, b) : new int[0];
    for (int v : undefined) {
      scale[v] = Double.POSITIVE_INFINITY;
    }
    this.anyDefined = undefined.length < b;
  }

  @Override
  void fillDraw(long replicate, double[] d, int offset) {
    if (enumerated) {
      Draws.enumeratedSignFlips(replicate, n, d, offset);
    } else {
      Draws.signFlips(seed, replicate, n, d, offset);
    }
  }

  @Override
  void fillIdentity(double[] d, int offset) {
    java.util.Arrays.fill(d, offset, offset + n, 1.0);
  }

  /** g^2 / (n sum(x^2) - g^2), the denominator clamped at 0 (a flip with zero variance: +Inf). */
  private static double ratio(double g, double scale) {
    double u = g * g;
    return u / Math.max(scale - u, 0.0);
  }

  private double tFromRatio(double ratio, double g) {
    return Math.copySign(Math.sqrt((n - 1) * ratio), g);
  }

  @Override
  void epilogue(int rows, double[] out) {
    final double nd = n;
    final int end = rows * b;
    final double[] g = product;
    if (!tStat) {
      for (int i = 0; i < end; i++) {
        out[i] = g[i] / nd;
      }
      return;
    }
    for (int r = 0; r < rows; r++) {
      final int base = r * b;
      for (int v = 0; v < b; v++) {
        double gv = g[base + v];
        out[base + v] = tFromRatio(ratio(gv, scale[v]), gv);
      }
    }
  }

  @Override
  public boolean foldWindow(long first, int rows, Tail tail, int[] counts, double[] rowMax) {
    if (tail != Tail.TWO) {
      return false;
    }
    if (observedCore == null) {
      multiplyIdentity();
      observedCore = new double[b];
      for (int v = 0; v < b; v++) {
        double g = product[v];
        observedCore[v] = scale[v] == Double.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY
            : tStat ? ratio(g, scale[v]) : Math.abs(g);
      }
    }
    final float[] gf = multiplyDraws(first, rows);
    final double[] g = product;
    final double[] thr = observedCore;
    final double[] c = scale;
    for (int r = 0; r < rows; r++) {
      final int base = r * b;
      double m = 0.0;
      if (tStat) {
        if (gf != null) {
          for (int v = 0; v < b; v++) {
            double gv = gf[base + v];
            double u = gv * gv;
            double k = u / Math.max(c[v] - u, 0.0);
            counts[v] += (int) (~Double.doubleToRawLongBits(k - thr[v]) >>> 63);
            m = Math.max(m, k);
          }
        } else {
          for (int v = 0; v < b; v++) {
            double gv = g[base + v];
            double u = gv * gv;
            double k = u / Math.max(c[v] - u, 0.0);
            counts[v] += (int) (~Double.doubleToRawLongBits(k - thr[v]) >>> 63);
            m = Math.max(m, k);
          }
        }
        rowMax[r] = anyDefined ? Math.sqrt((n - 1) * m) : Double.NEGATIVE_INFINITY;
      } else {
        for (int v = 0; v < b; v++) {
          double k = Math.abs(gf != null ? gf[base + v] : g[base + v]);
          counts[v] += (int) (~Double.doubleToRawLongBits(k - thr[v]) >>> 63);
          m = Math.max(m, k);
        }
        rowMax[r] = m / n;
      }
    }
    return true;
  }
}
