package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.Draws;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/**
 * Ties count as extreme (DESIGN §4). With small-integer data many different sign flips give
 * mathematically equal statistics; under sign flips t is a monotone function of |sum(s_i x_i)| per
 * voxel, so the exact count is an integer computation: #{flips : |g_flip| >= |g_obs|}. The engine
 * must agree exactly, for mean and t, including the flips that tie the observed value.
 */
class ExactTiesTest {
  @Test
  void signFlipCountsMatchExactIntegerArithmetic() {
    int n = 10;
    int v = 6;
    long[][] x = new long[n][v];
    java.util.Random rng = new java.util.Random(4);
    double[] values = new double[n * v];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < v; j++) {
        x[i][j] = rng.nextInt(4) + (j == 0 ? 2 : 0); // values 0..3 (voxel 0 shifted up)
        values[i * v + j] = x[i][j];
      }
    }
    // keep every voxel non-constant
    for (int j = 0; j < v; j++) {
      x[0][j] = 1;
      x[1][j] = 3;
      values[j] = 1;
      values[v + j] = 3;
    }
    JobInputs in = JobInputs.of(DataMatrix.of(n, v, values, "x"));
    for (String stat : new String[] {"t", "mean"}) {
      JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic(stat).replicates(5000)
          .tail(Tail.TWO).seed(2).build();
      PermutationResult r = (PermutationResult) new LocalEngine(2, new Grid(4, 64), null)
          .run(spec, in).result;
      assertThat(r.enumerated).isTrue();
      int draws = 1 << n;
      double[] signs = new double[n];
      long[] obs = new long[v];
      for (int j = 0; j < v; j++) {
        for (int i = 0; i < n; i++) {
          obs[j] += x[i][j];
        }
      }
      long[] counts = new long[v];
      long ties = 0;
      for (int d = 0; d < draws; d++) {
        Draws.enumeratedSignFlips(d, n, signs, 0);
        for (int j = 0; j < v; j++) {
          long g = 0;
          for (int i = 0; i < n; i++) {
            g += (long) signs[i] * x[i][j];
          }
          if (Math.abs(g) >= Math.abs(obs[j])) {
            counts[j]++;
          }
          if (Math.abs(g) == Math.abs(obs[j])) {
            ties++;
          }
        }
      }
      assertThat(ties).as("the data must produce ties beyond identity and full flip")
          .isGreaterThan(2L * v);
      for (int j = 0; j < v; j++) {
        assertThat(r.p[j]).as(stat + " voxel " + j).isEqualTo(counts[j] / (double) draws);
      }
    }
  }

  @Test
  void labelPermutationMeanDifferenceCountsMatchExactIntegerArithmetic() {
    int n1 = 6;
    int n2 = 7;
    int v = 5;
    java.util.Random rng = new java.util.Random(9);
    long[][] z = new long[n1 + n2][v];
    double[] xs = new double[n1 * v];
    double[] ys = new double[n2 * v];
    for (int i = 0; i < n1 + n2; i++) {
      for (int j = 0; j < v; j++) {
        z[i][j] = rng.nextInt(3) + (i < n1 && j == 0 ? 2 : 0);
        if (i < n1) {
          xs[i * v + j] = z[i][j];
        } else {
          ys[(i - n1) * v + j] = z[i][j];
        }
      }
    }
    JobInputs in = JobInputs.twoGroups(DataMatrix.of(n1, v, xs, "x"), DataMatrix.of(n2, v, ys,
        "y"));
    int perms = 400;
    JobSpec spec = JobSpec.builder(Analysis.TWO_SAMPLE).statistic("mean-diff").replicates(perms)
        .seed(5).build();
    PermutationResult r = (PermutationResult) new LocalEngine(2, new Grid(2, 32), null)
        .run(spec, in).result;
    // mean1 - mean2 = S1 (1/n1 + 1/n2) - T / n2 is monotone in the integer group-1 sum S1
    int[] perm = new int[n1 + n2];
    for (int j = 0; j < v; j++) {
      long total = 0;
      long obs = 0;
      for (int i = 0; i < n1 + n2; i++) {
        total += z[i][j];
        obs += i < n1 ? z[i][j] : 0;
      }
      // |S1 (n1 + n2) - T n1| is |mean difference| times n1 n2, an exact integer
      long obsKey = Math.abs(obs * (n1 + n2) - total * n1);
      long count = 0;
      for (int d = 0; d < perms; d++) {
        Draws.permutation(5, d, n1 + n2, perm);
        long s1 = 0;
        for (int i = 0; i < n1; i++) {
          s1 += z[perm[i]][j];
        }
        if (Math.abs(s1 * (n1 + n2) - total * n1) >= obsKey) {
          count++;
        }
      }
      assertThat(r.p[j]).as("voxel " + j).isEqualTo((count + 1.0) / (perms + 1.0));
    }
  }
}
