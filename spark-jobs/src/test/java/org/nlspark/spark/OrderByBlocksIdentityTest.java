package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.io.StudyInputs;

/**
 * DESIGN §8 for a Parquet table sorted by {@code --order-by}: executors read the key column,
 * the driver ranks one key per sample (two rows sharing a key are refused), and each
 * file's rows go to their ranks in the voxel blocks. The outputs equal the former driver sort
 * ({@link StudyInputs#load}) and the same samples as a sorted {@code .npy}, read into blocks
 * (1, 3, 7 partitions, a retried task) or on the driver.
 */
class OrderByBlocksIdentityTest {
  static final int N = 13;
  static final int V = 2200; // 3 voxel blocks

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  /**
   * Sample s (row s of {@code values}) gets key {@code keys[s]}; the rows are written shuffled
   * ({@code order}) over files of {@code filesRows} rows.
   */
  private Path table(float[] values, long[] keys, int[] order, int[] filesRows) {
    StructType schema = new StructType().add("subject", DataTypes.LongType)
        .add("voxels", DataTypes.createArrayType(DataTypes.FloatType));
    Path out = dir.resolve("table");
    int at = 0;
    for (int part = 0; part < filesRows.length; part++) {
      List<Row> rows = new ArrayList<>();
      for (int r = 0; r < filesRows[part]; r++, at++) {
        int s = order[at];
        List<Float> v = new ArrayList<>();
        for (int j = 0; j < V; j++) {
          v.add(values[s * V + j]);
        }
        rows.add(RowFactory.create(keys[s], v));
      }
      spark.createDataFrame(rows, schema).coalesce(1).write()
          .parquet(out.resolve("part=" + part).toString());
    }
    assertThat(at).isEqualTo(N);
    return out;
  }

