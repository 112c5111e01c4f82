package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.Tail;
import org.nlspark.core.result.Output;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 and §9 for a DataFrame of data already masked ({@code NlsparkOptions.mask}): its
 * partitions are cut into voxel blocks by the executors, with and without TFCE, cluster extent
 * and cluster mass (whole maps from the blocks' slices), and the outputs are the bytes of the
 * same values read whole on the driver (the in-memory matrix with the mask, the path such
 * DataFrames took before) and of the rows collected and broadcast, for 1, 3 and 7 partitions
 * and a retried task; a one-sample --tfce on a DataFrame larger than a -Xmx480m driver heap as
 * float64 is refused read on the driver (exit 3) and from blocks writes the bits of core's
 * in-memory whole-map run.
 */
class DataFrameMaskBlocksIdentityTest {
  static final int NX = 10;
  static final int NY = 9;
  static final int NZ = 8;
  /** Small blocks and windows: several voxel blocks and replicate windows. */
  static final Grid GRID = new Grid(64, 32);

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  static NiftiMask mask(int nx, int ny, int nz, double keep) {
    boolean[] selected = new boolean[nx * ny * nz];
    SplittableRandom r = new SplittableRandom(11);
    for (int f = 0; f < selected.length; f++) {
      selected[f] = r.nextDouble() < keep;
    }
    return NiftiMask.fromSelection(NiftiStudy.header(NiftiDatatype.UINT8, nx, ny, nz), selected,
        "mask");
  }

  /**
   * Sample {@code s} of a study masked to {@code v} voxels: noise, and a shift of {@code effect}
   * on the first quarter of the voxels (a slab of the grid in mask order), as float32 values.
   */
  static float[] row(long seed, int s, int v, double effect) {
    SplittableRandom r = new SplittableRandom(seed * 1_000_003L + s);
    float[] out = new float[v];
    for (int j = 0; j < v; j++) {
      out[j] = (float) (r.nextGaussian() + (j < v / 4 ? effect : 0));
    }
    return out;
  }

  static double[] matrix(long seed, int n, int v, double effect) {
    double[] out = new double[n * v];
    for (int s = 0; s < n; s++) {
      float[] f = row(seed, s, v, effect);
      for (int j = 0; j < v; j++) {
        out[s * v + j] = f[j];
      }
    }
    return out;
  }

  /**
   * The rows of {@link #row} as a DataFrame in {@code slices} partitions, each computed where
   * its partition is (no row passes through the driver), as float or double arrays.
   */
  static Dataset<Row> frame(SparkSession spark, long seed, int n, int v, double effect,
      boolean float32, int slices) {
    StructType schema = new StructType().add("id", DataTypes.IntegerType)
        .add("voxels", DataTypes.createArrayType(float32 ? DataTypes.FloatType
            : DataTypes.DoubleType));
    List<Integer> ids = new ArrayList<>();
    for (int s = 0; s < n; s++) {
      ids.add(s);
    }
    return spark.createDataFrame(JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(ids, slices).map(s -> {
          float[] f = row(seed, s, v, effect);
          Object[] values = float32 ? new Float[v] : new Double[v];
          for (int j = 0; j < v; j++) {
            values[j] = float32 ? (Object) f[j] : (Object) (double) f[j];
          }
          return RowFactory.create(s, values);
        }), schema);
  }

  /**
   * The driver-read bytes (the in-memory matrix with the mask), the collected-and-broadcast
   * bytes, and blocks for partitions default/1/3/7 and a retried task, all the same.
   */
  private RunReport checkIdentity(String what, RunReport inMemory,
      Function<Integer, RunReport> run, boolean wholeMaps, NiftiMask mask) throws Exception {
    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    RunReport base = run.apply(null);
    assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
    assertThat(ingestOf(base).get("source")).isEqualTo("DataFrameSamples");
    assertThat(base.mask()).isSameAs(mask);
    assertSameOutputs(inMemory, base, what + " broadcast vs in memory");
    if (wholeMaps) {
      assertThat(base.plan.tileCount()).as("whole-map tiles").isGreaterThan(2);
    }
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    for (Integer p : new Integer[] {null, 1, 3, 7}) {
      RunReport b = run.apply(p);
      assertThat(ingestOf(b).get("mode")).isEqualTo("blocks");
      assertThat(ingestOf(b).get("blocks")).isEqualTo(GRID.blocks(mask.count()));
      assertThat(ingestOf(b)).doesNotContainKey("driver_read_seconds");
      if (wholeMaps) {
        assertThat(ingestOf(b).get("map_slice_partitions")).isEqualTo(base.plan.tileCount());
      }
      assertThat(b.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
      assertThat(b.mask()).isSameAs(mask);
      assertSameOutputs(inMemory, b, what + " blocks, partitions " + p);
    }
    RunReport retried = SharedSpark.retriedOnce(spark, 1, () -> run.apply(3));
    assertSameOutputs(inMemory, retried, what + " blocks, retried");
    return base;
  }

  private static int significant(double[] p) {
    int found = 0;
    for (double x : p) {
      found += x < 0.05 ? 1 : 0;
    }
    return found;
  }

  @Test
  void oneSampleTfceAndClusterMassOfAMaskedFloatFrameFromBlocksAreTheDriverReadBytes()
      throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    int n = 14;
    int v = mask.count();
    Dataset<Row> df = frame(spark, 21, n, v, 0.9, true, 5);
    Supplier<NlsparkOptions.Builder> o = () -> NlsparkOptions.builder().mask(mask).tfce(true)
        .clusterMass(2.0).replicates(150).seed(7).grid(GRID);
    RunReport inMemory = Nlspark.oneSample(spark,
        DataMatrix.of(n, v, matrix(21, n, v, 0.9), "x"), o.get().build());
    RunReport base = checkIdentity("one-sample --tfce --cluster-mass", inMemory,
        p -> Nlspark.oneSample(spark, df, o.get().partitions(p).build()), true, mask);
    assertThat(ingestOf(base).get("precision")).isEqualTo("float32");
    assertThat(base.result.output("tfce")).hasSize(v);
    assertThat(base.result.output("null_max_tfce")).hasSize(150);
    assertThat(significant(base.result.output("p_fwer_tfce"))).as("the shifted slab")
        .isGreaterThan(v / 8);
  }

  @Test
  void twoSampleClustersAndMaskedCorrelationAndBootstrapFromBlocksAreTheDriverReadBytes()
      throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    int v = mask.count();
    Dataset<Row> x = frame(spark, 31, 12, v, 1.2, false, 4);
    Dataset<Row> y = frame(spark, 32, 9, v, 0.0, false, 3);
    Supplier<NlsparkOptions.Builder> two = () -> NlsparkOptions.builder().mask(mask)
        .statistic("welch-t").clusterThreshold(2.3).tfce(true).replicates(150).seed(9)
        .grid(GRID).tail(Tail.TWO);
    RunReport twoInMemory = Nlspark.twoSample(spark,
        DataMatrix.of(12, v, matrix(31, 12, v, 1.2), "x"),
        DataMatrix.of(9, v, matrix(32, 9, v, 0.0), "y"), two.get().build());
    RunReport twoBase = checkIdentity("two-sample --cluster-threshold --tfce", twoInMemory,
        p -> Nlspark.twoSample(spark, x, y, two.get().partitions(p).build()), true,
        mask);
    assertThat(ingestOf(twoBase).get("precision")).isEqualTo("float64");
    assertThat(significant(twoBase.result.output("p_fwer_cluster"))).as("the shifted slab")
        .isGreaterThan(v / 8);

    // a mask without whole maps: voxelwise outputs on the mask's grid
    double[] target = TestData.gaussian(4, 1, 12, 0);
    Supplier<NlsparkOptions.Builder> corr = () -> NlsparkOptions.builder().mask(mask)
        .statistic("pearson").replicates(150).seed(2).fwer(true).grid(GRID);
    checkIdentity("correlation with a mask", Nlspark.correlation(spark,
        DataMatrix.of(12, v, matrix(31, 12, v, 1.2), "x"), target, corr.get().build()),
        p -> Nlspark.correlation(spark, x, target, corr.get().partitions(p).build()),
        false, mask);
    Supplier<NlsparkOptions.Builder> boot = () -> NlsparkOptions.builder().mask(mask)
        .statistic("median").replicates(100).seed(3).grid(GRID);
    checkIdentity("bootstrap with a mask", Nlspark.bootstrap(spark,
        DataMatrix.of(12, v, matrix(31, 12, v, 1.2), "x"), boot.get().build()),
        p -> Nlspark.bootstrap(spark, x, boot.get().partitions(p).build()), false,
        mask);
  }

  @Test
  void aMaskOfAnotherVoxelCountAndWholeMapsWithoutAMaskAreRefused() {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    Dataset<Row> df = frame(spark, 5, 6, mask.count() - 1, 0, true, 2);
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    assertThatThrownBy(() -> Nlspark.oneSample(spark, df,
        NlsparkOptions.builder().mask(mask).replicates(20).build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use the mask with these inputs: it selects " + mask.count()
            + " voxels, but the inputs have " + (mask.count() - 1) + " columns; the mask must be"
            + " the one the data were masked with");
    // refused before the DataFrame is computed: a frame that cannot be computed is not touched
    Dataset<Row> broken = df.withColumn("voxels", org.apache.spark.sql.functions.expr(
        "cast(raise_error('computed') as array<float>)"));
    assertThatThrownBy(() -> Nlspark.oneSample(spark, broken,
        NlsparkOptions.builder().tfce(true).replicates(20).build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("--tfce needs a mask image: it joins voxels");
  }

  // ---- a driver heap smaller than the data ----

  /** The DataFrame study of the small-driver test: 250 samples x 64^3 voxels. */
  static final int BIG_N = 250;
  static final int BIG_SIDE = 64;
  static final long BIG_SEED = 41;
  static final double BIG_EFFECT = 0.3;

  /**
   * The child JVM of the small-driver test: builds the DataFrame of {@link #frame} on its
   * executors (64 partitions), runs one-sample --tfce with the mask of {@code args[0]} and
   * writes the outputs to {@code args[1]}; exit 3 for a refused resource, as the CLI.
   */
  public static final class Child {
    private Child() {}

    public static void main(String[] args) {
      SparkSession spark = SparkSession.builder().master("local[2]").appName("df-child")
          .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1").getOrCreate();
      int code = 0;
      try {
        NiftiMask mask = org.nlspark.spark.io.HadoopNiftiFiles.readMask(
            spark.sparkContext().hadoopConfiguration(), args[0], "--mask");
        Dataset<Row> df = frame(spark, BIG_SEED, BIG_N, mask.count(), BIG_EFFECT, true, 64);
        RunReport r = Nlspark.oneSample(spark, df, options(mask));
        Nlspark.write(r, args[1], false);
      } catch (ResourceRefusedException e) {
        System.err.println(e.getMessage());
        code = 3;
      } catch (RuntimeException e) {
        e.printStackTrace();
        code = 1;
      }
      spark.stop();
      System.exit(code);
    }

    static NlsparkOptions options(NiftiMask mask) {
      return NlsparkOptions.builder().mask(mask).maskSource("mask").tfce(true).replicates(10)
          .seed(9).memoryBudgetGb(0.4).build();
    }
  }

  /**
   * A driver of -Xmx480m and a DataFrame of 250 samples x 262,144 masked voxels (262 MB of
   * float32, 524 MB as float64) with --tfce: collected on the driver it is refused (exit 3); from
   * blocks it runs and writes the bits of core's in-memory whole-map run of the same values.
   */
  @Test
  void maskedFrameTfceFromBlocksRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    int side = BIG_SIDE;
    NiftiMask mask = mask(side, side, side, 2); // every voxel
    Path m = dir.resolve("mask.nii.gz");
    NiftiWriter.writeMask(m, mask);
    String heap = "-Xmx480m";

    Path refusedOut = dir.resolve("refused");
    List<String> refused = ChildJvm.command(Child.class, heap,
        "-D" + NlsparkConf.INGEST + "=broadcast");
    refused.addAll(List.of(m.toString(), refusedOut.toString()));
    Path refusedErr = dir.resolve("refused-stderr.txt");
    int code = ChildJvm.run(refused, dir, refusedErr);
    String text = Files.readString(refusedErr, StandardCharsets.UTF_8);
    assertThat(code).as(text).isEqualTo(3);
    assertThat(text).contains("on the driver", "spark.nlspark.ingest=blocks");
    assertThat(refusedOut).doesNotExist();

    Path out = dir.resolve("out");
    List<String> blocks = ChildJvm.command(Child.class, heap,
        "-D" + NlsparkConf.INGEST + "=blocks");
    blocks.addAll(List.of(m.toString(), out.toString()));
    Path err = dir.resolve("stderr.txt");
    code = ChildJvm.run(blocks, dir, err);
    assertThat(code).as(Files.readString(err, StandardCharsets.UTF_8)).isZero();
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"mode\": \"blocks\"", "\"source\": \"DataFrameSamples\"",
        "\"map_slice_partitions\"").doesNotContain("driver_read_seconds");
    assertThat(out.resolve("tfce.nii.gz")).exists();

    // core's in-memory whole-map run of the same values (the driver-read path's computation)
    int v = mask.count();
    // the budget sizes the tiles only, never the bits; this JVM holds every sample at once
    NlsparkOptions o = Child.options(mask).toBuilder().memoryBudgetGb(null).build();
    RunReport expected = new LocalEngine(2, Grid.DEFAULT, null).run(TfceAnalysis.prepare(
        o.toSpec(Analysis.ONE_SAMPLE), JobInputs.of(DataMatrix.of(BIG_N, v,
            matrix(BIG_SEED, BIG_N, v, BIG_EFFECT), "x")), 2, Grid.DEFAULT, MaskGrid.of(mask),
        o.wholeMapSettings()));
    assertThat(expected.result.outputs().stream().map(Output::name))
        .contains("tfce", "p_fwer_tfce", "null_max_tfce");
    for (Output e : expected.result.outputs()) {
      assertThat(bits(TestData.outputValues(out.resolve(e.name() + ".npy")))).as(e.name())
          .isEqualTo(bits(e.values()));
    }
    System.out.println("DataFrame one-sample --tfce from blocks under " + heap + ": " + BIG_N
        + " samples x " + v + " voxels x 10 permutations; " + summary.lines()
            .filter(l -> l.contains("peak_heap") || l.contains("compute_seconds")
                || l.contains("ingest_seconds"))
            .map(String::trim).reduce("", (p, q) -> p + " " + q));
  }
}
