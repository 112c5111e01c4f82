package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/**
 * Every statistic against brute force: all replicates stored, counted and sorted by hand. A small
 * grid (5 voxels x 8 replicates) makes several blocks and windows, with partial last ones.
 */
class StatisticsAgainstNaiveTest {
  private static final Grid GRID = new Grid(5, 8);
  private static final double TOL = 1e-10;

  static Stream<Arguments> permutationCases() {
    return Stream.of(
        Arguments.of(Analysis.ONE_SAMPLE, "mean", "two"),
        Arguments.of(Analysis.ONE_SAMPLE, "t", "two"),
        Arguments.of(Analysis.ONE_SAMPLE, "t", "upper"),
        Arguments.of(Analysis.ONE_SAMPLE, "t", "lower"),
        Arguments.of(Analysis.TWO_SAMPLE, "mean-diff", "two"),
        Arguments.of(Analysis.TWO_SAMPLE, "welch-t", "two"),
        Arguments.of(Analysis.TWO_SAMPLE, "welch-t", "upper"),
        Arguments.of(Analysis.CORRELATION, "pearson", "two"),
        Arguments.of(Analysis.CORRELATION, "spearman", "two"),
        Arguments.of(Analysis.CORRELATION, "pearson", "lower"));
  }

  static JobInputs inputs(Analysis a) {
    DataMatrix x = TestData.gaussian(12, 13, 7, 0.3, 4);
    switch (a) {
      case TWO_SAMPLE:
        return JobInputs.twoGroups(x, TestData.gaussian(9, 13, 8, 0.0, 4));
      case CORRELATION:
        return JobInputs.withTarget(x, TestData.distinctTarget(12, 9));
      default:
        return JobInputs.of(x);
    }
  }

  @ParameterizedTest(name = "{0} {1} {2}")
  @MethodSource("permutationCases")
  void permutationTestMatchesBruteForce(Analysis a, String stat, String tail) {
    JobSpec spec = JobSpec.builder(a).statistic(stat).replicates(61).seed(42)
        .tail(Tail.parse(tail)).build();
    JobInputs in = inputs(a);
    PermutationResult got = (PermutationResult) new LocalEngine(2, GRID, null).run(spec, in)
        .result;

    double[] obs = NaiveReference.observed(spec, in);
    double[][] reps = NaiveReference.replicates(spec, in);
    int v = in.voxels();
    assertThat(got.draws).isEqualTo(61);
    double[] nullMax = new double[reps.length];
    java.util.Arrays.fill(nullMax, Double.NEGATIVE_INFINITY);
    for (int r = 0; r < reps.length; r++) {
      for (int j = 0; j < v; j++) {
        double k = NaiveReference.key(tail, reps[r][j]);
        if (!Double.isNaN(k)) {
          nullMax[r] = Math.max(nullMax[r], k);
        }
      }
    }
    int undefined = 0;
    for (int j = 0; j < v; j++) {
      if (Double.isNaN(obs[j])) {
        undefined++;
        assertThat(got.observed[j]).isNaN();
        assertThat(got.p[j]).isNaN();
        assertThat(got.pFwer[j]).isNaN();
        continue;
      }
      assertThat(got.observed[j]).isCloseTo(obs[j], within(TOL * (1 + Math.abs(obs[j]))));
      double ko = NaiveReference.key(tail, obs[j]);
      long count = 0;
      long fw = 0;
      for (int r = 0; r < reps.length; r++) {
        if (NaiveReference.key(tail, reps[r][j]) >= ko) {
          count++;
        }
        if (nullMax[r] >= ko) {
          fw++;
        }
      }
      assertThat(got.p[j]).as("p at voxel %d", j).isEqualTo((count + 1.0) / (reps.length + 1.0));
      assertThat(got.pFwer[j]).as("p_fwer at voxel %d", j)
          .isEqualTo((fw + 1.0) / (reps.length + 1.0));
    }
    for (int r = 0; r < reps.length; r++) {
      assertThat(got.nullMax[r]).isCloseTo(nullMax[r], within(TOL * (1 + Math.abs(nullMax[r]))));
    }
    assertThat(got.undefinedVoxels).isEqualTo(undefined);
    if (!stat.equals("mean") && !stat.equals("mean-diff")) {
      assertThat(undefined).as("the constant column has no " + stat).isEqualTo(1);
    }
  }

