package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.util.ArrayList;
import java.util.List;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 for DataFrame inputs: the DataFrame's partitions are the read splits, executors cut
 * them into voxel blocks (spark.nlspark.ingest=blocks), and the outputs are the bytes of the
 * rows collected on the driver (broadcast) and of the same values as an in-memory matrix, for
 * 1, 3 and 7 partitions, a retried task, empty partitions, and float and double columns.
 */
class DataFrameSplitsIdentityTest {
  static final int N = 13;
  static final int V = 2200; // 3 voxel blocks of the default grid

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  /** Rows of {@code values} (rows x cols) in {@code slices} partitions of a parallelized RDD. */
  private Dataset<Row> frame(double[] values, int rows, int cols, boolean float32, int slices) {
    DataType element = float32 ? DataTypes.FloatType : DataTypes.DoubleType;
    StructType schema = new StructType().add("id", DataTypes.IntegerType)
        .add("voxels", DataTypes.createArrayType(element));
    List<Row> list = new ArrayList<>();
    for (int r = 0; r < rows; r++) {
      Object[] v = float32 ? new Float[cols] : new Double[cols];
      for (int j = 0; j < cols; j++) {
        double x = values[r * cols + j];
        v[j] = float32 ? (Object) (float) x : (Object) x;
      }
      list.add(RowFactory.create(r, v));
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    return spark.createDataFrame(jsc.parallelize(list, slices), schema);
  }

  private static double[] widenedFloat32(double[] values) {
    double[] out = new double[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (float) values[i];
    }
    return out;
  }

  private interface Run {
    RunReport run(NlsparkOptions options);
  }

  /** Broadcast vs blocks for partitions default/1/3/7 and one retried task. */
  private RunReport checkIdentity(String what, Run run,
      java.util.function.Supplier<NlsparkOptions> options, int splits) throws Exception {
    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    RunReport base = run.run(options.get());
    assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
    assertThat(ingestOf(base).get("source")).isEqualTo("DataFrameSamples");
    assertThat(ingestOf(base).get("splits")).isEqualTo(splits);
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    for (Integer p : new Integer[] {null, 1, 3, 7}) {
      RunReport blocks = run.run(options.get().toBuilder().partitions(p).build());
      assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
      assertThat(blocks.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
      assertSameOutputs(base, blocks, what + " blocks, partitions " + p);
    }
    RunReport retried = SharedSpark.retriedOnce(spark, 2,
        () -> run.run(options.get().toBuilder().partitions(3).build()));
    assertSameOutputs(base, retried, what + " blocks, retried");
    return base;
  }

  @Test
  void oneSampleAndBootstrapOfAFloatColumnInPartitionsAreTheInMemoryBytes() throws Exception {
    double[] g = TestData.gaussian(5, N, V, 0.2);
    Dataset<Row> df = frame(g, N, V, true, 16); // 13 rows in 16 partitions: 3 empty
    java.util.function.Supplier<NlsparkOptions> o = () -> NlsparkOptions.builder()
        .statistic("t").replicates(300).seed(3).fwer(true).build();
    RunReport base = checkIdentity("one-sample", opts -> Nlspark.oneSample(spark, df, opts), o,
        13);
    assertThat(ingestOf(base).get("precision")).isEqualTo("float32");
    DataMatrix same = DataMatrix.of(N, V, widenedFloat32(g), "x");
    assertSameOutputs(Nlspark.oneSample(spark, same, o.get()), base, "one-sample in memory");
    java.util.function.Supplier<NlsparkOptions> b = () -> NlsparkOptions.builder()
        .statistic("median").replicates(200).seed(4).saveSamples(true).build();
    RunReport boot = checkIdentity("bootstrap", opts -> Nlspark.bootstrap(spark, df, opts), b,
        13);
    assertSameOutputs(Nlspark.bootstrap(spark, same, b.get()), boot, "bootstrap in memory");
  }

  @Test
  void twoSampleAndCorrelationOfDoubleColumnsAreTheInMemoryBytes() throws Exception {
    double[] gx = TestData.gaussian(7, N, V, 0.1);
    double[] gy = TestData.gaussian(8, 9, V, -0.1);
    Dataset<Row> x = frame(gx, N, V, false, 4);
    Dataset<Row> y = frame(gy, 9, V, false, 3);
    java.util.function.Supplier<NlsparkOptions> o = () -> NlsparkOptions.builder()
        .statistic("welch-t").replicates(200).seed(9).build();
    RunReport two = checkIdentity("two-sample", opts -> Nlspark.twoSample(spark, x, y, opts), o,
        7);
    assertThat(ingestOf(two).get("precision")).isEqualTo("float64");
    assertSameOutputs(Nlspark.twoSample(spark, DataMatrix.of(N, V, gx, "x"),
        DataMatrix.of(9, V, gy, "y"), o.get()), two, "two-sample in memory");
    double[] target = TestData.gaussian(11, 1, N, 0);
    java.util.function.Supplier<NlsparkOptions> c = () -> NlsparkOptions.builder()
        .statistic("pearson").replicates(200).seed(2).fwer(true).build();
    RunReport corr = checkIdentity("correlation",
        opts -> Nlspark.correlation(spark, x, target, opts), c, 4);
    assertSameOutputs(Nlspark.correlation(spark, DataMatrix.of(N, V, gx, "x"), target, c.get()),
        corr, "correlation in memory");
  }

  @Test
  void orderByStillSortsTheRowsAsBefore() {
    double[] g = TestData.gaussian(12, 6, 40, 0.3);
    Dataset<Row> df = frame(g, 6, 40, false, 3);
    // ids reversed: sorting by id reverses the rows
    Dataset<Row> reversed = df.withColumn("id", org.apache.spark.sql.functions.expr("5 - id"));
    double[] flipped = new double[g.length];
    for (int r = 0; r < 6; r++) {
      System.arraycopy(g, r * 40, flipped, (5 - r) * 40, 40);
    }
    NlsparkOptions o = NlsparkOptions.builder().replicates(100).seed(1).orderBy("id").build();
    assertSameOutputs(Nlspark.bootstrap(spark, DataMatrix.of(6, 40, flipped, "x"), o),
        Nlspark.bootstrap(spark, reversed, o), "ordered");
  }

  @Test
  void nullsRaggedRowsAndNaNAreRefusedNamingTheRow() {
    StructType schema = new StructType().add("voxels",
        DataTypes.createArrayType(DataTypes.DoubleType));
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<Row> rows = new ArrayList<>();
    for (int r = 0; r < 6; r++) {
      rows.add(RowFactory.create((Object) new Double[] {1.0 + r, 2.0, 3.0}));
    }
    List<Row> ragged = new ArrayList<>(rows);
    ragged.set(4, RowFactory.create((Object) new Double[] {1.0, 2.0}));
    List<Row> nullRow = new ArrayList<>(rows);
    nullRow.set(3, RowFactory.create((Object) null));
    List<Row> nullValue = new ArrayList<>(rows);
    nullValue.set(5, RowFactory.create((Object) new Double[] {1.0, null, 3.0}));
    List<Row> nan = new ArrayList<>(rows);
    nan.set(4, RowFactory.create((Object) new Double[] {1.0, Double.NaN, 3.0}));
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    NlsparkOptions o = NlsparkOptions.builder().replicates(20).build();
    assertThatThrownBy(() -> Nlspark.oneSample(spark,
        spark.createDataFrame(jsc.parallelize(ragged, 3), schema), o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("row 4 has 2 values, but row 0 has 3");
    assertThatThrownBy(() -> Nlspark.oneSample(spark,
        spark.createDataFrame(jsc.parallelize(nullRow, 3), schema), o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("row 3 is null");
    assertThatThrownBy(() -> Nlspark.oneSample(spark,
        spark.createDataFrame(jsc.parallelize(nullValue, 3), schema), o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("row 5 has a null at position 1");
    assertThatThrownBy(() -> Nlspark.oneSample(spark,
        spark.createDataFrame(jsc.parallelize(nan, 3), schema), o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("row 4 has NaN at position 1");
    assertThatThrownBy(() -> Nlspark.oneSample(spark,
        spark.createDataFrame(jsc.parallelize(new ArrayList<Row>(), 2), schema), o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the DataFrame has no row");
  }
}
