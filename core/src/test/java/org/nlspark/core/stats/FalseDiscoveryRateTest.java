package org.nlspark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.result.FdrMaps;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.PermutationResult;

/**
 * Benjamini–Hochberg q against the definition computed by brute force: q_i = min over the
 * voxels j with p_j ≥ p_i of min(1, m p_j / r_j), r_j = #{l : p_l ≤ p_j}; and the step-up rule:
 * {q ≤ α} is the set BH rejects at level α.
 */
class FalseDiscoveryRateTest {
  static double[] bruteForce(double[] p) {
    int n = p.length;
    int m = 0;
    for (double x : p) {
      m += Double.isFinite(x) ? 1 : 0;
    }
    double[] q = new double[n];
    for (int i = 0; i < n; i++) {
      if (!Double.isFinite(p[i])) {
        q[i] = Double.NaN;
        continue;
      }
      double best = 1.0;
      for (int j = 0; j < n; j++) {
        if (!Double.isFinite(p[j]) || p[j] < p[i]) {
          continue;
        }
        int rank = 0;
        for (double x : p) {
          rank += Double.isFinite(x) && x <= p[j] ? 1 : 0;
        }
        best = Math.min(best, (double) m * p[j] / rank);
      }
      q[i] = best;
    }
    return q;
  }

  /** The BH step-up rejections at level alpha: p ≤ p_(k), k the largest with p_(k) ≤ k α / m. */
  static boolean[] stepUp(double[] p, double alpha) {
    double[] sorted = java.util.Arrays.stream(p).filter(Double::isFinite).sorted().toArray();
    int m = sorted.length;
    double cut = -1;
    for (int k = 1; k <= m; k++) {
      if (sorted[k - 1] <= k * alpha / m) {
        cut = sorted[k - 1];
      }
    }
    boolean[] out = new boolean[p.length];
    for (int i = 0; i < p.length; i++) {
      out[i] = Double.isFinite(p[i]) && p[i] <= cut;
    }
    return out;
  }

  @Test
  void equalsTheDefinitionOnRandomPWithTiesAndNaN() {
    Random rng = new Random(3);
    for (int trial = 0; trial < 40; trial++) {
      int n = trial == 0 ? 0 : trial == 1 ? 1 : 1 + rng.nextInt(120);
      double[] p = new double[n];
      for (int i = 0; i < n; i++) {
        double u = rng.nextDouble();
        // permutation p come on a grid of (count + 1) / (P + 1): many ties; some small, some NaN
        p[i] = u < 0.05 ? Double.NaN : u < 0.3 ? (1 + rng.nextInt(5)) / 1001.0
            : (1 + rng.nextInt(1000)) / 1001.0;
      }
      double[] q = FalseDiscoveryRate.benjaminiHochberg(p);
      double[] expected = bruteForce(p);
      for (int i = 0; i < n; i++) {
        if (Double.isNaN(expected[i])) {
          assertThat(q[i]).isNaN();
        } else {
          assertThat(q[i]).as("trial %d voxel %d", trial, i)
              .isCloseTo(expected[i], org.assertj.core.data.Offset.offset(1e-15));
          assertThat(q[i]).isGreaterThanOrEqualTo(p[i]).isLessThanOrEqualTo(1.0);
        }
      }
      for (double alpha : new double[] {0.01, 0.05, 0.2}) {
        boolean[] rejected = stepUp(p, alpha);
        for (int i = 0; i < n; i++) {
          assertThat(q[i] <= alpha).as("alpha %s voxel %d", alpha, i).isEqualTo(rejected[i]);
        }
      }
    }
  }

  @Test
  void qMapsFollowTheirUncorrectedPMapsOnly() {
    assertThat(FdrMaps.isUncorrected("p")).isTrue();
    assertThat(FdrMaps.isUncorrected("p_tstat12")).isTrue();
    assertThat(FdrMaps.isUncorrected("p_fstat1")).isTrue();
    assertThat(FdrMaps.isUncorrected("p_tfce")).isTrue();
    assertThat(FdrMaps.isUncorrected("p_tfce_tstat2")).isTrue();
    for (String corrected : new String[] {"p_fwer", "p_fwer_tstat1", "p_cfwer_tstat1",
        "p_fwer_tfce", "p_fwer_cluster_tstat1", "null_max", "tstat1"}) {
      assertThat(FdrMaps.isUncorrected(corrected)).as(corrected).isFalse();
    }
    assertThat(FdrMaps.qName("p_tstat3")).isEqualTo("q_tstat3");
    double[] obs = {1, 2, 3};
    double[] p = {0.01, 0.04, 0.03};
    PermutationResult r = new PermutationResult(obs, p, new double[] {0.1, 0.2, 0.3},
        new double[] {1, 2}, 2, false, 0);
    FdrMaps fdr = FdrMaps.of(r);
    List<String> names = fdr.outputs().stream().map(Output::name).toList();
    assertThat(names.indexOf("q")).isEqualTo(names.indexOf("p") + 1);
    assertThat(fdr.output("q")).containsExactly(new double[] {0.03, 0.04, 0.04},
        org.assertj.core.data.Offset.offset(1e-15));
    assertThat(fdr.facts()).containsKey("fdr");
  }
}
