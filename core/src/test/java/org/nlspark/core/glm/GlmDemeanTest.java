package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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
 * {@code --demean} (PALM's {@code -demean}) against the brute force: the data and the design
 * centred by hand, the intercept dropped, every draw's Freedman–Lane data built and refitted by
 * OLS ({@link OlsReference}), counted by hand; t relates to the uncentred model's by the degrees
 * of freedom, √((n − k + 1) / (n − k)).
 */
class GlmDemeanTest {
  static final int N = 11;
  static final int V = 6;

  static double[][] design() {
    Random rng = new Random(41);
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, 30 + 10 * rng.nextDouble(), i % 2};
    }
    return m;
  }

  static double[][] data(double[][] m) {
    Random rng = new Random(42);
    double[][] y = new double[N][V];
    for (int i = 0; i < N; i++) {
      for (int v = 0; v < V; v++) {
        y[i][v] = 5 + (v < 2 ? 3.0 * m[i][2] : 0) + 0.05 * m[i][1] + rng.nextGaussian();
      }
    }
    return y;
  }

  static GlmDesign named(double[][] m) {
    return new GlmDesign(m, new String[] {"intercept", "age", "group"}, "design.csv");
  }

  @Test
  void demeanedRunEqualsTheBruteForceOnTheCentredModel() {
    double[][] m = design();
    double[][] y = data(m);
    DataMatrix data = DataMatrix.of(N, V, GlmContrastStatisticTest.rowMajor(y), "y");
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 0, 1}, {0, -1, 0}}, null);
    GlmRun.Options o = GlmRun.Options.defaults(300, 5).withGrid(new Grid(4, 32));
    GlmAnalysis a = GlmAnalysis.prepare(data, named(m), contrasts,
        new GlmRequest(o, "cpu", 1.0, true));
    RunReport report = new LocalEngine(2, o.grid(), 1).run(a);
    GlmResult r = (GlmResult) report.result;
    assertThat(a.model().columns()).isEqualTo(2);
    assertThat(a.describe().get("parameters")).asInstanceOf(
        org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("demean", true)
        .containsEntry("demean_removed_column", "intercept");
    assertThat(RunWarnings.resultNotes(report))
        .contains("data and design demeaned, intercept column 'intercept' removed");

    // Centred by hand.
    double[][] mc = new double[N][2];
    double[][] yc = new double[N][V];
    for (int j = 1; j < 3; j++) {
      double mean = 0;
      for (double[] row : m) {
        mean += row[j] / N;
      }
      for (int i = 0; i < N; i++) {
        mc[i][j - 1] = m[i][j] - mean;
      }
    }
    for (int v = 0; v < V; v++) {
      double mean = 0;
      for (double[] row : y) {
        mean += row[v] / N;
      }
      for (int i = 0; i < N; i++) {
        yc[i][v] = y[i][v] - mean;
      }
    }
    double[][][] cts = {{{0, 1}}, {{-1, 0}}};
    String[] names = {"tstat1", "tstat2"};
    for (int c = 0; c < 2; c++) {
      GlmDraws draws = a.draws().get(c);
      long count = draws.replicates();
      double[][] nulls = OlsReference.nullStatistics(mc, yc, cts[c], true, draws, count);
      double[] t = r.get(names[c]);
      double[] p = r.get("p_" + names[c]);
      double[] pFwer = r.get("p_fwer_" + names[c]);
      double[] maxima = new double[(int) count];
      for (int d = 0; d < count; d++) {
        maxima[d] = java.util.Arrays.stream(nulls[d]).max().getAsDouble();
      }
      for (int v = 0; v < V; v++) {
        double[] col = new double[N];
        double[] raw = new double[N];
        for (int i = 0; i < N; i++) {
          col[i] = yc[i][v];
          raw[i] = y[i][v];
        }
        double expected = OlsReference.statistic(mc, col, cts[c], true);
        GlmContrastStatisticTest.assertClose(t[v], expected);
        // The model with the intercept has one degree of freedom less.
        double[][] full = {{0, cts[c][0][0], cts[c][0][1]}};
        double withIntercept = OlsReference.statistic(m, raw, full, true);
        GlmContrastStatisticTest.assertClose(t[v],
            withIntercept * Math.sqrt((N - 3 + 1.0) / (N - 3)));
        long exceed = 0;
        long fwer = 0;
        for (int d = 0; d < count; d++) {
          exceed += nulls[d][v] >= t[v] - 1e-9 * Math.abs(t[v]) ? 1 : 0;
          fwer += maxima[d] >= t[v] - 1e-9 * Math.abs(t[v]) ? 1 : 0;
        }
        // Random draws (300 of 11! / ties): p = (count + 1) / (P + 1), the identity not drawn.
        assertThat(draws.enumerated()).isFalse();
        assertThat(p[v]).as("%s p[%d]", names[c], v).isEqualTo((exceed + 1.0) / (count + 1));
        assertThat(pFwer[v]).as("%s p_fwer[%d]", names[c], v)
            .isEqualTo((fwer + 1.0) / (count + 1));
      }
    }
    assertThat(r.get("p_tstat1")[0]).as("the planted group effect").isLessThan(0.05);
  }

  @Test
  void aContrastOnTheInterceptIsRefusedAndADesignWithoutOneKeepsItsColumns() {
    double[][] m = design();
    DataMatrix data = DataMatrix.of(N, V, GlmContrastStatisticTest.rowMajor(data(m)), "y");
    GlmRun.Options o = GlmRun.Options.defaults(50, 5);
    assertThatThrownBy(() -> GlmAnalysis.prepare(data, named(m),
        GlmContrasts.of(new double[][] {{0, 0, 1}, {1, 0, 0}}, null),
        new GlmRequest(o, "cpu", 1.0, true)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot demean: t contrast 2 (C2) of contrasts tests the intercept column"
            + " 'intercept', which --demean removes; drop --demean or give that contrast a 0"
            + " there");
    double[][] noIntercept = new double[N][];
    for (int i = 0; i < N; i++) {
      noIntercept[i] = new double[] {m[i][1], m[i][2]};
    }
    GlmAnalysis a = GlmAnalysis.prepare(data, new GlmDesign(noIntercept,
        new String[] {"age", "group"}, "d.csv"), GlmContrasts.of(new double[][] {{0, 1}}, null),
        new GlmRequest(o, "cpu", 1.0, true));
    assertThat(a.model().columns()).isEqualTo(2);
    @SuppressWarnings("unchecked")
    Map<String, Object> p = (Map<String, Object>) a.describe().get("parameters");
    assertThat(p).containsEntry("demean", true).containsEntry("demean_removed_column", null);
  }
}