  @ParameterizedTest(name = "bootstrap {0} ci {1}")
  @MethodSource("bootstrapCases")
  void bootstrapMatchesBruteForce(String stat, CiMethod ci, double confidence) {
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic(stat).replicates(57).seed(3)
        .ci(ci).confidence(confidence).saveSamples(true).build();
    JobInputs in = JobInputs.of(TestData.gaussian(11, 13, 5, 1.0, 2));
    BootstrapResult got = (BootstrapResult) new LocalEngine(3, GRID, null).run(spec, in).result;
    double[][] reps = NaiveReference.replicates(spec, in);
    boolean exactReplicates = stat.equals("median") || stat.equals("min") || stat.equals("max");
    double alpha = 1 - confidence;
    int v = in.voxels();
    for (int j = 0; j < v; j++) {
      double[] col = new double[reps.length];
      for (int r = 0; r < reps.length; r++) {
        col[r] = reps[r][j];
        double s = got.samples[r * v + j];
        if (exactReplicates) {
          assertThat(s).isEqualTo(reps[r][j]);
        } else {
          assertThat(s).isCloseTo(reps[r][j], within(TOL * (1 + Math.abs(reps[r][j]))));
        }
      }
      double mean = NaiveReference.mean(col);
      double std = NaiveReference.std(col, 1);
      assertThat(got.mean[j]).isCloseTo(mean, within(TOL * (1 + Math.abs(mean))));
      if (j == 2) {
        assertThat(got.std[j]).as("constant voxel").isEqualTo(0.0);
        assertThat(got.z[j]).isNaN();
        assertThat(got.p[j]).isNaN();
        continue;
      }
      assertThat(got.std[j]).isCloseTo(std, within(TOL * (1 + std)));
      double lo;
      double hi;
      if (ci == CiMethod.PERCENTILE) {
        lo = NaiveReference.percentile(reps, j, 100 * (alpha / 2));
        hi = NaiveReference.percentile(reps, j, 100 * (1 - alpha / 2));
      } else {
        double zc = new org.apache.commons.math3.distribution.NormalDistribution()
            .inverseCumulativeProbability(1 - alpha / 2);
        lo = mean - zc * std;
        hi = mean + zc * std;
      }
      if (exactReplicates && ci == CiMethod.PERCENTILE) {
        assertThat(got.ciLower[j]).isEqualTo(lo);
        assertThat(got.ciUpper[j]).isEqualTo(hi);
      } else {
        assertThat(got.ciLower[j]).isCloseTo(lo, within(TOL * (1 + Math.abs(lo))));
        assertThat(got.ciUpper[j]).isCloseTo(hi, within(TOL * (1 + Math.abs(hi))));
      }
      double z = mean / std;
      assertThat(got.z[j]).isCloseTo(z, within(1e-8 * (1 + Math.abs(z))));
      double p = 2 * (1 - new org.apache.commons.math3.distribution.NormalDistribution()
          .cumulativeProbability(Math.abs(z)));
      assertThat(got.p[j]).isCloseTo(p, within(1e-9));
    }
    assertThat(got.zeroSpreadVoxels).isEqualTo(1);
  }

  static Stream<Arguments> bootstrapCases() {
    return Stream.of(
        Arguments.of("mean", CiMethod.PERCENTILE, 0.95),
        Arguments.of("mean", CiMethod.NORMAL, 0.95),
        Arguments.of("median", CiMethod.PERCENTILE, 0.9),
        Arguments.of("std", CiMethod.PERCENTILE, 0.95),
        Arguments.of("sum", CiMethod.PERCENTILE, 0.5),
        Arguments.of("min", CiMethod.PERCENTILE, 0.95),
        Arguments.of("max", CiMethod.PERCENTILE, 0.99));
  }

  @org.junit.jupiter.api.Test
  void pValueRuleIsCountPlusOneOverPPlusOne() {
    assertThat(PValues.uncorrected(0, 999)).isEqualTo(0.001);
    assertThat(PValues.uncorrected(999, 999)).isEqualTo(1.0);
  }
}
