package org.nlspark.core.stats;

import java.util.Arrays;

/**
 * The tail approximation of permutation p-values (PALM's {@code -accel tail}; Winkler et al. 2016,
 * NeuroImage 141:502, after Knijnenburg et al. 2009): a generalised Pareto distribution (GPD) is
 * fitted to the upper tail of a null distribution, and a p-value below {@link #P_THRESHOLD} is
 * replaced by the fitted tail probability, which can go below 1/(P + 1). Ports the semantics of
 * PALM's {@code palm_pareto}:
 *
 * <ol>
 *   <li>Sort the null ascending; the empirical cdf of a value is #{null ≤ value} / P.
 *   <li>For the tail start quantile q = 0.751, 0.761, …, 0.991 in turn: the tail is the null
 *       values whose cdf ≥ q; its threshold u is the midpoint between the tail's first value and
 *       the value before it (PALM's rule when the tail is the whole null: first − mean(first two));
 *       fit the GPD to y = tail − u by the method of moments (Hosking &amp; Wallis 1987, §3.2):
 *       with x̄ and s² (ddof 1) of y, scale a = x̄ (x̄²/s² + 1)/2 and shape k = (x̄²/s² − 1)/2,
 *       survival S(y) = (1 − k y / a)^(1/k) (exp(−y/a) when k = 0; 0 beyond a/k when k &gt; 0).
 *   <li>Accept the first fit whose Anderson–Darling p (Choulakian &amp; Stephens 2001, Table 2, a
 *       and k unknown) is &gt; 0.05; then every p &lt; 0.1 whose statistic is above u becomes
 *       (tail size / P) · S(statistic − u).
 *   <li>No fit passes: the permutation p-values are kept.
 * </ol>
 *
 * <p><b>A deliberate difference from PALM.</b> PALM looks the Anderson–Darling critical values up
 * at {@code max(0.5, k)}: every shape below 0.5 (the heavier tails, and the exponential k = 0)
 * reads the k = 0.5 row, and shapes above 0.9 are extrapolated. Here k is clamped to the table's
 * own range [−0.5, 0.9]: each shape reads its own row (interpolated between rows), and none is
 * extrapolated. A heavier tail then needs a larger A² to be rejected, as the table says, rather
 * than the k = 0.5 row's smaller one. Also, PALM's search loop stops before its last two
 * quantiles (at 0.971); here every quantile up to 0.991 is tried.
 */
public final class ParetoTail {
  /** p-values below this are refined (PALM's default). */
  public static final double P_THRESHOLD = 0.1;

  // Choulakian & Stephens (2001), Table 2 (case 3: a and k estimated): rows k, columns p.
  private static final double[] K_TABLE = {0.9, 0.5, 0.2, 0.1, 0, -0.1, -0.2, -0.3, -0.4, -0.5};
  private static final double[] P_TABLE = {0.5, 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001};
  private static final double[][] A2_TABLE = {
      {0.339, 0.471, 0.641, 0.771, 0.905, 1.086, 1.226, 1.559},
      {0.356, 0.499, 0.685, 0.830, 0.978, 1.180, 1.336, 1.707},
      {0.376, 0.534, 0.741, 0.903, 1.069, 1.296, 1.471, 1.893},
      {0.386, 0.550, 0.766, 0.935, 1.110, 1.348, 1.532, 1.966},
      {0.397, 0.569, 0.796, 0.974, 1.158, 1.409, 1.603, 2.064},
      {0.410, 0.591, 0.831, 1.020, 1.215, 1.481, 1.687, 2.176},
      {0.426, 0.617, 0.873, 1.074, 1.283, 1.567, 1.788, 2.314},
      {0.445, 0.649, 0.924, 1.140, 1.365, 1.672, 1.909, 2.475},
      {0.468, 0.688, 0.985, 1.221, 1.465, 1.799, 2.058, 2.674},
      {0.496, 0.735, 1.061, 1.321, 1.590, 1.958, 2.243, 2.922}};

  private ParetoTail() {}

  /** An accepted fit: threshold u, scale a, shape k, tail start quantile, tail size, A² p. */
  public record Fit(double threshold, double scale, double shape, double quantile, int tailSize,
      int nullSize, double andersonDarlingP) {
    /** The fitted p of a statistic above the threshold: (tail size / P) · S(x − u). */
    public double p(double statistic) {
      return (double) tailSize / nullSize * survival(statistic - threshold, scale, shape);
    }
  }

  /**
   * The first acceptable fit to the upper tail of {@code nulls} (larger is more extreme), or null
   * when none passes (or the null has fewer than 2 distinct tail values).
   */
  public static Fit fit(double[] nulls) {
    double[] g = nulls.clone();
    Arrays.sort(g);
    return fitUpperTail(g, g.length);
  }

