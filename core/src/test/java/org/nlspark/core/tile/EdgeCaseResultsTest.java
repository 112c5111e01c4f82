package org.nlspark.core.tile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.accumulate.BootstrapSummary;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.stats.NumpyPercentile;
import org.nlspark.core.job.Tail;

/**
 * Results stay exact at the edges of data and parameters: awkward (samples, confidence) pairs,
 * constant voxels with inexact values, float32 on offset data, many repeated values, ties at
 * infinity.
 */
class EdgeCaseResultsTest {
  @Test
  void tailSizeCoversTheIntervalForAwkwardReplicateCountsAndConfidences() {
    SplittableRandom rng = new SplittableRandom(1);
    double[] confidences = {0.4, 0.904, 0.64, 0.5, 0.95, 0.999};
    for (double c : confidences) {
      for (int b = 2; b <= 400; b += (b < 160 ? 1 : 7)) {
        JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).replicates(b).confidence(c).build();
        int k = TilePlanner.tailSize(spec, b);
        TailAccumulator tails = new TailAccumulator(1, k);
        double[] all = new double[b];
        for (int i = 0; i < b; i++) {
          all[i] = rng.nextGaussian();
        }
        tails.update(all, 0, b, 1);
        double[] lo = new double[1];
        double[] hi = new double[1];
        tails.interval(BootstrapSummary.lowerPercentile(c), BootstrapSummary.upperPercentile(c), lo,
            hi);
        Arrays.sort(all);
        assertThat(lo[0]).as("B=%d c=%s", b, c)
            .isEqualTo(NumpyPercentile.ofSorted(all, BootstrapSummary.lowerPercentile(c)));
        assertThat(hi[0]).as("B=%d c=%s", b, c)
            .isEqualTo(NumpyPercentile.ofSorted(all, BootstrapSummary.upperPercentile(c)));
      }
    }
  }

  @Test
  void constantVoxelWithAnInexactValueHasZeroSpread() {
    int n = 7;
    double[] x = new double[n * 2];
    for (int i = 0; i < n; i++) {
      x[i * 2] = 0.1; // 0.1 * 7 / 7 need not be 0.1 in floating point
      x[i * 2 + 1] = i;
    }
    for (String stat : new String[] {"mean", "median", "sum"}) {
      JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic(stat).replicates(300).build();
      BootstrapResult r = (BootstrapResult) LocalEngine.defaults()
          .run(spec, JobInputs.of(DataMatrix.of(n, 2, x, "x"))).result;
      assertThat(r.std[0]).as(stat).isEqualTo(0.0);
      assertThat(r.z[0]).isNaN();
      assertThat(r.zeroSpreadVoxels).isEqualTo(1);
      assertThat(r.ciLower[0]).isLessThanOrEqualTo(r.mean[0]);
      assertThat(r.ciUpper[0]).isGreaterThanOrEqualTo(r.mean[0]);
    }
  }

  @Test
  void meanDifferenceInFloat32KeepsItsDigitsOnOffsetData() {
    SplittableRandom rng = new SplittableRandom(3);
    int n1 = 25;
    int n2 = 25;
    double[] a = new double[n1 * 3];
    double[] b = new double[n2 * 3];
    for (int i = 0; i < a.length; i++) {
      a[i] = 1e4 + 0.05 + rng.nextGaussian();
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = 1e4 + rng.nextGaussian();
    }
    JobInputs in = JobInputs.twoGroups(DataMatrix.of(n1, 3, a, "x"), DataMatrix.of(n2, 3, b, "y"));
    JobSpec f64 = JobSpec.builder(Analysis.TWO_SAMPLE).statistic("mean-diff").replicates(50)
        .build();
    JobSpec f32 = f64.toBuilder().precision(Precision.FLOAT32).build();
    double[] exact = ((PermutationResult) LocalEngine.defaults().run(f64, in).result).observed;
    double[] single = ((PermutationResult) LocalEngine.defaults().run(f32, in).result).observed;
    for (int v = 0; v < 3; v++) {
      // float32 data rounding alone: about 1e4 * 2^-24 per value, averaged
      assertThat(single[v]).isCloseTo(exact[v], within(2e-3));
    }
  }

  @Test
  void repeatedValuesDoNotMakeTailsQuadratic() {
    int b = 200_000;
    int k = 50_000;
    TailAccumulator tails = new TailAccumulator(1, k);
    double[] values = new double[b];
    SplittableRandom rng = new SplittableRandom(4);
    for (int i = 0; i < b; i++) {
      values[i] = rng.nextInt(4);
    }
    long start = System.nanoTime();
    tails.update(values, 0, b, 1);
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    assertThat(tails.percentile(0, 2.5)).isEqualTo(NumpyPercentile.ofSorted(sorted, 2.5));
    assertThat(tails.percentile(0, 97.5)).isEqualTo(NumpyPercentile.ofSorted(sorted, 97.5));
    // not a timing assertion on speed, only a guard against a pathological (minutes-long) case
    assertThat((System.nanoTime() - start) / 1e9).isLessThan(60.0);
  }

  @Test
  void tiesAtInfinityCountAsExtreme() {
    double[] stats = {Double.POSITIVE_INFINITY, 1.0, Double.POSITIVE_INFINITY, 2.0};
    double[] thr = {Double.POSITIVE_INFINITY, 1.0};
    int[] counts = new int[2];
    double[] rowMax = new double[2];
    PermutationFold.fold(stats, 2, 2, Tail.UPPER, thr, counts, rowMax);
    assertThat(counts).containsExactly(2, 2);
    assertThat(rowMax).containsExactly(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY);
  }
}
