package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.stats.NumpyPercentile;

class TailAccumulatorTest {
  private static final int[] REPLICATES = {1, 2, 3, 10, 97, 1000};
  private static final double[] CONFIDENCES = {0.5, 0.9, 0.95, 0.99};
  private static final double[] SMALL_SET = {-1.5, -0.0, 0.0, 0.25, 3.0};

  private static int referenceK(int b, double c) {
    return (int) Math.min(Math.ceil((b - 1) * ((1 - c) / 2)) + 1, b);
  }

  /** rows × cols row-major; ties drawn from a small set when asked. */
  private static double[] data(SplittableRandom rnd, int rows, int cols, boolean ties) {
    double[] x = new double[rows * cols];
    for (int i = 0; i < x.length; i++) {
      x[i] = ties ? SMALL_SET[rnd.nextInt(SMALL_SET.length)] : rnd.nextGaussian() * 3 + 1;
    }
    return x;
  }

  private static double[] column(double[] x, int rows, int cols, int e) {
    double[] c = new double[rows];
    for (int r = 0; r < rows; r++) {
      c[r] = x[r * cols + e];
    }
    Arrays.sort(c);
    return c;
  }

  private static long bits(double d) {
    return Double.doubleToRawLongBits(d);
  }

  /** Fed window by window (random window sizes), compared with numpy's rule on all values. */
  @Test
  void percentilesEqualBruteForceBitForBit() {
    SplittableRandom rnd = new SplittableRandom(2024);
    int cols = 5;
    for (int b : REPLICATES) {
      for (double c : CONFIDENCES) {
        for (boolean ties : new boolean[] {false, true}) {
          int k = referenceK(b, c);
          double[] x = data(rnd, b, cols, ties);
          TailAccumulator acc = new TailAccumulator(cols, k);
          int[] cut = Splits.cuts(rnd, b, 9);
          for (int p = 0; p + 1 < cut.length; p++) {
            acc.update(x, cut[p] * cols, cut[p + 1] - cut[p], cols);
          }
          assertThat(acc.n()).isEqualTo(b);
          double qLo = 100 * (1 - c) / 2;
          double qHi = 100 * (1 + c) / 2;
          double[] out = new double[cols];
          acc.percentiles(qHi, out);
          for (int e = 0; e < cols; e++) {
            double[] all = column(x, b, cols, e);
            String what = String.format("B=%d c=%s ties=%s e=%d", b, c, ties, e);
            assertThat(bits(acc.percentile(e, qLo)))
                .as(what)
                .isEqualTo(bits(NumpyPercentile.ofSorted(all, qLo)));
            assertThat(bits(out[e])).as(what).isEqualTo(bits(NumpyPercentile.ofSorted(all, qHi)));
            assertThat(acc.lowerTail(e)).as(what).isEqualTo(Arrays.copyOfRange(all, 0, k));
            assertThat(acc.upperTail(e)).as(what).isEqualTo(Arrays.copyOfRange(all, b - k, b));
          }
        }
      }
    }
  }

  /** When k covers everything, every percentile is exact, including the median. */
  @Test
  void fullTailsGiveEveryPercentile() {
    SplittableRandom rnd = new SplittableRandom(8);
    double[] x = data(rnd, 40, 3, false);
    TailAccumulator acc = new TailAccumulator(3, 20);
    acc.update(x, 0, 40, 3);
    for (int e = 0; e < 3; e++) {
      double[] all = column(x, 40, 3, e);
      for (double q = 0; q <= 100; q += 0.5) {
        assertThat(bits(acc.percentile(e, q))).isEqualTo(bits(NumpyPercentile.ofSorted(all, q)));
      }
    }
  }

