package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link TailAccumulator#upperOnly}: the k largest values per element, the same as the
 * two-ended accumulator's upper tail and as sorting every value (brute force), through the
 * element and SIMD paths, the row-by-row rule, any split and merge order, and its bytes.
 */
class UpperOnlyTailTest {
  private static final double[] SMALL_SET = {-1.5, -0.0, 0.0, 0.25, 3.0};

  private static double[] data(SplittableRandom rnd, int rows, int cols, boolean ties) {
    double[] x = new double[rows * cols];
    for (int i = 0; i < x.length; i++) {
      x[i] = ties ? SMALL_SET[rnd.nextInt(SMALL_SET.length)] : rnd.nextGaussian() * 3 + 1;
    }
    return x;
  }

  /** The brute force: every defined value of element e sorted (by bits for ±0), the top k. */
  private static long[] topBits(double[] x, int rows, int cols, int e, int k) {
    List<Long> keys = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      double v = x[r * cols + e];
      if (!Double.isNaN(v)) {
        keys.add(TailAccumulator.key(v));
      }
    }
    keys.sort(null);
    List<Long> top = keys.subList(Math.max(0, keys.size() - k), keys.size());
    long[] out = new long[top.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = Double.doubleToRawLongBits(TailAccumulator.value(top.get(i)));
    }
    return out;
  }

  private static long[] bits(double[] v) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = Double.doubleToRawLongBits(v[i]);
    }
    return out;
  }

  @Test
  void theUpperTailIsTheBruteForceAndTheTwoEndedOnesOnEveryPath() {
    SplittableRandom rnd = new SplittableRandom(11);
    for (int trial = 0; trial < 80; trial++) {
      int rows = 1 + rnd.nextInt(400);
      int cols = 1 + rnd.nextInt(19);
      int k = 1 + rnd.nextInt(Math.min(rows, 120));
      double[] x = data(rnd, rows, cols, trial % 3 == 0);
      if (trial % 4 == 0) {
        x[rnd.nextInt(x.length)] = Double.NaN;
      }
      TailAccumulator both = new TailAccumulator(cols, k);
      TailAccumulator simd = TailAccumulator.upperOnly(cols, k);
      TailAccumulator scalar = TailAccumulator.upperOnly(cols, k);
      scalar.simd = false;
      TailAccumulator offers = TailAccumulator.upperOnly(cols, k);
      int[] cut = Splits.cuts(rnd, rows, 6);
      for (int p = 0; p + 1 < cut.length; p++) {
        int from = cut[p] * cols;
        int n = cut[p + 1] - cut[p];
        both.update(x, from, n, cols);
        simd.update(x, from, n, cols);
        scalar.update(x, from, n, cols);
        offers.updateByOffers(x, from, n, cols);
      }
      for (int e = 0; e < cols; e++) {
        long[] want = topBits(x, rows, cols, e, k);
        assertThat(bits(simd.upperTail(e))).as("trial %d e %d", trial, e).isEqualTo(want);
        assertThat(bits(scalar.upperTail(e))).isEqualTo(want);
        assertThat(bits(offers.upperTail(e))).isEqualTo(want);
        assertThat(bits(both.upperTail(e))).isEqualTo(want);
        assertThat(simd.undefinedCount(e)).isEqualTo(both.undefinedCount(e));
      }
      assertThat(simd.toBytes()).isEqualTo(scalar.toBytes()).isEqualTo(offers.toBytes());
      assertThat(simd.n()).isEqualTo(rows);
    }
  }

  /** Any split, merge order and direction, half the parts through bytes: one pass's bytes. */
  @Test
  void mergeIsIndependentOfSplitAndOrder() {
    SplittableRandom rnd = new SplittableRandom(12);
    for (int trial = 0; trial < 60; trial++) {
      int rows = 1 + rnd.nextInt(300);
      int cols = 1 + rnd.nextInt(4);
      int k = 1 + rnd.nextInt(Math.min(rows, 80));
      double[] x = data(rnd, rows, cols, trial % 2 == 0);
      if (trial % 3 == 0) {
        x[rnd.nextInt(x.length)] = Double.NaN;
      }
      TailAccumulator whole = TailAccumulator.upperOnly(cols, k);
      whole.update(x, 0, rows, cols);
      byte[] expected = whole.toBytes();
      for (int rep = 0; rep < 4; rep++) {
        int[] cut = Splits.cuts(rnd, rows, 7);
        List<TailAccumulator> parts = new ArrayList<>();
        for (int p = 0; p + 1 < cut.length; p++) {
          TailAccumulator part = TailAccumulator.upperOnly(cols, k);
          part.update(x, cut[p] * cols, cut[p + 1] - cut[p], cols);
          parts.add(rnd.nextBoolean() ? TailAccumulator.fromBytes(part.toBytes()) : part);
        }
        parts.add(TailAccumulator.upperOnly(cols, k)); // an empty part changes nothing
        TailAccumulator merged = Splits.mergeAnyOrder(rnd, parts, TailAccumulator::merge);
        assertThat(merged.toBytes()).as("trial %d", trial).isEqualTo(expected);
        assertThat(merged.n()).isEqualTo(rows);
      }
    }
  }

  @Test
  void bytesLayoutRoundTripAndRefusals() {
    TailAccumulator empty = TailAccumulator.upperOnly(3, 4);
    byte[] eb = empty.toBytes();
    assertThat(eb).hasSize(2 + 4 + 4 + 8 + 3 * 8);
    assertThat(eb[0]).isEqualTo((byte) 'U');
    assertThat(eb[1]).isEqualTo((byte) 1);
    assertThat(TailAccumulator.fromBytes(eb).isUpperOnly()).isTrue();

    SplittableRandom rnd = new SplittableRandom(13);
    double[] x = data(rnd, 50, 2, false);
    TailAccumulator a = TailAccumulator.upperOnly(2, 6);
    a.update(x, 0, 25, 2);
    byte[] ab = a.toBytes();
    assertThat(ab).hasSize(2 + 4 + 4 + 8 + 2 * 8 + 2 * 6 * 8); // k values per element, one end
    TailAccumulator c = TailAccumulator.fromBytes(ab);
    assertThat(c.toBytes()).isEqualTo(ab);
    a.update(x, 50, 25, 2); // both keep working after the round trip
    c.update(x, 50, 25, 2);
    assertThat(c.toBytes()).isEqualTo(a.toBytes());
    assertThat(Arrays.stream(c.upperTail(0)).min().getAsDouble())
        .isEqualTo(a.upperTail(0)[0]);

    assertThatThrownBy(() -> a.percentile(0, 50)).isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] Cannot take a percentile of an upper-only TailAccumulator: it keeps"
            + " the largest values only");
    assertThatThrownBy(() -> a.lowerTail(0)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("Cannot read the lower tail of an upper-only");
    TailAccumulator two = new TailAccumulator(2, 6);
    assertThatThrownBy(() -> two.merge(a)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] Cannot merge TailAccumulator of 2 elements, k=6 (upper only) into one"
            + " of 2 elements, k=6");
    byte[] truncated = Arrays.copyOf(ab, ab.length - 8);
    assertThatThrownBy(() -> TailAccumulator.fromBytes(truncated))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("truncated or corrupt");
    byte[] unsorted = ab.clone();
    int firstValue = 2 + 4 + 4 + 8 + 2 * 8;
    for (int i = 0; i < 8; i++) { // the first retained value becomes +Infinity (big-endian)
      unsorted[firstValue + i] = (byte) (i == 0 ? 0x7F : i == 1 ? 0xF0 : 0);
    }
    assertThatThrownBy(() -> TailAccumulator.fromBytes(unsorted))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read TailAccumulator: the tail of element 0 is not sorted or holds"
            + " NaN");
  }
}
