package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.engine.RunWarnings;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.tile.Grid;

/**
 * DESIGN §9, untestable-by-permutation contrasts: the mean with a covariate ({@code intercept,
 * age}, contrast {@code 1, 0}) is tested by sign flips when the errors are not given, refused
 * with a pointer when {@code --errors exchangeable} is forced, and never gives p = 1 in silence.
 * The sign-flip p-values are checked against every one of the 2^n flips computed by hand.
 */
class GlmUntestableContrastTest {
  static final int N = 9;
  static final int V = 12;

  static double[][] interceptAge() {
    Random rng = new Random(31);
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, 20 * rng.nextDouble() - 10}; // age, centred
    }
    return m;
  }

  /** A mean of 1.5 in voxels 0..3 (noise 1), none elsewhere, plus an age effect everywhere. */
  static double[][] planted(double[][] m) {
    Random rng = new Random(32);
    double[][] y = new double[N][V];
    for (int i = 0; i < N; i++) {
      for (int v = 0; v < V; v++) {
        y[i][v] = (v < 4 ? 1.5 : 0.0) + 0.03 * m[i][1] + 0.5 * rng.nextGaussian();
      }
    }
    return y;
  }

  static GlmDesign design(double[][] m) {
    return new GlmDesign(m, new String[] {"intercept", "age"}, "design.csv");
  }

  static GlmRun.Options options(GlmDraws.Errors errors) {
    return new GlmRun.Options(errors, null, "", false, 1000, 7,
        org.nlspark.core.job.Tail.UPPER, true, false, new Grid(5, 64),
        org.nlspark.core.job.Precision.FLOAT64);
  }

  @Test
  void theMeanWithACovariateIsTestedBySignFlipsAndFindsThePlantedEffect() {
    double[][] m = interceptAge();
    double[][] y = planted(m);
    DataMatrix data = DataMatrix.of(N, V, GlmContrastStatisticTest.rowMajor(y), "y");
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{1, 0}, {0, 1}}, null);
    GlmAnalysis a = GlmAnalysis.prepare(data, design(m), contrasts, options(null), "cpu", 1.0);
    RunReport report = new LocalEngine(2, new Grid(5, 64), 1).run(a);
    GlmResult r = (GlmResult) report.result;

    // Contrast 1 (the mean) flips signs, and says why; contrast 2 (age) permutes rows.
    Map<String, Object> c1 = r.draws().get("tstat1");
    assertThat(c1).containsEntry("errors", "symmetric").containsEntry("exact_enumeration", true)
        .containsEntry("replicates_drawn", 1L << N);
    assertThat((String) c1.get("errors_reason")).startsWith("sign flips (--errors symmetric):"
        + " no row permutation changes this contrast");
    assertThat(r.draws().get("tstat2")).containsEntry("errors", "exchangeable")
        .doesNotContainKey("errors_reason");
    assertThat(a.describe().get("parameters")).asInstanceOf(
        org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("errors",
        "per contrast");

    // Brute force: every one of the 2^n sign vectors, Freedman-Lane by hand, refit by OLS.
    double[][] ct = {{1, 0}};
    double[][] nulls = allSignFlips(m, y, ct);
    double[] observed = OlsReference.statistics(m, y, ct, true);
    double[] t = r.get("tstat1");
    double[] p = r.get("p_tstat1");
    double[] pFwer = r.get("p_fwer_tstat1");
    double[] maxima = new double[nulls.length];
    for (int d = 0; d < nulls.length; d++) {
      maxima[d] = Arrays.stream(nulls[d]).max().getAsDouble();
    }
    for (int v = 0; v < V; v++) {
      GlmContrastStatisticTest.assertClose(t[v], observed[v]);
      int count = 0;
      int fwer = 0;
      for (int d = 0; d < nulls.length; d++) {
        // A hair of slack: the identity draw ties the observed value to rounding.
        count += nulls[d][v] >= observed[v] - 1e-9 * Math.abs(observed[v]) ? 1 : 0;
        fwer += maxima[d] >= observed[v] - 1e-9 * Math.abs(observed[v]) ? 1 : 0;
      }
      assertThat(p[v]).as("p[%d]", v).isEqualTo((double) count / nulls.length);
      assertThat(pFwer[v]).as("p_fwer[%d]", v).isEqualTo((double) fwer / nulls.length);
    }
    double[] nullMax = r.get("null_max_tstat1").clone();
    Arrays.sort(nullMax);
    Arrays.sort(maxima);
    for (int d = 0; d < maxima.length; d++) {
      GlmContrastStatisticTest.assertClose(nullMax[d], maxima[d]);
    }
    for (int v = 0; v < 4; v++) {
      assertThat(pFwer[v]).as("planted voxel %d", v).isLessThan(0.05);
    }

    // Said in summary.json and in the result line's notes; 512 of 1000 draws is also a warning.
    Map<String, Object> summary = report.summary();
    assertThat(summary.get("result_notes")).asInstanceOf(
        org.assertj.core.api.InstanceOfAssertFactories.LIST).contains(
        "tstat1 tested by sign flips (no permutation changes it)",
        "tstat1: only 512 distinct draws, smallest p 0.00195");
    assertThat(RunWarnings.of(report)).contains("tstat1: only 512 distinct draws exist, fewer"
        + " than the 1000 requested; all were enumerated, so every p is at least 1/512 ="
        + " 0.00195");
  }

  @Test
  void forcedExchangeableErrorsAreRefusedNamingSignFlips() {
    double[][] m = interceptAge();
    DataMatrix data = DataMatrix.of(N, V, GlmContrastStatisticTest.rowMajor(planted(m)), "y");
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 1}, {1, 0}}, null);
    assertThatThrownBy(() -> GlmAnalysis.prepare(data, design(m), contrasts,
        options(GlmDraws.Errors.EXCHANGEABLE), "cpu", 1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot test contrast tstat2 (C2) with --errors exchangeable: no row"
            + " permutation changes it (its tested part is constant, as an intercept is), so"
            + " every p would be 1; use --errors symmetric (sign flips) or --errors both");
  }

  /** A regressor constant within each block cannot be permuted within the blocks. */
  @Test
  void aRegressorConstantWithinEveryBlockIsUntestableByPermutationWithinBlocks() {
    double[][] m = new double[N][];
    int[] blocks = new int[N];
    Random rng = new Random(5);
    for (int i = 0; i < N; i++) {
      blocks[i] = i % 3;
      m[i] = new double[] {1.0, blocks[i] == 1 ? 1.0 : 0.0, rng.nextGaussian()};
    }
    assertThat(GlmDraws.permutationsChange(GlmRun.Options.oneColumn(blocks), "blocks.csv", false,
        new double[][] {{1}, {2}, {3}, {1}, {2}, {3}, {1}, {2}, {3}}, N)).isFalse();
    assertThat(GlmDraws.permutationsChange(GlmRun.Options.oneColumn(blocks), "blocks.csv", false,
        new double[][] {{0}, {0}, {0}, {1}, {0}, {0}, {0}, {0}, {0}}, N)).isTrue();
    assertThat(GlmDraws.permutationsChange(null, "", false,
        new double[][] {{1}, {2}, {3}, {1}, {2}, {3}, {1}, {2}, {3}}, N)).isTrue();
    DataMatrix data = DataMatrix.of(N, V, GlmContrastStatisticTest.rowMajor(
        GlmContrastStatisticTest.data(GlmContrastStatisticTest.design(N, 3), V, 4)), "y");
    GlmDesign design = new GlmDesign(m, new String[] {"intercept", "b1", "x"}, "design.csv");
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 1, 0}, {0, 0, 1}}, null);
    GlmRun.Options within = options(null).withBlocks(blocks, "blocks.csv", false);
    List<GlmDraws> draws = GlmAnalysis.prepare(data, design, contrasts, within, "cpu", 1.0)
        .draws();
    assertThat(draws.get(0).errors()).isEqualTo(GlmDraws.Errors.SYMMETRIC);
    assertThat(draws.get(1).errors()).isEqualTo(GlmDraws.Errors.EXCHANGEABLE);
    assertThat(draws.get(1).errorsReason()).isNull();
    // FWER across contrasts shares one plan, so every contrast flips signs then.
    List<GlmDraws> shared = GlmAnalysis.prepare(data, design, contrasts,
        within.withFwerAcrossContrasts(true), "cpu", 1.0).draws();
    assertThat(shared).extracting(GlmDraws::errors).containsOnly(GlmDraws.Errors.SYMMETRIC);
    assertThat(shared.get(1).errorsReason()).contains("--fwer-across-contrasts")
        .contains("tstat1 (C1)");
    assertThatThrownBy(() -> GlmAnalysis.prepare(data, design, contrasts,
        within.withErrors(GlmDraws.Errors.EXCHANGEABLE), "cpu", 1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no row permutation within the exchangeability blocks changes it")
        .hasMessageContaining("use --errors symmetric");
  }

  /** Singleton blocks allow no permutation at all: every contrast flips signs, and says so. */
  @Test
  void singletonBlocksFlipSignsAndWarnOfTheFewDraws() {
    double[][] m = interceptAge();
    DataMatrix data = DataMatrix.of(N, V, GlmContrastStatisticTest.rowMajor(planted(m)), "y");
    int[] blocks = new int[N];
    for (int i = 0; i < N; i++) {
      blocks[i] = i;
    }
    GlmAnalysis a = GlmAnalysis.prepare(data, design(m), GlmContrasts.of(new double[][] {{1, 0},
        {0, 1}}, null), options(null).withBlocks(blocks, "blocks.csv", false), "cpu", 1.0);
    assertThat(a.draws()).extracting(GlmDraws::errors).containsOnly(GlmDraws.Errors.SYMMETRIC);
    assertThat(a.draws()).extracting(GlmDraws::errorsReason).doesNotContainNull();
    RunReport report = new LocalEngine(1, new Grid(5, 64), 1).run(a);
    assertThat(RunWarnings.resultNotes(report)).containsExactly(
        "tstat1, tstat2 tested by sign flips (no permutation changes them)",
        "tstat1: only 512 distinct draws, smallest p 0.00195",
        "tstat2: only 512 distinct draws, smallest p 0.00195");
  }

  /** Too few sign flips for p below 0.05: n = 4 has 16, the smallest p is 1/16. */
  @Test
  void warnsWhenTheSmallestAttainablePCannotReach005() {
    int n = 4;
    double[][] m = {{1}, {1}, {1}, {1}};
    double[][] y = {{1.0, 0.2}, {1.3, -0.1}, {0.8, 0.3}, {1.1, 0.0}};
    GlmAnalysis a = GlmAnalysis.prepare(DataMatrix.of(n, 2, GlmContrastStatisticTest.rowMajor(y),
        "y"), new GlmDesign(m, new String[] {"one"}, "d.csv"),
        GlmContrasts.of(new double[][] {{1}}, null), options(null), "cpu", 1.0);
    RunReport report = new LocalEngine(1, new Grid(5, 64), 1).run(a);
    assertThat(RunWarnings.of(report)).containsExactly("tstat1: only 16 distinct draws exist,"
        + " fewer than the 1000 requested; all were enumerated, so every p is at least 1/16 ="
        + " 0.0625; no p can reach 0.05: more samples (or other errors, such as --errors both)"
        + " are needed for that");
    assertThat(RunWarnings.resultNotes(report)).containsExactly(
        "tstat1: only 16 distinct draws, smallest p 0.0625 (cannot reach 0.05)");
    // One-sample design: sign flips by the old default, so no errors_reason to report.
    assertThat(((GlmResult) report.result).draws().get("tstat1"))
        .doesNotContainKey("errors_reason");
  }

  /** Statistics of every sign vector (rows: draws) for the contrast, Freedman-Lane by hand. */
  static double[][] allSignFlips(double[][] m, double[][] y, double[][] ct) {
    int n = m.length;
    int v = y[0].length;
    double[][] fitted = OlsReference.nuisanceFit(m, y, ct);
    double[][] resid = OlsReference.minus(y, fitted);
    double[][] out = new double[1 << n][v];
    double[] ystar = new double[n];
    for (int s = 0; s < 1 << n; s++) {
      for (int col = 0; col < v; col++) {
        for (int i = 0; i < n; i++) {
          double sign = ((s >>> i) & 1) == 0 ? 1.0 : -1.0;
          ystar[i] = sign * resid[i][col] + fitted[i][col];
        }
        out[s][col] = OlsReference.statistic(m, ystar, ct, true);
      }
    }
    return out;
  }
}
