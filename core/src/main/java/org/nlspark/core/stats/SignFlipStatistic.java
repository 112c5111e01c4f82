package org.nlspark.core.stats;

import org.nlspark.core.simd.Simd;
import org.nlspark.core.job.Tail;
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
    this(precision, block, n, b, window, tStat, enumerated, seed,
        tStat ? constantColumns(block, n, b) : new int[0]);
  }

  private SignFlipStatistic(Precision precision, double[] block, int n, int b, int window,
      boolean tStat, boolean enumerated, long seed, int[] undefined) {
    super(precision, block, null, n, b, window, undefined);
    this.tStat = tStat;
    this.enumerated = enumerated;
    this.seed = seed;
    this.scale = BlockTransforms.columnSumSquares(block, n, b);
    for (int v = 0; v < b; v++) {
      scale[v] *= n;
    }
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

  /** Relative width of the band below |g_obs| where a count is decided by the exact key. */
  private static final double NEAR_BAND = 1e-7;

  @Override
  public boolean foldWindow(long first, int rows, Tail tail, int[] counts, double[] rowMax) {
    if (tail != Tail.TWO) {
      return false;
    }
    if (observedCore == null) {
      prepareThresholds();
    }
    final float[] gf = multiplyDraws(first, rows);
    final double[] g = product;
    if (tStat && simd) {
      foldWindowSimd(gf, rows, counts, rowMax);
      return true;
    }
    for (int r = 0; r < rows; r++) {
      final int base = r * b;
      if (tStat) {
        double m = gf != null
            ? foldRowT(gf, base, b, scale, observedCore, gObs, gMid, gHalf, counts)
            : foldRowT(g, base, b, scale, observedCore, gObs, gMid, gHalf, counts);
        rowMax[r] = anyDefined ? Math.sqrt((n - 1) * m) : Double.NEGATIVE_INFINITY;
      } else {
        double m = 0.0;
        for (int v = 0; v < b; v++) {
          double k = Math.abs(gf != null ? gf[base + v] : g[base + v]);
          counts[v] += k >= observedCore[v] ? 1 : 0;
          m = Math.max(m, k);
        }
        rowMax[r] = m / n;
      }
    }
    return true;
  }

  /** The t fold through {@link VectorSignFlipFold}: the same counts and maxima, bit for bit. */
  private void foldWindowSimd(float[] gf, int rows, int[] counts, double[] rowMax) {
    if (windowCounts == null) {
      windowCounts = new double[b];
    }
    final double[] wc = windowCounts;
    java.util.Arrays.fill(wc, 0.0);
    for (int r = 0; r < rows; r++) {
      double m = gf != null
          ? VectorSignFlipFold.foldRow(gf, r * b, b, scale, observedCore, gObs, gMid, gHalf, wc)
          : VectorSignFlipFold.foldRow(product, r * b, b, scale, observedCore, gObs, gMid, gHalf,
              wc);
      rowMax[r] = anyDefined ? Math.sqrt((n - 1) * m) : Double.NEGATIVE_INFINITY;
    }
    for (int v = 0; v < b; v++) {
      counts[v] += (int) wc[v]; // at most one window of rows: exact in a double
    }
  }

  /** SIMD epilogue (package-private so tests can compare both paths in one JVM). */
  boolean simd = Simd.enabled();
  /** Per-voxel counts of the current window, in the vector epilogue's lane type. */
  private double[] windowCounts;

  /** |g_obs| per voxel, and the near band below it as centre and half-width. */
  private double[] gObs;
  private double[] gMid;
  private double[] gHalf;

  private void prepareThresholds() {
    final double[] identity = identityRow();
    observedCore = new double[b];
    gObs = new double[b];
    gMid = new double[b];
    gHalf = new double[b];
    for (int v = 0; v < b; v++) {
      double g = identity[v];
      boolean undefined = scale[v] == Double.POSITIVE_INFINITY;
      observedCore[v] = undefined ? Double.POSITIVE_INFINITY
          : tStat ? ratio(g, scale[v]) : Math.abs(g);
      gObs[v] = undefined ? Double.POSITIVE_INFINITY : Math.abs(g);
      double low = Math.abs(g) * (1 - NEAR_BAND);
      gMid[v] = undefined ? Double.POSITIVE_INFINITY : (gObs[v] + low) / 2;
      gHalf[v] = undefined ? 0.0 : (gObs[v] - low) / 2;
    }
  }

  /*
   * One row of the two-tailed t fold without a division per value. The key is
   * ratio = g^2 / max(n sum(x^2) - g^2, 0), computed the same way everywhere; it is monotone in |g|,
   * so |g| >= |g_obs| implies a count, and only |g| in a narrow band below |g_obs| needs the exact
   * key. The row maximum keeps the best (u, d) pair and tests u * B >= A (1 - band) * d, so a
   * value can only beat the exact maximum so far if it passes; those (few) get the exact key.
   */
  static double foldRowT(double[] g, int base, int b, double[] c, double[] thr, double[] obs,
      double[] mid, double[] half, int[] counts) {
    double m = 0.0;
    double bestD = 1.0;
    double bestScaled = 0.0;
    for (int v = 0; v < b; v++) {
      double gv = g[base + v];
      double ag = Math.abs(gv);
      counts[v] += (int) (~Double.doubleToRawLongBits(ag - obs[v]) >>> 63);
      if (Math.abs(ag - mid[v]) < half[v]) { // one predictable test: ag inside the near band
        counts[v] += ag < obs[v] && ratio(gv, c[v]) >= thr[v] ? 1 : 0; // ag >= obs counted above
      }
      double u = gv * gv;
      double d = c[v] - u;
      if (u * bestD >= bestScaled * d) {
        double k = u / Math.max(d, 0.0);
        if (k > m) {
          m = k;
          bestD = d;
          bestScaled = u * (1 - NEAR_BAND);
        }
      }
    }
    return m;
  }

  /** The same over single-precision products: a copy, since Java cannot abstract over
   *  float[] and double[] without boxing or a widening pass on the hot path. */
  static double foldRowT(float[] g, int base, int b, double[] c, double[] thr, double[] obs,
      double[] mid, double[] half, int[] counts) {
    double m = 0.0;
    double bestD = 1.0;
    double bestScaled = 0.0;
    for (int v = 0; v < b; v++) {
      double gv = g[base + v];
      double ag = Math.abs(gv);
      counts[v] += (int) (~Double.doubleToRawLongBits(ag - obs[v]) >>> 63);
      if (Math.abs(ag - mid[v]) < half[v]) { // one predictable test: ag inside the near band
        counts[v] += ag < obs[v] && ratio(gv, c[v]) >= thr[v] ? 1 : 0; // ag >= obs counted above
      }
      double u = gv * gv;
      double d = c[v] - u;
      if (u * bestD >= bestScaled * d) {
        double k = u / Math.max(d, 0.0);
        if (k > m) {
          m = k;
          bestD = d;
          bestScaled = u * (1 - NEAR_BAND);
        }
      }
    }
    return m;
  }
}
