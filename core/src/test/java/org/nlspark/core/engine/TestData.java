package org.nlspark.core.engine;

import java.util.Random;
import org.nlspark.core.data.DataMatrix;

/** Seeded random test matrices, optionally with constant (zero-variance) columns. */
final class TestData {
  private TestData() {}

  static DataMatrix gaussian(int rows, int cols, long seed, double shift, int... constantCols) {
    Random rng = new Random(seed);
    double[] v = new double[rows * cols];
    for (int i = 0; i < v.length; i++) {
      v[i] = rng.nextGaussian() + shift;
    }
    for (int c : constantCols) {
      for (int i = 0; i < rows; i++) {
        v[i * cols + c] = 1.5;
      }
    }
    return DataMatrix.of(rows, cols, v, "test");
  }

  static double[] distinctTarget(int n, long seed) {
    Random rng = new Random(seed);
    double[] y = new double[n];
    for (int i = 0; i < n; i++) {
      y[i] = i + 0.25 * rng.nextDouble();
    }
    // shuffle so the target is not sorted
    for (int i = n - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      double t = y[i];
      y[i] = y[j];
      y[j] = t;
    }
    return y;
  }
}
