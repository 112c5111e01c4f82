package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.memory.BudgetSource;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.budget.ExecutorBudget;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.output.HadoopOutput;

/** The programmatic API, the executor budget rule and the atomic output directory. */
class ApiAndBudgetTest {
  @TempDir Path dir;

  private static DataMatrix matrix(int rows, int cols, long seed) {
    return DataMatrix.of(rows, cols, TestData.gaussian(seed, rows, cols, 0.5), "x");
  }

  @Test
  void dataFrameHasOneRowPerVoxelAndOneColumnPerOutput() {
    SparkSession spark = SharedSpark.get();
    RunReport report = Nlspark.bootstrap(spark, matrix(8, 30, 1),
        NlsparkOptions.builder().replicates(64).seed(2).saveSamples(true)
            .grid(new Grid(7, 16)).partitions(3).build());
    BootstrapResult r = (BootstrapResult) report.result;
    Dataset<Row> df = Nlspark.toDataFrame(spark, r);
    assertThat(df.columns()).containsExactly("voxel", "observed", "mean", "std", "ci_lower", "ci_upper", "z",
        "p");
    List<Row> rows = df.orderBy("voxel").collectAsList();
    assertThat(rows).hasSize(30);
    for (int v = 0; v < 30; v++) {
      assertThat(rows.get(v).getInt(0)).isEqualTo(v);
      assertThat(rows.get(v).getDouble(1)).isEqualTo(r.observed[v]);
      assertThat(rows.get(v).getDouble(2)).isEqualTo(r.mean[v]);
      assertThat(rows.get(v).getDouble(5)).isEqualTo(r.ciUpper[v]);
    }
    breeze.linalg.DenseVector<Object> b = Nlspark.toBreeze(r.mean);
    assertThat(b.length()).isEqualTo(30);
    assertThat((double) b.apply(17)).isEqualTo(r.mean[17]);
    assertThat(report.engine).isEqualTo("spark");
    assertThat(report.plan.grid()).isEqualTo(new Grid(7, 16));
    assertThat(report.engineFacts.get("partitions")).isEqualTo(3);
  }

