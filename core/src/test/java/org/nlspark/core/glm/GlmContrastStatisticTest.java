package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;

class GlmContrastStatisticTest {
  private static final double REL = 1e-10;

  /** Intercept, a 0/1 group, and two continuous covariates: n x 4. */
  static double[][] design(int n, long seed) {
    Random rng = new Random(seed);
    double[][] m = new double[n][4];
    for (int i = 0; i < n; i++) {
      m[i][0] = 1.0;
      m[i][1] = i % 2;
      m[i][2] = 20 + 40 * rng.nextDouble();
      m[i][3] = rng.nextGaussian();
    }
    return m;
  }

  /** Data n x v with effects of the group and the age column, so both tails are exercised. */
  static double[][] data(double[][] m, int v, long seed) {
    Random rng = new Random(seed);
    double[][] y = new double[m.length][v];
    for (int i = 0; i < m.length; i++) {
      for (int c = 0; c < v; c++) {
        y[i][c] = 3.0 + 0.4 * c * m[i][1] - 0.02 * (c % 3) * m[i][2] + rng.nextGaussian();
      }
    }
    return y;
  }

  static double[] rowMajor(double[][] y) {
    int n = y.length;
    int v = y[0].length;
    double[] out = new double[n * v];
    for (int i = 0; i < n; i++) {
      System.arraycopy(y[i], 0, out, i * v, v);
    }
    return out;
  }

  static GlmDesign named(double[][] m) {
    String[] names = new String[m[0].length];
    for (int j = 0; j < names.length; j++) {
      names[j] = "c" + (j + 1);
    }
    return new GlmDesign(m, names, "design.csv");
  }

  /** All replicates [0, count) through the kernel, window by window, as a grid would. */
  static double[][] kernelStatistics(BlockStatistic k, long count, int window) {
    int b = k.width();
    double[][] out = new double[(int) count][b];
    double[] buf = new double[window * b];
    for (long first = 0; first < count; first += window) {
      int rows = (int) Math.min(window, count - first);
      k.compute(first, rows, buf);
      for (int r = 0; r < rows; r++) {
        System.arraycopy(buf, r * b, out[(int) (first + r)], 0, b);
      }
    }
    return out;
  }

  /**
   * Relative to max(|expected|, 1): t and F are scale-free and of order 1 under the null, so a
   * statistic near 0 carries the absolute rounding of its numerator, not a relative one.
   */
  static void assertClose(double actual, double expected) {
    assertThat(Math.abs(actual - expected))
        .as("actual %s, expected %s", actual, expected)
        .isLessThanOrEqualTo(REL * Math.max(Math.abs(expected), 1.0));
  }

  /** Counts of null >= observed (upper tail) per voxel; asserts no near-tie makes them fragile. */
  static long[] upperCounts(double[][] nulls, double[] observed) {
    long[] counts = new long[observed.length];
    for (double[] row : nulls) {
      for (int v = 0; v < observed.length; v++) {
        double gap = Math.abs(row[v] - observed[v]);
        if (gap <= 1e-9 * Math.abs(observed[v])) {
          counts[v]++; // the identity draw (enumeration): a tie, computed two ways by the brute force
          continue;
        }
        assertThat(gap).as("tie-free data").isGreaterThan(1e-7 * Math.abs(observed[v]));
        counts[v] += row[v] >= observed[v] ? 1 : 0;
      }
    }
    return counts;
  }

