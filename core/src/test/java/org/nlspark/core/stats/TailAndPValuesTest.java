package org.nlspark.core.stats;

import org.nlspark.core.job.Tail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class TailAndPValuesTest {

  @Test
  void tailKeys() {
    assertThat(Tail.TWO.key(-2.5)).isEqualTo(2.5);
    assertThat(Tail.UPPER.key(-2.5)).isEqualTo(-2.5);
    assertThat(Tail.LOWER.key(-2.5)).isEqualTo(2.5);
    for (Tail t : Tail.values()) {
      assertThat(t.key(Double.NaN)).isNaN();
    }
  }

  @Test
  void tailParse() {
    assertThat(Tail.parse("two")).isEqualTo(Tail.TWO);
    assertThat(Tail.parse("upper")).isEqualTo(Tail.UPPER);
    assertThat(Tail.parse("lower")).isEqualTo(Tail.LOWER);
    assertThat(Tail.parse(" Upper ")).isEqualTo(Tail.UPPER);
    assertThatThrownBy(() -> Tail.parse("both"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--tail must be one of two, upper, lower, but was: 'both'");
    assertThatThrownBy(() -> Tail.parse(null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--tail must be one of two, upper, lower, but was: null");
  }

  @Test
  void uncorrectedAndEnumerated() {
    assertThat(PValues.uncorrected(0, 999)).isEqualTo(0.001);
    assertThat(PValues.uncorrected(999, 999)).isEqualTo(1.0);
    assertThat(PValues.uncorrected(4, 9)).isEqualTo(0.5);
    assertThat(PValues.enumerated(1, 16)).isEqualTo(0.0625);
    assertThat(PValues.enumerated(16, 16)).isEqualTo(1.0);
    assertThatThrownBy(() -> PValues.uncorrected(0, 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "Cannot compute a p-value: the number of permutations must be >= 1 (--permutations),"
                + " but was: 0");
    assertThatThrownBy(() -> PValues.uncorrected(11, 10))
        .hasMessage("[BUG] exceedance count must be in [0, 10], but was: 11");
  }

  /** FWER against brute force: count maxima >= each observed key, ties and NaN included. */
  @Test
  void fwerMatchesBruteForce() {
    SplittableRandom rnd = new SplittableRandom(3);
    for (int trial = 0; trial < 200; trial++) {
      int p = 1 + rnd.nextInt(50);
      int v = rnd.nextInt(30);
      double[] maxima = new double[p];
      for (int i = 0; i < p; i++) {
        maxima[i] = rnd.nextInt(10) == 0 ? Double.NaN : rnd.nextInt(6); // ties on purpose
      }
      double[] obs = new double[v];
      for (int i = 0; i < v; i++) {
        obs[i] = rnd.nextInt(8) == 0 ? Double.NaN : rnd.nextInt(7) - 0.5 * rnd.nextInt(2);
      }
      for (boolean enumerated : new boolean[] {false, true}) {
        double[] got = PValues.fwer(maxima, obs, enumerated);
        for (int i = 0; i < v; i++) {
          if (Double.isNaN(obs[i])) {
            assertThat(got[i]).isNaN();
            continue;
          }
          long count = 0;
          for (double m : maxima) {
            if (m >= obs[i]) {
              count++;
            }
          }
          double want = enumerated ? (double) count / p : (count + 1.0) / (p + 1.0);
          assertThat(got[i]).isEqualTo(want);
        }
      }
    }
  }

  @Test
  void fwerHandComputed() {
    double[] maxima = {3, 1, 2, 2};
    double[] p = PValues.fwer(maxima, new double[] {2, 0.5, 3.5, Double.NaN}, false);
    assertThat(p[0]).isEqualTo(4.0 / 5); // 3 maxima >= 2 (ties count)
    assertThat(p[1]).isEqualTo(1.0);
    assertThat(p[2]).isEqualTo(0.2);
    assertThat(p[3]).isNaN();
    assertThat(maxima).containsExactly(3, 1, 2, 2); // input untouched
    assertThatThrownBy(() -> PValues.fwer(new double[0], new double[] {1}, false))
        .hasMessageStartingWith("Cannot compute FWER p-values: the null distribution is empty");
  }

  @Test
  void fromCounts() {
    double[] p =
        PValues.fromCounts(new long[] {0, 3, 9}, 9, new double[] {1, Double.NaN, 0}, false);
    assertThat(p).containsExactly(0.1, Double.NaN, 1.0);
    double[] e = PValues.fromCounts(new long[] {1, 4}, 8, new double[] {1, 1}, true);
    assertThat(e).containsExactly(0.125, 0.5);
  }
}
