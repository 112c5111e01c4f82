package org.nlspark.core.timeseries;

import org.nlspark.core.engine.LocalEngine;

import org.nlspark.core.resample.Surrogates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyDtype;
import org.nlspark.core.resample.Seeds;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/** Voxel-wise correlation with a target against surrogate targets, vs an explicit loop. */
class TimeSeriesCorrelationTest {
  static final int T = 16;
  static final int V = 9;

  static double[] x(long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] x = new double[T * V];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian();
    }
    for (int t = 0; t < T; t++) {
      x[t * V + 8] = 2.5; // a constant voxel: undefined
    }
    return x;
  }

  static double pearson(double[] a, double[] b) {
    int n = a.length;
    double ma = Arrays.stream(a).sum() / n;
    double mb = Arrays.stream(b).sum() / n;
    double xy = 0;
    double xx = 0;
    double yy = 0;
    for (int i = 0; i < n; i++) {
      xy += (a[i] - ma) * (b[i] - mb);
      xx += (a[i] - ma) * (a[i] - ma);
      yy += (b[i] - mb) * (b[i] - mb);
    }
    return xy / Math.sqrt(xx * yy);
  }

  /** Surrogate by explicit np.roll or explicit DFT phase rotation, from the same draws. */
  static double[] surrogate(double[] y, SurrogateMethod m, long seed, long r) {
    SplittableRandom rng = Seeds.forReplicate(seed, r);
    if (m == SurrogateMethod.CIRCLE_SHIFT) {
      int shift = rng.nextInt(T);
      double[] out = new double[T];
      for (int t = 0; t < T; t++) {
        out[(t + shift) % T] = y[t];
      }
      return out;
    }
    double[] phases = Surrogates.drawPhases(rng, T);
    double[] re = new double[T];
    double[] im = new double[T];
    for (int k = 0; k < T; k++) {
      for (int u = 0; u < T; u++) {
        re[k] += y[u] * Math.cos(-2 * Math.PI * k * u / T);
        im[k] += y[u] * Math.sin(-2 * Math.PI * k * u / T);
      }
    }
    for (int k = 1; k <= phases.length; k++) {
      for (int kk : new int[] {k, T - k}) {
        double ph = kk == k ? phases[k - 1] : -phases[k - 1];
        double nr = re[kk] * Math.cos(ph) - im[kk] * Math.sin(ph);
        double ni = re[kk] * Math.sin(ph) + im[kk] * Math.cos(ph);
        re[kk] = nr;
        im[kk] = ni;
      }
    }
    double[] out = new double[T];
    for (int u = 0; u < T; u++) {
      for (int k = 0; k < T; k++) {
        out[u] += (re[k] * Math.cos(2 * Math.PI * k * u / T)
            - im[k] * Math.sin(2 * Math.PI * k * u / T)) / T;
      }
    }
    return out;
  }

  @ParameterizedTest
  @EnumSource(SurrogateMethod.class)
  void observedPAndFwerMatchTheExplicitNull(SurrogateMethod m) {
    double[] x = x(1);
    double[] y = new SplittableRandom(2).doubles(T).toArray();
    for (int t = 0; t < T; t++) {
      x[t * V] += 2 * y[t]; // voxel 0 follows the target
    }
    int p = 37;
    for (Tail tail : Tail.values()) {
      TimeSeriesCorrelation.Options o = new TimeSeriesCorrelation.Options(m, p, tail, true, 3L,
          new Grid(4, 8));
      PermutationResult res = TimeSeriesCorrelation.run(x, T, V, y, o);
      double[][] nulls = new double[p][V];
      double[] obs = new double[V];
      double[] max = new double[p];
      Arrays.fill(max, Double.NEGATIVE_INFINITY);
      for (int v = 0; v < 8; v++) {
        double[] col = new double[T];
        for (int t = 0; t < T; t++) {
          col[t] = x[t * V + v];
        }
        obs[v] = pearson(col, y);
        for (int r = 0; r < p; r++) {
          nulls[r][v] = pearson(col, surrogate(y, m, 3L, r));
          max[r] = Math.max(max[r], tail.key(nulls[r][v]));
        }
      }
      for (int r = 0; r < p; r++) {
        assertThat(res.nullMax[r]).isCloseTo(max[r], within(1e-12));
      }
      for (int v = 0; v < 8; v++) {
        assertThat(res.observed[v]).isCloseTo(obs[v], within(1e-12));
        long count = 0;
        long fw = 0;
        for (int r = 0; r < p; r++) {
          count += tail.key(nulls[r][v]) >= tail.key(obs[v]) ? 1 : 0;
          fw += max[r] >= tail.key(obs[v]) ? 1 : 0;
        }
        assertThat(res.p[v]).as(m + " " + tail + " v" + v).isEqualTo((count + 1.0) / (p + 1));
        assertThat(res.pFwer[v]).isEqualTo((fw + 1.0) / (p + 1));
      }
      assertThat(res.observed[8]).isNaN();
      assertThat(res.undefinedVoxels).isEqualTo(1);
    }
  }

  @Test
  void bitIdenticalForAnyThreadCount() {
    double[] x = x(4);
    double[] y = new SplittableRandom(5).doubles(T).toArray();
    TimeSeriesCorrelation.Options a = new TimeSeriesCorrelation.Options(
        SurrogateMethod.PHASE_RANDOMIZE, 300, Tail.TWO, true, 1L, new Grid(2, 16));
    PermutationResult ra = TimeSeriesCorrelation.run(new LocalEngine(1, Grid.DEFAULT, null), x,
        T, V, y, a);
    PermutationResult rb = TimeSeriesCorrelation.run(new LocalEngine(3, Grid.DEFAULT, null), x,
        T, V, y, a);
    assertThat(rb.observed).isEqualTo(ra.observed);
    assertThat(rb.p).isEqualTo(ra.p);
    assertThat(rb.pFwer).isEqualTo(ra.pFwer);
    assertThat(rb.nullMax).isEqualTo(ra.nullMax);
  }

  @Test
  void phaseRandomizationKeepsMeanAndPowerSpectrum() {
    double[] y = new SplittableRandom(6).doubles(T).toArray();
    double[] s = new double[T];
    TimeSeriesCorrelation.surrogate(y, T, SurrogateMethod.PHASE_RANDOMIZE, 9L, 4, s);
    assertThat(Arrays.stream(s).sum()).isCloseTo(Arrays.stream(y).sum(), within(1e-12));
    for (int k = 0; k < T; k++) {
      assertThat(power(s, k)).isCloseTo(power(y, k), within(1e-10));
    }
    assertThat(s).isNotEqualTo(y);
  }

  private static double power(double[] x, int k) {
    double re = 0;
    double im = 0;
    for (int u = 0; u < T; u++) {
      re += x[u] * Math.cos(2 * Math.PI * k * u / T);
      im += x[u] * Math.sin(2 * Math.PI * k * u / T);
    }
    return re * re + im * im;
  }

  @Test
  void badInputIsRefusedWithTheFlagAndTheValue() {
    TimeSeriesCorrelation.Options o = TimeSeriesCorrelation.Options.defaults(
        SurrogateMethod.CIRCLE_SHIFT, 10, 1L);
    double[] x = x(7);
    assertThatThrownBy(() -> TimeSeriesCorrelation.run(x, T, V, new double[T - 1], o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run timeseries-correlation: --target must have one value per time point"
            + " (16), but has 15");
    double[] nan = new double[T];
    nan[3] = Double.POSITIVE_INFINITY;
    assertThatThrownBy(() -> TimeSeriesCorrelation.run(x, T, V, nan, o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run timeseries-correlation: --target contains Infinity at flat index 3;"
            + " remove or impute non-finite values first");
    assertThatThrownBy(() -> TimeSeriesCorrelation.run(new double[2 * V], 2, V, new double[2], o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run timeseries-correlation: need at least 3 time points, but the input"
            + " has 2");
    assertThatThrownBy(() -> TimeSeriesCorrelation.run(x, T, V, new double[T], o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run timeseries-correlation: the target series y is constant, so its"
            + " correlation with any voxel is undefined");
    NpyArray x3 = new NpyArray(NpyDtype.FLOAT64, new long[] {1, T, V}, x);
    NpyArray y1 = new NpyArray(NpyDtype.FLOAT64, new long[] {T}, new double[T]);
    assertThatThrownBy(() -> TimeSeriesCorrelation.run(x3, y1, o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run timeseries-correlation: --input must be 2-D (timepoints, voxels),"
            + " but has shape (1, 16, 9)");
    assertThatThrownBy(() -> SurrogateMethod.parse("shuffle", "--null"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--null must be one of circle-shift, phase-randomize, but was: 'shuffle'");
    assertThatThrownBy(() -> TimeSeriesCorrelation.Options.defaults(
        SurrogateMethod.CIRCLE_SHIFT, 0, 1L))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--permutations must be in [1, 2147483639], but was: 0");
  }
}