  private static void checkAgainstBruteForce(double[][] m, double[][] y, GlmContrasts contrasts,
      GlmDraws.Errors errors, int[] blocks, long permutations, int window, boolean expectExact) {
    int n = m.length;
    int v = y[0].length;
    GlmModel model = GlmModel.prepare(named(m), contrasts, n);
    for (GlmContrast c : model.contrasts()) {
      GlmDraws draws = GlmDraws.plan(errors, blocks == null ? null
          : GlmRun.Options.oneColumn(blocks), "blocks.txt", false, c.effect(), n, permutations, 11);
      assertThat(draws.enumerated()).isEqualTo(expectExact);
      GlmContrastStatistic k = new GlmContrastStatistic(model, c, draws, rowMajor(y), v, window,
          Precision.FLOAT64);
      boolean t = c.kind() == GlmContrast.Kind.T;
      double[] observed = new double[v];
      k.observed(observed);
      for (int col = 0; col < v; col++) {
        double[] ycol = new double[n];
        for (int i = 0; i < n; i++) {
          ycol[i] = y[i][col];
        }
        assertClose(observed[col], OlsReference.statistic(m, ycol, c.matrix(), t));
      }
      double[][] got = kernelStatistics(k, draws.replicates(), window);
      if (draws.enumerated()) {
        assertThat(got[0]).as("replicate 0 is the identity, same bits").isEqualTo(observed);
      }
      double[][] want = OlsReference.nullStatistics(m, y, c.matrix(), t, draws,
          draws.replicates());
      for (int r = 0; r < got.length; r++) {
        for (int col = 0; col < v; col++) {
          assertClose(got[r][col], want[r][col]);
        }
      }
      double[] wantObserved = new double[v];
      for (int col = 0; col < v; col++) {
        double[] ycol = new double[n];
        for (int i = 0; i < n; i++) {
          ycol[i] = y[i][col];
        }
        wantObserved[col] = OlsReference.statistic(m, ycol, c.matrix(), t);
      }
      assertThat(upperCounts(got, observed)).isEqualTo(upperCounts(want, wantObserved));
      assertThat(k.flops()).isPositive();
    }
  }

