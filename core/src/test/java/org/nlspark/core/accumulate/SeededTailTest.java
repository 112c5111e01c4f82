package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Seeded tails of a bootstrap tile (TailSeeds bounds, {@link TailAccumulator#seed}, the short
 * elements recomputed and adopted) against unseeded ones over the same values: the same bytes
 * for every kind of ElementTailUpdateTest's adversarial values and for bounds from the moments,
 * bounds that keep nothing (every element short), bounds that keep everything, and random bounds.
 */
class SeededTailTest {
  private static final int WINDOW = 128;
  private static final int BOUNDS = 4;

  @Test
  void seededTailsEqualOnePass() {
    SplittableRandom rnd = new SplittableRandom(21);
    for (int b : new int[] {300, 2000}) {
      for (double c : new double[] {0.9, 0.95, 0.99}) {
        for (int kind = 0; kind < ElementTailUpdateTest.KINDS; kind++) {
          for (int bounds = 0; bounds < BOUNDS; bounds++) {
            check(rnd, b, 13, c, kind, bounds);
          }
        }
      }
    }
  }

  @Test
  void largeBootstrap() {
    SplittableRandom rnd = new SplittableRandom(22);
    for (int kind = 0; kind < ElementTailUpdateTest.KINDS; kind++) {
      check(rnd, 20_000, 5, 0.95, kind, 0);
    }
  }

  @Test
  void gaussianValuesNeedNoRecomputation() {
    SplittableRandom rnd = new SplittableRandom(23);
    int b = 5000;
    int cols = 64;
    int k = TailSize.retained(b, 0.95);
    double[] x = ElementTailUpdateTest.values(rnd, b, cols, 0);
    TailAccumulator acc = seeded(x, b, cols, k, momentBounds(x, b, cols, k));
    long nanFree = 0;
    int[] shortOnes = acc.shortElements();
    for (int e : shortOnes) {
      nanFree += acc.undefinedCount(e) == 0 ? 1 : 0;
    }
    assertThat(nanFree).as("short elements without NaN: %s", Arrays.toString(shortOnes))
        .isZero();
  }

  @Test
  void aSeededAccumulatorIsNotReadBeforeItsSeedingEnds() {
    TailAccumulator acc = new TailAccumulator(2, 3);
    acc.seed(new double[] {-1, -1}, new double[] {1, 1});
    acc.update(new double[] {-2, 2, 0, 0}, 0, 2, 2);
    assertThatThrownBy(acc::toBytes).hasMessageContaining("[BUG]");
    assertThatThrownBy(() -> acc.merge(new TailAccumulator(2, 3))).hasMessageContaining("[BUG]");
    assertThatThrownBy(() -> acc.lowerTail(0)).hasMessageContaining("[BUG]");
    assertThatThrownBy(acc::endSeeding).hasMessageContaining("short");
  }

  private static void check(SplittableRandom rnd, int b, int cols, double c, int kind,
      int bounds) {
    String what = String.format("B=%d c=%s kind=%d bounds=%d", b, c, kind, bounds);
    int k = TailSize.retained(b, c);
    double[] x = ElementTailUpdateTest.values(rnd, b, cols, kind);
    TailAccumulator one = new TailAccumulator(cols, k);
    feed(one, x, b, cols);
    double[][] lu;
    switch (bounds) {
      case 0: lu = momentBounds(x, b, cols, k); break;
      case 1: lu = constant(cols, -Double.MAX_VALUE, Double.MAX_VALUE); break; // keeps nothing
      case 2: lu = constant(cols, Double.MAX_VALUE, -Double.MAX_VALUE); break; // keeps all
      default:
        lu = new double[2][cols];
        for (int e = 0; e < cols; e++) {
          lu[0][e] = rnd.nextGaussian();
          lu[1][e] = rnd.nextInt(5) == 0 ? Double.NaN : rnd.nextGaussian();
        }
    }
    TailAccumulator two = seeded(x, b, cols, k, lu);
    int[] shortOnes = two.shortElements();
    TailAccumulator exact = new TailAccumulator(shortOnes.length, k);
    double[] columns = new double[b * shortOnes.length];
    for (int r = 0; r < b; r++) {
      for (int j = 0; j < shortOnes.length; j++) {
        columns[r * shortOnes.length + j] = x[r * cols + shortOnes[j]];
      }
    }
    feed(exact, columns, b, shortOnes.length);
    for (int j = 0; j < shortOnes.length; j++) {
      two.adopt(shortOnes[j], exact, j);
    }
    two.endSeeding();
    byte[] expected = one.toBytes();
    assertThat(two.toBytes()).as(what).isEqualTo(expected);
    // and it goes on as an ordinary accumulator: more values, then a merge
    double[] more = ElementTailUpdateTest.values(rnd, 200, cols, kind);
    TailAccumulator oneMore = new TailAccumulator(cols, k);
    feed(oneMore, more, 200, cols);
    TailAccumulator twoMore = new TailAccumulator(cols, k);
    feed(twoMore, more, 200, cols);
    one.merge(oneMore);
    two.merge(twoMore);
    feed(one, more, 200, cols);
    feed(two, more, 200, cols);
    assertThat(two.toBytes()).as("%s, then merged and fed", what).isEqualTo(one.toBytes());
  }

  private static TailAccumulator seeded(double[] x, int b, int cols, int k, double[][] lu) {
    TailAccumulator acc = new TailAccumulator(cols, k);
    acc.seed(lu[0], lu[1]);
    feed(acc, x, b, cols);
    return acc;
  }

  private static void feed(TailAccumulator acc, double[] x, int rows, int cols) {
    for (int at = 0; at < rows; at += WINDOW) {
      acc.update(x, at * cols, Math.min(WINDOW, rows - at), cols);
    }
  }

  private static double[][] momentBounds(double[] x, int b, int cols, int k) {
    MomentAccumulator m = new MomentAccumulator(cols);
    for (int at = 0; at < b; at += WINDOW) {
      m.append(MomentAccumulator.ofWindow(x, at * cols, Math.min(WINDOW, b - at), cols));
    }
    double[][] lu = new double[2][cols];
    TailSeeds.bounds(m.mean(), m.std(0), k, b, lu[0], lu[1]);
    return lu;
  }

  private static double[][] constant(int cols, double lower, double upper) {
    double[][] lu = new double[2][cols];
    Arrays.fill(lu[0], lower);
    Arrays.fill(lu[1], upper);
    return lu;
  }
}
