package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.float32;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Sources;
import org.nlspark.spark.io.ParquetSamples;
import org.nlspark.spark.io.StudyInputs;

/**
 * DESIGN §8 for Parquet tables and the commands that had no block test on them: glm (with
 * F contrasts), two-sample (two tables), correlation and bootstrap read by executors into voxel
 * blocks give the bytes of the same samples as an .npy read on the driver, for 1, 3 and 7
 * partitions and a retried task; a file's row groups are splits of their own; and glm on a
 * table larger than a -Xmx480m driver heap as float64 is refused read on the driver (exit 3)
 * and from blocks writes the bytes of the same .npy.
 */
class ParquetBlocksIdentityTest {
  static final int V = 2200; // 3 voxel blocks of the default grid

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  /**
   * The rows of {@code f} (rows x V) in files of {@code fileRows} rows, file-name order, each
   * with the key {@code subject} = rows - row; {@code groupPerRow}: one row group per row.
   */
  private Path table(String name, float[] f, int[] fileRows, boolean groupPerRow)
      throws Exception {
    MessageType schema = MessageTypeParser.parseMessageType(
        "message sample { required int64 subject; repeated float voxels; }");
    int rows = f.length / V;
    Path t = dir.resolve(name);
    Files.createDirectories(t);
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    int row = 0;
    for (int part = 0; part < fileRows.length; part++) {
      try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(
          t.resolve("part-" + part + ".parquet").toString())).withConf(new Configuration())
          .withType(schema).withRowGroupSize(groupPerRow ? 1 : 128 << 20)
          .withMinRowCountForPageSizeCheck(1).withMaxRowCountForPageSizeCheck(1).build()) {
        for (int r = 0; r < fileRows[part]; r++, row++) {
          Group g = groups.newGroup();
          g.add("subject", (long) (rows - row));
          for (int j = 0; j < V; j++) {
            g.add("voxels", f[row * V + j]);
          }
          w.write(g);
        }
      }
    }
    assertThat(row * V).isEqualTo(f.length);
    return t;
  }

  private Path npy(String name, float[] f, int rows) {
    Path p = dir.resolve(name + ".npy");
    NpyWriter.writeFloat32(p, new long[] {rows, V}, f);
    return p;
  }

  /**
   * The .npy read on the driver (broadcast), then the table from blocks for partitions
   * default/1/3/7 and a retried task: the same bytes.
   */
  private void check(String what, Function<Integer, RunReport> npyRun,
      Function<Integer, RunReport> tableRun, int splits) throws Exception {
    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    RunReport base = npyRun.apply(null);
    assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
    assertThat(ingestOf(base).get("source")).isEqualTo("NpySamples");
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    for (Integer p : new Integer[] {null, 1, 3, 7}) {
      RunReport b = tableRun.apply(p);
      assertThat(ingestOf(b).get("mode")).isEqualTo("blocks");
      assertThat(ingestOf(b).get("source")).isEqualTo("ParquetSamples");
      assertThat(ingestOf(b).get("splits")).isEqualTo(splits);
      assertThat(ingestOf(b).get("precision")).isEqualTo("float32");
      assertThat(ingestOf(b)).doesNotContainKey("driver_read_seconds");
      assertThat(b.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
      assertSameOutputs(base, b, what + " parquet blocks, partitions " + p);
    }
    RunReport retried = SharedSpark.retriedOnce(spark, 1, () -> tableRun.apply(3));
    assertSameOutputs(base, retried, what + " parquet blocks, retried");
  }

  @Test
  void glmOfAParquetTableFromBlocksIsTheDriverReadNpysBytes() throws Exception {
    int n = 14;
    double[] age = TestData.gaussian(60, 1, n, 0);
    double[] g = TestData.gaussian(61, n, V, 0);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < V; j += 5) {
        g[i * V + j] += 1.2 * age[i];
      }
    }
    float[] f = float32(g);
    Path t = table("glm", f, new int[] {5, 4, 5}, false);
    Path y = npy("glm", f, n);
    List<String> lines = new ArrayList<>(List.of("intercept,age,group"));
    for (int i = 0; i < n; i++) {
      lines.add("1," + age[i] + "," + (i % 2));
    }
    Path d = Files.write(dir.resolve("design.csv"), lines);
    Path c = Files.write(dir.resolve("con.csv"), List.of("name,intercept,age,group",
        "age,0,1,0", "group,0,0,-1"));
    Path fc = Files.write(dir.resolve("f.csv"), List.of("age,group", "1,1"));
    Function<Path, Function<Integer, RunReport>> run = in -> p -> Nlspark.glm(spark,
        in.toString(), d.toString(), c.toString(), NlsparkOptions.builder().replicates(200)
            .seed(7).fContrasts(fc.toString()).partitions(p).build());
    check("glm", run.apply(y), run.apply(t), 3);
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    int found = 0;
    for (double p : run.apply(t).apply(3).result.output("p_tstat1")) {
      found += p < 0.01 ? 1 : 0;
    }
    assertThat(found).as("the age voxels").isGreaterThan(V / 10);
  }

  @Test
  void twoSampleCorrelationAndBootstrapOfParquetTablesFromBlocksAreTheDriverReadNpysBytes()
      throws Exception {
    float[] fx = float32(TestData.gaussian(71, 11, V, 0.3));
    float[] fy = float32(TestData.gaussian(72, 8, V, -0.3));
    Path tx = table("x", fx, new int[] {4, 7}, false);
    Path ty = table("y", fy, new int[] {3, 2, 3}, false);
    Path x = npy("x", fx, 11);
    Path y = npy("y", fy, 8);
    Function<Path[], Function<Integer, RunReport>> two = in -> p -> Nlspark.twoSample(spark,
        in[0].toString(), in[1].toString(), NlsparkOptions.builder().statistic("welch-t")
            .replicates(200).seed(9).fwer(true).partitions(p).build());
    check("two-sample", two.apply(new Path[] {x, y}), two.apply(new Path[] {tx, ty}), 5);
    Path target = TestData.vector(dir, "target", TestData.gaussian(4, 1, 11, 0));
    Function<Path, Function<Integer, RunReport>> corr = in -> p -> Nlspark.correlation(spark,
        in.toString(), target.toString(), NlsparkOptions.builder().statistic("pearson")
            .replicates(200).seed(2).partitions(p).build());
    check("correlation", corr.apply(x), corr.apply(tx), 2);
    Function<Path, Function<Integer, RunReport>> boot = in -> p -> Nlspark.bootstrap(spark,
        in.toString(), NlsparkOptions.builder().statistic("median").replicates(100).seed(3)
            .saveSamples(true).partitions(p).build());
    check("bootstrap", boot.apply(x), boot.apply(tx), 2);
  }

  /**
   * A file's row groups are read splits of their own (runs of whole row groups up to the split
   * size): with one row group per row and a split of two rows, 13 rows in files of 6 and 7 are
   * 7 splits, in file order and sorted by --order-by, with the bytes of the same .npy read on
   * the driver; at the default split size each file is one split.
   */
  @Test
  void rowGroupsOfAFileAreSplitsOfTheirOwnWithTheSameBytes() throws Exception {
    int n = 13;
    float[] f = float32(TestData.gaussian(81, n, V, 0.25));
    Path t = table("groups", f, new int[] {6, 7}, true);
    Configuration conf = new Configuration();
    try (var files = Files.list(t)) {
      for (Path file : files.filter(p -> p.toString().endsWith(".parquet")).toList()) {
        try (org.apache.parquet.hadoop.ParquetFileReader r =
            org.apache.parquet.hadoop.ParquetFileReader.open(
                org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(
                    new org.apache.hadoop.fs.Path(file.toString()), conf))) {
          assertThat(r.getRowGroups()).as("one row group per row of " + file)
              .hasSize((int) r.getRecordCount());
        }
      }
    }
    StudyInputs.Source source = StudyInputs.resolve(conf, t.toString(), null, null, null, null)
        .x();
    assertThat(ParquetSamples.describe(conf, source, "voxels", Sources.SPLIT_BYTES).splits())
        .isEqualTo(2);
    ParquetSamples table = ParquetSamples.describe(conf, source, "voxels", 4L * V * 2);
    assertThat(table.splits()).isEqualTo(7);
    assertThat(table.firstSample(3)).isEqualTo(6);
    assertThat(table.splitSamples(2)).isEqualTo(2);
    assertThat(table.splitSamples(3)).isEqualTo(2);
    assertThat(table.splitSamples(6)).isEqualTo(1);
    Path y = npy("groups", f, n);
    Function<Integer, RunReport> npyRun = p -> Nlspark.oneSample(spark, y.toString(),
        NlsparkOptions.builder().statistic("t").replicates(200).seed(5).partitions(p).build());
    Function<ParquetSamples, Function<Integer, RunReport>> tableRun = s -> p -> Nlspark.run(
        spark, Analysis.ONE_SAMPLE, DistributedInputs.of(s), NlsparkOptions.builder()
            .statistic("t").replicates(200).seed(5).partitions(p).build(), false);
    check("one-sample of row-group splits", npyRun, tableRun.apply(table), 7);

    // sorted by subject (n - row): the rows reversed
    List<Object> keys = new ArrayList<>();
    for (String file : table.files()) {
      keys.addAll(ParquetSamples.keys(conf, file, file, "subject"));
    }
    float[] reversed = new float[f.length];
    for (int r = 0; r < n; r++) {
      System.arraycopy(f, r * V, reversed, (n - 1 - r) * V, V);
    }
    Path yr = npy("reversed", reversed, n);
    Function<Integer, RunReport> npyReversed = p -> Nlspark.oneSample(spark, yr.toString(),
        NlsparkOptions.builder().statistic("t").replicates(200).seed(5).partitions(p).build());
    check("one-sample of sorted row-group splits", npyReversed,
        tableRun.apply(table.orderedBy(keys, "subject")), 7);
  }

  /**
   * A driver of -Xmx480m and a Parquet table of 512 MB as float64 (200 rows of 320,000 float32
   * values in eight files): glm read on the driver is refused (exit 3); from blocks it runs and
   * writes the bytes of the same samples as an .npy run here (a large heap) on the driver.
   */
  @Test
  void glmOfAParquetTableRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    int n = 200;
    int v = 320_000;
    MessageType schema = MessageTypeParser.parseMessageType(
        "message sample { repeated float voxels; }");
    Path table = dir.resolve("big-table");
    Files.createDirectories(table);
    double[] age = TestData.gaussian(60, 1, n, 0);
    float[] all = new float[n * v];
    java.util.SplittableRandom r = new java.util.SplittableRandom(53);
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    int parts = 8;
    for (int part = 0; part < parts; part++) {
      try (ParquetWriter<Group> w = ExampleParquetWriter.builder(new org.apache.hadoop.fs.Path(
          table.resolve("part-" + part + ".parquet").toString())).withConf(new Configuration())
          .withType(schema).build()) {
        for (int i = part * n / parts; i < (part + 1) * n / parts; i++) {
          Group g = groups.newGroup();
          for (int j = 0; j < v; j++) {
            float x = (float) (r.nextGaussian() + (j % 7 == 0 ? 0.8 * age[i] : 0));
            all[i * v + j] = x;
            g.add("voxels", x);
          }
          w.write(g);
        }
      }
    }
    Path npy = dir.resolve("big.npy");
    NpyWriter.writeFloat32(npy, new long[] {n, v}, all);
    all = null;
    List<String> lines = new ArrayList<>(List.of("intercept,age"));
    for (int i = 0; i < n; i++) {
      lines.add("1," + age[i]);
    }
    Path d = Files.write(dir.resolve("design.csv"), lines);
    Path c = Files.write(dir.resolve("con.csv"), List.of("name,intercept,age", "age,0,1"));
    String heap = "-Xmx480m";
    List<String> model = List.of("--design", d.toString(), "--contrasts", c.toString(),
        "--permutations", "10", "--seed", "9", "--quiet");
    List<String> args = new ArrayList<>(List.of("glm", "--input", table.toString(),
        "--master", "local[2]"));
    args.addAll(model);
    Path refusedOut = dir.resolve("refused");
    List<String> refused = ChildJvm.command(heap, "-D" + NlsparkConf.INGEST + "=broadcast");
    refused.addAll(args);
    refused.addAll(List.of("--output", refusedOut.toString()));
    Path refusedErr = dir.resolve("refused-stderr.txt");
    int code = ChildJvm.run(refused, dir, refusedErr);
    String text = Files.readString(refusedErr);
    assertThat(code).as(text).isEqualTo(3);
    assertThat(text).contains("on the driver", "spark.nlspark.ingest=blocks");
    assertThat(refusedOut).doesNotExist();

    Path out = dir.resolve("out");
    List<String> blocks = ChildJvm.command(heap, "-D" + NlsparkConf.INGEST + "=blocks");
    blocks.addAll(args);
    blocks.addAll(List.of("--output", out.toString()));
    Path err = dir.resolve("stderr.txt");
    code = ChildJvm.run(blocks, dir, err);
    assertThat(code).as(Files.readString(err)).isZero();
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"mode\": \"blocks\"", "\"source\": \"ParquetSamples\"")
        .doesNotContain("driver_read_seconds");

    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    List<String> ref = new ArrayList<>(List.of("glm", "--input", npy.toString(), "--output",
        dir.resolve("ref").toString()));
    ref.addAll(model);
    CliRun reference = CliRun.of(ref.toArray(new String[0]));
    assertThat(reference.code()).as(reference.err()).isZero();
    List<String> names = new ArrayList<>();
    try (var files = Files.list(dir.resolve("ref"))) {
      files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".npy"))
          .forEach(names::add);
    }
    assertThat(names).contains("tstat1.npy", "p_tstat1.npy");
    for (String name : names) {
      assertThat(TestData.bytes(out.resolve(name))).as(name)
          .isEqualTo(TestData.bytes(dir.resolve("ref").resolve(name)));
    }
    System.out.println("glm of a Parquet table from blocks under " + heap + ": " + n
        + " samples x " + v + " voxels; " + summary.lines().filter(l -> l.contains("peak_heap")
            || l.contains("ingest_seconds")).map(String::trim).reduce("", (p, q) -> p + " " + q));
  }
}
