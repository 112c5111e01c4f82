package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.job.Tail;

class ExceedanceCounterTest {

  private static double draw(SplittableRandom rnd) {
    int u = rnd.nextInt(12);
    return u == 0 ? Double.NaN : u - 6; // small integers: many ties, some NaN
  }

  @Test
  void countsMatchBruteForceWithTiesAndNaN() {
    SplittableRandom rnd = new SplittableRandom(21);
    for (int trial = 0; trial < 50; trial++) {
      int rows = rnd.nextInt(60);
      int cols = 1 + rnd.nextInt(6);
      Tail tail = Tail.values()[trial % 3];
      double[] stats = new double[rows * cols];
      double[] keys = new double[rows * cols];
      for (int i = 0; i < keys.length; i++) {
        stats[i] = draw(rnd);
        keys[i] = tail.key(stats[i]);
      }
      double[] obsStats = new double[cols];
      double[] obs = new double[cols + 2];
      for (int e = 0; e < cols; e++) {
        obsStats[e] = draw(rnd);
        obs[e + 2] = tail.key(obsStats[e]);
      }
      ExceedanceCounter c = new ExceedanceCounter(cols);
      int[] cut = Splits.cuts(rnd, rows, 7);
      List<ExceedanceCounter> parts = new ArrayList<>();
      for (int p = 0; p + 1 < cut.length; p++) {
        ExceedanceCounter part = new ExceedanceCounter(cols);
        part.update(keys, cut[p] * cols, cut[p + 1] - cut[p], cols, obs, 2);
        parts.add(part);
      }
      c.update(keys, 0, rows, cols, obs, 2);
      long[] counts = c.counts();
      for (int e = 0; e < cols; e++) {
        long want = 0;
        for (int r = 0; r < rows; r++) {
          double s = stats[r * cols + e];
          double o = obsStats[e];
          boolean extreme;
          switch (tail) {
            case TWO:
              extreme = Math.abs(s) >= Math.abs(o);
              break;
            case UPPER:
              extreme = s >= o;
              break;
            default:
              extreme = s <= o;
          }
          if (extreme) {
            want++;
          }
        }
        assertThat(counts[e]).as("tail %s", tail).isEqualTo(want);
      }
      assertThat(c.n()).isEqualTo(rows);
      ExceedanceCounter merged = Splits.mergeAnyOrder(rnd, parts, ExceedanceCounter::merge);
      assertThat(merged.toBytes()).isEqualTo(c.toBytes());
      assertThat(ExceedanceCounter.fromBytes(c.toBytes()).toBytes()).isEqualTo(c.toBytes());
      if (rows > 0) {
        double[] p = PValues.fromCounts(counts, rows, java.util.Arrays.copyOfRange(obs, 2, cols + 2),
            false);
        for (int e = 0; e < cols; e++) {
          if (Double.isNaN(obsStats[e])) {
            assertThat(p[e]).isNaN();
            assertThat(counts[e]).isZero();
          } else {
            assertThat(p[e]).isEqualTo((counts[e] + 1.0) / (rows + 1.0));
          }
        }
      }
    }
  }

  @Test
  void emptySingleAndErrors() {
    ExceedanceCounter c = new ExceedanceCounter(1);
    assertThat(c.isEmpty()).isTrue();
    c.update(new double[] {2.0}, 0, 1, 1, new double[] {2.0}, 0);
    assertThat(c.counts()).containsExactly(1L); // a tie counts
    byte[] b = c.toBytes();
    assertThat(b[0]).isEqualTo((byte) 'E');
    assertThat(b).hasSize(2 + 4 + 8 + 8);
    b[1] = 0;
    assertThatThrownBy(() -> ExceedanceCounter.fromBytes(b))
        .hasMessageStartingWith("Cannot read ExceedanceCounter: unknown format version 0");
    assertThatThrownBy(() -> new ExceedanceCounter(2).update(new double[4], 0, 2, 2,
            new double[1], 0))
        .hasMessage("Cannot update ExceedanceCounter: window of 1 x 2 at offset 0 does not fit a"
            + " buffer of length 1");
  }
}
