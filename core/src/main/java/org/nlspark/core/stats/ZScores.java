package org.nlspark.core.stats;

import org.apache.commons.math3.special.Beta;
import org.apache.commons.math3.special.Erf;
import org.apache.commons.math3.special.Gamma;

/**
 * Statistics of different kinds or ranks on one scale for FWER over contrasts (DESIGN §9, as
 * PALM): z = Phi^-1(1 - upper tail probability) of the statistic's parametric distribution,
 * t with df degrees of freedom, F with (r, df). The conversion is strictly increasing in the
 * statistic, so the maximum of z over voxels is z of the maximum statistic.
 *
 * <p>Tail probabilities come from the regularized incomplete beta function directly (never as
 * 1 - cdf, which is 0 beyond about 8 sigma), and the normal quantile is refined with erfc, so z
 * stays accurate while the probability is representable (down to about 1e-300, z about 37);
 * beyond that z is +Infinity and such values tie.
 */
public final class ZScores {
  private ZScores() {}

  /** z of a t statistic with df degrees of freedom (NaN stays NaN). */
  public static double ofT(double t, double df) {
    if (Double.isNaN(t)) {
      return Double.NaN;
    }
    if (Double.isInfinite(t)) {
      return t;
    }
    // P(T > |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) / 2
    double tail = 0.5 * Beta.regularizedBeta(df / (df + t * t), df / 2, 0.5);
    double z = upperQuantile(tail);
    return t >= 0 ? z : -z;
  }

  /** z of an F statistic with (r, df) degrees of freedom. */
  public static double ofF(double f, double r, double df) {
    if (Double.isNaN(f)) {
      return Double.NaN;
    }
    if (f == Double.POSITIVE_INFINITY) {
      return f;
    }
    if (f <= 0) {
      return Double.NEGATIVE_INFINITY;
    }
    return upperQuantile(upperTailOfF(f, r, df));
  }

  /**
   * P(F &gt; f) for f &gt; 0 finite, with (r, df) degrees of freedom: the probability {@link #ofF}
   * turns into z (the same bits), for callers that compare probabilities instead of z.
   */
  public static double upperTailOfF(double f, double r, double df) {
    // P(F > f) = I_{df / (df + r f)}(df / 2, r / 2)
    return Beta.regularizedBeta(df / (df + r * f), df / 2, r / 2);
  }

  /** z with P(Z > z) = p, accurate in both tails. */
  public static double upperQuantile(double p) {
    if (p <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    if (p >= 1) {
      return Double.NEGATIVE_INFINITY;
    }
    if (p > 0.5) {
      return -upperQuantile(1 - p);
    }
    double z = acklam(p);
    // Two Halley steps on P(Z > z) - p, with P(Z > z) = erfc(z / sqrt 2) / 2.
    for (int i = 0; i < 2; i++) {
      double e = 0.5 * Erf.erfc(z / Math.sqrt(2)) - p;
      double u = -e * Math.sqrt(2 * Math.PI) * StrictMath.exp(z * z / 2);
      z = z - u / (1 + z * u / 2);
    }
    return z;
  }

  /**
   * log of the t density's constant over the normal's, for {@link #tOfZ}: Γ((df + 1)/2) /
   * (Γ(df/2) √(df π)) against 1/√(2π).
   */
  public static double logDensityRatio(double df) {
    return Gamma.logGamma((df + 1) / 2) - Gamma.logGamma(df / 2)
        - 0.5 * StrictMath.log(df * Math.PI) + 0.5 * StrictMath.log(2 * Math.PI);
  }

  /**
   * The t with {@link #ofT}(t, df) = target (&gt; 0), by Newton's steps from {@code start} (≥
   * the root: z ≤ t, so the target itself will do), to 1e-10 relative; NaN when the steps do not
   * settle.
   *
   * @param logDensityRatio {@link #logDensityRatio}(df), kept by callers that invert often
   */
  public static double tOfZ(double target, double df, double start, double logDensityRatio) {
    double t = start;
    for (int step = 0; step < 50; step++) {
      double z = ofT(t, df);
      if (!Double.isFinite(z)) {
        return Double.NaN;
      }
      // dz/dt = f_t(t) / phi(z), in logs: both are tiny far out
      double slope = StrictMath.exp(logDensityRatio - (df + 1) / 2 * StrictMath.log1p(t * t / df)
          + z * z / 2);
      double next = t - (z - target) / slope;
      if (!(next > 0)) {
        next = t / 2;
      }
      // 1e-10: above the noise of z's last bits divided by the slope (near 0, and far out
      // with few degrees of freedom)
      if (Math.abs(next - t) <= 1e-10 * t) {
        return next;
      }
      t = next;
    }
    return Double.NaN;
  }

  /** Acklam's rational approximation of the upper quantile for p in (0, 0.5] (~1e-9 rel). */
  private static double acklam(double p) {
    final double[] a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
        1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
    final double[] b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
        6.680131188771972e+01, -1.328068155288572e+01};
    final double[] c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
        -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00};
    final double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
        3.754408661907416e+00};
    double lower;
    if (p < 0.02425) {
      double q = Math.sqrt(-2 * StrictMath.log(p));
      lower = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
          / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
      double q = p - 0.5;
      double r = q * q;
      lower = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
          / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    return -lower; // Acklam gives the lower quantile Phi^-1(p)
  }
}
