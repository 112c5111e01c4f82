package org.nlspark.core.isc;

import org.nlspark.core.resample.SubjectDraws;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.nlspark.core.stats.NumpyPercentile;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/** ISC, its nulls, intervals and p-values against the brute force on small data. */
class IscTest {
  static final int S = 5;
  static final int T = 12;
  static final int V = 7;
  static final double TOL = 1e-12;

  /** Subjects share a signal whose strength grows with the voxel; voxel 6 has a constant subject. */
  static double[] data(long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] shared = new double[T * V];
    for (int i = 0; i < shared.length; i++) {
      shared[i] = rng.nextGaussian();
    }
    double[] d = new double[S * T * V];
    for (int s = 0; s < S; s++) {
      for (int t = 0; t < T; t++) {
        for (int v = 0; v < V; v++) {
          d[(s * T + t) * V + v] = 0.3 * v * shared[t * V + v] + rng.nextGaussian();
        }
      }
    }
    for (int t = 0; t < T; t++) {
      d[(2 * T + t) * V + 6] = 4.0;
    }
    return d;
  }

  static Isc.Options options(IscSummary summary, IscMetric metric, IscNull nul, int b) {
    return new Isc.Options(summary, metric, nul, b, 0.9, Tail.TWO, true, 42L, false,
        new Grid(3, 16));
  }

  @ParameterizedTest
  @EnumSource(IscNull.class)
  void everySummaryMetricAndNullMatchesTheBruteForce(IscNull nul) {
    double[] d = data(7);
    int b = nul == IscNull.BOOTSTRAP ? 61 : 23;
    for (IscSummary summary : IscSummary.values()) {
      for (IscMetric metric : IscMetric.values()) {
        IscResult res = Isc.run(d, S, T, V, options(summary, metric, nul, b));
        check(d, summary, metric, nul, b, res);
      }
    }
  }

  private void check(double[] d, IscSummary summary, IscMetric metric, IscNull nul, int b,
      IscResult res) {
    String what = summary + "/" + metric + "/" + nul;
    double[][] reps = new double[V][b];
    double[] obs = new double[V];
    for (int v = 0; v < 6; v++) {
      obs[v] = IscBruteForce.isc(IscBruteForce.subjects(d, S, T, V, v), summary, metric);
      for (int r = 0; r < b; r++) {
        reps[v][r] = nul == IscNull.BOOTSTRAP
            ? IscBruteForce.bootstrap(d, S, T, V, v, 42L, r, summary, metric)
            : IscBruteForce.isc(IscBruteForce.surrogate(d, S, T, V, v, 42L, r, nul), summary,
                metric);
      }
    }
    double[] nullMax = new double[b];
    Arrays.fill(nullMax, Double.NEGATIVE_INFINITY);
    for (int v = 0; v < 6; v++) {
      assertThat(res.isc[v]).as(what + " isc v" + v).isCloseTo(obs[v], within(TOL));
      long count = 0;
      for (int r = 0; r < b; r++) {
        double nullValue = nul == IscNull.BOOTSTRAP ? reps[v][r] - obs[v] : reps[v][r];
        if (Math.abs(nullValue) >= Math.abs(obs[v])) {
          count++;
        }
        nullMax[r] = Math.max(nullMax[r], Math.abs(reps[v][r]));
      }
      assertThat(res.p[v]).as(what + " p v" + v).isEqualTo((count + 1.0) / (b + 1.0));
      double[] sorted = reps[v].clone();
      Arrays.sort(sorted);
      assertThat(res.ciLower[v]).as(what + " lower v" + v)
          .isCloseTo(NumpyPercentile.ofSorted(sorted, 5.0), within(TOL));
      assertThat(res.ciUpper[v]).as(what + " upper v" + v)
          .isCloseTo(NumpyPercentile.ofSorted(sorted, 95.0), within(TOL));
    }
    assertThat(res.isc[6]).as(what + " constant subject").isNaN();
    assertThat(res.p[6]).isNaN();
    assertThat(res.undefinedVoxels).isEqualTo(1);
    if (nul == IscNull.BOOTSTRAP) {
      assertThat(res.pFwer).isNull();
      assertThat(res.output("p_fwer")).isNull();
    } else {
      for (int r = 0; r < b; r++) {
        assertThat(res.nullMax[r]).as(what + " null max r" + r).isCloseTo(nullMax[r], within(TOL));
      }
      for (int v = 0; v < 6; v++) {
        final double key = Math.abs(obs[v]);
        long count = Arrays.stream(nullMax).filter(m -> m >= key).count();
        assertThat(res.pFwer[v]).as(what + " p_fwer v" + v).isEqualTo((count + 1.0) / (b + 1.0));
      }
    }
  }

  @Test
  void bootstrapDrawsAlwaysHoldTwoDistinctSubjectsAndDependOnlyOnSeedAndReplicate() {
    int[] a = new int[3];
    int[] c = new int[3];
    for (int r = 0; r < 500; r++) {
      SubjectDraws.subjectCounts(9L, r, 3, a);
      assertThat(Arrays.stream(a).sum()).isEqualTo(3);
      assertThat(Arrays.stream(a).filter(x -> x > 0).count()).isGreaterThanOrEqualTo(2);
      SubjectDraws.subjectCounts(9L, r, 3, c);
      assertThat(c).isEqualTo(a);
    }
  }

  @Test
  void identicalSubjectsGiveIscOneAndSelfPairsNeverEnterTheBootstrap() {
    // every subject the same series: all pairs have r = 1, so any bootstrap replicate is 1 too;
    // pairs of a subject with its own copy would also be 1, so use distinct noise per subject
    // and check a replicate that drew one subject twice against the explicit pair list instead.
    double[] d = data(11);
    Isc.Options o = options(IscSummary.PAIRWISE, IscMetric.MEAN, IscNull.BOOTSTRAP, 40);
    IscResult res = Isc.run(d, S, T, V, o);
    int[] c = new int[S];
    boolean sawRepeat = false;
    for (int r = 0; r < 40; r++) {
      SubjectDraws.subjectCounts(42L, r, S, c);
      sawRepeat |= Arrays.stream(c).anyMatch(x -> x > 1);
    }
    assertThat(sawRepeat).isTrue();
    assertThat(res.isc[0]).isCloseTo(
        IscBruteForce.isc(IscBruteForce.subjects(d, S, T, V, 0), IscSummary.PAIRWISE,
            IscMetric.MEAN), within(TOL));
    double[] same = new double[S * T];
    SplittableRandom rng = new SplittableRandom(3);
    double[] x = new double[T];
    for (int t = 0; t < T; t++) {
      x[t] = rng.nextGaussian();
    }
    for (int s = 0; s < S; s++) {
      System.arraycopy(x, 0, same, s * T, T);
    }
    // V = 1: data[(s*T + t)] = x[t]
    IscResult one = Isc.run(same, S, T, 1, o);
    assertThat(one.isc[0]).isCloseTo(1.0, within(1e-9));
    assertThat(one.ciLower[0]).isCloseTo(1.0, within(1e-9));
  }

  @Test
  void surrogateReplicatesMatchTheBruteForceOneByOneForOddAndEvenLengths() {
    // one voxel: null_max[r] is |ISC of replicate r|, so every replicate is compared directly
    for (int t : new int[] {9, 10}) {
      int s = 4;
      double[] d = new SplittableRandom(t).doubles(s * t).toArray();
      for (IscNull nul : new IscNull[] {IscNull.CIRCLE_SHIFT, IscNull.PHASE_RANDOMIZE}) {
        for (IscSummary summary : IscSummary.values()) {
          for (IscMetric metric : IscMetric.values()) {
            Isc.Options o = new Isc.Options(summary, metric, nul, 30, 0.95, Tail.TWO, true, 6L,
                false, Grid.DEFAULT);
            IscResult res = Isc.run(d, s, t, 1, o);
            for (int r = 0; r < 30; r++) {
              double expected = IscBruteForce.isc(
                  IscBruteForce.surrogate(d, s, t, 1, 0, 6L, r, nul), summary, metric);
              assertThat(res.nullMax[r]).as(t + " " + nul + " " + summary + " " + metric + " r"
                  + r).isCloseTo(Math.abs(expected), within(TOL));
            }
          }
        }
      }
    }
  }

  @Test
  void circleShiftsThatAreAllEqualReproduceTheObservedIscExactly() {
    // with 3 subjects and 5 time points, 1 in 25 draws shifts everyone alike: the alignment is
    // intact, so that replicate's ISC must equal the observed one bit for bit (a tie, counted)
    int s = 3;
    int t = 5;
    double[] d = new SplittableRandom(12).doubles(s * t).toArray();
    for (IscMetric metric : IscMetric.values()) {
      Isc.Options o = new Isc.Options(IscSummary.PAIRWISE, metric, IscNull.CIRCLE_SHIFT, 400,
          0.95, Tail.TWO, true, 4L, false, Grid.DEFAULT);
      IscResult res = Isc.run(d, s, t, 1, o);
      int aligned = 0;
      for (int r = 0; r < 400; r++) {
        int[] a = SubjectDraws.subjectShifts(4L, r, s, t);
        if (a[0] == a[1] && a[1] == a[2]) {
          aligned++;
          assertThat(res.nullMax[r]).as(metric + " replicate " + r)
              .isEqualTo(Math.abs(res.isc[0]));
        }
      }
      assertThat(aligned).isGreaterThan(5);
    }
  }

  @Test
  void quickselectMedianEqualsTheSortedMedian() {
    SplittableRandom rng = new SplittableRandom(8);
    for (int trial = 0; trial < 2000; trial++) {
      int n = 1 + rng.nextInt(60);
      double[] a = new double[n];
      for (int i = 0; i < n; i++) {
        a[i] = rng.nextInt(3) == 0 ? Math.round(rng.nextDouble() * 4) / 4.0 : rng.nextGaussian();
      }
      double[] sorted = a.clone();
      Arrays.sort(sorted);
      double expected = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
      double[] before = a.clone();
      assertThat(IscMath.median(a, 0, n)).isEqualTo(expected);
      assertThat(a).as("the values are not reordered").isEqualTo(before);
    }
  }

  @Test
  void medianWalkFromAnyStartMatchesExpandedMultisetForEvenAndOddTotals() {
    SplittableRandom rng = new SplittableRandom(5);
    for (int trial = 0; trial < 300; trial++) {
      int n = 1 + rng.nextInt(40);
      double[] w = new double[n];
      double[] vals = new double[n];
      long total = 0;
      for (int i = 0; i < n; i++) {
        w[i] = rng.nextInt(4) == 0 ? 0 : rng.nextInt(5); // zero weights: undrawn pairs
        vals[i] = Math.round(rng.nextDouble() * 8) / 8.0; // ties on purpose
        total += (long) w[i];
      }
      if (total == 0) {
        w[0] = 1;
        total = 1;
      }
      double[] sorted = vals.clone();
      int[] item = new int[n];
      for (int i = 0; i < n; i++) {
        item[i] = i;
      }
      IscMath.sortWithItems(sorted, item, 0, n);
      java.util.List<Double> expanded = new java.util.ArrayList<>();
      for (int j = 0; j < n; j++) {
        assertThat(sorted[j]).isEqualTo(vals[item[j]]);
        if (j > 0) {
          assertThat(sorted[j]).isGreaterThanOrEqualTo(sorted[j - 1]);
        }
        for (int k = 0; k < (int) w[item[j]]; k++) {
          expanded.add(sorted[j]);
        }
      }
      double expected = IscBruteForce.summarize(expanded, IscMetric.MEDIAN);
      long below = 0;
      for (int m0 = 1; m0 <= n; m0++) { // every starting point: walks down, up, or not at all
        below += (long) w[item[m0 - 1]];
        assertThat(IscMath.weightedMedian(sorted, item, 0, n, w, 0, total, m0, below))
            .as("trial " + trial + " start " + m0).isEqualTo(expected);
      }
    }
  }
}
