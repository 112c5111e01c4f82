package org.nlspark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NumpyPercentileTest {

  private static long bits(double d) {
    return Double.doubleToRawLongBits(d);
  }

  /** Values printed by numpy 2.4: float(np.percentile(np.array(a), q)).hex(). */
  @Test
  void matchesNumpyOnHandComputedCases() {
    double[] a = {1, 2, 3, 4};
    assertThat(bits(NumpyPercentile.ofSorted(a, 2.5))).isEqualTo(bits(0x1.1333333333333p+0)); // 1.075
    assertThat(bits(NumpyPercentile.ofSorted(a, 97.5))).isEqualTo(bits(0x1.f666666666666p+1)); // 3.925
    assertThat(bits(NumpyPercentile.ofSorted(a, 50))).isEqualTo(bits(2.5));
    assertThat(bits(NumpyPercentile.ofSorted(a, 12.5))).isEqualTo(bits(1.375));
    assertThat(bits(NumpyPercentile.ofSorted(a, 0))).isEqualTo(bits(1.0));
    assertThat(bits(NumpyPercentile.ofSorted(a, 100))).isEqualTo(bits(4.0));
    double[] x = {0.1, 0.2, 0.3, 0.7, 0.9};
    assertThat(bits(NumpyPercentile.ofSorted(x, 2.5))).isEqualTo(bits(0x1.c28f5c28f5c2ap-4));
    assertThat(bits(NumpyPercentile.ofSorted(x, 33.3))).isEqualTo(bits(0x1.dd97f62b6ae7dp-3));
    assertThat(bits(NumpyPercentile.ofSorted(x, 97.5))).isEqualTo(bits(0x1.c28f5c28f5c29p-1));
  }

  /**
   * numpy: a = 0x1.403e90a372f4cp+1, b = 0x1.fc6f04af6bc00p+2, q = 70 gives 0x1.93f0b2934fde5p+2,
   * which is b - (b - a)(1 - t); a + (b - a)t would give ...4p+2.
   */
  @Test
  void usesNumpysSecondLerpBranchForTAtLeastHalf() {
    double a = 0x1.403e90a372f4cp+1;
    double b = 0x1.fc6f04af6bc00p+2;
    assertThat(a + (b - a) * 0.7).isEqualTo(0x1.93f0b2934fde4p+2);
    assertThat(bits(NumpyPercentile.ofSorted(new double[] {a, b}, 70)))
        .isEqualTo(bits(0x1.93f0b2934fde5p+2));

    // brute-force search for more pairs where the two branches differ, and check the branch taken
    SplittableRandom rnd = new SplittableRandom(11);
    int found = 0;
    for (int i = 0; i < 100_000 && found < 20; i++) {
      double u = rnd.nextDouble(-10, 10);
      double v = rnd.nextDouble(-10, 10);
      double lo = Math.min(u, v);
      double hi = Math.max(u, v);
      double q = 50 + rnd.nextInt(50); // t = q/100 in [0.5, 1)
      double t = q / 100.0;
      double first = lo + (hi - lo) * t;
      double second = hi - (hi - lo) * (1 - t);
      if (first != second) {
        found++;
        assertThat(bits(NumpyPercentile.ofSorted(new double[] {lo, hi}, q))).isEqualTo(bits(second));
      }
    }
    assertThat(found).isEqualTo(20);
  }

  /** numpy: percentile([-0.], 50) = -0.0; ([-0., -0.], 100) = 0.0; ([-0., -0.], 50) = -0.0. */
  @Test
  void reproducesNumpysClampedWeightOnSignedZeros() {
    assertThat(bits(NumpyPercentile.ofSorted(new double[] {-0.0}, 50))).isEqualTo(bits(-0.0));
    assertThat(bits(NumpyPercentile.ofSorted(new double[] {-0.0, -0.0}, 100))).isEqualTo(bits(0.0));
    assertThat(bits(NumpyPercentile.ofSorted(new double[] {-0.0, -0.0}, 50))).isEqualTo(bits(-0.0));
  }

  @Test
  void nanAndInfinityBehaveAsNumpy() {
    assertThat(NumpyPercentile.ofSorted(new double[] {1, 2, Double.NaN}, 10)).isNaN();
    assertThat(NumpyPercentile.ofSorted(new double[] {Double.POSITIVE_INFINITY}, 50)).isNaN();
    assertThat(NumpyPercentile.ofSorted(new double[] {1, Double.POSITIVE_INFINITY}, 50)).isNaN();
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> NumpyPercentile.ofSorted(new double[] {1}, 100.5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Percentile q must be in [0, 100], but was: 100.5");
    assertThatThrownBy(() -> NumpyPercentile.ofSorted(new double[] {1}, Double.NaN))
        .hasMessage("Percentile q must be in [0, 100], but was: NaN");
    assertThatThrownBy(() -> NumpyPercentile.ofSorted(new double[0], 50))
        .hasMessage("Cannot take a percentile of an empty array");
  }

  @Test
  void readsAnUnretainedRankOnlyWhenItCannotMatter() {
    double[] sorted = {1, 2, 3, 4, 5};
    // q = 25: h = 1.0, t = 0 -> rank 2 is not needed; only ranks 0,1 and 3,4 retained
    double p =
        NumpyPercentile.ofOrderStatistics(5, 25, j -> sorted[(int) j], j -> j != 2);
    assertThat(bits(p)).isEqualTo(bits(NumpyPercentile.ofSorted(sorted, 25)));
    // q = 30: h = 1.2 needs rank 2
    assertThatThrownBy(
            () -> NumpyPercentile.ofOrderStatistics(5, 30, j -> sorted[(int) j], j -> j != 2))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("[BUG] percentile 30.0 of 5 values needs order statistic 2")
        .hasMessageContaining("need at least 3");
  }

  /** The reference's k = min(ceil((B-1)(1-c)/2)+1, B) always covers both interval ends. */
  @Test
  void referenceTailSizeCoversBothEndsOfTheInterval() {
    double[] confidences = {0.5, 0.8, 0.9, 0.95, 0.975, 0.99, 0.999};
    for (int b = 1; b <= 3000; b++) {
      for (double c : confidences) {
        int k = (int) Math.min(Math.ceil((b - 1) * ((1 - c) / 2)) + 1, b);
        int needLo = NumpyPercentile.minimumTailSize(b, 100 * (1 - c) / 2);
        int needHi = NumpyPercentile.minimumTailSize(b, 100 * (1 + c) / 2);
        assertThat(Math.max(needLo, needHi)).as("B=%d c=%s", b, c).isLessThanOrEqualTo(k);
      }
    }
  }

  /** minimumTailSize against brute force: the smallest k with which ofOrderStatistics succeeds. */
  @Test
  void minimumTailSizeIsTheSmallestWorkingK() {
    SplittableRandom rnd = new SplittableRandom(5);
    for (int trial = 0; trial < 300; trial++) {
      int n = 1 + rnd.nextInt(60);
      double q = trial % 5 == 0 ? 25 * rnd.nextInt(5) : rnd.nextDouble(0, 100);
      double[] sorted = rnd.doubles(n, -1, 1).sorted().toArray();
      int smallest = -1;
      for (int k = 1; k <= n && smallest < 0; k++) {
        final int kk = k;
        try {
          NumpyPercentile.ofOrderStatistics(
              n, q, j -> sorted[(int) j], j -> j < kk || j >= n - kk);
          smallest = k;
        } catch (IllegalStateException expected) {
          assertThat(expected).hasMessageStartingWith("[BUG]");
        }
      }
      assertThat(NumpyPercentile.minimumTailSize(n, q)).as("n=%d q=%s", n, q).isEqualTo(smallest);
    }
  }
}
