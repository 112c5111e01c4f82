package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@code glm --fsl-names}: randomise's file names beside ours, holding 1 − p, on the command line
 * and, with TFCE and clusters, bit-identical for 1, 3 and 7 partitions and a retried task.
 */
class FslNamesSparkTest {
  static final int N = 12;
  static final int V = 20;

  @TempDir Path dir;

  @Test
  void theCommandWritesRandomisesNamesWithOneMinusP() throws Exception {
    double[] y = TestData.gaussian(95, N, V, 0);
    List<String> design = new ArrayList<>(List.of("intercept,group"));
    for (int i = 0; i < N; i++) {
      design.add("1," + (i % 2));
      for (int v = 0; v < 4; v++) {
        y[i * V + v] += 2.0 * (i % 2);
      }
    }
    Path d = dir.resolve("design.csv");
    Files.write(d, design);
    Path c = dir.resolve("con.csv");
    Files.write(c, List.of("intercept,group", "0,1"));
    Path out = dir.resolve("glm");
    CliRun r = CliRun.of("glm", "--input", TestData.matrix(dir, "y.npy", N, V, y).toString(),
        "--design", d.toString(), "--contrasts", c.toString(), "--permutations", "200",
        "--fsl-names", "--quiet", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    String[][] pairs = {{"p_tstat1", "vox_p_tstat1"}, {"p_fwer_tstat1", "vox_corrp_tstat1"}};
    for (String[] pair : pairs) {
      double[] p = TestData.outputValues(out.resolve(pair[0] + ".npy"));
      double[] fsl = TestData.outputValues(out.resolve(pair[1] + ".npy"));
      assertThat(fsl).hasSameSizeAs(p);
      for (int v = 0; v < p.length; v++) {
        assertThat(fsl[v]).as("%s[%d]", pair[1], v).isEqualTo(1 - p[v]);
      }
    }
    assertThat(Files.readString(out.resolve("summary.json"))).contains("\"fsl_names\"");
  }

  @Test
  void wholeMapNamesAreBitIdenticalForAnyPartitioningAndRetry() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = TfceSparkTest.mask();
    GlmDesign design = GlmTfceSparkTest.design();
    DataMatrix y = GlmTfceSparkTest.data(mask, design, 96);
    NlsparkOptions o = GlmTfceSparkTest.options(mask).toBuilder().clusterMass(2.5).fslNames(true)
        .build();
    RunReport base = Nlspark.glm(spark, y, design, GlmTfceSparkTest.contrasts(), null, o);
    for (String[] pair : new String[][] {{"p_fwer_tfce_tstat1", "tfce_corrp_tstat1"},
        {"p_tfce_fstat1", "tfce_p_fstat1"}, {"p_fwer_cluster_tstat2", "clustere_corrp_tstat2"},
        {"p_fwer_cluster_mass_fstat1", "clusterm_corrp_fstat1"}}) {
      double[] p = base.result.output(pair[0]);
      double[] fsl = base.result.output(pair[1]);
      for (int v = 0; v < p.length; v++) {
        assertThat(fsl[v]).as("%s[%d]", pair[1], v).isEqualTo(1 - p[v]);
      }
    }
    WholeMapParametersSparkTest.assertDeterministic(base, opts -> Nlspark.glm(spark, y, design,
        GlmTfceSparkTest.contrasts(), null, opts), o);
  }
}
