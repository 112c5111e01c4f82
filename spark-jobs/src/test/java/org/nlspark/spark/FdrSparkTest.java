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
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.Json;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@code --fdr}: Benjamini–Hochberg q maps beside the uncorrected p maps, equal to the definition
 * computed by brute force here, for one-sample and glm, and bit-identical for 1, 3 and 7
 * partitions and a retried task.
 */
class FdrSparkTest {
  static final int N = 12;
  static final int V = 60;

  @TempDir Path dir;

  /** q_i = min over j with p_j ≥ p_i of min(1, m p_j / #{l : p_l ≤ p_j}). */
  static double[] bh(double[] p) {
    int m = p.length;
    double[] q = new double[m];
    for (int i = 0; i < m; i++) {
      double best = 1.0;
      for (int j = 0; j < m; j++) {
        if (p[j] >= p[i]) {
          int rank = 0;
          for (double x : p) {
            rank += x <= p[j] ? 1 : 0;
          }
          best = Math.min(best, m * p[j] / rank);
        }
      }
      q[i] = best;
    }
    return q;
  }

  static void assertBh(double[] q, double[] p, String what) {
    double[] expected = bh(p);
    assertThat(q).as(what).hasSize(p.length);
    for (int i = 0; i < p.length; i++) {
      assertThat(q[i]).as("%s[%d]", what, i).isCloseTo(expected[i],
          org.assertj.core.data.Offset.offset(1e-15));
    }
  }

  @Test
  void oneSampleQIsBhOfPForAnyPartitioningAndRetry() throws Exception {
    SparkSession spark = SharedSpark.get();
    DataMatrix x = DataMatrix.of(N, V, TestData.gaussian(81, N, V, 1.2), "x");
    NlsparkOptions o = NlsparkOptions.builder().replicates(400).seed(3).fdr(true)
        .grid(new Grid(16, 32)).statistic("t").build();
    RunReport base = Nlspark.oneSample(spark, x, o);
    assertThat(base.plan.tileCount()).isGreaterThan(2);
    assertBh(base.result.output("q"), base.result.output("p"), "q");
    long below = 0;
    for (double q : base.result.output("q")) {
      below += q < 0.05 ? 1 : 0;
    }
    assertThat(below).as("the shifted voxels (every 7th) found at FDR 0.05").isPositive();
    @SuppressWarnings("unchecked")
    Map<String, Object> fdr = (Map<String, Object>) base.result.facts().get("fdr");
    assertThat(fdr).containsEntry("method", "benjamini-hochberg")
        .containsEntry("from", List.of("p"));
    RunReport plain = Nlspark.oneSample(spark, x, o.toBuilder().fdr(false).build());
    assertThat(plain.result.output("q")).isNull();
    assertThat(plain.result.output("p")).isEqualTo(base.result.output("p"));
    for (int partitions : new int[] {1, 3, 7}) {
      TfceSparkTest.assertSame(base.result, Nlspark.oneSample(spark, x,
          o.toBuilder().partitions(partitions).build()).result, partitions + " partitions");
    }
    SharedSpark.withRetriedTile(spark, 1, () -> {
      TfceSparkTest.assertSame(base.result, Nlspark.oneSample(spark, x, o).result,
          "retried");
    });
  }

  @Test
  void glmWritesQPerContrastOnTheCommandLine() throws Exception {
    double[] age = TestData.gaussian(82, 1, N, 0);
    double[] y = TestData.gaussian(83, N, V, 0);
    List<String> design = new ArrayList<>(List.of("intercept,age,group"));
    for (int i = 0; i < N; i++) {
      design.add("1," + age[i] + "," + (i % 2));
      for (int v = 0; v < V; v += 3) {
        y[i * V + v] += 2.0 * (i % 2);
      }
    }
    Path d = dir.resolve("design.csv");
    Files.write(d, design);
    Path c = dir.resolve("con.csv");
    Files.write(c, List.of("intercept,age,group", "0,0,1", "0,1,0"));
    Path f = dir.resolve("f.csv");
    Files.write(f, List.of("c1,c2", "1,1"));
    Path in = TestData.matrix(dir, "y.npy", N, V, y);
    Path out = dir.resolve("glm");
    CliRun r = CliRun.of("glm", "--input", in.toString(), "--design", d.toString(),
        "--contrasts", c.toString(), "--f-contrasts", f.toString(), "--permutations", "300",
        "--fdr", "--quiet", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    for (String s : new String[] {"tstat1", "tstat2", "fstat1"}) {
      assertBh(TestData.outputValues(out.resolve("q_" + s + ".npy")),
          TestData.outputValues(out.resolve("p_" + s + ".npy")), "q_" + s);
    }
    assertThat(out.resolve("q_fwer_tstat1.npy")).doesNotExist();
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"benjamini-hochberg\"").contains("q_tstat1.npy");
    @SuppressWarnings("unchecked")
    Map<String, Object> s = (Map<String, Object>) Json.parse(summary);
    assertThat(s.get("result").toString()).contains("q_below_0_05");
  }
}
