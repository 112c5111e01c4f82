package org.nlspark.core.tfce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.Tail;

class TfceTest {
  /** The sums differ from the definition's only in order; all terms are positive. */
  private static final double RELATIVE = 1e-12;

  static void assertMatches(double[] got, double[] expected, String what) {
    assertMatches(got, expected, what, 0);
  }

  /** {@code absolute}: extra slack where the values are subnormal (spacing Double.MIN_VALUE). */
  static void assertMatches(double[] got, double[] expected, String what, double absolute) {
    assertThat(got).hasSameSizeAs(expected);
    for (int v = 0; v < got.length; v++) {
      double e = expected[v];
      double g = got[v];
      if (Double.isNaN(e)) {
        assertThat(g).as("%s voxel %d", what, v).isNaN();
      } else if (e == 0 && absolute == 0) {
        assertThat(g).as("%s voxel %d", what, v).isZero();
      } else {
        assertThat(Math.abs(g - e)).as("%s voxel %d: %s vs %s", what, v, g, e)
            .isLessThanOrEqualTo(RELATIVE * Math.abs(e) + absolute);
      }
    }
  }

  @Test
  void equalsTheDefinitionOnRandomMapsInEveryTail() {
    int cases = 0;
    for (long seed = 0; seed < 600; seed++) {
      RandomMaps r = new RandomMaps(seed);
      Tfce tfce = new Tfce(r.grid);
      for (int rep = 0; rep < 2; rep++) {
        double[] x = r.map();
        for (Tail tail : Tail.values()) {
          double[] expected = TfceReference.tfce(r.ni, r.nj, r.nk, r.mask, x, tail, 0.5, 2, 100);
          assertMatches(tfce.enhance(x, tail), expected,
              "seed " + seed + " " + r.kind + " " + tail);
          cases++;
        }
      }
    }
    assertThat(cases).isEqualTo(3600);
  }

  @Test
  void equalsTheDefinitionForOtherExponentsAndSteps() {
    SplittableRandom rng = new SplittableRandom(7);
    for (long seed = 1000; seed < 1150; seed++) {
      RandomMaps r = new RandomMaps(seed);
      double e = new double[] {0.5, 1.0, 2.0 / 3}[rng.nextInt(3)];
      double h = new double[] {2.0, 1.0, 3.0}[rng.nextInt(3)];
      int steps = new int[] {1, 7, 100, 250}[rng.nextInt(4)];
      Tfce tfce = new Tfce(r.grid, e, h, steps);
      double[] x = r.map();
      for (Tail tail : Tail.values()) {
        assertMatches(tfce.enhance(x, tail),
            TfceReference.tfce(r.ni, r.nj, r.nk, r.mask, x, tail, e, h, steps),
            "seed " + seed + " E=" + e + " H=" + h + " steps=" + steps + " " + tail);
      }
    }
  }

  @Test
  void equalsTheDefinitionOnLargerSmoothMaps() {
    // deeper merge trees than the small random grids: 16^3 with a smooth field and ties
    SplittableRandom rng = new SplittableRandom(99);
    int n = 16;
    boolean[] mask = new boolean[n * n * n];
    for (int c = 0; c < mask.length; c++) {
      int i = c / (n * n);
      int j = c / n % n;
      int k = c % n;
      double d = (i - 7.5) * (i - 7.5) + (j - 7.5) * (j - 7.5) + (k - 7.5) * (k - 7.5);
      mask[c] = d <= 64 && rng.nextDouble() < 0.97;
    }
    MaskGrid g = MaskGrid.of(n, n, n, mask);
    Tfce tfce = new Tfce(g);
    for (int rep = 0; rep < 4; rep++) {
      double a = rng.nextDouble(0, 6);
      double b = rng.nextDouble(0, 6);
      double[] x = new double[g.voxels()];
      for (int v = 0; v < x.length; v++) {
        int c = g.cellOf(v);
        double s = 2 * Math.sin(c / (n * n) * 0.5 + a) * Math.cos(c / n % n * 0.4 + b)
            + Math.sin(c % n * 0.3) + 0.2 * rng.nextGaussian();
        x[v] = rep % 2 == 0 ? s : Math.round(s * 8) / 8.0;
      }
      for (Tail tail : Tail.values()) {
        assertMatches(tfce.enhance(x, tail),
            TfceReference.tfce(n, n, n, mask, x, tail, 0.5, 2, 100), "smooth " + rep + " " + tail);
      }
    }
  }

