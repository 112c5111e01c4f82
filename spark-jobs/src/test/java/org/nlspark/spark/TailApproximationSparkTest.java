package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.job.Tail;
import org.nlspark.core.stats.ParetoTail;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@code --tail-approximation}: a strong effect gets an FWER p below 1/(P + 1), p ≥ 0.1 keep
 * their permutation value, the replaced ones are the fit of the stored null maxima (refitted here
 * with {@link ParetoTail}, itself checked by brute force in core), and the run is bit-identical
 * for 1, 3 and 7 partitions and a retried task; one-sample and glm. The uncorrected p (each
 * voxel's own null, checked by brute force in core) is core's LocalEngine's bit for bit, below
 * 1/(P + 1) for the strong effect, and unchanged at p ≥ 0.1.
 */
class TailApproximationSparkTest {
  static final int N = 20;
  static final int V = 80;

  static double[] data() {
    double[] x = TestData.gaussian(97, N, V, 0);
    for (int i = 0; i < N; i++) {
      x[i * V] += 3.0; // one voxel far beyond every null maximum
      x[i * V + 1] += 0.9;
    }
    return x;
  }

  static void check(RunReport approx, RunReport plain, String pFwer, String statistic,
      String nullMax, int strong, Tail tail) {
    double[] p = approx.result.output(pFwer);
    double[] perm = plain.result.output(pFwer);
    double[] nulls = plain.result.output(nullMax);
    assertThat(approx.result.output(nullMax)).isEqualTo(nulls);
    ParetoTail.Fit fit = ParetoTail.fit(nulls);
    assertThat(fit).as("a fit passes for %s", pFwer).isNotNull();
    double[] stat = plain.result.output(statistic);
    for (int v = 0; v < p.length; v++) {
      double key = tail.key(stat[v]);
      if (perm[v] >= ParetoTail.P_THRESHOLD || !(key > fit.threshold())) {
        assertThat(p[v]).as("%s[%d] kept", pFwer, v).isEqualTo(perm[v]);
      } else {
        assertThat(p[v]).as("%s[%d] fitted", pFwer, v).isEqualTo(fit.p(key));
      }
    }
    if (strong >= 0) {
      assertThat(perm[strong]).isEqualTo(1.0 / (nulls.length + 1));
      assertThat(p[strong]).as("the strong voxel").isLessThan(1.0 / (nulls.length + 1));
    }
  }

  /** The uncorrected map as core computes it; the strong voxel below 1/(P + 1); p ≥ 0.1 kept. */
  static void checkUncorrected(RunReport approx, RunReport plain, RunReport local, String p,
      int strong, int permutations) {
    double[] refined = approx.result.output(p);
    double[] perm = plain.result.output(p);
    assertThat(refined).as("%s as core's LocalEngine", p).isEqualTo(local.result.output(p));
    int changed = 0;
    for (int v = 0; v < perm.length; v++) {
      if (perm[v] >= ParetoTail.P_THRESHOLD) {
        assertThat(refined[v]).as("%s[%d] >= 0.1 kept", p, v).isEqualTo(perm[v]);
      } else {
        changed += refined[v] != perm[v] ? 1 : 0;
      }
    }
    assertThat(changed).as("%s: voxels refined", p).isPositive();
    assertThat(perm[strong]).isEqualTo(1.0 / (permutations + 1));
    assertThat(refined[strong]).as("%s: the strong voxel", p)
        .isLessThan(1.0 / (permutations + 1));
  }

  @Test
  void wholeMapFwerIsRefinedWithItsOwnNull() throws Exception {
    SparkSession spark = SharedSpark.get();
    org.nlspark.core.io.nifti.NiftiMask mask = TfceSparkTest.mask();
    DataMatrix x = TfceSparkTest.data(mask, 12, 35);
    NlsparkOptions o = TfceSparkTest.options(mask).toBuilder().clusterThreshold(null).statistic("t")
        .tailApproximation(true).build();
    RunReport approx = Nlspark.oneSample(spark, x, o);
    RunReport plain = Nlspark.oneSample(spark, x, o.toBuilder().tailApproximation(false).build());
    check(approx, plain, "p_fwer_tfce", "tfce", "null_max_tfce", -1,
        Tail.TWO);
    check(approx, plain, "p_fwer", "observed", "null_max", -1, Tail.TWO);
    double[] p = approx.result.output("p_fwer_tfce");
    int below = 0;
    for (double v : p) {
      below += v < 1.0 / 301 ? 1 : 0;
    }
    assertThat(below).as("TFCE FWER p below 1/(P + 1) in the blobs").isPositive();
  }

  @Test
  @SuppressWarnings("unchecked")
  void aStrongEffectGetsPBelowOneOverPPlusOneDeterministically() throws Exception {
    SparkSession spark = SharedSpark.get();
    DataMatrix x = DataMatrix.of(N, V, data(), "x");
    NlsparkOptions o = NlsparkOptions.builder().replicates(400).seed(12).statistic("t")
        .tail(Tail.UPPER).grid(new Grid(16, 32)).tailApproximation(true).build();
    RunReport approx = Nlspark.oneSample(spark, x, o);
    RunReport plain = Nlspark.oneSample(spark, x, o.toBuilder().tailApproximation(false).build());
    check(approx, plain, "p_fwer", "observed", "null_max", 0, Tail.UPPER);
    org.nlspark.core.engine.RunReport local = new org.nlspark.core.engine.LocalEngine(2,
        o.grid(), null).run(o.toSpec(org.nlspark.core.job.Analysis.ONE_SAMPLE),
        org.nlspark.core.job.JobInputs.of(x));
    checkUncorrected(approx, plain, local, "p", 0, 400);
    Map<String, Object> fits = (Map<String, Object>) approx.result.facts()
        .get("tail_approximation");
    assertThat((Map<String, Object>) fits.get("p_fwer")).containsKey("shape")
        .containsKey("anderson_darling_p");
    assertThat((Map<String, Object>) fits.get("p")).isEqualTo(
        ((Map<String, Object>) local.result.facts().get("tail_approximation")).get("p"));
    WholeMapParametersSparkTest.assertDeterministic(approx,
        opts -> Nlspark.oneSample(spark, x, opts), o);

    // glm: each contrast's own null maxima
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, i % 2};
    }
    double[] y = data();
    for (int i = 0; i < N; i++) {
      y[i * V + 2] += 2.5 * (i % 2);
    }
    DataMatrix yy = DataMatrix.of(N, V, y, "y");
    GlmDesign design = new GlmDesign(m, new String[] {"intercept", "group"}, "design.csv");
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{1, 0}, {0, 1}}, null);
    NlsparkOptions g = NlsparkOptions.builder().replicates(400).seed(13).grid(new Grid(16, 32))
        .tailApproximation(true).build();
    RunReport glm = Nlspark.glm(spark, yy, design, contrasts, null, g);
    RunReport glmPlain = Nlspark.glm(spark, yy, design, contrasts, null,
        g.toBuilder().tailApproximation(false).build());
    check(glm, glmPlain, "p_fwer_tstat1", "tstat1", "null_max_tstat1", 0, Tail.UPPER);
    check(glm, glmPlain, "p_fwer_tstat2", "tstat2", "null_max_tstat2", 2, Tail.UPPER);
    org.nlspark.core.engine.RunReport glmLocal = new org.nlspark.core.engine.LocalEngine(2,
        g.grid(), null).run(org.nlspark.core.glm.GlmAnalysis.prepare(yy, design, contrasts,
            g.toGlmOptions(null, "exchangeability blocks"), "cpu", null)
        .withTailApproximation(true));
    checkUncorrected(glm, glmPlain, glmLocal, "p_tstat1", 0, 400);
    checkUncorrected(glm, glmPlain, glmLocal, "p_tstat2", 2, 400);
    WholeMapParametersSparkTest.assertDeterministic(glm,
        opts -> Nlspark.glm(spark, yy, design, contrasts, null, opts), g);
  }

  /**
   * Samples executors read into voxel blocks (DESIGN §8): the uncorrected p of correlation and
   * two-sample with {@code --tail-approximation} is core's LocalEngine's on the same values,
   * bit for bit, for 1, 3 and 7 partitions and a retried task, and refined below 0.1.
   */
  @Test
  void executorHeldBlocksGiveTheSameUncorrectedFits(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    SparkSession spark = SharedSpark.get();
    int n = 14;
    int v = 300;
    double[] x = TestData.gaussian(21, n, v, 0);
    double[] target = TestData.gaussian(22, 1, n, 0);
    for (int i = 0; i < n; i++) {
      x[i * v] = target[i] + 0.2 * x[i * v]; // one voxel strongly correlated
      x[i * v + 1] += 3.0; // one voxel far from group y
    }
    java.nio.file.Path xp = TestData.matrix(dir, "x.npy", n, v, x);
    java.nio.file.Path yp = TestData.matrix(dir, "y.npy", 9, v, TestData.gaussian(23, 9, v, 0));
    org.nlspark.spark.io.HadoopOpener files = new org.nlspark.spark.io.HadoopOpener(
        spark.sparkContext().hadoopConfiguration());
    org.nlspark.spark.data.DistributedInputs corr =
        org.nlspark.spark.data.DistributedInputs.withTarget(
            org.nlspark.core.data.NpySamples.describe(files, xp.toString(), "--input", 8L * v * 4),
            target);
    org.nlspark.spark.data.DistributedInputs two =
        org.nlspark.spark.data.DistributedInputs.twoGroups(
            org.nlspark.core.data.NpySamples.describe(files, xp.toString(), "--input", 8L * v * 5),
            org.nlspark.core.data.NpySamples.describe(files, yp.toString(), "--input2",
                8L * v * 3));
    DataMatrix xm = DataMatrix.of(n, v, x, "x");
    DataMatrix ym = DataMatrix.of(9, v, TestData.gaussian(23, 9, v, 0), "y");
    try {
      spark.conf().set(org.nlspark.spark.conf.NlsparkConf.INGEST, "blocks");
      NlsparkOptions c = NlsparkOptions.builder().statistic("pearson").replicates(300).seed(4)
          .grid(new Grid(64, 64)).tailApproximation(true).build();
      checkBlocks(spark, org.nlspark.core.job.Analysis.CORRELATION, corr, c,
          org.nlspark.core.job.JobInputs.withTarget(xm, target), 0);
      NlsparkOptions t = NlsparkOptions.builder().statistic("welch-t").replicates(300).seed(5)
          .grid(new Grid(64, 64)).tail(Tail.UPPER).tailApproximation(true).build();
      checkBlocks(spark, org.nlspark.core.job.Analysis.TWO_SAMPLE, two, t,
          org.nlspark.core.job.JobInputs.twoGroups(xm, ym), 1);
    } finally {
      spark.conf().unset(org.nlspark.spark.conf.NlsparkConf.INGEST);
    }
  }

  private static void checkBlocks(SparkSession spark, org.nlspark.core.job.Analysis analysis,
      org.nlspark.spark.data.DistributedInputs inputs, NlsparkOptions o,
      org.nlspark.core.job.JobInputs same, int strong) throws Exception {
    RunReport local = new org.nlspark.core.engine.LocalEngine(2, o.grid(), null)
        .run(o.toSpec(analysis), same);
    RunReport plain = new org.nlspark.core.engine.LocalEngine(2, o.grid(), null)
        .run(o.toBuilder().tailApproximation(false).build().toSpec(analysis), same);
    for (Integer partitions : new Integer[] {1, 3, 7}) {
      RunReport blocks = Nlspark.run(spark, analysis, inputs, o.toBuilder().partitions(partitions)
          .build(),
          false);
      assertThat(blocks.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
      checkUncorrected(blocks, plain, local, "p", strong, 300);
    }
    RunReport retried = SharedSpark.retriedOnce(spark, 2,
        () -> Nlspark.run(spark, analysis, inputs, o.toBuilder().partitions(3).build(), false));
    checkUncorrected(retried, plain, local, "p", strong, 300);
  }
}
