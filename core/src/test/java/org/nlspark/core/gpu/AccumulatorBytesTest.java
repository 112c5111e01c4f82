package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.MomentAccumulator;

/** Pins the device-totals constructors to the accumulators' own updates (same bytes). */
class AccumulatorBytesTest {
  @Test
  void countsFromTheDeviceEqualTheCounterUpdate() {
    SplittableRandom rng = new SplittableRandom(1);
    int rows = 37;
    int cols = 5;
    double[] keys = new double[rows * cols];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = rng.nextInt(4) == 0 ? Double.NaN : rng.nextInt(5);
    }
    double[] observed = {0, 1, 2, Double.NaN, 4};
    ExceedanceCounter expected = new ExceedanceCounter(cols);
    expected.update(keys, 0, rows, cols, observed, 0);
    long[] counts = new long[cols];
    for (int r = 0; r < rows; r++) {
      for (int v = 0; v < cols; v++) {
        if (keys[r * cols + v] >= observed[v]) { // as count_exceedances does
          counts[v]++;
        }
      }
    }
    assertThat(AccumulatorBytes.exceedances(rows, counts).toBytes()).isEqualTo(expected.toBytes());
  }

  @Test
  void momentsFromTheDeviceEqualOfWindow() {
    SplittableRandom rng = new SplittableRandom(2);
    int rows = 29;
    int cols = 4;
    double[] x = new double[rows * cols];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian() * 1e3;
    }
    MomentAccumulator expected = MomentAccumulator.ofWindow(x, 0, rows, cols);
    double[] mean = new double[cols];
    double[] m2 = new double[cols];
    for (int v = 0; v < cols; v++) { // the order window_moments uses
      double s = 0;
      for (int r = 1; r < rows; r++) {
        s += x[r * cols + v] - x[v];
      }
      double mu = x[v] + s / rows;
      double q = 0;
      for (int r = 0; r < rows; r++) {
        double d = x[r * cols + v] - mu;
        q += d * d;
      }
      mean[v] = mu;
      m2[v] = q;
    }
    assertThat(AccumulatorBytes.moments(rows, mean, m2).toBytes()).isEqualTo(expected.toBytes());
  }
}