  @Test
  void subnormalMapsFollowNumpysThresholds() {
    MaskGrid g = MaskGrid.full(1, 2, 3);
    // H = 1 so that the heights themselves (not their squares, which underflow) are summed;
    // max / 100 underflows to 0 for the first two maxima, and numpy then takes k / 100 * max.
    for (double max : new double[] {Double.MIN_VALUE * 7, Double.MIN_VALUE * 150, 1e-310}) {
      double[] x = {max, max / 2, 0, -max, max, Double.MIN_VALUE};
      for (Tail tail : Tail.values()) {
        double[] got = new Tfce(g, 0.5, 1, 100).enhance(x, tail);
        assertMatches(got, TfceReference.tfce(1, 2, 3, fullMask(6), x, tail, 0.5, 1, 100),
            "max " + max + " " + tail, 400 * Double.MIN_VALUE);
        assertThat(Math.abs(got[tail == Tail.LOWER ? 3 : 0])).isPositive();
      }
    }
  }

  private static boolean[] fullMask(int n) {
    boolean[] m = new boolean[n];
    Arrays.fill(m, true);
    return m;
  }

  @Test
  void aLineByHand() {
    // 1 x 1 x 3 line [4, 2, 1], 4 steps: thresholds 1, 2, 3, 4 (exact in binary)
    MaskGrid g = MaskGrid.full(1, 1, 3);
    double[] got = new Tfce(g, 0.5, 2, 4).enhance(new double[] {4, 2, 1}, Tail.UPPER);
    double s3 = Math.sqrt(3);
    double s2 = Math.sqrt(2);
    assertThat(got[0]).isCloseTo(s3 * 1 + s2 * 4 + 9 + 16, org.assertj.core.data.Offset.offset(1e-13));
    assertThat(got[1]).isCloseTo(s3 * 1 + s2 * 4, org.assertj.core.data.Offset.offset(1e-13));
    assertThat(got[2]).isCloseTo(s3, org.assertj.core.data.Offset.offset(1e-13));
  }

  @Test
  void twoTailsEnhanceEachSignApartWithTheThresholdsOfTheLargestMagnitude() {
    // [-4, -4, 2] on a line: the negative pair and the positive voxel touch but never join
    MaskGrid g = MaskGrid.full(1, 1, 3);
    double[] x = {-4, -4, 2};
    double[] two = new Tfce(g, 0.5, 2, 4).enhance(x, Tail.TWO);
    double pair = Math.sqrt(2) * (1 + 4 + 9 + 16);
    assertThat(two[0]).isEqualTo(-pair);
    assertThat(two[1]).isEqualTo(-pair);
    assertThat(two[2]).isEqualTo(1.0 + 4.0); // thresholds 1..4 from max |x| = 4
    // the upper tail's thresholds come from max x = 2: 0.5, 1, 1.5, 2
    double[] upper = new Tfce(g, 0.5, 2, 4).enhance(x, Tail.UPPER);
    assertThat(upper).containsExactly(0, 0, 0.25 + 1 + 2.25 + 4);
    // the lower tail is the upper tail of -x with the sign kept
    double[] lower = new Tfce(g, 0.5, 2, 4).enhance(x, Tail.LOWER);
    assertThat(lower).containsExactly(-pair, -pair, 0);
  }

  @Test
  void theTopThresholdIsTheMaximumEvenWhenHundredStepsOvershootIt() {
    double max = 3.374132596467158; // 100 * (max / 100) > max in binary64
    assertThat(100 * (max / 100)).isGreaterThan(max);
    double[] h = new Tfce(MaskGrid.full(1, 1, 1)).thresholds(max);
    assertThat(h).hasSize(100);
    assertThat(h[99]).isEqualTo(max);
    assertThat(h[0]).isEqualTo(max / 100);
    assertThat(h[41]).isEqualTo(42 * (max / 100));
    // a single voxel at the maximum reaches all 100 levels
    double[] got = new Tfce(MaskGrid.full(1, 1, 1)).enhance(new double[] {max}, Tail.UPPER);
    double sum = 0;
    for (double t : h) {
      sum += t * t;
    }
    assertThat(got[0]).isCloseTo(sum, org.assertj.core.data.Offset.offset(1e-12 * sum));
  }

