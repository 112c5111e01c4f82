package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmDemean;
import org.nlspark.core.io.Json;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@code glm --demean}: the command line says the intercept was removed and refuses a contrast on
 * it; the run is bit-identical for 1, 3 and 7 partitions and a retried task, and equal to core's
 * LocalEngine run on the inputs centred by {@link GlmDemean} (checked by brute force in core).
 */
class GlmDemeanSparkTest {
  static final int N = 14;
  static final int V = 30;

  @TempDir Path dir;

  static GlmDesign design() {
    double[] age = TestData.gaussian(90, 1, N, 0);
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, 40 + 10 * age[i], i % 2};
    }
    return new GlmDesign(m, new String[] {"intercept", "age", "group"}, "design.csv");
  }

  static double[] data(GlmDesign design) {
    double[] y = TestData.gaussian(91, N, V, 0);
    for (int i = 0; i < N; i++) {
      for (int v = 0; v < V; v++) {
        y[i * V + v] += 10 + (v < 5 ? 2.0 * design.values()[i][2] : 0);
      }
    }
    return y;
  }

  @Test
  @SuppressWarnings("unchecked")
  void theCommandLineSaysSoAndRefusesAContrastOnTheIntercept() throws Exception {
    GlmDesign design = design();
    Path y = TestData.matrix(dir, "y.npy", N, V, data(design));
    List<String> lines = new ArrayList<>(List.of("intercept,age,group"));
    for (double[] row : design.values()) {
      lines.add(row[0] + "," + row[1] + "," + row[2]);
    }
    Path d = dir.resolve("design.csv");
    Files.write(d, lines);
    Path c = dir.resolve("con.csv");
    Files.write(c, List.of("intercept,age,group", "0,0,1"));
    Path out = dir.resolve("demeaned");
    CliRun r = CliRun.of("glm", "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--demean", "--permutations", "200", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("data and design demeaned, intercept column 'intercept'"
        + " removed");
    Map<String, Object> s = (Map<String, Object>) Json.parse(
        Files.readString(out.resolve("summary.json")));
    assertThat((Map<String, Object>) s.get("parameters")).containsEntry("demean", true)
        .containsEntry("demean_removed_column", "intercept");
    assertThat(((Map<String, Object>) s.get("input")).get("design_columns")).isEqualTo(2L);

    Path both = dir.resolve("both.csv");
    Files.write(both, List.of("intercept,age,group", "0,0,1", "1,0,0"));
    Path refused = dir.resolve("refused");
    r = CliRun.of("glm", "--input", y.toString(), "--design", d.toString(), "--contrasts",
        both.toString(), "--demean", "--output", refused.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("nlspark glm: Cannot demean: t contrast 2 (C2) of " + both
        + " tests the intercept column 'intercept', which --demean removes; drop --demean or"
        + " give that contrast a 0 there\n");
    assertThat(refused).doesNotExist();
  }

  @Test
  void isBitIdenticalForAnyPartitioningRetryAndLocalEngine() throws Exception {
    SparkSession spark = SharedSpark.get();
    GlmDesign design = design();
    DataMatrix y = DataMatrix.of(N, V, data(design), "y");
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 0, 1}, {0, 1, 0}},
        new int[][] {{0, 1}});
    NlsparkOptions o = NlsparkOptions.builder().replicates(300).seed(6).grid(new Grid(8, 32))
        .demean(true).build();
    RunReport base = Nlspark.glm(spark, y, design, contrasts, null, o);
    GlmDemean.Demeaned centred = GlmDemean.apply(y, design, contrasts);
    RunReport local = new LocalEngine(2, new Grid(8, 32), 1).run(GlmAnalysis.prepare(
        centred.y(), centred.design(), centred.contrasts(),
        o.toGlmOptions(null, "exchangeability blocks"), "cpu", null));
    TfceSparkTest.assertSame(base.result, local.result, "LocalEngine on the centred inputs");
    WholeMapParametersSparkTest.assertDeterministic(base,
        opts -> Nlspark.glm(spark, y, design, contrasts, null, opts), o);
  }
}
