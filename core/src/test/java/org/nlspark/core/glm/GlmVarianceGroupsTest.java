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
 * squares, den = c' (sum_g W_g M_g'M_g)^-1 c), with plain inverses; their z (what every count
 * sees) through t or F with Welch's degrees of freedom s (s + 2) / (3 Σ), by commons-math's
 * distributions (not the kernel's {@code ZScores}); Welch's two-sample t and
 * Welch–Satterthwaite's df by their textbook formulas; and one group is t and F.
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
    return palmWithDegrees(m, y, ct, groups)[0];
  }

  /**
   * z of v through Student's t, of G through F(s, ν), with ν = s (s + 2) / (3 Σ_g (1 − W_g n_g
   * / Σ W n)² / tr_g) (Winkler et al. 2014; Welch's): both tails from the distribution's own
   * side, so far values keep their digits.
   */
  static double z(double[][] m, double[] y, double[][] ct, int[] groups) {
    double[] statDf = palmWithDegrees(m, y, ct, groups);
    double x = statDf[0];
    double nu = statDf[1];
    org.apache.commons.math3.distribution.NormalDistribution normal =
        new org.apache.commons.math3.distribution.NormalDistribution(null, 0, 1);
    if (ct.length == 1) {
      double lower = new org.apache.commons.math3.distribution.TDistribution(null, nu)
          .cumulativeProbability(-Math.abs(x));
      double zAbs = -normal.inverseCumulativeProbability(lower);
      return Math.signum(x) * zAbs;
    }
    double upper = 1.0 - new org.apache.commons.math3.distribution.FDistribution(null,
        ct.length, nu).cumulativeProbability(x);
    return -normal.inverseCumulativeProbability(upper);
  }

  /** {statistic, ν}: v or G and its Welch degrees of freedom. */
  static double[] palmWithDegrees(double[][] m, double[] y, double[][] ct, int[] groups) {
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
    double sumWn = 0.0;
    for (int b = 0; b < ng; b++) {
      sumWn += w[b] * size[b];
    }
    double bsum = 0.0;
    for (int b = 0; b < ng; b++) {
      bsum += Math.pow(1.0 - w[b] * size[b] / sumWn, 2) / dRmb[b];
    }
    double nu = s * (s + 2.0) / (3.0 * bsum);
    if (s == 1) {
      return new double[] {cpsi[0] / Math.sqrt(middle[0][0]), nu};
    }
    double[][] mi = OlsReference.inverse(middle);
    double g = 0.0;
    for (int x = 0; x < s; x++) {
      for (int z = 0; z < s; z++) {
        g += cpsi[x] * mi[x][z] * cpsi[z];
      }
    }
    g /= s;
    return new double[] {g / (1 + 2 * (s - 1) * bsum / s / (s + 2)), nu};
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
      k.observedStatistic(observed);
      double[] observedZ = new double[V];
      k.observed(observedZ);
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
        double wantZ = z(m, col, c.matrix(), groups);
        assertThat(observedZ[v]).as("%s observed z at %d", c.outputName(), v)
            .isCloseTo(wantZ, org.assertj.core.data.Offset.offset(1e-7 * Math.max(1, wantZ)));
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
          // every draw on z: its own Welch degrees of freedom
          double drawn = z(m, ystar, c.matrix(), groups);
          assertThat(got[r][v]).as("%s draw %d voxel %d", c.outputName(), r, v)
              .isCloseTo(drawn, org.assertj.core.data.Offset.offset(
                  1e-7 * Math.max(1.0, Math.abs(drawn))));
        }
      }
    }
  }

  /**
   * Two groups, each its own mean: v is Welch's two-sample t, (m1 − m2) / √(s1²/n1 + s2²/n2),
   * and its z is through Welch–Satterthwaite's df (s1²/n1 + s2²/n2)² / Σ (s_g²/n_g)² / (n_g −
   * 1), both written here from the textbook (the df scipy's {@code ttest_ind(equal_var=False)}
   * reports); PALM's fastv would take a third of that df.
   */
  @Test
  void twoGroupsAreWelchsTestWithWelchSatterthwaitesDegrees() {
    int n1 = 5;
    int n = 12;
    double[][] m = new double[n][];
    int[] groupIds = new int[n];
    for (int i = 0; i < n; i++) {
      m[i] = i < n1 ? new double[] {1, 0} : new double[] {0, 1};
      groupIds[i] = i < n1 ? 1 : 2;
    }
    Random rng = new Random(453);
    double[][] y = new double[n][V];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < V; v++) {
        y[i][v] = (i < n1 ? 0.4 * v : 0.0) + (i < n1 ? 0.5 : 3.0) * rng.nextGaussian();
      }
    }
    GlmModel model = GlmModel.prepare(GlmContrastStatisticTest.named(m),
        GlmContrasts.of(new double[][] {{1, -1}}, new int[0][]), n)
        .withVarianceGroups(VarianceGroups.of(groupIds, "vg.csv", n));
    GlmContrast c = model.contrasts().get(0);
    GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, c.effect(),
        n, 10, 3);
    GlmContrastStatistic k = new GlmContrastStatistic(model, c, draws,
        GlmContrastStatisticTest.rowMajor(y), V, 8, Precision.FLOAT64);
    double[] v = new double[V];
    k.observedStatistic(v);
    double[] z = new double[V];
    k.observed(z);
    for (int j = 0; j < V; j++) {
      double[] mean = new double[2];
      double[] ss = new double[2];
      int[] size = {n1, n - n1};
      for (int i = 0; i < n; i++) {
        mean[i < n1 ? 0 : 1] += y[i][j] / size[i < n1 ? 0 : 1];
      }
      for (int i = 0; i < n; i++) {
        double d = y[i][j] - mean[i < n1 ? 0 : 1];
        ss[i < n1 ? 0 : 1] += d * d;
      }
      double a1 = ss[0] / (n1 - 1) / n1;
      double a2 = ss[1] / (n - n1 - 1) / (n - n1);
      double welchT = (mean[0] - mean[1]) / Math.sqrt(a1 + a2);
      double df = (a1 + a2) * (a1 + a2) / (a1 * a1 / (n1 - 1) + a2 * a2 / (n - n1 - 1));
      assertThat(v[j]).as("v at %d", j).isCloseTo(welchT,
          org.assertj.core.data.Offset.offset(1e-10 * Math.abs(welchT)));
      double lower = new org.apache.commons.math3.distribution.TDistribution(null, df)
          .cumulativeProbability(-Math.abs(welchT));
      double wantZ = -Math.signum(welchT) * new org.apache.commons.math3.distribution
          .NormalDistribution(null, 0, 1).inverseCumulativeProbability(lower);
      assertThat(z[j]).as("z at %d (df %s)", j, df).isCloseTo(wantZ,
          org.assertj.core.data.Offset.offset(1e-7 * Math.max(1, Math.abs(wantZ))));
      // a third of the df (PALM's fastv) gives another z: the test tells them apart
      double third = new org.apache.commons.math3.distribution.TDistribution(null, df / 3)
          .cumulativeProbability(-Math.abs(welchT));
      double zThird = -Math.signum(welchT) * new org.apache.commons.math3.distribution
          .NormalDistribution(null, 0, 1).inverseCumulativeProbability(third);
      if (Math.abs(welchT) > 1) {
        assertThat(Math.abs(z[j] - zThird)).as("z of a third of the df at %d", j)
            .isGreaterThan(1e-3);
      }
    }
  }

  /**
   * The counting values ({@code computeForCounts}: bounds on z, exact z only between them and
   * for each draw's possible largest; for G, probabilities compared) give every voxel's count
   * and every draw's largest key of the exact z, on every tail, with data where v's degrees of freedom vary widely (groups of 3,
   * 4 and 9 with spreads 1, 4 and 0.5), and convert under half of the values (here 11–29%:
   * groups this small leave few degrees of freedom, so the bounds are wide).
   */
  @Test
  void countingValuesGiveTheCountsAndMaximaOfEveryZ() {
    int n = 16;
    int voxels = 300;
    int[] groupIds = new int[n];
    double[][] m = new double[n][];
    Random rng = new Random(454);
    for (int i = 0; i < n; i++) {
      groupIds[i] = i < 3 ? 1 : i < 7 ? 2 : 3;
      m[i] = new double[] {1.0, rng.nextGaussian(), i % 2};
    }
    double[][] y = new double[n][voxels];
    double[] spread = {1.0, 4.0, 0.5};
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < voxels; v++) {
        y[i][v] = (v % 4 == 0 ? 1.5 * m[i][1] : 0.0)
            + spread[groupIds[i] - 1] * rng.nextGaussian();
      }
    }
    GlmModel model = GlmModel.prepare(GlmContrastStatisticTest.named(m), contrasts(), n)
        .withVarianceGroups(VarianceGroups.of(groupIds, "vg.csv", n));
    int draws = 200;
    int window = 32;
    for (GlmContrast c : model.contrasts()) {
      for (org.nlspark.core.job.Tail tail : c.kind() == GlmContrast.Kind.F
          ? new org.nlspark.core.job.Tail[] {org.nlspark.core.job.Tail.UPPER}
          : org.nlspark.core.job.Tail.values()) {
        GlmDraws d = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, c.effect(), n,
            draws, 11);
        GlmContrastStatistic exact = new GlmContrastStatistic(model, c, d,
            GlmContrastStatisticTest.rowMajor(y), voxels, window, Precision.FLOAT64);
        GlmContrastStatistic counting = new GlmContrastStatistic(model, c, d,
            GlmContrastStatisticTest.rowMajor(y), voxels, window, Precision.FLOAT64);
        double[] observed = new double[voxels];
        exact.observed(observed);
        double[] a = new double[window * voxels];
        double[] b = new double[window * voxels];
        long[] countsExact = new long[voxels];
        long[] countsCounting = new long[voxels];
        for (long first = 0; first < draws; first += window) {
          int rows = (int) Math.min(window, draws - first);
          exact.compute(first, rows, a);
          counting.computeForCounts(first, rows, b, tail);
          for (int r = 0; r < rows; r++) {
            double maxExact = Double.NEGATIVE_INFINITY;
            double maxCounting = Double.NEGATIVE_INFINITY;
            for (int v = 0; v < voxels; v++) {
              double key = tail.key(observed[v]);
              double ka = tail.key(a[r * voxels + v]);
              double kb = tail.key(b[r * voxels + v]);
              countsExact[v] += ka >= key ? 1 : 0;
              countsCounting[v] += kb >= key ? 1 : 0;
              assertThat(kb).as("%s %s: a counting key never passes z's", c.outputName(), tail)
                  .isLessThanOrEqualTo(ka);
              maxExact = Math.max(maxExact, ka);
              maxCounting = Math.max(maxCounting, kb);
            }
            assertThat(maxCounting).as("%s %s draw %d: largest key", c.outputName(), tail,
                first + r).isEqualTo(maxExact);
          }
        }
        assertThat(countsCounting).as("%s %s counts", c.outputName(), tail)
            .isEqualTo(countsExact);
        // G converts at least each draw's smallest probability's value (and compares the
        // probabilities of the rest)
        assertThat(counting.convertedForCounts).as("%s %s: values converted to z",
            c.outputName(), tail).isLessThan(counting.valuesForCounts / 2);
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
