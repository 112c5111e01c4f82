package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * Whole-map inference at settings other than the defaults (TFCE's E, H and connectivity, FSL's
 * 2-D preset) through the API on Spark: bit-identical for 1, 3 and 7 partitions and a retried
 * task, and equal to core's LocalEngine run (itself checked against the brute force in core's
 * TfceAnalysisTest); the flags' refusals on the command line.
 */
class WholeMapParametersSparkTest {
  @TempDir Path dir;

  /** Runs {@code run} for 1, 3, 7 partitions and with one task failing once. */
  static void assertDeterministic(RunReport base, Function<NlsparkOptions, RunReport> run,
      NlsparkOptions o) throws Exception {
    SparkSession spark = SharedSpark.get();
    assertThat(base.plan.tileCount()).isGreaterThan(2);
    for (int partitions : new int[] {1, 3, 7}) {
      TfceSparkTest.assertSame(base.result, run.apply(o.toBuilder().partitions(partitions)
          .build()).result,
          partitions + " partitions");
    }
    SharedSpark.withRetriedTile(spark, 2, () -> {
      TfceSparkTest.assertSame(base.result, run.apply(o).result, "retried");
    });
  }

  @Test
  @SuppressWarnings("unchecked")
  void tfceParametersAreBitIdenticalForAnyPartitioningRetryAndLocalEngine() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = TfceSparkTest.mask();
    DataMatrix x = TfceSparkTest.data(mask, 12, 31);
    NlsparkOptions o = TfceSparkTest.options(mask).toBuilder().tfceE(1.0).tfceH(1.5)
        .tfceConnectivity(18).statistic("t").build();
    RunReport base = Nlspark.oneSample(spark, x, o);
    Map<String, Object> wholeMap = (Map<String, Object>) base.summary().get("whole_map");
    assertThat(wholeMap).containsEntry("tfce_extent_exponent", 1.0)
        .containsEntry("tfce_height_exponent", 1.5).containsEntry("tfce_connectivity", 18);
    RunReport defaults = Nlspark.oneSample(spark, x, TfceSparkTest.options(mask).toBuilder()
        .statistic("t").build());
    assertThat(base.result.output("tfce")).isNotEqualTo(defaults.result.output("tfce"));
    assertThat(base.result.output("p")).isEqualTo(defaults.result.output("p"));
    RunReport local = new LocalEngine(3, TfceSparkTest.GRID, 1).run(TfceAnalysis.prepare(
        o.toSpec(Analysis.ONE_SAMPLE), JobInputs.of(x), 3, TfceSparkTest.GRID, MaskGrid.of(mask),
        o.wholeMapSettings()));
    TfceSparkTest.assertSame(base.result, local.result, "LocalEngine");
    assertDeterministic(base, opts -> Nlspark.oneSample(spark, x, opts), o);