  @Test
  void clustersTouchingOnlyByEdgesOrCornersStaySeparate() {
    // 2 x 2 x 2 grid: (0,0,0) and (1,1,1) touch by a corner, (0,1,1) by an edge
    double[] x = new double[8];
    x[0] = 5;
    x[7] = 5;
    x[3] = 5;
    MaskGrid g = MaskGrid.full(2, 2, 2);
    double[] got = new Tfce(g).enhance(x, Tail.UPPER);
    double single = new Tfce(MaskGrid.full(1, 1, 1)).enhance(new double[] {5}, Tail.UPPER)[0];
    // (0,1,1) and (1,1,1) share a face: a pair; (0,0,0) is alone
    assertThat(got[0]).isEqualTo(single);
    assertThat(got[3]).isCloseTo(Math.sqrt(2) * single,
        org.assertj.core.data.Offset.offset(1e-12 * single));
    assertThat(got[7]).isEqualTo(got[3]);
  }

  @Test
  void nonFiniteVoxelsScoreNaNAndCutClusters() {
    MaskGrid g = MaskGrid.full(1, 1, 3);
    double[] got = new Tfce(g).enhance(new double[] {2, Double.NaN, 2}, Tail.UPPER);
    double single = new Tfce(MaskGrid.full(1, 1, 1)).enhance(new double[] {2}, Tail.UPPER)[0];
    assertThat(got[1]).isNaN();
    assertThat(got[0]).isEqualTo(single);
    assertThat(got[2]).isEqualTo(single);
    double[] inf = new Tfce(g).enhance(new double[] {Double.POSITIVE_INFINITY, 1, 1}, Tail.TWO);
    assertThat(inf[0]).isNaN();
    assertThat(inf[1]).isEqualTo(inf[2]).isPositive();
  }

  @Test
  void mapsWithNothingOnTheTailsSideScoreZero() {
    MaskGrid g = MaskGrid.full(2, 2, 1);
    Tfce tfce = new Tfce(g);
    assertThat(tfce.enhance(new double[] {-1, -2, -3, -0.0}, Tail.UPPER)).containsOnly(0.0);
    assertThat(tfce.enhance(new double[] {1, 2, 3, 0}, Tail.LOWER)).containsOnly(0.0);
    assertThat(tfce.enhance(new double[] {0, 0, 0, 0}, Tail.TWO)).containsOnly(0.0);
    double[] nan = new double[4];
    Arrays.fill(nan, Double.NaN);
    assertThat(tfce.enhance(nan, Tail.TWO)).containsOnly(Double.NaN);
  }

  @Test
  void aConstantMapIsOneClusterAtEveryLevel() {
    MaskGrid g = MaskGrid.full(3, 2, 2);
    double[] x = new double[12];
    Arrays.fill(x, 1.5);
    double[] got = new Tfce(g).enhance(x, Tail.TWO);
    double[] h = TfceReference.thresholds(1.5, 100);
    double sum = 0;
    for (double t : h) {
      sum += Math.sqrt(12) * t * t;
    }
    for (double s : got) {
      assertThat(s).isCloseTo(sum, org.assertj.core.data.Offset.offset(1e-12 * sum));
    }
  }

  @Test
  void readsAndWritesAtOffsetsAndReusesItsWorkSpace() {
    RandomMaps r = new RandomMaps(42);
    Tfce tfce = new Tfce(r.grid);
    int n = r.grid.voxels();
    double[] a = r.map();
    double[] b = r.map();
    double[] both = new double[3 + 2 * n];
    System.arraycopy(a, 0, both, 3, n);
    System.arraycopy(b, 0, both, 3 + n, n);
    double[] out = new double[1 + 2 * n];
    tfce.enhance(both, 3, Tail.TWO, out, 1);
    tfce.enhance(both, 3 + n, Tail.TWO, out, 1 + n);
    assertThat(Arrays.copyOfRange(out, 1, 1 + n)).isEqualTo(new Tfce(r.grid).enhance(a, Tail.TWO));
    assertThat(Arrays.copyOfRange(out, 1 + n, 1 + 2 * n))
        .isEqualTo(new Tfce(r.grid).enhance(b, Tail.TWO));
  }

  @Test
  void refusesBadParametersAndShortMaps() {
    MaskGrid g = MaskGrid.full(2, 2, 2);
    assertThatThrownBy(() -> new Tfce(g, 0, 2, 100))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("TFCE extent exponent E must be finite and > 0, but was: 0.0");
    assertThatThrownBy(() -> new Tfce(g, 0.5, Double.NaN, 100))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("TFCE height exponent H must be finite and > 0, but was: NaN");
    assertThatThrownBy(() -> new Tfce(g, 0.5, 2, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("TFCE steps must be in [1, 100000], but was: 0");
    assertThatThrownBy(() -> new Tfce(g).enhance(new double[7], Tail.TWO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot enhance a map: the map needs 8 values from offset 0, but the array"
            + " has 7");
  }
}
