package org.nlspark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.commons.math3.distribution.NormalDistribution;
import org.apache.commons.math3.distribution.TDistribution;
import org.junit.jupiter.api.Test;

class ZScoresTest {
  private static final NormalDistribution NORMAL = new NormalDistribution();

  /**
   * Round trip through the normal cdf (commons-math computes it from erfc, accurate in the
   * tail; its inverse goes through 2p - 1 and is not, so it is not the reference).
   */
  @Test
  void normalQuantileInvertsTheCdf() {
    for (double p = 1e-300; p < 0.999; p *= 3.1) {
      double z = ZScores.upperQuantile(p);
      double back = NORMAL.cumulativeProbability(-z);
      assertThat(Math.abs(back - p)).as("p = %s", p).isLessThanOrEqualTo(1e-12 * p);
    }
    assertThat(ZScores.upperQuantile(0.5)).isCloseTo(0.0,
        org.assertj.core.data.Offset.offset(1e-15));
    assertThat(ZScores.upperQuantile(0.025)).isCloseTo(1.959963984540054,
        org.assertj.core.data.Offset.offset(1e-12));
  }

  /** Far tail: P(Z > z) from the asymptotic Mills ratio phi(z)/z (1 - 1/z^2 + 3/z^4). */
  @Test
  void farTailStaysAccurate() {
    for (double z : new double[] {10, 20, 30, 37}) {
      double logPhi = -z * z / 2 - 0.5 * Math.log(2 * Math.PI);
      double p = Math.exp(logPhi) / z * (1 - 1 / (z * z) + 3 / Math.pow(z, 4)
          - 15 / Math.pow(z, 6));
      assertThat(ZScores.upperQuantile(p)).isCloseTo(z, org.assertj.core.data.Offset.offset(1e-6 * z));
    }
  }

  @Test
  void tAndFConversions() {
    for (double df : new double[] {3, 17, 200}) {
      TDistribution t = new TDistribution(df);
      for (double x = -4; x <= 4; x += 0.37) {
        double want = NORMAL.inverseCumulativeProbability(t.cumulativeProbability(x));
        assertThat(ZScores.ofT(x, df)).isCloseTo(want, org.assertj.core.data.Offset.offset(1e-8));
        // F(1, df) of t^2 is the two-sided t: P(F > t^2) = 2 P(T > |t|)
        double twoSided = 2 * (1 - t.cumulativeProbability(Math.abs(x)));
        assertThat(ZScores.ofF(x * x, 1, df)).isCloseTo(ZScores.upperQuantile(twoSided),
            org.assertj.core.data.Offset.offset(1e-8));
      }
      double previous = Double.NEGATIVE_INFINITY;
      for (double x = 0.5; x < 60; x *= 1.3) { // strictly increasing far into the tail
        double z = ZScores.ofT(x, df);
        assertThat(z).isGreaterThan(previous);
        previous = z;
      }
    }
    assertThat(ZScores.ofT(Double.NaN, 5)).isNaN();
    assertThat(ZScores.ofF(0, 2, 5)).isEqualTo(Double.NEGATIVE_INFINITY);
  }
}