    // glm with FSL's 2-D preset (E = 1, H = 2, 26 neighbours)
    GlmDesign design = GlmTfceSparkTest.design();
    DataMatrix y = GlmTfceSparkTest.data(mask, design, 32);
    NlsparkOptions g = GlmTfceSparkTest.options(mask).toBuilder().tfce(false).tfce2d(true).build();
    RunReport glm = Nlspark.glm(spark, y, design, GlmTfceSparkTest.contrasts(), null, g);
    assertThat((Map<String, Object>) glm.summary().get("whole_map"))
        .containsEntry("tfce_extent_exponent", 1.0).containsEntry("tfce_connectivity", 26);
    RunReport glmLocal = new LocalEngine(2, TfceSparkTest.GRID, 1).run(GlmAnalysis.prepare(y,
        design, GlmTfceSparkTest.contrasts(), g.toGlmOptions(null, "exchangeability blocks"),
        "cpu", null).withWholeMaps(MaskGrid.of(mask), g.wholeMapSettings()));
    TfceSparkTest.assertSame(glm.result, glmLocal.result, "glm LocalEngine");
    assertDeterministic(glm, opts -> Nlspark.glm(spark, y, design,
        GlmTfceSparkTest.contrasts(), null, opts), g);
  }

  @Test
  @SuppressWarnings("unchecked")
  void clusterMassIsBitIdenticalForAnyPartitioningRetryAndLocalEngine() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = TfceSparkTest.mask();
    DataMatrix x = TfceSparkTest.data(mask, 12, 33);
    NlsparkOptions o = TfceSparkTest.options(mask).toBuilder().tfce(false).clusterMass(2.3)
        .statistic("t").build();
    RunReport base = Nlspark.oneSample(spark, x, o);
    assertThat(base.result.output("cluster_mass")).hasSize(mask.count());
    assertThat(base.result.output("null_max_cluster_mass")).hasSize(300);
    assertThat(base.result.output("tfce")).isNull();
    Map<String, Object> wholeMap = (Map<String, Object>) base.summary().get("whole_map");
    assertThat(wholeMap).containsEntry("cluster_mass_threshold", 2.3)
        .containsEntry("connectivity", 26);
    int found = 0;
    for (double p : base.result.output("p_fwer_cluster_mass")) {
      found += p < 0.05 ? 1 : 0;
    }
    assertThat(found).as("voxels of the blobs found by cluster mass").isGreaterThan(5);
    RunReport local = new LocalEngine(3, TfceSparkTest.GRID, 1).run(TfceAnalysis.prepare(
        o.toSpec(Analysis.ONE_SAMPLE), JobInputs.of(x), 3, TfceSparkTest.GRID, MaskGrid.of(mask),
        o.wholeMapSettings()));
    TfceSparkTest.assertSame(base.result, local.result, "LocalEngine");
    assertDeterministic(base, opts -> Nlspark.oneSample(spark, x, opts), o);
    RunReport faces = Nlspark.oneSample(spark, x, o.toBuilder().connectivity(6).build());
    assertThat(faces.result.output("cluster_mass"))
        .isNotEqualTo(base.result.output("cluster_mass"));

    // nilearn's rule: the same clusters (no voxel lies exactly at T), mass Σ(|t| − T)
    NlsparkOptions n = o.toBuilder().clusterThreshold(2.3)
        .clusterRule(org.nlspark.core.tfce.ClusterExtent.Rule.NILEARN).build();
    RunReport nilearn = Nlspark.oneSample(spark, x, n);
    RunReport extent = Nlspark.oneSample(spark, x, o.toBuilder().clusterThreshold(2.3).build());
    double[] size = extent.result.output("cluster_size");
    assertThat(nilearn.result.output("cluster_size")).containsExactly(size);
    double[] sum = base.result.output("cluster_mass");
    double[] excess = nilearn.result.output("cluster_mass");
    for (int v = 0; v < size.length; v++) {
      assertThat(Math.abs(excess[v])).as("voxel %d", v)
          .isCloseTo(Math.abs(sum[v]) - 2.3 * size[v], within(1e-9));
    }
    assertThat(((Map<String, Object>) nilearn.summary().get("whole_map")))
        .containsEntry("cluster_rule", "nilearn");
    assertDeterministic(nilearn, opts -> Nlspark.oneSample(spark, x, opts), n);

    // glm: per contrast, with extent and TFCE beside it, 18 neighbours
    GlmDesign design = GlmTfceSparkTest.design();
    DataMatrix y = GlmTfceSparkTest.data(mask, design, 34);
    NlsparkOptions g = GlmTfceSparkTest.options(mask).toBuilder().clusterMass(2.5).connectivity(18)
        .build();
    RunReport glm = Nlspark.glm(spark, y, design, GlmTfceSparkTest.contrasts(), null, g);
    for (String s : new String[] {"tstat1", "tstat2", "fstat1"}) {
      assertThat(glm.result.output("cluster_mass_" + s)).as(s).hasSize(mask.count());
      assertThat(glm.result.output("p_fwer_cluster_mass_" + s)).as(s).hasSize(mask.count());
      assertThat(glm.result.output("null_max_cluster_mass_" + s)).as(s).hasSize(300);
    }
    RunReport glmLocal = new LocalEngine(2, TfceSparkTest.GRID, 1).run(GlmAnalysis.prepare(y,
        design, GlmTfceSparkTest.contrasts(), g.toGlmOptions(null, "exchangeability blocks"),
        "cpu", null).withWholeMaps(MaskGrid.of(mask), g.wholeMapSettings()));
    TfceSparkTest.assertSame(glm.result, glmLocal.result, "glm LocalEngine");
    assertDeterministic(glm, opts -> Nlspark.glm(spark, y, design,
        GlmTfceSparkTest.contrasts(), null, opts), g);
  }

  @Test
  void tfceParametersWithoutTfceOrAGridExitTwo() {
    Path x = TestData.matrix(dir, "x.npy", 8, 20, TestData.gaussian(1, 8, 20, 0));
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--tfce-h", "3", "--output",
        dir.resolve("a").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("nlspark one-sample: --tfce-h sets a TFCE parameter, but TFCE"
        + " is off; add --tfce (or --tfce-2d)\n");
    r = CliRun.of("one-sample", "--input", x.toString(), "--tfce", "--tfce-connectivity", "10",
        "--output", dir.resolve("b").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--tfce-connectivity must be 6 (faces), 18 (faces and edges) or"
        + " 26 (faces, edges and corners), but was: 10");
    r = CliRun.of("one-sample", "--input", x.toString(), "--tfce-2d", "--output",
        dir.resolve("c").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--tfce needs a mask image");
    assertThat(dir.resolve("c")).doesNotExist();
    r = CliRun.of("one-sample", "--input", x.toString(), "--cluster-mass", "-1", "--output",
        dir.resolve("d").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--cluster-mass must be finite and > 0");
    r = CliRun.of("one-sample", "--input", x.toString(), "--tfce", "--connectivity", "18",
        "--output", dir.resolve("e").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--connectivity sets how clusters join, but there are no"
        + " clusters");
    r = CliRun.of("one-sample", "--input", x.toString(), "--cluster-mass", "3", "--output",
        dir.resolve("f").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--cluster-mass needs a mask image");
    r = CliRun.of("one-sample", "--input", x.toString(), "--tfce", "--cluster-rule", "nilearn",
        "--output", dir.resolve("g").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--cluster-rule sets how clusters form, but there are no"
        + " clusters; add --cluster-threshold T or --cluster-mass T");
    r = CliRun.of("one-sample", "--input", x.toString(), "--cluster-mass", "3", "--cluster-rule",
        "fsl", "--output", dir.resolve("h").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--cluster-rule must be randomise or nilearn, but was: fsl");
  }
}
