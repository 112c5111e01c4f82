package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.GlmDraws;

/**
 * Variance groups (PALM's -vg, issue 45): the kernel's v and G, observed and under
 * Freedman–Lane draws, against PALM's definitions written here on the design itself (fastv,
 * fastg: OLS estimates, W_g = sum of diag(R_M) over the group / the group's residual sum of
 * squares, den = c' (sum_g W_g M_g'M_g)^-1 c), with plain inverses; and one group is t and F.
 */
class GlmVarianceGroupsTest {
  static final int N = 14;
  static final int V = 7;
  static final int[] GROUPS = {1, 1, 2, 3, 2, 1, 3, 3, 2, 1, 1, 3, 2, 3};

  static double[][] design() {
    Random rng = new Random(451);
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, 10 * rng.nextDouble(), i % 2};
    }
    return m;
  }

  /** Noise whose spread depends on the group, and an age effect in some voxels. */
  static double[][] data(double[][] m) {
    Random rng = new Random(452);
    double[][] y = new double[N][V];
    for (int i = 0; i < N; i++) {
      for (int v = 0; v < V; v++) {
        y[i][v] = (v % 3 == 0 ? 0.3 * m[i][1] : 0.0) + GROUPS[i] * rng.nextGaussian();
      }
    }
    return y;
  }

  /** PALM's v (rows of ct: one) or G (several) of one voxel's data y on the design m. */
  static double palm(double[][] m, double[] y, double[][] ct, int[] groups) {
    int n = m.length;
    int k = m[0].length;
    double[][] mtm = new double[k][k];
    for (double[] row : m) {
      for (int a = 0; a < k; a++) {
        for (int c = 0; c < k; c++) {
          mtm[a][c] += row[a] * row[c];
        }
      }
    }
    double[][] inv = OlsReference.inverse(mtm);
    double[] psi = new double[k];
    for (int a = 0; a < k; a++) {
      for (int i = 0; i < n; i++) {
        double pinv = 0.0;
        for (int c = 0; c < k; c++) {
          pinv += inv[a][c] * m[i][c];
        }
        psi[a] += pinv * y[i];
      }
    }
    double[] res = new double[n];
    double[] dRm = new double[n];
    for (int i = 0; i < n; i++) {
      double fit = 0.0;
      double h = 0.0;
      for (int a = 0; a < k; a++) {
        fit += m[i][a] * psi[a];
        for (int c = 0; c < k; c++) {
          h += m[i][a] * inv[a][c] * m[i][c];
        }
      }
      res[i] = y[i] - fit;
      dRm[i] = 1.0 - h;
    }
    int ng = java.util.Arrays.stream(groups).max().getAsInt() + 1;
    double[] w = new double[ng];
    double[] dRmb = new double[ng];
    double[] ss = new double[ng];
    int[] size = new int[ng];
    for (int i = 0; i < n; i++) {
      dRmb[groups[i]] += dRm[i];
      ss[groups[i]] += res[i] * res[i];
      size[groups[i]]++;
    }
    double[][] cte = new double[k][k];
    for (int g = 0; g < ng; g++) {
      w[g] = dRmb[g] / ss[g];
    }
    for (int i = 0; i < n; i++) {
      for (int a = 0; a < k; a++) {
        for (int c = 0; c < k; c++) {
          cte[a][c] += w[groups[i]] * m[i][a] * m[i][c];
        }
      }
    }
    double[][] ci = OlsReference.inverse(cte);
    int s = ct.length;
    double[] cpsi = new double[s];
    double[][] middle = new double[s][s]; // C' cte^-1 C
    for (int x = 0; x < s; x++) {
      for (int a = 0; a < k; a++) {
        cpsi[x] += ct[x][a] * psi[a];
      }
      for (int z = 0; z < s; z++) {
        for (int a = 0; a < k; a++) {
          for (int c = 0; c < k; c++) {
            middle[x][z] += ct[x][a] * ci[a][c] * ct[z][c];
          }
        }
      }
    }
    if (s == 1) {
      return cpsi[0] / Math.sqrt(middle[0][0]);
    }
    double[][] mi = OlsReference.inverse(middle);
    double g = 0.0;
    for (int x = 0; x < s; x++) {
      for (int z = 0; z < s; z++) {
        g += cpsi[x] * mi[x][z] * cpsi[z];
      }
    }
    g /= s;
    double sumWn = 0.0;
    for (int b = 0; b < ng; b++) {
      sumWn += w[b] * size[b];
    }
    double bsum = 0.0;
    for (int b = 0; b < ng; b++) {
      bsum += Math.pow(1.0 - w[b] * size[b] / sumWn, 2) / dRmb[b];
    }
    bsum = bsum / s / (s + 2);
    return g / (1 + 2 * (s - 1) * bsum);
  }

  private static GlmContrasts contrasts() {
    // t: age, t: group, F: age and group
    return GlmContrasts.of(new double[][] {{0, 1, 0}, {0, 0, 1}}, new int[][] {{0, 1}});
  }

  @Test
  void vAndGEqualPalmsDefinitionsObservedAndUnderDraws() {
    double[][] m = design();
    double[][] y = data(m);
    int[] groups = new int[N];
    for (int i = 0; i < N; i++) {
      groups[i] = GROUPS[i] - 1;
    }
    GlmModel model = GlmModel.prepare(GlmContrastStatisticTest.named(m), contrasts(), N)
        .withVarianceGroups(VarianceGroups.of(GROUPS, "vg.csv", N));
    assertThat(model.contrasts()).extracting(GlmContrast::outputName)
        .containsExactly("vstat1", "vstat2", "gstat1");
    for (GlmContrast c : model.contrasts()) {
      GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false,
          c.effect(), N, 40, 9);
      int window = 16;
      GlmContrastStatistic k = new GlmContrastStatistic(model, c, draws,
          GlmContrastStatisticTest.rowMajor(y), V, window, Precision.FLOAT64);
      assertThat(k.undefinedVoxels()).isZero();
      double[] observed = new double[V];
      k.observed(observed);
      double[][] got = GlmContrastStatisticTest.kernelStatistics(k, 40, window);
      double[][] fit = OlsReference.nuisanceFit(m, y, c.matrix());
      int[] perm = new int[N];
      double[] signs = new double[N];
      for (int v = 0; v < V; v++) {
        double[] col = new double[N];
        for (int i = 0; i < N; i++) {
          col[i] = y[i][v];
        }
        double want = palm(m, col, c.matrix(), groups);
        assertThat(observed[v]).as("%s observed at %d", c.outputName(), v)
            .isCloseTo(want, org.assertj.core.data.Offset.offset(1e-9 * Math.abs(want)));
        // Freedman–Lane: the nuisance fit stays, its residuals are drawn.
        double[] fitted = new double[N];
        for (int i = 0; i < N; i++) {
          fitted[i] = fit[i][v];
        }
        for (int r = 0; r < 40; r++) {
          draws.fill(r, perm, signs);
          double[] ystar = new double[N];
          for (int p = 0; p < N; p++) {
            ystar[p] = signs[p] * (col[perm[p]] - fitted[perm[p]]) + fitted[p];
          }
          double drawn = palm(m, ystar, c.matrix(), groups);
          assertThat(got[r][v]).as("%s draw %d voxel %d", c.outputName(), r, v)
              .isCloseTo(drawn, org.assertj.core.data.Offset.offset(
                  1e-9 * Math.max(1.0, Math.abs(drawn))));
        }
      }
    }
  }

  @Test
  void oneGroupIsTAndF() {
    double[][] m = design();
    GlmModel plain = GlmModel.prepare(GlmContrastStatisticTest.named(m), contrasts(), N);
    GlmModel one = plain.withVarianceGroups(VarianceGroups.of(new int[N], "vg.csv", N));
    assertThat(one).isSameAs(plain);
    assertThat(one.contrasts()).extracting(GlmContrast::outputName)
        .containsExactly("tstat1", "tstat2", "fstat1");
  }
}
