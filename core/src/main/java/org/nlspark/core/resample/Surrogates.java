package org.nlspark.core.resample;

import java.util.SplittableRandom;

/**
 * Circular shifts and phase randomization of time series, drawn from a replicate's generator so a
 * surrogate depends only on (seed, replicate) and on the order of the draws made from it.
 *
 * <p>Phase randomization (Theiler et al. 1992; Lancaster et al. 2018): with X = DFT(x), frequency k
 * in 1..⌊(T−1)/2⌋ gets X[k]·e^{iφ_k} and T−k the conjugate; DC and (T even) Nyquist are kept, so the
 * surrogate is real with the same mean and power spectrum. That map is a circular convolution with
 * the real kernel h[d] = (1/T)·(1 + [T even]·(−1)^d + 2 Σ_k cos(2πkd/T + φ_k)).
 */
public final class Surrogates {
  private Surrogates() {}

  /** A circular shift in [0, T): np.roll(x, shift), i.e. out[t] = x[(t − shift) mod T]. */
  public static int drawShift(SplittableRandom rng, int timepoints) {
    return rng.nextInt(timepoints);
  }

  /** ⌊(T−1)/2⌋ phases uniform in [0, 2π), one per positive non-Nyquist frequency. */
  public static double[] drawPhases(SplittableRandom rng, int timepoints) {
    double[] phases = new double[(timepoints - 1) / 2];
    for (int k = 0; k < phases.length; k++) {
      phases[k] = 2 * Math.PI * rng.nextDouble();
    }
    return phases;
  }

  /** out[outOff + t] = x[off + (t − shift) mod T]. */
  public static void roll(double[] x, int off, int timepoints, int shift, double[] out, int outOff) {
    int a = Math.floorMod(shift, timepoints);
    for (int t = 0; t < timepoints; t++) {
      int u = t - a;
      out[outOff + t] = x[off + (u < 0 ? u + timepoints : u)];
    }
  }

  /** The convolution kernel h[0..T) of the phase randomization with {@code phases}. */
  public static double[] phaseKernel(double[] phases, int timepoints) {
    int t = timepoints;
    if (phases.length != (t - 1) / 2) {
      throw new IllegalArgumentException("[BUG] " + phases.length + " phases for " + t
          + " time points; need " + (t - 1) / 2);
    }
    double[] h = new double[t];
    for (int d = 0; d < t; d++) {
      double s = 1.0;
      if (t % 2 == 0) {
        s += (d % 2 == 0) ? 1.0 : -1.0;
      }
      for (int k = 1; k <= phases.length; k++) {
        // (k·d) mod T keeps the angle small, so cos stays accurate for long series
        long kd = ((long) k * d) % t;
        s += 2 * StrictMath.cos(2 * Math.PI * kd / t + phases[k - 1]);
      }
      h[d] = s / t;
    }
    return h;
  }
}
