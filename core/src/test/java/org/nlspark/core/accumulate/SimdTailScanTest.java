package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.simd.Simd;

/**
 * The SIMD threshold scan of TailAccumulator.update against the scalar scan: the same state, so
 * the same bytes, on values with ties, +-0.0, NaN (undefined replicates), +-Infinity, constant
 * columns and large offsets; widths on and off the vector length.
 */
class SimdTailScanTest {
  @Test
  void bothScansGiveTheSameBytes() {
    assertThat(Simd.enabled()).as(Simd.describe()).isTrue();
    for (int cols : new int[] {1, 5, 8, 13, 64, 203}) {
      for (int k : new int[] {1, 3, 26, 126}) {
        for (int kind = 0; kind < 4; kind++) {
          TailAccumulator vector = new TailAccumulator(cols, k);
          TailAccumulator scalar = new TailAccumulator(cols, k);
          vector.simd = true;
          scalar.simd = false;
          SplittableRandom rng = new SplittableRandom(31L * cols + k + kind);
          for (int window = 0; window < 9; window++) {
            int rows = window == 8 ? 37 : 128;
            double[] buf = values(rng, rows, cols, kind);
            vector.update(buf, 0, rows, cols);
            scalar.update(buf, 0, rows, cols);
          }
          assertThat(vector.toBytes()).as("cols=%d k=%d kind=%d", cols, k, kind)
              .isEqualTo(scalar.toBytes());
        }
      }
    }
  }

  private static double[] values(SplittableRandom rng, int rows, int cols, int kind) {
    double[] buf = new double[rows * cols];
    for (int i = 0; i < buf.length; i++) {
      int col = i % cols;
      double x;
      switch (kind) {
        case 0: x = rng.nextGaussian(); break;
        case 1: x = rng.nextInt(-2, 3) * 0.5; break; // ties, and -0.0 below
        case 2: x = 1e6 + rng.nextInt(0, 4); break;
        default: x = col % 3 == 0 ? 2.5 : rng.nextGaussian(); break;
      }
      if (kind == 1 && x == 0.0 && rng.nextBoolean()) {
        x = -0.0;
      }
      int special = rng.nextInt(500);
      if (special == 0) {
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
