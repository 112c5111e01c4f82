package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/**
 * When 2^n <= P the 2^n sign flips are enumerated exactly; the identity is one of them, so
 * p = count / 2^n and the smallest possible p is 1 / 2^n (upper tail). Two-tailed, flipping every
 * sign gives the same |t|, so the smallest two-tailed p is 2 / 2^n.
 */
class ExactEnumerationTest {
  @Test
  void eightSubjectsEnumerateAll256Flips() {
    int n = 8;
    double[] v = new double[n * 3];
    java.util.Random rng = new java.util.Random(1);
    for (int i = 0; i < n; i++) {
      v[i * 3] = 2.0 + 0.1 * rng.nextGaussian(); // strong effect: every value positive
      v[i * 3 + 1] = rng.nextGaussian();
      v[i * 3 + 2] = -3.0 + 0.1 * rng.nextGaussian(); // strong negative effect
    }
    JobInputs in = JobInputs.of(DataMatrix.of(n, 3, v, "x"));
    JobSpec upper = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(1000)
        .tail(Tail.UPPER).seed(1).build();
    PermutationResult r = (PermutationResult) new LocalEngine(2, Grid.DEFAULT, null)
        .run(upper, in).result;
    assertThat(r.enumerated).isTrue();
    assertThat(r.draws).isEqualTo(256);
    assertThat(r.nullMax).hasSize(256);
    assertThat(r.p[0]).isEqualTo(1.0 / 256);
    // FWER: flipping every sign of the strongly negative voxel 2 gives a larger max than voxel 0's t.
    double[][] upperReps = NaiveReference.replicates(upper, in);
    long exceed = java.util.Arrays.stream(upperReps)
        .filter(rep -> Math.max(rep[0], Math.max(rep[1], rep[2])) >= r.observed[0]).count();
    assertThat(exceed).isEqualTo(2);
    assertThat(r.pFwer[0]).isEqualTo(exceed / 256.0);
    assertThat(r.p[2]).isEqualTo(1.0); // every flip is >= the most negative observed t
    assertThat(r.facts()).containsEntry("smallest_possible_p", 1.0 / 256);

    JobSpec two = upper.toBuilder().tail(Tail.TWO).build();
    PermutationResult t = (PermutationResult) new LocalEngine(1, Grid.DEFAULT, null)
        .run(two, in).result;
    assertThat(t.p[0]).isEqualTo(2.0 / 256);
    assertThat(t.p[2]).isEqualTo(2.0 / 256);

    // Against brute force over all 256 flips.
    double[] obs = NaiveReference.observed(two, in);
    double[][] reps = NaiveReference.replicates(two, in);
    for (int j = 0; j < 3; j++) {
      long count = 0;
      for (double[] rep : reps) {
        if (Math.abs(rep[j]) >= Math.abs(obs[j])) {
          count++;
        }
      }
      assertThat(t.p[j]).isEqualTo(count / 256.0);
    }
  }

  @Test
  void moreSubjectsThanLog2PIsSampled() {
    JobInputs in = JobInputs.of(TestData.gaussian(11, 4, 2, 0.0));
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).replicates(1000).seed(3).build();
    PermutationResult r = (PermutationResult) LocalEngine.defaults().run(spec, in).result;
    assertThat(r.enumerated).isFalse();
    assertThat(r.draws).isEqualTo(1000);
    assertThat(r.facts()).containsEntry("smallest_possible_p", 1.0 / 1001);
  }
}
