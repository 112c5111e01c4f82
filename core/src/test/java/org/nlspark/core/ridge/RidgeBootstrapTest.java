package org.nlspark.core.ridge;

import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.tile.Grid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.apache.commons.math3.linear.Array2DRowRealMatrix;
import org.apache.commons.math3.linear.LUDecomposition;
import org.apache.commons.math3.linear.RealMatrix;
import org.apache.commons.math3.special.Erf;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyDtype;
import org.nlspark.core.resample.Draws;
import org.nlspark.core.stats.NumpyPercentile;

/** Ridge bootstrap against normal equations on explicitly resampled rows, all replicates kept. */
class RidgeBootstrapTest {
  static final int N = 9;
  static final int P = 3;
  static final int V = 4;

  static double[] random(int len, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] a = new double[len];
    for (int i = 0; i < len; i++) {
      a[i] = rng.nextGaussian();
    }
    return a;
  }

  /** (XᵀX + αI)⁻¹ XᵀY by LU, row-major (P, V), on rows listed explicitly. */
  static double[] normalEquations(double[] x, double[] y, int[] rows, double alpha) {
    RealMatrix xb = new Array2DRowRealMatrix(rows.length, P);
    RealMatrix yb = new Array2DRowRealMatrix(rows.length, V);
    for (int i = 0; i < rows.length; i++) {
      for (int j = 0; j < P; j++) {
        xb.setEntry(i, j, x[rows[i] * P + j]);
      }
      for (int v = 0; v < V; v++) {
        yb.setEntry(i, v, y[rows[i] * V + v]);
      }
    }
    RealMatrix g = xb.transpose().multiply(xb);
    for (int j = 0; j < P; j++) {
      g.addToEntry(j, j, alpha);
    }
    RealMatrix beta = new LUDecomposition(g).getSolver().solve(xb.transpose().multiply(yb));
    double[] out = new double[P * V];
    for (int j = 0; j < P; j++) {
      for (int v = 0; v < V; v++) {
        out[j * V + v] = beta.getEntry(j, v);
      }
    }
    return out;
  }

  static int[] drawnRows(long seed, long r) {
    int[] counts = new int[N];
    Draws.bootstrapCounts(seed, r, N, counts);
    int[] rows = new int[N];
    int k = 0;
    for (int i = 0; i < N; i++) {
      for (int c = 0; c < counts[i]; c++) {
        rows[k++] = i;
      }
    }
    return rows;
  }

  static RidgeBootstrap.Options options(long b, int threads, double budgetGb) {
    return new RidgeBootstrap.Options(0.7, b, 0.9, 5L, false, (Double) budgetGb);
  }

  @Test
  void weightsSummaryMatchesEveryReplicateSolvedByNormalEquations() {
    double[] x = random(N * P, 1);
    double[] y = random(N * V, 2);
    int b = 41;
    RidgeResult res = RidgeBootstrap.run(new RidgeAnalysis.Data(x, N, P, y, V, null, 0), options(b, 2, 1.0));
    double[][] reps = new double[b][];
    for (int r = 0; r < b; r++) {
      reps[r] = normalEquations(x, y, drawnRows(5L, r), 0.7);
    }
    assertThat(res.outputs().get(0).shape()).containsExactly(P, V);
    for (int e = 0; e < P * V; e++) {
      double[] col = new double[b];
      double mean = 0;
      for (int r = 0; r < b; r++) {
        col[r] = reps[r][e];
        mean += col[r] / b;
      }
      double ss = 0;
      for (double c : col) {
        ss += (c - mean) * (c - mean);
      }
      double std = Math.sqrt(ss / (b - 1));
      Arrays.sort(col);
      assertThat(res.mean[e]).isCloseTo(mean, within(1e-10));
      assertThat(res.std[e]).isCloseTo(std, within(1e-10));
      assertThat(res.ciLower[e]).isCloseTo(NumpyPercentile.ofSorted(col, 5), within(1e-10));
      assertThat(res.ciUpper[e]).isCloseTo(NumpyPercentile.ofSorted(col, 95), within(1e-10));
      assertThat(res.z[e]).isCloseTo(mean / std, within(1e-8));
      assertThat(res.p[e]).isCloseTo(Erf.erfc(Math.abs(mean / std) / Math.sqrt(2)),
          within(1e-8));
    }
  }

  @Test
  void predictionsAreXTestTimesEachReplicatesWeights() {
    double[] x = random(N * P, 3);
    double[] y = random(N * V, 4);
    int nTest = 2;
    double[] xTest = random(nTest * P, 5);
    int b = 17;
    RidgeResult res = RidgeBootstrap.run(new RidgeAnalysis.Data(x, N, P, y, V, xTest, nTest),
        options(b, 1, 1.0));
    assertThat(res.outputs().get(0).shape()).containsExactly(nTest, V);
    double[][] preds = new double[nTest * V][b];
    for (int r = 0; r < b; r++) {
      double[] beta = normalEquations(x, y, drawnRows(5L, r), 0.7);
      for (int i = 0; i < nTest; i++) {
        for (int v = 0; v < V; v++) {
          double s = 0;
          for (int j = 0; j < P; j++) {
            s += xTest[i * P + j] * beta[j * V + v];
          }
          preds[i * V + v][r] = s;
        }
      }
    }
    for (int e = 0; e < nTest * V; e++) {
      double mean = Arrays.stream(preds[e]).sum() / b;
      double[] sorted = preds[e].clone();
      Arrays.sort(sorted);
      assertThat(res.mean[e]).isCloseTo(mean, within(1e-10));
      assertThat(res.ciLower[e]).isCloseTo(NumpyPercentile.ofSorted(sorted, 5), within(1e-10));
      assertThat(res.ciUpper[e]).isCloseTo(NumpyPercentile.ofSorted(sorted, 95), within(1e-10));
    }
  }

  @Test
  void outputsAreBitIdenticalForAnyBatchSizeAndThreadCount() {
    double[] x = random(N * P, 6);
    double[] y = random(N * V, 7);
    int b = 300;
    RidgeResult big = RidgeBootstrap.run(new LocalEngine(1, Grid.DEFAULT, null),
        new RidgeAnalysis.Data(x, N, P, y, V, null, 0), options(b, 1, 1.0));
    // per replicate (9*3 + 9*4)*8*3 + 12*8 = 1,608 bytes: 5e-5 GB gives batches of 31, so tiles
    // of one 128-replicate window (3 tiles) instead of two windows (2 tiles) with 1 GB; the
    // windows fold in order, so the bits stay the same
    RidgeResult small = RidgeBootstrap.run(new LocalEngine(3, Grid.DEFAULT, null),
        new RidgeAnalysis.Data(x, N, P, y, V, null, 0), options(b, 3, 5e-5));
    assertThat(big.batches).isEqualTo(2);
    assertThat(small.batches).isEqualTo(3);
    for (String name : new String[] {"mean", "std", "ci_lower", "ci_upper", "z", "p"}) {
      assertThat(small.output(name)).as(name).isEqualTo(big.output(name));
    }
  }

  @Test
  void badInputIsRefusedWithTheFlagAndTheValue() {
    for (double a : new double[] {0, -1, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> new RidgeBootstrap.Options(a, 10, 0.9, 1L, false,
          1.0))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("--alpha must be a finite number > 0, but was: " + a);
    }
    double[] x = random(N * P, 8);
    double[] y = random(N * V, 9);
    double[] bad = x.clone();
    bad[4] = Double.NaN;
    assertThatThrownBy(() -> RidgeBootstrap.run(new RidgeAnalysis.Data(bad, N, P, y, V, null, 0),
        options(5, 1, 1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run ridge-bootstrap: --input contains NaN at flat index 4; remove or"
            + " impute non-finite values first");
    NpyArray xa = new NpyArray(NpyDtype.FLOAT64, new long[] {N, P}, x);
    NpyArray ya = new NpyArray(NpyDtype.FLOAT64, new long[] {N - 1, 1},
        Arrays.copyOf(y, N - 1));
    assertThatThrownBy(() -> RidgeBootstrap.run(xa, ya, null, options(5, 1, 1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run ridge-bootstrap: --target Y must have as many rows as --input X"
            + " (9), but has shape (8, 1)");
    NpyArray xt = new NpyArray(NpyDtype.FLOAT64, new long[] {2, P + 1}, new double[2 * (P + 1)]);
    NpyArray yb = new NpyArray(NpyDtype.FLOAT64, new long[] {N}, Arrays.copyOf(y, N));
    assertThatThrownBy(() -> RidgeBootstrap.run(xa, yb, xt, options(5, 1, 1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run ridge-bootstrap: --x-test must be 2-D with 3 columns like --input"
            + " X, but has shape (2, 4)");
    NpyArray x3 = new NpyArray(NpyDtype.FLOAT64, new long[] {1, N, P}, x);
    assertThatThrownBy(() -> RidgeBootstrap.run(x3, yb, null, options(5, 1, 1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run ridge-bootstrap: --input X must be 2-D (samples, features), but"
            + " has shape (1, 9, 3)");
    assertThatThrownBy(() -> RidgeBootstrap.run(
        new RidgeAnalysis.Data(new double[P], 1, P, new double[V], V, null, 0), options(5, 1, 1)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run ridge-bootstrap: need at least 2 samples (rows of --input), but X"
            + " has 1");
  }
}
