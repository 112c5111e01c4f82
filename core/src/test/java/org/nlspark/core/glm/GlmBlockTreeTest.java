package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.engine.RunWarnings;
import org.nlspark.core.resample.BlockTreeTest;
import org.nlspark.core.tile.Grid;

/**
 * A glm under PALM's multi-level blocks (issue 45) against brute force: every permutation of
 * the 8 samples that the block file allows (read naively, {@link BlockTreeTest#allowed}), one
 * per distinct pairing with the design, through a naive Freedman–Lane t; p and FWER p are
 * count / N over those draws, which the run must enumerate and equal.
 */
class GlmBlockTreeTest {
  static final int N = 8;
  static final int V = 6;
  /** Four families of two, shuffled as wholes and within: 4! * 2^4 = 384 draws. */
  static final int[][] EB = {{1, 1, 1}, {1, 1, 2}, {1, 2, 1}, {1, 2, 2}, {1, 3, 1}, {1, 3, 2},
      {1, 4, 1}, {1, 4, 2}};

  @Test
  void pValuesAreCountsOverTheTreesDistinctDraws() {
    Random rng = new Random(45);
    double[][] m = new double[N][];
    double[][] y = new double[N][V];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, 10 * rng.nextDouble()};
      for (int v = 0; v < V; v++) {
        y[i][v] = 0.2 * v * m[i][1] + rng.nextGaussian();
      }
    }
    GlmRun.Options o = GlmUntestableContrastTest.options(null).withBlocks(EB, "eb.csv", false);
    GlmAnalysis a = GlmAnalysis.prepare(DataMatrix.of(N, V,
        GlmContrastStatisticTest.rowMajor(y), "y"), GlmUntestableContrastTest.design(m),
        GlmContrasts.of(new double[][] {{0, 1}}, null), o, "cpu", 1.0);
    RunReport report = new LocalEngine(2, new Grid(5, 64), 1).run(a);
    GlmResult r = (GlmResult) report.result;
    assertThat(r.draws().get("tstat1")).containsEntry("exact_enumeration", true)
        .containsEntry("replicates_drawn", 384L).containsEntry("draws_possible", 384L)
        .containsEntry("exchangeability_levels", 3);
    assertThat(RunWarnings.resultNotes(report)).contains(
        "exchangeability blocks in 3 levels; distinct draws: tstat1 384",
        "tstat1: only 384 distinct draws, smallest p 0.00260");

    // The reference: Freedman–Lane with the nuisance (intercept) fitted and permuted residuals.
    double[][] ct = {{0, 1}};
    double[][] fitted = OlsReference.nuisanceFit(m, y, ct);
    double[][] resid = OlsReference.minus(y, fitted);
    double[] observed = OlsReference.statistics(m, y, ct, true);
    int[] labels = new int[N];
    for (int i = 0; i < N; i++) {
      labels[i] = i;
    }
    double[] ones = new double[N];
    java.util.Arrays.fill(ones, 1.0);
    Set<String> seen = new HashSet<>();
    long[] count = new long[V];
    long[] fwerCount = new long[V];
    List<Integer> all = BlockTreeTest.everyone(N);
    for (int[] perm : BlockTreeTest.allPermutations(N)) {
      if (!BlockTreeTest.allowed(EB, perm, all, all, 0)
          || !seen.add(BlockTreeTest.pairing(perm, ones, labels))) {
        continue;
      }
      double[] stats = new double[V];
      double max = Double.NEGATIVE_INFINITY;
      for (int v = 0; v < V; v++) {
        double[] ystar = new double[N];
        for (int p = 0; p < N; p++) {
          ystar[p] = resid[perm[p]][v] + fitted[p][v];
        }
        stats[v] = OlsReference.statistic(m, ystar, ct, true);
        max = Math.max(max, stats[v]);
      }
      for (int v = 0; v < V; v++) {
        // the identity reproduces the observed t up to rounding: count it as a tie
        double tol = 1e-9 * Math.max(1.0, Math.abs(observed[v]));
        count[v] += stats[v] >= observed[v] - tol ? 1 : 0;
        fwerCount[v] += max >= observed[v] - tol ? 1 : 0;
      }
    }
    assertThat(seen).hasSize(384);
    for (int v = 0; v < V; v++) {
      assertThat(r.output("p_tstat1")[v]).as("p at voxel %d", v).isEqualTo(count[v] / 384.0);
      assertThat(r.output("p_fwer_tstat1")[v]).as("FWER p at voxel %d", v)
          .isEqualTo(fwerCount[v] / 384.0);
    }
  }
}