  private static GlmContrasts threeTAndOneF() {
    return GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, -1, 0}, {0, 0, 1, 0.5}},
        new int[][] {{0, 1}, {0, 1, 2}});
  }

  @Test
  void permutationsMatchBruteForce() {
    double[][] m = design(14, 1);
    checkAgainstBruteForce(m, data(m, 6, 2), threeTAndOneF(), GlmDraws.Errors.EXCHANGEABLE,
        null, 150, 16, false);
  }

  @Test
  void signFlipsAndBothMatchBruteForce() {
    double[][] m = design(13, 3);
    checkAgainstBruteForce(m, data(m, 5, 4), threeTAndOneF(), GlmDraws.Errors.SYMMETRIC, null,
        90, 32, false);
    checkAgainstBruteForce(m, data(m, 5, 5), threeTAndOneF(), GlmDraws.Errors.BOTH, null, 90,
        7, false);
  }

  @Test
  void withinBlockPermutationsMatchBruteForce() {
    double[][] m = design(16, 6);
    int[] blocks = new int[16];
    for (int i = 0; i < 16; i++) {
      blocks[i] = i < 6 ? 3 : i < 11 ? 1 : 2; // unequal sizes are fine within blocks
    }
    checkAgainstBruteForce(m, data(m, 4, 7), threeTAndOneF(), GlmDraws.Errors.EXCHANGEABLE,
        blocks, 120, 16, false);
  }

  /** 7 samples, all rows distinct: 7! = 5040 <= P, so every permutation once, p = count / N. */
  @Test
  void exactEnumerationMatchesBruteForce() {
    double[][] m = new double[7][2];
    Random rng = new Random(9);
    for (int i = 0; i < 7; i++) {
      m[i][0] = 1.0;
      m[i][1] = rng.nextGaussian();
    }
    double[][] y = new double[7][3];
    for (int i = 0; i < 7; i++) {
      for (int c = 0; c < 3; c++) {
        y[i][c] = c * m[i][1] + rng.nextGaussian();
      }
    }
    checkAgainstBruteForce(m, y, GlmContrasts.of(new double[][] {{0, 1}}, new int[][] {{0}}),
        GlmDraws.Errors.EXCHANGEABLE, null, 6000, 64, true);
  }

  @Test
  void fOfOneRowIsTSquared() {
    double[][] m = design(15, 12);
    double[][] y = data(m, 5, 13);
    // fstat2 joins a contrast and its negation: rank 1, so the same F.
    GlmModel model = GlmModel.prepare(named(m),
        GlmContrasts.of(new double[][] {{0, 0, 1, 0}, {0, 0, -2, 0}}, new int[][] {{0}, {0, 1}}),
        15);
    GlmContrast t = model.contrasts().get(0);
    GlmContrast f = model.contrasts().get(2);
    GlmContrast dependent = model.contrasts().get(3);
    assertThat(f.outputName()).isEqualTo("fstat1");
    assertThat(dependent.rank()).isEqualTo(1);
    GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, t.effect(), 15,
        50, 3);
    double[][] ts = kernelStatistics(
        new GlmContrastStatistic(model, t, draws, rowMajor(y), 5, 16, Precision.FLOAT64), 50, 16);
    double[][] fs = kernelStatistics(
        new GlmContrastStatistic(model, f, draws, rowMajor(y), 5, 16, Precision.FLOAT64), 50, 16);
    double[][] ds = kernelStatistics(
        new GlmContrastStatistic(model, dependent, draws, rowMajor(y), 5, 16, Precision.FLOAT64),
        50, 16);
    for (int r = 0; r < 50; r++) {
      for (int v = 0; v < 5; v++) {
        assertClose(fs[r][v], ts[r][v] * ts[r][v]);
        assertClose(ds[r][v], ts[r][v] * ts[r][v]);
      }
    }
  }

  /**
   * A rank-deficient design (intercept plus both group dummies) gives, for its estimable
   * contrast g1 - g2, the t of the full-rank design [intercept, g1] with contrast [0, 1].
   */
  @Test
  void rankDeficientDesignEqualsItsFullRankForm() {
    int n = 12;
    double[][] deficient = new double[n][3];
    double[][] full = new double[n][2];
    for (int i = 0; i < n; i++) {
      double g = i < 5 ? 1 : 0;
      deficient[i] = new double[] {1, g, 1 - g};
      full[i] = new double[] {1, g};
    }
    double[][] y = data(design(n, 1), 4, 21);
    GlmModel a = GlmModel.prepare(named(deficient),
        GlmContrasts.of(new double[][] {{0, 1, -1}}, null), n);
    GlmModel b = GlmModel.prepare(named(full), GlmContrasts.of(new double[][] {{0, 1}}, null), n);
    assertThat(a.rank()).isEqualTo(2);
    assertThat(a.degreesOfFreedom()).isEqualTo(b.degreesOfFreedom());
    GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false,
        a.contrasts().get(0).effect(), n, 40, 5);
    double[][] sa = kernelStatistics(new GlmContrastStatistic(a, a.contrasts().get(0), draws,
        rowMajor(y), 4, 8, Precision.FLOAT64), 40, 8);
    double[][] sb = kernelStatistics(new GlmContrastStatistic(b, b.contrasts().get(0), draws,
        rowMajor(y), 4, 8, Precision.FLOAT64), 40, 8);
    for (int r = 0; r < 40; r++) {
      for (int v = 0; v < 4; v++) {
        assertClose(sa[r][v], sb[r][v]);
      }
    }
  }

  /** one-sample t is the GLM with an intercept-only design under sign flips: same draws. */
  @Test
  void interceptOnlyUnderSignFlipsIsTheOneSampleT() {
    for (long permutations : new long[] {300, 5000}) { // sampled, then all 2^11 enumerated
      int n = 11;
      int v = 6;
      double[][] y = data(design(n, 30), v, 31);
      DataMatrix x = DataMatrix.of(n, v, rowMajor(y), "x");
      JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t")
          .replicates(permutations).seed(17).precision(Precision.FLOAT64).build();
      JobInputs inputs = JobInputs.of(x);
      ResamplingPlan plan = ResamplingPlan.forJob(spec, inputs);
      BlockStatistic oneSample = Kernels.create(spec, inputs, plan, 0, v, 64);

      double[][] ones = new double[n][] ;
      for (int i = 0; i < n; i++) {
        ones[i] = new double[] {1.0};
      }
      GlmModel model = GlmModel.prepare(named(ones), GlmContrasts.of(new double[][] {{1}}, null),
          n);
      GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.SYMMETRIC, null, "", false,
          model.contrasts().get(0).effect(), n, permutations, 17);
      assertThat(draws.enumerated()).isEqualTo(plan.enumerated());
      assertThat(draws.replicates()).isEqualTo(plan.replicates());
      GlmContrastStatistic glm = new GlmContrastStatistic(model, model.contrasts().get(0), draws,
          rowMajor(y), v, 64, Precision.FLOAT64);
      double[] o1 = new double[v];
      double[] o2 = new double[v];
      oneSample.observed(o1);
      glm.observed(o2);
      double[][] s1 = kernelStatistics(oneSample, plan.replicates(), 64);
      double[][] s2 = kernelStatistics(glm, plan.replicates(), 64);
      for (int c = 0; c < v; c++) {
        assertClose(o2[c], o1[c]);
        for (int r = 0; r < s1.length; r++) {
          assertClose(s2[r][c], s1[r][c]);
        }
      }
      assertThat(upperCounts(s2, o2)).isEqualTo(upperCounts(s1, o1));
    }
  }

  /** Pooled t is monotone in the mean difference: same draws give the same two-tailed counts. */
  @Test
  void groupDesignGivesTheTwoSampleMeanDiffPValues() {
    int n1 = 8;
    int n2 = 7;
    int n = n1 + n2;
    int v = 5;
    Random rng = new Random(40);
    double[] a = new double[n1 * v];
    double[] b = new double[n2 * v];
    for (int i = 0; i < a.length; i++) {
      a[i] = rng.nextGaussian() + 0.3 * (i % v);
    }
    for (int i = 0; i < b.length; i++) {
      b[i] = rng.nextGaussian();
    }
    JobSpec spec = JobSpec.builder(Analysis.TWO_SAMPLE).statistic("mean-diff").replicates(400)
        .seed(23).precision(Precision.FLOAT64).build();
    JobInputs inputs = JobInputs.twoGroups(DataMatrix.of(n1, v, a, "a"),
        DataMatrix.of(n2, v, b, "b"));
    ResamplingPlan plan = ResamplingPlan.forJob(spec, inputs);
    BlockStatistic twoSample = Kernels.create(spec, inputs, plan, 0, v, 32);

    double[][] m = new double[n][];
    double[] stacked = new double[n * v];
    System.arraycopy(a, 0, stacked, 0, a.length);
    System.arraycopy(b, 0, stacked, a.length, b.length);
    for (int i = 0; i < n; i++) {
      m[i] = new double[] {1.0, i < n1 ? 1.0 : 0.0};
    }
    GlmModel model = GlmModel.prepare(named(m), GlmContrasts.of(new double[][] {{0, 1}}, null), n);
    GlmContrast c = model.contrasts().get(0);
    // No effect rows: the one-sample engine draws plain permutations of all n samples.
    GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, null, n, 400,
        23);
    GlmContrastStatistic glm = new GlmContrastStatistic(model, c, draws, stacked, v, 32,
        Precision.FLOAT64);
    double[] o1 = new double[v];
    double[] o2 = new double[v];
    twoSample.observed(o1);
    glm.observed(o2);
    double[][] s1 = kernelStatistics(twoSample, 400, 32);
    double[][] s2 = kernelStatistics(glm, 400, 32);
    for (int col = 0; col < v; col++) {
      long c1 = 0;
      long c2 = 0;
      for (int r = 0; r < 400; r++) {
        c1 += Math.abs(s1[r][col]) >= Math.abs(o1[col]) ? 1 : 0;
        c2 += Math.abs(s2[r][col]) >= Math.abs(o2[col]) ? 1 : 0;
        assertThat(Math.signum(s2[r][col])).isEqualTo(Math.signum(s1[r][col]));
      }
      assertThat(c2).as("voxel %d", col).isEqualTo(c1);
    }
  }

  @Test
  void dataInTheNuisanceSpaceIsUndefined() {
    int n = 10;
    double[][] m = design(n, 50);
    double[][] y = data(m, 3, 51);
    for (int i = 0; i < n; i++) {
      y[i][1] = 2.0 + 0.5 * m[i][2]; // exactly intercept + age: no residual at all
    }
    GlmModel model = GlmModel.prepare(named(m),
        GlmContrasts.of(new double[][] {{0, 1, 0, 0}}, null), n);
    GlmContrast c = model.contrasts().get(0);
    GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, c.effect(), n,
        20, 1);
    GlmContrastStatistic k = new GlmContrastStatistic(model, c, draws, rowMajor(y), 3, 8,
        Precision.FLOAT64);
    assertThat(k.undefinedVoxels()).isEqualTo(1);
    double[] obs = new double[3];
    k.observed(obs);
    assertThat(obs[1]).isNaN();
    assertThat(obs[0]).isFinite();
    double[][] s = kernelStatistics(k, 20, 8);
    for (double[] row : s) {
      assertThat(row[1]).isNaN();
      assertThat(row[2]).isFinite();
    }
  }

  /** R^2 near 1: ||E||^2 - ||G||^2 cancels; results stay finite and close to the brute force. */
  @Test
  void nearPerfectFitStaysFiniteAndAccurate() {
    int n = 12;
    double[][] m = design(n, 60);
    double[][] y = new double[n][2];
    Random rng = new Random(61);
    for (int i = 0; i < n; i++) {
      y[i][0] = 5 + 3 * m[i][1] + 0.1 * m[i][2] + 1e-5 * rng.nextGaussian();
      y[i][1] = 5 + 3 * m[i][1] + 0.1 * m[i][2] + rng.nextGaussian();
    }
    GlmModel model = GlmModel.prepare(named(m),
        GlmContrasts.of(new double[][] {{0, 1, 0, 0}}, null), n);
    GlmContrast c = model.contrasts().get(0);
    GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, c.effect(), n,
        30, 2);
    GlmContrastStatistic k = new GlmContrastStatistic(model, c, draws, rowMajor(y), 2, 8,
        Precision.FLOAT64);
    double[] obs = new double[2];
    k.observed(obs);
    double[] ycol = new double[n];
    for (int i = 0; i < n; i++) {
      ycol[i] = y[i][0];
    }
    double want = OlsReference.statistic(m, ycol, c.matrix(), true);
    assertThat(obs[0]).isGreaterThan(1e5);
    // The relative error grows like 2^-52 / (1 - R^2): about 1e-16 / 1e-11 here.
    assertThat(Math.abs(obs[0] - want)).isLessThan(1e-3 * want);
    for (double[] row : kernelStatistics(k, 30, 8)) {
      assertThat(row[0]).isFinite();
    }
  }

  /**
   * DESIGN §5: a window computed by a fresh kernel (another tile, a retry, after a model that
   * travelled serialized) has the same bits as in a run over all windows in order.
   */
  @Test
  void windowsAreBitIdenticalWhateverTheTilingAndAfterSerialization() throws Exception {
    int n = 13;
    double[][] m = design(n, 90);
    double[] y = rowMajor(data(m, 9, 91));
    GlmModel model = GlmModel.prepare(named(m), threeTAndOneF(), n);
    for (GlmContrast c : model.contrasts()) {
      GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.BOTH, GlmRun.Options.oneColumn(
          new int[] {1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 1}), "b", false, c.effect(), n, 100, 4);
      double[][] all = kernelStatistics(
          new GlmContrastStatistic(model, c, draws, y, 9, 16, Precision.FLOAT64), 100, 16);
      GlmModel copyModel = roundTrip(model);
      GlmDraws copyDraws = roundTrip(draws);
      GlmContrast copy = copyModel.contrasts().get(model.contrasts().indexOf(c));
      GlmContrastStatistic fresh = new GlmContrastStatistic(copyModel, copy, copyDraws, y, 9, 16,
          Precision.FLOAT64);
      double[] buf = new double[16 * 9];
      for (long first : new long[] {96, 32, 0}) { // out of order, last window partial
        int rows = (int) Math.min(16, 100 - first);
        fresh.compute(first, rows, buf);
        for (int r = 0; r < rows; r++) {
          for (int v = 0; v < 9; v++) {
            assertThat(Double.doubleToRawLongBits(buf[r * 9 + v]))
                .isEqualTo(Double.doubleToRawLongBits(all[(int) first + r][v]));
          }
        }
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T value) throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      return (T) in.readObject();
    }
  }

  /** float32 only changes the GEMM: statistics within its rounding of the float64 ones. */
  @Test
  void float32GemmStaysCloseToFloat64() {
    int n = 20;
    double[][] m = design(n, 95);
    double[] y = rowMajor(data(m, 8, 96));
    GlmModel model = GlmModel.prepare(named(m), threeTAndOneF(), n);
    for (GlmContrast c : model.contrasts()) {
      GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, c.effect(), n,
          60, 8);
      double[][] d64 = kernelStatistics(
          new GlmContrastStatistic(model, c, draws, y, 8, 32, Precision.FLOAT64), 60, 32);
      double[][] d32 = kernelStatistics(
          new GlmContrastStatistic(model, c, draws, y, 8, 32, Precision.FLOAT32), 60, 32);
      for (int r = 0; r < 60; r++) {
        for (int v = 0; v < 8; v++) {
          assertThat(Math.abs(d32[r][v] - d64[r][v]))
              .isLessThan(1e-4 * Math.max(1.0, Math.abs(d64[r][v])));
        }
      }
    }
  }
}