  /** A large k makes update() walk the columns in several cache blocks (8 columns at k = 2000). */
  @Test
  void columnBlocksOfTheUpdateDoNotChangeTheResult() {
    SplittableRandom rnd = new SplittableRandom(17);
    int b = 4500;
    int cols = 21;
    int k = 2000;
    double[] x = data(rnd, b, cols, false);
    TailAccumulator acc = new TailAccumulator(cols, k);
    acc.update(x, 0, 1000, cols);
    acc.update(x, 1000 * cols, b - 1000, cols);
    for (int e = 0; e < cols; e++) {
      double[] all = column(x, b, cols, e);
      assertThat(acc.lowerTail(e)).isEqualTo(Arrays.copyOfRange(all, 0, k));
      assertThat(acc.upperTail(e)).isEqualTo(Arrays.copyOfRange(all, b - k, b));
      for (double q : new double[] {0, 2.5, 33.3, 44.4, 55.6, 97.5, 100}) {
        assertThat(bits(acc.percentile(e, q))).isEqualTo(bits(NumpyPercentile.ofSorted(all, q)));
      }
    }
  }

  @Test
  void aRankOutsideBothTailsIsABug() {
    TailAccumulator acc = new TailAccumulator(1, 2);
    acc.update(new double[] {5, 1, 4, 2, 3, 6, 7, 8, 9, 10}, 0, 10, 1);
    assertThat(acc.percentile(0, 5)).isEqualTo(NumpyPercentile.ofSorted(
        new double[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5));
    assertThatThrownBy(() -> acc.percentile(0, 50))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("[BUG] percentile 50.0 of 10 values needs order statistic 4,")
        .hasMessageContaining("tail size too small");
  }

  @Test
  void nanMakesThatElementUndefinedOnly() {
    TailAccumulator acc = new TailAccumulator(2, 2);
    acc.update(new double[] {1, Double.NaN, 2, 5, 3, 6}, 0, 3, 2);
    assertThat(acc.undefinedCount(1)).isEqualTo(1);
    assertThat(acc.percentile(1, 50)).isNaN();
    assertThat(acc.percentile(0, 50)).isEqualTo(2.0);
    assertThat(acc.upperTail(1)).containsExactly(5.0, 6.0);
    TailAccumulator back = TailAccumulator.fromBytes(acc.toBytes());
    assertThat(back.toBytes()).isEqualTo(acc.toBytes());
    assertThat(back.percentile(1, 50)).isNaN();
  }

  /** Any split of the replicates, any merge order and direction: the same bytes as one pass. */
  @Test
  void mergeIsIndependentOfSplitAndOrder() {
    SplittableRandom rnd = new SplittableRandom(77);
    for (int trial = 0; trial < 60; trial++) {
      int b = REPLICATES[trial % REPLICATES.length];
      int cols = 1 + rnd.nextInt(4);
      int k = 1 + rnd.nextInt(Math.min(b, 30));
      boolean ties = trial % 2 == 0;
      double[] x = data(rnd, b, cols, ties);
      if (trial % 3 == 0) {
        x[rnd.nextInt(x.length)] = Double.NaN;
      }
      TailAccumulator whole = new TailAccumulator(cols, k);
      whole.update(x, 0, b, cols);
      byte[] expected = whole.toBytes();
      for (int rep = 0; rep < 4; rep++) {
        int[] cut = Splits.cuts(rnd, b, 7);
        List<TailAccumulator> parts = new ArrayList<>();
        for (int p = 0; p + 1 < cut.length; p++) {
          TailAccumulator part = new TailAccumulator(cols, k);
          part.update(x, cut[p] * cols, cut[p + 1] - cut[p], cols);
          // half the parts travel through their bytes, as from an executor
          parts.add(rnd.nextBoolean() ? TailAccumulator.fromBytes(part.toBytes()) : part);
        }
        parts.add(new TailAccumulator(cols, k)); // an empty part changes nothing
        TailAccumulator merged = Splits.mergeAnyOrder(rnd, parts, TailAccumulator::merge);
        assertThat(merged.toBytes()).as("trial %d", trial).isEqualTo(expected);
        assertThat(merged.n()).isEqualTo(b);
      }
    }
  }

  @Test
  void bytesRoundTripAndLayout() {
    TailAccumulator empty = new TailAccumulator(3, 4);
    assertThat(empty.isEmpty()).isTrue();
    byte[] eb = empty.toBytes();
    assertThat(eb).hasSize(2 + 4 + 4 + 8 + 3 * 8);
    assertThat(eb[0]).isEqualTo((byte) 'T');
    assertThat(eb[1]).isEqualTo((byte) 2);
    assertThat(TailAccumulator.fromBytes(eb).toBytes()).isEqualTo(eb);
    assertThatThrownBy(() -> empty.percentile(0, 50))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Cannot take percentile 50.0 of element 0: no replicates were accumulated");

    TailAccumulator one = new TailAccumulator(1, 1);
    one.update(new double[] {-0.0}, 0, 1, 1);
    assertThat(bits(one.percentile(0, 50))).isEqualTo(bits(-0.0)); // numpy keeps -0.0 here
    TailAccumulator back = TailAccumulator.fromBytes(one.toBytes());
    assertThat(back.toBytes()).isEqualTo(one.toBytes());
    assertThat(back.k()).isEqualTo(1);
    assertThat(back.elements()).isEqualTo(1);
    assertThat(back.n()).isEqualTo(1);

    // after a round trip the heaps must still work: keep updating both and compare
    SplittableRandom rnd = new SplittableRandom(4);
    double[] x = data(rnd, 50, 2, false);
    TailAccumulator a = new TailAccumulator(2, 6);
    a.update(x, 0, 25, 2);
    TailAccumulator c = TailAccumulator.fromBytes(a.toBytes());
    a.update(x, 50, 25, 2);
    c.update(x, 50, 25, 2);
    assertThat(c.toBytes()).isEqualTo(a.toBytes());
  }

  @Test
  void rejectsBadBytesAndShapes() {
    byte[] b = new TailAccumulator(2, 3).toBytes();
    b[1] = 9;
    assertThatThrownBy(() -> TailAccumulator.fromBytes(b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read TailAccumulator: unknown format version 9 (this build reads"
            + " version 2); use the same nlspark version on driver and executors");
    byte[] m = new MomentAccumulator(2).toBytes();
    assertThatThrownBy(() -> TailAccumulator.fromBytes(m))
        .hasMessage("Cannot read TailAccumulator: magic byte must be 0x54, but was: 0x4d (bytes of"
            + " MomentAccumulator)");
    TailAccumulator full = new TailAccumulator(1, 2);
    full.update(new double[] {1, 2, 3}, 0, 3, 1);
    byte[] cut = Arrays.copyOf(full.toBytes(), full.toBytes().length - 1);
    assertThatThrownBy(() -> TailAccumulator.fromBytes(cut))
        .hasMessage("Cannot read TailAccumulator: the header announces 32 more bytes, but 31"
            + " remain (truncated or corrupt)");
    // each of the two tails read out of order: its first value made +Infinity (big-endian)
    for (int tail = 0; tail < 2; tail++) {
      byte[] unsorted = full.toBytes();
      int firstValue = 2 + 4 + 4 + 8 + 8 + tail * 2 * 8;
      for (int i = 0; i < 8; i++) {
        unsorted[firstValue + i] = (byte) (i == 0 ? 0x7F : i == 1 ? 0xF0 : 0);
      }
      assertThatThrownBy(() -> TailAccumulator.fromBytes(unsorted)).as("tail " + tail)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("Cannot read TailAccumulator: the tails of element 0 are not sorted or"
              + " hold NaN");
    }
    assertThatThrownBy(() -> new TailAccumulator(2, 3).update(new double[6], 0, 2, 3))
        .hasMessage("Cannot update TailAccumulator: window has 3 columns, but the accumulator has"
            + " 2 elements");
    assertThatThrownBy(() -> new TailAccumulator(2, 3).update(new double[6], 2, 3, 2))
        .hasMessage("Cannot update TailAccumulator: window of 3 x 2 at offset 2 does not fit a"
            + " buffer of length 6");
    assertThatThrownBy(() -> new TailAccumulator(2, 0))
        .hasMessage("Retained tail size k must be >= 1, but was: 0");
    assertThatThrownBy(() -> new TailAccumulator(2, 3).merge(new TailAccumulator(2, 4)))
        .hasMessage("[BUG] Cannot merge TailAccumulator of 2 elements, k=4 into one of 2"
            + " elements, k=3");
  }
}
