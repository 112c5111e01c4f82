package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmResult;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@code glm} with TFCE and cluster inference through the API on Spark, the grid given by the
 * image-mask seam ({@link NlsparkOptions#mask(NiftiMask)}): outputs are bit-identical for 1, 3
 * and 7 partitions, for a retried task, and to core's LocalEngine (DESIGN §5); the voxelwise maps
 * are those of the glm run without whole-map inference.
 */
class GlmTfceSparkTest {
  static final int N = 14;

  @TempDir Path dir;

  /** Intercept, group (0/1), age (nuisance for the group contrast), one more covariate. */
  static GlmDesign design() {
    double[] age = TestData.gaussian(60, 1, N, 0);
    double[] other = TestData.gaussian(61, 1, N, 0);
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, i % 2, 40 + 10 * age[i], other[i]};
    }
    return new GlmDesign(m, new String[] {"intercept", "group", "age", "other"}, "design.csv");
  }

  /** The group effect in one blob, a negative age effect in another, noise elsewhere. */
  static DataMatrix data(NiftiMask mask, GlmDesign design, long seed) {
    int v = mask.count();
    double[] y = TestData.gaussian(seed, N, v, 0);
    double[][] m = design.values();
    for (int s = 0; s < N; s++) {
      for (int voxel = 0; voxel < v; voxel++) {
        int[] ijk = mask.ijk(voxel);
        double group = ijk[0] < 4 && ijk[1] < 4 ? 1.5 : 0;
        double age = ijk[0] >= 5 && ijk[2] >= 3 ? -0.1 : 0;
        y[s * v + voxel] += 2.0 + group * m[s][1] + age * m[s][2];
      }
    }
    return DataMatrix.of(N, v, y, "y");
  }

  static GlmContrasts contrasts() {
    return GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, new int[][] {{0, 1}});
  }

  static NlsparkOptions options(NiftiMask mask) {
    return NlsparkOptions.builder().mask(mask).tfce(true).clusterThreshold(2.5).replicates(300)
        .seed(4).grid(TfceSparkTest.GRID).tail(Tail.TWO).build();
  }

  @Test
  void isBitIdenticalForAnyPartitioningRetryAndLocalEngine() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = TfceSparkTest.mask();
    GlmDesign design = design();
    DataMatrix y = data(mask, design, 62);
    RunReport base = Nlspark.glm(spark, y, design, contrasts(), null, options(mask));
    assertThat(base.plan.tileCount()).isGreaterThan(2);
    for (String s : new String[] {"tstat1", "tstat2", "fstat1"}) {
      assertThat(base.result.output("tfce_" + s)).as(s).hasSize(mask.count());
      assertThat(base.result.output("null_max_tfce_" + s)).as(s).hasSize(300);
      assertThat(base.result.output("p_fwer_cluster_" + s)).as(s).hasSize(mask.count());
    }

    GlmRun.Options glm = options(mask).toGlmOptions(null, "exchangeability blocks");
    RunReport local = new LocalEngine(3, TfceSparkTest.GRID, 1).run(GlmAnalysis.prepare(y,
        design, contrasts(), glm, "cpu", null).withWholeMaps(MaskGrid.of(mask), true, 2.5));
    TfceSparkTest.assertSame(base.result, local.result, "LocalEngine");
    for (int partitions : new int[] {1, 3, 7}) {
      TfceSparkTest.assertSame(base.result, Nlspark.glm(spark, y, design, contrasts(), null,
          options(mask).toBuilder().partitions(partitions)
              .build()).result, partitions + " partitions");
    }

    SharedSpark.withRetriedTile(spark, 2, () -> {
      TfceSparkTest.assertSame(base.result, Nlspark.glm(spark, y, design, contrasts(), null,
          options(mask)).result, "retried");
    });

    // The voxelwise maps are those of glm without whole-map inference (core's reference loop).
    GlmAnalysis plain = GlmAnalysis.prepare(y, design, contrasts(), glm, "cpu", null);
    GlmResult reference = GlmRun.run(plain.model(), y, plain.options());
    for (String name : reference.maps().keySet()) {
      assertThat(base.result.output(name)).as(name).isEqualTo(reference.get(name));
    }
    int found = 0;
    int negative = 0;
    double[] pGroup = base.result.output("p_fwer_tfce_tstat1");
    double[] tfceAge = base.result.output("tfce_tstat2");
    for (int v = 0; v < pGroup.length; v++) {
      found += pGroup[v] < 0.05 ? 1 : 0;
      negative += tfceAge[v] < 0 ? 1 : 0;
    }
    assertThat(found).as("voxels of the group blob found by TFCE").isGreaterThan(10);
    assertThat(negative).as("the age blob is negative, two-tailed").isGreaterThan(10);
  }

  @Test
  void writesEveryOutputAndTheLayoutInTheSummary() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = TfceSparkTest.mask();
    GlmDesign design = design();
    RunReport report = Nlspark.glm(spark, data(mask, design, 63), design, contrasts(), null,
        options(mask).toBuilder().replicates(100).fwerAcrossContrasts(true).build());
    Path out = dir.resolve("glm");
    Nlspark.write(report, out.toString(), false);
    for (String s : new String[] {"tstat1", "tstat2", "fstat1"}) {
      for (String name : new String[] {s, "p_" + s, "p_fwer_" + s, "null_max_" + s,
          "tfce_" + s, "p_tfce_" + s, "p_fwer_tfce_" + s, "null_max_tfce_" + s,
          "cluster_size_" + s, "p_fwer_cluster_" + s, "null_max_cluster_" + s,
          "p_cfwer_" + s}) {
        assertThat(out.resolve(name + ".npy")).as(name).exists();
      }
    }
    assertThat(TestData.outputValues(out.resolve("tfce_fstat1.npy")))
        .isEqualTo(report.result.output("tfce_fstat1"));
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"layout\": \"whole_maps_per_replicate_window\"")
        .contains("\"tfce_device\": \"executor cpu\"").contains("\"whole_map_inference\"")
        .contains("\"fwer_across_contrasts\": \"voxelwise statistics only");
  }

  @Test
  void withoutAGridTfceIsAUsageError() {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = TfceSparkTest.mask();
    GlmDesign design = design();
    DataMatrix y = data(mask, design, 64);
    assertThatThrownBy(() -> Nlspark.glm(spark, y, design, contrasts(), null,
        options(mask).toBuilder().mask(null).build())).isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("--tfce and --cluster-threshold needs a mask image");
  }
}
