package org.nlspark.core.accumulate;

import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.special.Erf;
import org.nlspark.core.job.CiMethod;

/**
 * The one home of the bootstrap summary (DESIGN §4, §3.11): from the replicates' folded moments
 * and retained tails, per element the mean, std (ddof = 1), the interval (exact numpy percentile
 * or normal), z = mean / std and p = 2 (1 − Φ(|z|)). Every bootstrap-based command (bootstrap,
 * ridge bootstrap, the ISC bootstrap interval) takes its percentiles q from here.
 */
public final class BootstrapSummary {
  public final double[] mean;
  public final double[] std;
  public final double[] lower;
  public final double[] upper;
  public final double[] z;
  public final double[] p;
  /** Elements whose replicates have zero spread (z and p are NaN there). */
  public final int zeroSpread;

  private BootstrapSummary(double[] mean, double[] std, double[] lower, double[] upper,
      double[] z, double[] p, int zeroSpread) {
    this.mean = mean;
    this.std = std;
    this.lower = lower;
    this.upper = upper;
    this.z = z;
    this.p = p;
    this.zeroSpread = zeroSpread;
  }

  /** The interval's lower percentile q in [0, 100]: 100 · α/2 with α = 1 − confidence. */
  public static double lowerPercentile(double confidence) {
    double alpha = 1.0 - confidence;
    return 100.0 * (alpha / 2.0);
  }

  /** The interval's upper percentile q: 100 · (1 − α/2). */
  public static double upperPercentile(double confidence) {
    double alpha = 1.0 - confidence;
    return 100.0 * (1.0 - alpha / 2.0);
  }

  /**
   * Summarises one block of elements.
   *
   * @param tails the retained tails, or null for a normal interval
   */
  public static BootstrapSummary of(MomentAccumulator moments, TailAccumulator tails,
      double confidence, CiMethod ci) {
    double[] mean = moments.mean();
    double[] std = moments.std(1);
    int n = mean.length;
    double[] lower = new double[n];
    double[] upper = new double[n];
    if (ci == CiMethod.PERCENTILE) {
      tails.interval(lowerPercentile(confidence), upperPercentile(confidence), lower, upper);
    } else {
      double alpha = 1.0 - confidence;
      double zCrit = new NormalDistribution(0, 1).inverseCumulativeProbability(1.0 - alpha / 2.0);
      for (int v = 0; v < n; v++) {
        lower[v] = mean[v] - zCrit * std[v];
        upper[v] = mean[v] + zCrit * std[v];
      }
    }
    double[] z = new double[n];
    double[] p = new double[n];
    int zeroSpread = 0;
    for (int v = 0; v < n; v++) {
      if (std[v] > 0) {
        z[v] = mean[v] / std[v];
        p[v] = Erf.erfc(Math.abs(z[v]) / Math.sqrt(2.0)); // = 2 (1 - Phi(|z|)), no cancellation
      } else {
        z[v] = Double.NaN;
        p[v] = Double.NaN;
        if (std[v] == 0) { // NaN std (a single replicate) is no spread to measure, not zero spread
          zeroSpread++;
        }
      }
    }
    return new BootstrapSummary(mean, std, lower, upper, z, p, zeroSpread);
  }
}