  @Test
  void apiRejectsBadOptionsWithTheFlagName() {
    assertThatThrownBy(() -> NlsparkOptions.builder().partitions(0).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--partitions must be at least 1, but was: 0");
    assertThatThrownBy(() -> Nlspark.oneSample(SharedSpark.get(), matrix(5, 4, 3),
        NlsparkOptions.builder().replicates(0).build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--permutations must be at least 1, but was: 0");
  }

  @Test
  void broadcastAboveTheLimitIsRefused() {
    SparkSession spark = SharedSpark.get();
    spark.conf().set(NlsparkConf.BROADCAST_MAX_BYTES, "1000");
    try {
      // 8 x 30 float64 = 1,920 bytes > 1,000
      assertThatThrownBy(() -> Nlspark.oneSample(spark, matrix(8, 30, 4),
          NlsparkOptions.builder().replicates(10).build()))
          .isInstanceOf(ResourceRefusedException.class)
          .hasMessageContaining("Cannot broadcast the inputs")
          .hasMessageContaining(NlsparkConf.BROADCAST_MAX_BYTES);
    } finally {
      spark.conf().unset(NlsparkConf.BROADCAST_MAX_BYTES);
    }
  }

  @Test
  void executorBudgetFollowsSparkMemoryRules() {
    // 4 GiB heap, minus 300 MiB reserved, x (0.6 and half the 0.4 beside it); 8 cores / 2 CPUs
    // per task = 4 slots.
    long heap = 4L << 30;
    ExecutorBudget b = ExecutorBudget.compute(heap, 0.6, 8, 2, 3, false, null);
    double usable = (long) ((heap - 300L * 1024 * 1024) * 0.8) / 1e9;
    assertThat(b.perExecutor().gb()).isEqualTo(usable);
    assertThat(b.perExecutor().source()).isEqualTo(BudgetSource.SPARK_EXECUTOR);
    assertThat(b.slotsPerExecutor()).isEqualTo(4);
    assertThat(b.taskSlots()).isEqualTo(12);
    assertThat(b.perTask().gb()).isEqualTo(usable / 4);
    assertThat(b.executorMemory()).contains("spark.executor.memory", "0.6");
    // An explicit budget wins, uncapped (core's MemoryBudget rule), and is shared the same way.
    ExecutorBudget e = ExecutorBudget.compute(heap, 0.6, 8, 2, 3, false, 100.0);
    assertThat(e.perExecutor().gb()).isEqualTo(100.0);
    assertThat(e.perExecutor().source()).isEqualTo(BudgetSource.EXPLICIT);
    assertThat(e.perTask().gb()).isEqualTo(25.0);
    // Local mode: the driver heap and local[N] threads.
    ExecutorBudget local = ExecutorBudget.compute(heap, 0.5, 2, 1, 1, true, null);
    assertThat(local.taskSlots()).isEqualTo(2);
    assertThat(local.executorMemory()).contains("driver (local mode)");
    // What would do for a tile too large for the executor: the heap whose budget holds it.
    assertThat(local.remedy(700L << 20)).isEqualTo("A heap of at least 1234 MiB would do"
        + " (NLSPARK_JAVA_OPTS=-Xmx1234m bin/nlspark ..., or spark-submit --driver-memory in"
        + " local mode).");
    assertThat(b.remedy(600L << 20)).isEqualTo("A heap of at least 1050 MiB would do"
        + " (spark.executor.memory).");
    assertThat(e.remedy(3_000_000_000L)).isEqualTo("Raise --memory-budget-gb to at least 3.");
    // What every executor holds beside the tiles (broadcast inputs) leaves the rest to them,
    // and the heap that would do holds both; an explicit budget is the tiles' as given.
    ExecutorBudget holding = local.holding(100L << 20);
    assertThat(holding.perExecutor().bytes()).isCloseTo(
        local.perExecutor().bytes() - (100L << 20), org.assertj.core.api.Assertions.within(2L));
    assertThat(holding.remedy(600L << 20)).startsWith("A heap of at least 1234 MiB would do");
    assertThat(e.holding(100L << 20)).isSameAs(e);
    assertThatThrownBy(() -> ExecutorBudget.compute(heap, 0.6, 8, 1, 1, false, -1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--memory-budget-gb must be");
  }

  @Test
  void outputDirectoryIsAtomic() throws Exception {
    Configuration conf = new Configuration();
    Path target = dir.resolve("result");
    try (HadoopOutput.OutputDir out = HadoopOutput.OutputDir.open(conf, target.toString(), false)) {
      out.writeNpy("a.npy", new long[] {2}, new double[] {1, 2});
      // written in place under hidden temporary names: no result is visible before commit
      try (var s = Files.list(target)) {
        assertThat(s.map(p -> p.getFileName().toString())).allMatch(n -> n.startsWith("."));
      }
      // no commit: a failure between the files
    }
    assertThat(target).doesNotExist();
    try (var s = Files.list(dir)) {
      assertThat(s).isEmpty();
    }
    try (HadoopOutput.OutputDir out = HadoopOutput.OutputDir.open(conf, target.toString(), false)) {
      out.writeNpy("a.npy", new long[] {2}, new double[] {1, 2});
      out.commit();
    }
    try (var s = Files.list(target)) {
      assertThat(s.map(p -> p.getFileName().toString())).containsExactly("a.npy");
    }
    assertThatThrownBy(() -> HadoopOutput.OutputDir.open(conf, target.toString(), false))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot write --output " + target + ": the directory exists and is not"
            + " empty; choose another directory or pass --overwrite");
    Path file = Files.writeString(dir.resolve("file"), "x");
    assertThatThrownBy(() -> HadoopOutput.OutputDir.open(conf, file.toString(), true))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("it exists and is a file");
  }
}