  private RunReport run(String ingest, Integer partitions, StudyInputs study, NlsparkOptions o) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return Nlspark.run(spark, Analysis.ONE_SAMPLE, study, null, o.toBuilder().partitions(partitions)
        .build(),
        false);
  }

  /**
   * A DataFrame with {@code orderBy}: Spark ranks only the keys, each partition's rows go to
   * their ranks; the outputs equal the rows sorted by Spark and collected (the former path) for
   * unique keys, and the stable order (ties by the DataFrame's order) for tied keys; blocks and
   * the driver read agree for 1, 3, 7 partitions and a retried task.
   */
  @Test
  void orderedDataFrameOnBlocksGivesTheCollectedSortsBytes() throws Exception {
    double[] g = TestData.gaussian(43, N, V, 0.2);
    int[] order = {7, 2, 12, 0, 5, 9, 1, 11, 3, 8, 6, 10, 4};
    StructType schema = new StructType().add("subject", DataTypes.LongType)
        .add("tie", DataTypes.LongType)
        .add("voxels", DataTypes.createArrayType(DataTypes.DoubleType));
    List<Row> rows = new ArrayList<>();
    for (int s : order) {
      Double[] v = new Double[V];
      for (int j = 0; j < V; j++) {
        v[j] = g[s * V + j];
      }
      rows.add(RowFactory.create((long) s, (long) (s / 3), v));
    }
    org.apache.spark.sql.Dataset<Row> df = spark.createDataFrame(
        org.apache.spark.api.java.JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(rows, 4), schema);
    NlsparkOptions o = NlsparkOptions.builder().statistic("t").replicates(300).seed(3)
        .fwer(true).build();
    // the former path: sorted by Spark and collected, the matrix broadcast
    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    RunReport reference = Nlspark.run(spark, Analysis.ONE_SAMPLE, JobInputs.of(
        org.nlspark.spark.io.DataFrameMatrices.read(df, "voxels", "subject")), o, false);
    // ties: the stable order, by the DataFrame's own order, as an in-memory matrix
    List<Integer> stable = new ArrayList<>();
    for (int s : order) {
      stable.add(s);
    }
    stable.sort((a, b) -> Integer.compare(a / 3, b / 3));
    double[] tied = new double[N * V];
    for (int k = 0; k < N; k++) {
      System.arraycopy(g, stable.get(k) * V, tied, k * V, V);
    }
    RunReport tieReference = Nlspark.run(spark, Analysis.ONE_SAMPLE, JobInputs.of(
        org.nlspark.core.data.DataMatrix.of(N, V, tied, "tied")), o, false);
    for (String key : List.of("subject", "tie")) {
      RunReport expected = key.equals("subject") ? reference : tieReference;
      for (String ingest : List.of("broadcast", "blocks")) {
        for (Integer p : ingest.equals("blocks") ? new Integer[] {null, 1, 3, 7}
            : new Integer[] {null}) {
          spark.conf().set(NlsparkConf.INGEST, ingest);
          RunReport got = Nlspark.oneSample(spark, df, o.toBuilder().orderBy(key).partitions(p)
              .build());
          assertThat(ingestOf(got).get("mode")).isEqualTo(ingest);
          assertSameOutputs(expected, got, "DataFrame by " + key + ", " + ingest + " " + p);
        }
      }
    }
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    RunReport retried = SharedSpark.retriedOnce(spark, 1,
        () -> Nlspark.oneSample(spark, df, o.toBuilder().orderBy("tie").partitions(3).build()));
    assertSameOutputs(tieReference, retried, "DataFrame by tie, retried");
  }

  @Test
  void orderedParquetOnBlocksGivesTheDriverSortsBytes() throws Exception {
    double[] g = TestData.gaussian(41, N, V, 0.2);
    float[] f = new float[g.length];
    for (int i = 0; i < g.length; i++) {
      f[i] = (float) g[i];
    }
    // sample s has key 3 s + 1 (two rows sharing a key are refused); the rows are written in
    // this (shuffled) order
    int[] order = {7, 2, 12, 0, 5, 9, 1, 11, 3, 8, 6, 10, 4};
    long[] keys = new long[N];
    for (int s = 0; s < N; s++) {
      keys[s] = 3L * s + 1;
    }
    Path table = table(f, keys, order, new int[] {5, 2, 6});
    // The order the former driver sort gives: by key
    List<Integer> written = new ArrayList<>();
    for (int s : order) {
      written.add(s);
    }
    List<Integer> sorted = new ArrayList<>(written);
    sorted.sort((a, b) -> Long.compare(keys[a], keys[b]));
    float[] inOrder = new float[N * V];
    for (int k = 0; k < N; k++) {
      System.arraycopy(f, sorted.get(k) * V, inOrder, k * V, V);
    }
    Path npy = dir.resolve("sorted.npy");
    NpyWriter.writeFloat32(npy, new long[] {N, V}, inOrder);

    Configuration conf = spark.sparkContext().hadoopConfiguration();
    StudyInputs study = StudyInputs.resolve(conf, table.toString(), null, null, null, "subject");
    assertThat(study.executorsCanRead()).isTrue();
    NlsparkOptions o = NlsparkOptions.builder().statistic("t").replicates(300).seed(3)
        .fwer(true).build();
    // the former path: the table sorted on the driver, the matrix broadcast
    JobInputs driverSorted = study.load(conf, Analysis.ONE_SAMPLE, null);
    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    RunReport reference = Nlspark.run(spark, Analysis.ONE_SAMPLE, driverSorted, o, false);
    RunReport fromNpy = run("broadcast", null, StudyInputs.resolve(conf, npy.toString(), null,
        null, null, null), o);
    assertSameOutputs(reference, fromNpy, "the sorted .npy");
    RunReport broadcast = run("broadcast", null, study, o);
    assertThat(ingestOf(broadcast).get("mode")).isEqualTo("broadcast");
    assertSameOutputs(reference, broadcast, "ordered parquet read on the driver");
    for (Integer p : new Integer[] {null, 1, 3, 7}) {
      RunReport blocks = run("blocks", p, study, o);
      assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
      assertThat(ingestOf(blocks).get("precision")).isEqualTo("float32");
      assertThat(ingestOf(blocks).get("splits")).isEqualTo(3);
      assertSameOutputs(reference, blocks, "ordered parquet blocks, partitions " + p);
    }
    RunReport retried = SharedSpark.retriedOnce(spark, 1, () -> run("blocks", 3, study, o));
    assertSameOutputs(reference, retried, "ordered parquet blocks, retried");
    // and the CLI writes the same files as from the sorted .npy
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    CliRun cli = CliRun.of("one-sample", "--input", table.toString(), "--order-by", "subject",
        "--permutations", "300", "--seed", "3", "--output", dir.resolve("cli").toString(),
        "--quiet");
    assertThat(cli.code()).as(cli.err()).isZero();
    CliRun cliNpy = CliRun.of("one-sample", "--input", npy.toString(), "--permutations", "300",
        "--seed", "3", "--output", dir.resolve("cli-npy").toString(), "--quiet");
    assertThat(cliNpy.code()).as(cliNpy.err()).isZero();
    List<String> names = new ArrayList<>();
    try (var files = java.nio.file.Files.list(dir.resolve("cli-npy"))) {
      files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".npy"))
          .forEach(names::add);
    }
    assertThat(names).contains("p.npy");
    for (String name : names) {
      assertThat(TestData.bytes(dir.resolve("cli").resolve(name))).as(name)
          .isEqualTo(TestData.bytes(dir.resolve("cli-npy").resolve(name)));
    }
  }

  /**
   * A driver of -Xmx480m and a sorted Parquet table of 512 MB as float64 (200 rows of 320,000
   * float32 values in eight files of 32 MB, rows shuffled): the driver-read path is refused (exit 3), the
   * block path runs and writes the bytes of the same samples as a sorted .npy.
   */
  @Test
  void orderedParquetRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    int n = 200;
    int v = 320_000;
    org.apache.parquet.schema.MessageType schema = org.apache.parquet.schema.MessageTypeParser
        .parseMessageType("message sample { required int64 subject; repeated float voxels; }");
    Path table = dir.resolve("big-table");
    java.nio.file.Files.createDirectories(table);
    Configuration conf = new Configuration();
    float[] sorted = new float[n * v];
    java.util.SplittableRandom r = new java.util.SplittableRandom(47);
    int parts = 8;
    for (int part = 0; part < parts; part++) {
      try (org.apache.parquet.hadoop.ParquetWriter<org.apache.parquet.example.data.Group> w =
          org.apache.parquet.hadoop.example.ExampleParquetWriter.builder(
              new org.apache.hadoop.fs.Path(table.resolve("part-" + part + ".parquet")
                  .toString())).withConf(conf).withType(schema).build()) {
        org.apache.parquet.example.data.simple.SimpleGroupFactory groups =
            new org.apache.parquet.example.data.simple.SimpleGroupFactory(schema);
        for (int i = 0; i < n / parts; i++) {
          int subject = i * parts + (parts - 1 - part); // the files interleave the subjects
          org.apache.parquet.example.data.Group g = groups.newGroup();
          g.add("subject", (long) (n - subject)); // sorted: subject n-1 first
          int k = n - 1 - subject; // its rank
          for (int j = 0; j < v; j++) {
            float x = (float) (r.nextGaussian() + 0.05);
            sorted[k * v + j] = x;
            g.add("voxels", x);
          }
          w.write(g);
        }
      }
    }
    Path npy = dir.resolve("big-sorted.npy");
    NpyWriter.writeFloat32(npy, new long[] {n, v}, sorted);
    sorted = null;
    String heap = "-Xmx480m";
    List<String> args = List.of("one-sample", "--input", table.toString(), "--order-by",
        "subject", "--permutations", "20", "--seed", "9", "--master", "local[2]", "--quiet");
    Path refusedOut = dir.resolve("refused");
    List<String> refused = ChildJvm.command(heap,
        "-D" + NlsparkConf.INGEST + "=broadcast");
    refused.addAll(args);
    refused.addAll(List.of("--output", refusedOut.toString()));
    Path refusedErr = dir.resolve("refused-stderr.txt");
    int code = ChildJvm.run(refused, dir, refusedErr);
    String text = java.nio.file.Files.readString(refusedErr);
    assertThat(code).as(text).isEqualTo(3);
    assertThat(text).contains("on the driver", "spark.nlspark.ingest=blocks");
    assertThat(refusedOut).doesNotExist();

    Path out = dir.resolve("out");
    List<String> blocks = ChildJvm.command(heap,
        "-D" + NlsparkConf.INGEST + "=blocks");
    blocks.addAll(args);
    blocks.addAll(List.of("--output", out.toString()));
    Path err = dir.resolve("stderr.txt");
    code = ChildJvm.run(blocks, dir, err);
    assertThat(code).as(java.nio.file.Files.readString(err)).isZero();
    String summary = java.nio.file.Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"mode\": \"blocks\"");
    // the same samples as a sorted .npy, here (a large heap), read on the driver
    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    CliRun ref = CliRun.of("one-sample", "--input", npy.toString(), "--permutations", "20",
        "--seed", "9", "--output", dir.resolve("ref").toString(), "--quiet");
    assertThat(ref.code()).as(ref.err()).isZero();
    List<String> names = new ArrayList<>();
    try (var files = java.nio.file.Files.list(dir.resolve("ref"))) {
      files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".npy"))
          .forEach(names::add);
    }
    assertThat(names).contains("p.npy");
    for (String name : names) {
      assertThat(TestData.bytes(out.resolve(name))).as(name)
          .isEqualTo(TestData.bytes(dir.resolve("ref").resolve(name)));
    }
    System.out.println("one-sample --order-by from blocks under " + heap + ": " + n
        + " samples x " + v + " voxels; " + summary.lines().filter(l -> l.contains("peak_heap")
            || l.contains("ingest_seconds")).map(String::trim).reduce("", (p, q) -> p + " " + q));
  }

}