  /**
   * The same fit from only the largest values of a null of {@code n} values: {@code top} holds
   * them ascending (the whole null when {@code top.length == n}, where this is {@link #fit}).
   * A tail start whose first value is {@code top[0]} of a truncated null is skipped, as the
   * value before it (for the threshold) and the ties below it (for the cdf) are not known; with
   * {@link #retainedTailSize} values and no ties at the 0.751 quantile this never happens, so
   * the fit is the one of the whole null.
   */
  public static Fit fitUpperTail(double[] top, long n) {
    int kept = top.length;
    long offset = n - kept;
    if (n < 2 || offset < 0) {
      return null;
    }
    for (int step = 0; step <= 24; step++) {
      double q = (751 + 10 * step) / 1000.0;
      int first = firstAtOrAbove(top, offset, n, q);
      if (first < 0 || kept - first < 2 || (first == 0 && offset > 0)) {
        continue;
      }
      double u = first == 0 ? top[0] - (top[0] + top[1]) / 2 : (top[first - 1] + top[first]) / 2;
      int m = kept - first;
      double[] y = new double[m];
      double mean = 0;
      for (int i = 0; i < m; i++) {
        y[i] = top[first + i] - u;
        mean += y[i];
      }
      mean /= m;
      double ss = 0;
      for (double v : y) {
        ss += (v - mean) * (v - mean);
      }
      double s2 = ss / (m - 1);
      if (!(s2 > 0)) {
        continue;
      }
      double ratio = mean * mean / s2;
      double a = mean * (ratio + 1) / 2;
      double k = (ratio - 1) / 2;
      double pA2 = andersonDarlingP(y, a, k);
      if (pA2 > 0.05) {
        return new Fit(u, a, k, q, m, (int) n, pA2);
      }
    }
    return null;
  }

  /**
   * How many of the largest values of a null of {@code n} values {@link #fitUpperTail} needs to
   * search every tail start as the whole null would (no ties): the tail above the first value
   * whose cdf reaches 0.751, plus the value before it (for the threshold) — about 0.249·n + 2,
   * at most n.
   */
  public static int retainedTailSize(long n) {
    if (n < 1) {
      throw new IllegalArgumentException("the null must have >= 1 value, but had: " + n);
    }
    double q = 751 / 1000.0;
    long first = Math.max(0, (long) Math.ceil(q * n) - 1);
    while (first > 0 && (double) first / n >= q) {
      first--;
    }
    while ((double) (first + 1) / n < q) {
      first++;
    }
    return (int) Math.min(n, n - first + 1);
  }

  /**
   * The first index i of the ascending {@code top} (the largest values of n, the first at rank
   * {@code offset}) whose cdf #{null ≤ top[i]} / n reaches q, or -1.
   */
  private static int firstAtOrAbove(double[] top, long offset, long n, double q) {
    int kept = top.length;
    for (int i = 0; i < kept; i++) {
      int atOrBelow = i + 1;
      while (atOrBelow < kept && top[atOrBelow] == top[i]) {
        atOrBelow++;
      }
      if ((double) (offset + atOrBelow) / n >= q) {
        return i;
      }
    }
    return -1;
  }

  /** GPD survival S(x) = P(Y > x) for scale a and shape k (Hosking &amp; Wallis' sign). */
  static double survival(double x, double a, double k) {
    if (Math.abs(k) < Math.ulp(1.0)) {
      return StrictMath.exp(-x / a);
    }
    if (k > 0 && x > a / k) {
      return 0.0;
    }
    return StrictMath.pow(1 - k * x / a, 1 / k);
  }

  /**
   * The Anderson–Darling p of {@code y} (ascending) under the GPD(a, k), from the table: A² =
   * −n − (1/n) Σ_j (2j − 1)(ln z_j + ln(1 − z_{n+1−j})) with z the fitted cdf ascending; the
   * table's A² row at k (k clamped to [−0.5, 0.9], linear between rows), then p linear in A²
   * along the row (extrapolated), clamped to [0, 1].
   */
  static double andersonDarlingP(double[] y, double a, double k) {
    int n = y.length;
    double[] z = new double[n];
    for (int i = 0; i < n; i++) {
      z[i] = 1 - survival(y[i], a, k); // ascending, as y is
    }
    double sum = 0;
    for (int j = 1; j <= n; j++) {
      sum += (2.0 * j - 1) * (StrictMath.log(z[j - 1]) + StrictMath.log(1 - z[n - j]));
    }
    double a2 = -n - sum / n;
    if (Double.isNaN(a2)) {
      return 0.0;
    }
    double kc = Math.max(-0.5, Math.min(0.9, k));
    double[] row = new double[P_TABLE.length];
    int r = 0;
    while (r < K_TABLE.length - 2 && kc < K_TABLE[r + 1]) {
      r++;
    }
    double t = (kc - K_TABLE[r]) / (K_TABLE[r + 1] - K_TABLE[r]);
    for (int c = 0; c < row.length; c++) {
      row[c] = A2_TABLE[r][c] + t * (A2_TABLE[r + 1][c] - A2_TABLE[r][c]);
    }
    // p linear in A² along the row, extrapolated beyond its ends.
    int c = 0;
    while (c < row.length - 2 && a2 > row[c + 1]) {
      c++;
    }
    double p = P_TABLE[c] + (a2 - row[c]) / (row[c + 1] - row[c]) * (P_TABLE[c + 1] - P_TABLE[c]);
    return Math.max(0.0, Math.min(1.0, p));
  }
}
