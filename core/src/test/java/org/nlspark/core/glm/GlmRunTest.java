package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

class GlmRunTest {
  /**
   * Maps and p-values against the brute force, counted by hand: voxel blocks of 4 over 10
   * voxels (a partial block) and windows of 16 over 150 replicates (a partial window).
   */
  @Test
  void pValuesMatchTheBruteForceCountedByHand() {
    int n = 14;
    int v = 10;
    double[][] m = GlmContrastStatisticTest.design(n, 70);
    double[][] y = GlmContrastStatisticTest.data(m, v, 71);
    GlmModel model = GlmModel.prepare(GlmContrastStatisticTest.named(m),
        GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, new int[][] {{0, 1}}), n);
    for (Tail tail : new Tail[] {Tail.UPPER, Tail.TWO}) {
      GlmRun.Options o = GlmRun.Options.defaults(150, 5).withGrid(new Grid(4, 16))
          .withTail(tail).withErrors(GlmDraws.Errors.BOTH);
      GlmResult result = GlmRun.run(model, DataMatrix.of(n, v,
          GlmContrastStatisticTest.rowMajor(y), "y"), o);
      assertThat(result.maps().keySet()).containsExactly("tstat1", "p_tstat1", "p_fwer_tstat1",
          "null_max_tstat1", "tstat2", "p_tstat2", "p_fwer_tstat2", "null_max_tstat2", "fstat1",
          "p_fstat1", "p_fwer_fstat1", "null_max_fstat1");
      for (GlmContrast c : model.contrasts()) {
        boolean t = c.kind() == GlmContrast.Kind.T;
        Tail effective = t ? tail : Tail.UPPER;
        GlmDraws draws = GlmRun.drawsOf(model, c, o);
        double[][] nulls = OlsReference.nullStatistics(m, y, c.matrix(), t, draws, 150);
        double[] obs = new double[v];
        for (int col = 0; col < v; col++) {
          double[] ycol = new double[n];
          for (int i = 0; i < n; i++) {
            ycol[i] = y[i][col];
          }
          obs[col] = OlsReference.statistic(m, ycol, c.matrix(), t);
        }
        double[] maxima = new double[150];
        for (int r = 0; r < 150; r++) {
          maxima[r] = Double.NEGATIVE_INFINITY;
          for (int col = 0; col < v; col++) {
            maxima[r] = Math.max(maxima[r], effective.key(nulls[r][col]));
          }
        }
        String name = c.outputName();
        for (int col = 0; col < v; col++) {
          GlmContrastStatisticTest.assertClose(result.get(name)[col], obs[col]);
          double key = effective.key(obs[col]);
          long count = 0;
          long fwer = 0;
          for (int r = 0; r < 150; r++) {
            count += effective.key(nulls[r][col]) >= key ? 1 : 0;
            fwer += maxima[r] >= key ? 1 : 0;
          }
          assertThat(result.get("p_" + name)[col]).as("%s voxel %d", name, col)
              .isEqualTo((count + 1) / 151.0);
          assertThat(result.get("p_fwer_" + name)[col]).isEqualTo((fwer + 1) / 151.0);
        }
        assertThat(result.draws().get(name)).containsEntry("exact_enumeration", false)
            .containsEntry("tail", effective.cliName());
      }
    }
  }

  @Test
  void enumeratedRunGivesCountOverN() {
    int n = 6;
    double[][] m = new double[n][];
    double[] x = {0.3, -1.2, 0.8, 2.1, -0.4, 1.5};
    for (int i = 0; i < n; i++) {
      m[i] = new double[] {1.0, x[i]};
    }
    double[][] y = GlmContrastStatisticTest.data(GlmContrastStatisticTest.design(n, 80), 3, 81);
    GlmModel model = GlmModel.prepare(GlmContrastStatisticTest.named(m),
        GlmContrasts.of(new double[][] {{0, 1}}, null), n);
    GlmResult r = GlmRun.run(model, DataMatrix.of(n, 3, GlmContrastStatisticTest.rowMajor(y),
        "y"), GlmRun.Options.defaults(1000, 1).withGrid(new Grid(2, 64)));
    assertThat(r.draws().get("tstat1")).containsEntry("exact_enumeration", true)
        .containsEntry("replicates_drawn", 720L);
    assertThat(r.get("null_max_tstat1")).hasSize(720);
    for (double p : r.get("p_tstat1")) {
      assertThat(p * 720).isCloseTo(Math.rint(p * 720), org.assertj.core.data.Offset.offset(1e-9));
      assertThat(p).isGreaterThanOrEqualTo(1 / 720.0); // the identity always counts
    }
  }

  @Test
  void signFlipsByDefaultOnlyForAnInterceptOnlyDesign() {
    double[][] ones = {{1}, {1}, {1}, {1}};
    assertThat(GlmRun.defaultErrors(GlmModel.prepare(GlmContrastStatisticTest.named(ones),
        GlmContrasts.of(new double[][] {{1}}, null), 4))).isEqualTo(GlmDraws.Errors.SYMMETRIC);
    double[][] slope = {{1, 0.5}, {1, 2}, {1, 3}, {1, -1}};
    assertThat(GlmRun.defaultErrors(GlmModel.prepare(GlmContrastStatisticTest.named(slope),
        GlmContrasts.of(new double[][] {{0, 1}}, null), 4)))
        .isEqualTo(GlmDraws.Errors.EXCHANGEABLE);
  }

  /**
   * FWER over contrasts: every contrast on the same draws, statistics put on the z scale, the
   * maximum over voxels and contrasts per replicate; counted by hand from the brute force.
   */
  @Test
  void fwerAcrossContrastsCountedByHand() {
    int n = 12;
    int v = 6;
    long p = 120;
    double[][] m = GlmContrastStatisticTest.design(n, 75);
    double[][] y = GlmContrastStatisticTest.data(m, v, 76);
    GlmModel model = GlmModel.prepare(GlmContrastStatisticTest.named(m),
        GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, new int[][] {{0, 1}}), n);
    GlmRun.Options o = GlmRun.Options.defaults(p, 9).withGrid(new Grid(4, 16))
        .withFwerAcrossContrasts(true);
    GlmResult result = GlmRun.run(model, DataMatrix.of(n, v,
        GlmContrastStatisticTest.rowMajor(y), "y"), o);
    double[] zMax = new double[(int) p];
    java.util.Arrays.fill(zMax, Double.NEGATIVE_INFINITY);
    double[][] zObs = new double[model.contrasts().size()][v];
    for (int ci = 0; ci < model.contrasts().size(); ci++) {
      GlmContrast c = model.contrasts().get(ci);
      boolean t = c.kind() == GlmContrast.Kind.T;
      GlmDraws draws = GlmRun.drawsOf(model, c, o);
      double[][] nulls = OlsReference.nullStatistics(m, y, c.matrix(), t, draws, p);
      for (int r = 0; r < p; r++) {
        double max = Double.NEGATIVE_INFINITY;
        for (int col = 0; col < v; col++) {
          max = Math.max(max, nulls[r][col]);
        }
        zMax[r] = Math.max(zMax[r], GlmRun.zOfKey(c, model, max));
      }
      for (int col = 0; col < v; col++) {
        double[] ycol = new double[n];
        for (int i = 0; i < n; i++) {
          ycol[i] = y[i][col];
        }
        zObs[ci][col] = GlmRun.zOfKey(c, model, OlsReference.statistic(m, ycol, c.matrix(), t));
      }
    }
    for (int ci = 0; ci < model.contrasts().size(); ci++) {
      String name = model.contrasts().get(ci).outputName();
      double[] got = result.get("p_cfwer_" + name);
      for (int col = 0; col < v; col++) {
        long count = 0;
        for (int r = 0; r < p; r++) {
          count += zMax[r] >= zObs[ci][col] ? 1 : 0;
        }
        assertThat(got[col]).as("%s voxel %d", name, col).isEqualTo((count + 1) / (p + 1.0));
        assertThat(got[col]).isGreaterThanOrEqualTo(result.get("p_fwer_" + name)[col]);
      }
    }
  }
}
