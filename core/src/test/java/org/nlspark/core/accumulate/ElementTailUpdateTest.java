package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.stats.NumpyPercentile;

/**
 * The element-major update of TailAccumulator (the default, with and without its SIMD test)
 * against the definition (every value offered to the exact rule, row by row) and
 * against brute force (every draw stored, numpy's linear percentile): the same bytes and the same
 * interval bit for bit, on adversarial values — ties at the thresholds, -0.0 and +0.0, NaN
 * (undefined replicates), +-Infinity, constant columns, large offsets, monotone runs that keep
 * every value entering a tail — for B from 1 to 20,000, confidence at its edges, and windows
 * shorter than the element path's groups as well as windows cut at random.
 */
class ElementTailUpdateTest {
  private static final double[] CONFIDENCES = {1e-9, 0.05, 0.4, 0.9, 0.95, 0.99, 1 - 1e-9};
  static final int KINDS = 7;

  @Test
  void elementPathEqualsTheDefinitionAndBruteForce() {
    SplittableRandom rnd = new SplittableRandom(13);
    for (int b : new int[] {1, 2, 3, 5, 7, 91, 300, 2000}) {
      for (double c : CONFIDENCES) {
        for (int kind = 0; kind < KINDS; kind++) {
          check(rnd, b, 11, c, kind);
        }
      }
    }
  }

  @Test
  void largeBootstrapOnFewElements() {
    SplittableRandom rnd = new SplittableRandom(14);
    for (double c : new double[] {0.95, 0.999}) {
      for (int kind = 0; kind < KINDS; kind++) {
        check(rnd, 20_000, 3, c, kind);
      }
    }
  }

  @Test
  void windowsOfEverySmallLength() {
    SplittableRandom rnd = new SplittableRandom(15);
    for (int kind = 0; kind < KINDS; kind++) {
      int cols = 17;
      int b = 400;
      int k = TailSize.retained(b, 0.9);
      double[] x = values(rnd, b, cols, kind);
      TailAccumulator element = new TailAccumulator(cols, k);
      TailAccumulator row = new TailAccumulator(cols, k);
      TailAccumulator scalar = new TailAccumulator(cols, k);
      scalar.simd = false;
      int at = 0;
      int len = 1;
      while (at < b) {
        int rows = Math.min(len, b - at);
        element.update(x, at * cols, rows, cols);
        row.updateByOffers(x, at * cols, rows, cols);
        scalar.update(x, at * cols, rows, cols);
        at += rows;
        len = len % 9 + 1; // 1, 2, ..., 9, 1, ...: runs shorter and longer than a group
      }
      byte[] expected = row.toBytes();
      assertThat(element.toBytes()).as("kind=%d", kind).isEqualTo(expected);
      assertThat(scalar.toBytes()).as("kind=%d scalar", kind).isEqualTo(expected);
    }
  }

  private static void check(SplittableRandom rnd, int b, int cols, double c, int kind) {
    String what = String.format("B=%d c=%s kind=%d", b, c, kind);
    int k = TailSize.retained(b, c);
    double[] x = values(rnd, b, cols, kind);
    TailAccumulator element = new TailAccumulator(cols, k);
    TailAccumulator row = new TailAccumulator(cols, k);
    TailAccumulator scalar = new TailAccumulator(cols, k);
    scalar.simd = false;
    int[] cut = Splits.cuts(rnd, b, 12);
    for (int p = 0; p + 1 < cut.length; p++) {
      element.update(x, cut[p] * cols, cut[p + 1] - cut[p], cols);
      row.updateByOffers(x, cut[p] * cols, cut[p + 1] - cut[p], cols);
      scalar.update(x, cut[p] * cols, cut[p + 1] - cut[p], cols);
    }
    byte[] expected = row.toBytes();
    assertThat(element.toBytes()).as(what).isEqualTo(expected);
    assertThat(scalar.toBytes()).as("%s scalar", what).isEqualTo(expected);

    double qLo = BootstrapSummary.lowerPercentile(c);
    double qHi = BootstrapSummary.upperPercentile(c);
    double[] lo = new double[cols];
    double[] hi = new double[cols];
    element.interval(qLo, qHi, lo, hi);
    for (int e = 0; e < cols; e++) {
      double[] all = new double[b];
      for (int r = 0; r < b; r++) {
        all[r] = x[r * cols + e];
      }
      Arrays.sort(all); // NaN last, -0.0 before 0.0: numpy's order
      assertThat(Double.doubleToRawLongBits(lo[e])).as("%s e=%d lower", what, e)
          .isEqualTo(Double.doubleToRawLongBits(NumpyPercentile.ofSorted(all, qLo)));
      assertThat(Double.doubleToRawLongBits(hi[e])).as("%s e=%d upper", what, e)
          .isEqualTo(Double.doubleToRawLongBits(NumpyPercentile.ofSorted(all, qHi)));
    }
  }

  /** rows x cols row-major. */
  static double[] values(SplittableRandom rng, int rows, int cols, int kind) {
    double[] buf = new double[rows * cols];
    for (int i = 0; i < buf.length; i++) {
      int r = i / cols;
      int col = i % cols;
      double x;
      switch (kind) {
        case 0: x = rng.nextGaussian(); break;
        case 1: x = rng.nextInt(-2, 3) * 0.5; break; // many ties at every threshold
        case 2: x = 1e15 + rng.nextInt(0, 4); break; // large offset, few distinct values
        case 3: x = col % 3 == 0 ? 2.5 : rng.nextGaussian(); break; // constant columns
        case 4: x = col % 2 == 0 ? -r : r; break; // every value enters one tail
        case 5: x = rng.nextBoolean() ? 0.0 : -0.0; break; // only signed zeros
        default: x = rng.nextInt(3) == 0 ? Double.POSITIVE_INFINITY
            : rng.nextBoolean() ? Double.NEGATIVE_INFINITY : rng.nextGaussian(); break;
      }
      if (kind == 1 && x == 0.0 && rng.nextBoolean()) {
        x = -0.0;
      }
      int special = rng.nextInt(400);
      if (special == 0 && col != 1) { // column 1 stays defined, so its interval is checked
        x = Double.NaN;
      } else if (special == 1) {
        x = Double.POSITIVE_INFINITY;
      } else if (special == 2) {
        x = Double.NEGATIVE_INFINITY;
      }
      buf[i] = x;
    }
    return buf;
  }
}
