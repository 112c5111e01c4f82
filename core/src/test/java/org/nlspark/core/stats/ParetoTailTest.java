package org.nlspark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The generalised Pareto tail against a brute force written here from the description (PALM's
 * palm_pareto steps, scipy-style): the empirical cdf by counting, the tail start searched over
 * the quantiles 0.751 … 0.991, the method-of-moments fit, the Anderson–Darling statistic from the
 * survival values in PALM's order, and the Choulakian–Stephens table through a generic linear
 * interp1 with extrapolation.
 */
public class ParetoTailTest {
  static final double[] K = {0.9, 0.5, 0.2, 0.1, 0, -0.1, -0.2, -0.3, -0.4, -0.5};
  static final double[] P = {0.5, 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.001};
  static final double[][] A2 = {
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

  /** numpy-style linear interpolation with linear extrapolation; xs sorted either way. */
  static double interp1(double[] xs, double[] ys, double x) {
    int n = xs.length;
    boolean descending = xs[0] > xs[n - 1];
    int lo = 0;
    for (int i = 0; i < n - 1; i++) {
      boolean inside = descending ? x <= xs[i] && x >= xs[i + 1] : x >= xs[i] && x <= xs[i + 1];
      if (inside) {
        lo = i;
        break;
      }
      lo = (descending ? x < xs[n - 1] : x > xs[n - 1]) ? n - 2 : 0;
    }
    return ys[lo] + (x - xs[lo]) / (xs[lo + 1] - xs[lo]) * (ys[lo + 1] - ys[lo]);
  }

  public static double survival(double x, double a, double k) {
    if (k == 0) {
      return Math.exp(-x / a);
    }
    if (k > 0 && x > a / k) {
      return 0;
    }
    return Math.pow(1 - k * x / a, 1 / k);
  }

  static double adP(double[] yAscending, double a, double k) {
    int n = yAscending.length;
    double[] z = new double[n]; // survival values, flipped to ascending (PALM's order)
    for (int i = 0; i < n; i++) {
      z[i] = survival(yAscending[n - 1 - i], a, k);
    }
    double s = 0;
    for (int j = 1; j <= n; j++) {
      s += (2 * j - 1) * (Math.log(z[j - 1]) + Math.log(1 - z[n - j]));
    }
    double a2 = -n - s / n;
    if (Double.isNaN(a2)) {
      return 0;
    }
    double kc = Math.max(-0.5, Math.min(0.9, k)); // the documented clamp (PALM: max(0.5, k))
    double[] row = new double[P.length];
    for (int c = 0; c < P.length; c++) {
      double[] col = new double[K.length];
      for (int r = 0; r < K.length; r++) {
        col[r] = A2[r][c];
      }
      row[c] = interp1(K, col, kc);
    }
    return Math.max(0, Math.min(1, interp1(row, P, a2)));
  }

  /** {threshold, scale, shape, quantile, tail size} of the first accepted fit, or null. */
  public static double[] bruteFit(double[] nulls) {
    int n = nulls.length;
    double[] g = nulls.clone();
    Arrays.sort(g);
    for (int step = 0; step <= 24; step++) {
      double q = (751 + 10 * step) / 1000.0;
      int first = -1;
      for (int i = 0; i < n && first < 0; i++) {
        int count = 0;
        for (double x : g) {
          count += x <= g[i] ? 1 : 0;
        }
        first = (double) count / n >= q ? i : -1;
      }
      if (first < 0 || n - first < 2) {
        continue;
      }
      double u = first == 0 ? g[0] - (g[0] + g[1]) / 2 : (g[first - 1] + g[first]) / 2;
      double[] y = new double[n - first];
      for (int i = first; i < n; i++) {
        y[i - first] = g[i] - u;
      }
      double mean = Arrays.stream(y).average().orElse(0);
      double var = Arrays.stream(y).map(v -> (v - mean) * (v - mean)).sum() / (y.length - 1);
      double a = mean * (mean * mean / var + 1) / 2;
      double k = (mean * mean / var - 1) / 2;
      if (adP(y, a, k) > 0.05) {
        return new double[] {u, a, k, q, y.length};
      }
    }
    return null;
  }

  @Test
  void fitsEqualTheBruteForceOnNullsOfSeveralShapes() {
    Random rng = new Random(8);
    int fitted = 0;
    for (int trial = 0; trial < 30; trial++) {
      int n = 200 + rng.nextInt(800);
      double[] nulls = new double[n];
      for (int i = 0; i < n; i++) {
        double x;
        switch (trial % 3) {
          case 0: // maxima of 50 gaussians: a light (Gumbel) tail
            x = Double.NEGATIVE_INFINITY;
            for (int j = 0; j < 50; j++) {
              x = Math.max(x, rng.nextGaussian());
            }
            break;
          case 1: // a bounded tail
            x = rng.nextDouble();
            break;
          default: // a heavy tail
            x = 1 / Math.pow(1 - rng.nextDouble(), 0.3);
            break;
        }
        nulls[i] = trial % 5 == 0 ? Math.round(x * 20) / 20.0 : x; // some with ties
      }
      double[] expected = bruteFit(nulls);
      ParetoTail.Fit fit = ParetoTail.fit(nulls);
      if (expected == null) {
        assertThat(fit).as("trial %d", trial).isNull();
        continue;
      }
      fitted++;
      assertThat(fit).as("trial %d", trial).isNotNull();
      assertThat(fit.threshold()).isEqualTo(expected[0]);
      assertThat(fit.scale()).isCloseTo(expected[1], within(1e-12 * Math.abs(expected[1])));
      assertThat(fit.shape()).isCloseTo(expected[2], within(1e-12));
      assertThat(fit.quantile()).isEqualTo(expected[3]);
      assertThat(fit.tailSize()).isEqualTo((int) expected[4]);
      for (double x : new double[] {fit.threshold() + 0.01, fit.threshold() + 1, 3, 10}) {
        if (x > fit.threshold()) {
          double want = expected[4] / n * survival(x - expected[0], expected[1], expected[2]);
          assertThat(fit.p(x)).isCloseTo(want, within(1e-12 * Math.max(want, 1e-300)));
        }
      }
    }
    assertThat(fitted).as("most nulls have an acceptable tail").isGreaterThan(15);
  }

  @Test
  void aDistantStatisticGetsAPBelowOneOverPPlusOne() {
    Random rng = new Random(9);
    int n = 999;
    double[] nulls = new double[n];
    for (int i = 0; i < n; i++) {
      double x = Double.NEGATIVE_INFINITY;
      for (int j = 0; j < 100; j++) {
        x = Math.max(x, rng.nextGaussian());
      }
      nulls[i] = x;
    }
    ParetoTail.Fit fit = ParetoTail.fit(nulls);
    assertThat(fit).isNotNull();
    double max = Arrays.stream(nulls).max().getAsDouble();
    assertThat(fit.p(max + 1.0)).isLessThan(1.0 / (n + 1)).isGreaterThanOrEqualTo(0);
    assertThat(fit.p(max + 0.5)).isGreaterThan(fit.p(max + 1.0));
  }
}
