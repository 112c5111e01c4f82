package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class MomentAccumulatorTest {

  private static double[] data(SplittableRandom rnd, int rows, int cols) {
    double[] x = new double[rows * cols];
    for (int i = 0; i < x.length; i++) {
      x[i] = 100 + 0.5 * (i % cols) + rnd.nextGaussian(); // a large mean stresses cancellation
    }
    return x;
  }

  /** Folds windows of {@code window} rows in order. */
  private static MomentAccumulator fold(double[] x, int rows, int cols, int window) {
    MomentAccumulator acc = new MomentAccumulator(cols);
    for (int r = 0; r < rows; r += window) {
      acc.append(MomentAccumulator.ofWindow(x, r * cols, Math.min(window, rows - r), cols));
    }
    return acc;
  }

  /**
   * Against a naive two-pass over all values. The relative bound 1e-12 is far above the rounding of
   * Chan's fold (a few ulps times log of the window count) and far below any real error.
   */
  @Test
  void meanAndStdMatchTwoPassBruteForce() {
    SplittableRandom rnd = new SplittableRandom(13);
    int[] rowsCases = {1, 2, 3, 10, 97, 1000};
    for (int rows : rowsCases) {
      for (int window : new int[] {1, 7, 64, 1000}) {
        int cols = 4;
        double[] x = data(rnd, rows, cols);
        MomentAccumulator acc = fold(x, rows, cols, window);
        assertThat(acc.n()).isEqualTo(rows);
        double[] mean = acc.mean();
        double[] std = acc.std(1);
        for (int e = 0; e < cols; e++) {
          double s = 0;
          for (int r = 0; r < rows; r++) {
            s += x[r * cols + e];
          }
          double m = s / rows;
          double ss = 0;
          for (int r = 0; r < rows; r++) {
            double d = x[r * cols + e] - m;
            ss += d * d;
          }
          assertThat(mean[e]).isCloseTo(m, within(1e-12 * Math.abs(m)));
          assertThat(acc.m2()[e]).isCloseTo(ss, within(1e-12 * ss + 1e-300));
          if (rows < 2) {
            assertThat(std[e]).isNaN();
          } else {
            double sd = Math.sqrt(ss / (rows - 1));
            assertThat(std[e]).isCloseTo(sd, within(1e-12 * sd));
          }
        }
      }
    }
  }

  /** A single window is exactly the two-pass rule, bit for bit (hand-checked small case too). */
  @Test
  void oneWindowIsExactTwoPass() {
    MomentAccumulator acc = MomentAccumulator.ofWindow(new double[] {9, 1, 2, 3, 4, 5}, 2, 2, 2);
    assertThat(acc.mean()).containsExactly(3.0, 4.0);
    assertThat(acc.m2()).containsExactly(2.0, 2.0);
    assertThat(acc.std(1)).containsExactly(Math.sqrt(2.0), Math.sqrt(2.0));
    assertThat(acc.std(0)).containsExactly(1.0, 1.0);
    assertThat(acc.std(2)[0]).isNaN();
    MomentAccumulator folded = new MomentAccumulator(2);
    folded.append(acc);
    assertThat(folded.toBytes()).isEqualTo(acc.toBytes());
  }

  /**
   * Order-defined contract: the same windows folded in window order give the same bytes whatever
   * instance, buffer position or serialization path carried them.
   */
  @Test
  void inOrderFoldIsIdenticalWhateverThePath() {
    SplittableRandom rnd = new SplittableRandom(99);
    for (int trial = 0; trial < 40; trial++) {
      int rows = 1 + rnd.nextInt(300);
      int cols = 1 + rnd.nextInt(5);
      int window = 1 + rnd.nextInt(40);
      double[] x = data(rnd, rows, cols);
      byte[] expected = fold(x, rows, cols, window).toBytes();

      // path 2: first window as the start, every step through bytes, windows copied to fresh buffers
      MomentAccumulator acc = null;
      for (int r = 0; r < rows; r += window) {
        int n = Math.min(window, rows - r);
        int pad = rnd.nextInt(5) * cols;
        double[] buf = new double[pad + n * cols];
        System.arraycopy(x, r * cols, buf, pad, n * cols);
        MomentAccumulator w = MomentAccumulator.ofWindow(buf, pad, n, cols);
        if (rnd.nextBoolean()) {
          w = MomentAccumulator.fromBytes(w.toBytes());
        }
        if (acc == null) {
          acc = w;
        } else {
          acc.merge(w);
          acc = MomentAccumulator.fromBytes(acc.toBytes());
        }
        acc.append(new MomentAccumulator(cols)); // appending empty changes nothing
      }
      assertThat(acc.toBytes()).isEqualTo(expected);
    }
  }

  @Test
  void emptyAndBytes() {
    MomentAccumulator empty = new MomentAccumulator(3);
    assertThat(empty.isEmpty()).isTrue();
    assertThat(empty.std(1)).containsOnly(Double.NaN);
    byte[] b = empty.toBytes();
    assertThat(b).hasSize(2 + 4 + 8 + 3 * 16);
    assertThat(b[0]).isEqualTo((byte) 'M');
    assertThat(MomentAccumulator.fromBytes(b).toBytes()).isEqualTo(b);
    assertThat(MomentAccumulator.ofWindow(new double[0], 0, 0, 3).toBytes()).isEqualTo(b);
    MomentAccumulator nan = MomentAccumulator.ofWindow(new double[] {1, Double.NaN, 2, 3}, 0, 2, 2);
    assertThat(nan.mean()[0]).isEqualTo(1.5);
    assertThat(nan.mean()[1]).isNaN();

    byte[] v = new MomentAccumulator(1).toBytes();
    v[1] = 9;
    assertThatThrownBy(() -> MomentAccumulator.fromBytes(v))
        .hasMessageStartingWith("Cannot read MomentAccumulator: unknown format version 9");
    assertThatThrownBy(() -> MomentAccumulator.fromBytes(new byte[] {'M'}))
        .hasMessage("Cannot read MomentAccumulator: expected at least 2 header bytes, but got 1");
    assertThatThrownBy(() -> new MomentAccumulator(2).append(new MomentAccumulator(3)))
        .hasMessage("[BUG] Cannot append a MomentAccumulator of 3 elements to one of 2 elements");
  }
}
