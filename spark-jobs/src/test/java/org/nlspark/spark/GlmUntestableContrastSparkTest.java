package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmResult;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.io.Json;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * The mean with a covariate ({@code intercept, age}, contrast {@code 1, 0}; DESIGN §9): sign flips
 * chosen for it on the command line, said in the result line and summary.json, the planted effect
 * found; {@code --errors exchangeable} refused naming {@code --errors symmetric}; the switched
 * draws bit-identical for 1, 3 and 7 partitions, a retried task and core's LocalEngine.
 */
class GlmUntestableContrastSparkTest {
  static final int N = 14;
  static final int V = 30;
  static final Grid GRID = new Grid(8, 32);

  @TempDir Path dir;

  static double[] age() {
    return TestData.gaussian(70, 1, N, 0);
  }

  /** A mean of 2 in voxels 0..5, an age slope everywhere, unit noise. */
  static double[] data() {
    double[] age = age();
    double[] y = TestData.gaussian(71, N, V, 0);
    for (int i = 0; i < N; i++) {
      for (int v = 0; v < V; v++) {
        y[i * V + v] += (v < 6 ? 2.0 : 0.0) + 0.4 * age[i];
      }
    }
    return y;
  }

  static GlmDesign design() {
    double[] age = age();
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, age[i]};
    }
    return new GlmDesign(m, new String[] {"intercept", "age"}, "design.csv");
  }

  @Test
  @SuppressWarnings("unchecked")
  void theCommandFlipsSignsSaysSoAndFindsTheMean() throws Exception {
    Path y = TestData.matrix(dir, "y.npy", N, V, data());
    double[] age = age();
    List<String> lines = new ArrayList<>(List.of("intercept,age"));
    for (int i = 0; i < N; i++) {
      lines.add("1," + age[i]);
    }
    Path d = dir.resolve("design.csv");
    Files.write(d, lines);
    Path c = dir.resolve("con.csv");
    Files.write(c, List.of("intercept,age", "1,0"));
    Path out = dir.resolve("mean");
    CliRun r = CliRun.of("glm", "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--permutations", "500", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("tstat1 tested by sign flips (no permutation changes it)");
    Map<String, Object> s = (Map<String, Object>) Json.parse(
        Files.readString(out.resolve("summary.json")));
    Map<String, Object> plan = (Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>)
        s.get("resampling")).get("contrasts")).get("tstat1");
    assertThat(plan).containsEntry("errors", "symmetric");
    assertThat((String) plan.get("errors_reason")).contains("no row permutation changes this"
        + " contrast");
    assertThat((List<String>) s.get("warnings")).isEmpty();
    double[] pFwer = TestData.outputValues(out.resolve("p_fwer_tstat1.npy"));
    for (int v = 0; v < 6; v++) {
      assertThat(pFwer[v]).as("planted voxel %d", v).isLessThan(0.05);
    }

    Path forced = dir.resolve("forced");
    CliRun refused = CliRun.of("glm", "--input", y.toString(), "--design", d.toString(),
        "--contrasts", c.toString(), "--errors", "exchangeable", "--output", forced.toString());
    assertThat(refused.code()).as(refused.err()).isEqualTo(2);
    assertThat(refused.err()).isEqualTo("nlspark glm: Cannot test contrast tstat1 (C1) with"
        + " --errors exchangeable: no row permutation changes it (its tested part is constant,"
        + " as an intercept is), so every p would be 1; use --errors symmetric (sign flips) or"
        + " --errors both\n");
    assertThat(forced).doesNotExist();

    // Too few subjects: 5 have 32 sign flips, and the line says p cannot go below 1/32.
    Path y5 = TestData.matrix(dir, "y5.npy", 5, V, TestData.gaussian(72, 5, V, 1.0));
    Path d5 = dir.resolve("d5.csv");
    Files.write(d5, List.of("intercept,age", "1,-1", "1,0.5", "1,0", "1,1.5", "1,-1"));
    Path five = dir.resolve("five");
    r = CliRun.of("glm", "--input", y5.toString(), "--design", d5.toString(), "--contrasts",
        c.toString(), "--output", five.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("tstat1: only 32 distinct draws, smallest p 0.0313");
    assertThat(r.err()).contains("warning: tstat1: only 32 distinct draws exist, fewer than the"
        + " 5000 requested");
  }

  @Test
  void switchedDrawsAreBitIdenticalForAnyPartitioningRetryAndLocalEngine() throws Exception {
    SparkSession spark = SharedSpark.get();
    DataMatrix y = DataMatrix.of(N, V, data(), "y");
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{1, 0}, {0, 1}}, new int[][] {{0,
        1}});
    NlsparkOptions options = NlsparkOptions.builder().replicates(300).seed(9).grid(GRID).build();
    RunReport base = Nlspark.glm(spark, y, design(), contrasts, null, options);
    assertThat(base.plan.tileCount()).isGreaterThan(2);
    GlmResult result = (GlmResult) base.result;
    assertThat(result.draws().get("tstat1")).containsEntry("errors", "symmetric")
        .containsEntry("exact_enumeration", false).containsEntry("replicates_drawn", 300L);
    assertThat(result.draws().get("tstat2")).containsEntry("errors", "exchangeable");

    GlmRun.Options glm = options.toGlmOptions(null, "exchangeability blocks");
    GlmAnalysis prepared = GlmAnalysis.prepare(y, design(), contrasts, glm, "cpu", null);
    RunReport local = new LocalEngine(3, GRID, 1).run(prepared);
    TfceSparkTest.assertSame(base.result, local.result, "LocalEngine");
    TfceSparkTest.assertSame(base.result, GlmRun.run(prepared.model(), y, prepared.options()),
        "the reference loop");
    for (int partitions : new int[] {1, 3, 7}) {
      TfceSparkTest.assertSame(base.result, Nlspark.glm(spark, y, design(), contrasts, null,
          options.toBuilder().partitions(partitions).build()).result, partitions + " partitions");
    }
    SharedSpark.withRetriedTile(spark, 2, () -> {
      TfceSparkTest.assertSame(base.result, Nlspark.glm(spark, y, design(), contrasts, null,
          options).result, "retried");
    });
  }
}
