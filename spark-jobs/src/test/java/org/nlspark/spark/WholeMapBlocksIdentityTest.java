package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmFiles;
import org.nlspark.core.glm.GlmModel;
import org.nlspark.core.glm.GlmResult;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.job.Tail;
import org.nlspark.core.result.Output;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.WholeMapSettings;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 and §9 for whole-map inference: TFCE, cluster extent and cluster mass run from the
 * voxel blocks executors hold (each block's slices of the maps, one shuffle by replicate window,
 * whole maps folded there) and give the bytes of the samples read on the driver and broadcast,
 * for glm (with and without --demean, and with --variance-smoothing, whose slices carry each
 * draw's variance map) and one-sample, for 1, 3 and 7 partitions and a retried task; a glm
 * --tfce (and one with --variance-smoothing) whose samples do not fit the driver heap as float64
 * runs from blocks in a JVM where the driver-read path is refused, with the bits of core's
 * in-memory whole-map run.
 */
class WholeMapBlocksIdentityTest {
  static final int NX = 10;
  static final int NY = 9;
  static final int NZ = 8;
  static final int N = 16;
  /** Small blocks and windows: about ten voxel blocks and five replicate windows. */
  static final Grid GRID = new Grid(64, 32);

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  private static NiftiHeader header(NiftiDatatype type, long... shape) {
    return NiftiStudy.header(type, shape);
  }

  private static NiftiMask mask(int nx, int ny, int nz, double keep) {
    boolean[] selected = new boolean[nx * ny * nz];
    SplittableRandom r = new SplittableRandom(11);
    for (int f = 0; f < selected.length; f++) {
      selected[f] = r.nextDouble() < keep;
    }
    return NiftiMask.fromSelection(header(NiftiDatatype.UINT8, nx, ny, nz), selected, "mask");
  }

  /** age per sample, shared by the design and the data. */
  private static double[] age(int n) {
    return TestData.gaussian(60, 1, n, 0);
  }

  /**
   * Whole-grid volumes (file order, i fastest): noise, a group effect in one blob, a negative
   * age effect in another, and a mean of 0.4 in a third (what one-sample finds), as float32.
   */
  private static float[][] volumes(int n, long seed) {
    double[] age = age(n);
    SplittableRandom r = new SplittableRandom(seed);
    float[][] vols = new float[n][NX * NY * NZ];
    for (int s = 0; s < n; s++) {
      for (int f = 0; f < vols[s].length; f++) {
        int i = f % NX;
        int j = (f / NX) % NY;
        int k = f / (NX * NY);
        double v = r.nextGaussian() + 2.0;
        v += i < 4 && j < 4 ? 1.5 * (s % 2) : 0;
        v += i >= 6 && k >= 4 ? -0.8 * age[s] : 0;
        v += j >= 6 && k < 3 ? 0.4 : -2.0;
        vols[s][f] = (float) v;
      }
    }
    return vols;
  }

  private Path study(String name, int n, long seed) {
    Path p = dir.resolve(name + ".nii.gz");
    NiftiStudy.write(p, header(NiftiDatatype.FLOAT32, NX, NY, NZ, n), volumes(n, seed));
    return p;
  }

  private Path maskFile(NiftiMask mask) {
    Path p = dir.resolve("mask.nii.gz");
    NiftiWriter.writeMask(p, mask);
    return p;
  }

  private Path design(int n) throws IOException {
    double[] age = age(n);
    SplittableRandom r = new SplittableRandom(3);
    List<String> lines = new ArrayList<>(List.of("intercept,group,age,other"));
    for (int i = 0; i < n; i++) {
      lines.add("1," + (i % 2) + "," + age[i] + "," + r.nextGaussian());
    }
    return Files.write(dir.resolve("design" + n + ".csv"), lines);
  }

  private Path contrasts() throws IOException {
    return Files.write(dir.resolve("con.csv"), List.of("name,intercept,group,age,other",
        "group,0,1,0,0", "age,0,0,1,0"));
  }

  private Path fContrasts() throws IOException {
    return Files.write(dir.resolve("f.csv"), List.of("group,age", "1,1"));
  }

  private RunReport glm(String ingest, Integer partitions, Path y, Path design, Path contrasts,
      NlsparkOptions options) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return Nlspark.glm(spark, y.toString(), design.toString(), contrasts.toString(),
        options.toBuilder().partitions(partitions).build());
  }

  private void assertBlocksGiveTheBroadcastBytes(Supplier<RunReport> broadcast,
      java.util.function.Function<Integer, RunReport> blocks, String what) throws Exception {
    RunReport base = broadcast.get();
    assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
    assertThat(base.plan.tileCount()).as("whole-map tiles").isGreaterThan(2);
    for (Integer p : new Integer[] {null, 1, 3, 7}) {
      RunReport b = blocks.apply(p);
      assertThat(ingestOf(b).get("mode")).isEqualTo("blocks");
      assertThat(ingestOf(b).get("blocks")).isEqualTo(GRID.blocks(base.result.voxels()));
      assertThat(ingestOf(b).get("map_slice_partitions")).isEqualTo(base.plan.tileCount());
      assertThat(b.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
      assertSameOutputs(base, b, what + ", partitions " + p);
    }
    RunReport retried = SharedSpark.retriedOnce(spark, 1, () -> blocks.apply(3));
    assertSameOutputs(base, retried, what + ", retried");
  }

  @Test
  void glmTfceAndClustersFromBlocksGiveTheBroadcastBytes() throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    Path y = study("glm", N, 21);
    Path m = maskFile(mask);
    Path d = design(N);
    Path c = contrasts();
    Path fc = fContrasts();
    Supplier<NlsparkOptions> options = () -> NlsparkOptions.builder().maskFile(m.toString())
        .fContrasts(fc.toString()).tfce(true).clusterThreshold(2.3).clusterMass(2.0)
        .replicates(150).seed(5).grid(GRID).tail(Tail.TWO).fwerAcrossContrasts(true).build();
    assertBlocksGiveTheBroadcastBytes(() -> glm("broadcast", null, y, d, c, options.get()),
        p -> glm("blocks", p, y, d, c, options.get()), "glm --tfce --cluster-*");
    RunReport blocks = glm("blocks", 3, y, d, c, options.get());
    for (String s : new String[] {"tstat1", "tstat2", "fstat1"}) {
      assertThat(blocks.result.output("tfce_" + s)).as(s).hasSize(mask.count());
      assertThat(blocks.result.output("null_max_tfce_" + s)).as(s).hasSize(150);
      assertThat(blocks.result.output("p_fwer_cluster_" + s)).as(s).hasSize(mask.count());
    }
    int found = 0;
    for (double p : blocks.result.output("p_fwer_tfce_tstat1")) {
      found += p < 0.05 ? 1 : 0;
    }
    assertThat(found).as("voxels of the group blob found by TFCE").isGreaterThan(10);
  }

  /**
   * DESIGN §3.5: a whole-map tile that fits the executor's budget but not a task slot's share of
   * it runs one at a time (the gate), not refused, with the bytes of an unconstrained run; a
   * budget below one tile is refused naming the budget that would do.
   */
  @Test
  void aTileAboveATaskShareRunsAloneWithTheSameBytes() throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    Path y = study("gate", N, 24);
    Path m = maskFile(mask);
    Path d = design(N);
    Path c = contrasts();
    // 30 permutations and the identity: one window of the grid, so every budget plans one tile
    Supplier<NlsparkOptions.Builder> options = () -> NlsparkOptions.builder()
        .maskFile(m.toString()).tfce(true).replicates(30).seed(9).grid(GRID);
    RunReport base = glm("broadcast", null, y, d, c, options.get().build());
    long tile = glm("blocks", 2, y, d, c, options.get().build()).plan.bytesPerTile();
    RunReport gated = glm("blocks", 2, y, d, c,
        options.get().memoryBudgetGb(1.2 * tile / 1e9).build());
    assertThat(gated.plan.concurrentTiles()).isEqualTo(1);
    assertThat(gated.plan.bytesPerTile()).isEqualTo(tile);
    // these blocks are small: they and the one tile fit (BlockStorageTest: where they do not)
    assertThat(ingestOf(gated).get("block_storage")).isEqualTo("memory_and_disk");
    assertThat((String) ingestOf(gated).get("block_storage_reason"))
        .contains("and 1 tile at once of");
    assertSameOutputs(base, gated, "glm --tfce, one tile at a time");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> glm("blocks", 2, y, d, c,
        options.get().memoryBudgetGb(0.9 * tile / 1e9).build()))
        .isInstanceOf(org.nlspark.core.ResourceRefusedException.class)
        .hasMessageContaining("x 30 replicates needs")
        .hasMessageContaining("even run one at a time. Raise --memory-budget-gb to at least");
  }

  @Test
  void glmDemeanFromBlocksGivesTheBroadcastBytesWithAndWithoutTfce() throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    Path y = study("demean", N, 22);
    Path m = maskFile(mask);
    Path d = design(N);
    Path c = contrasts();
    Supplier<NlsparkOptions> tfce = () -> NlsparkOptions.builder().maskFile(m.toString())
        .demean(true).tfce(true).replicates(150).seed(6).grid(GRID).build();
    assertBlocksGiveTheBroadcastBytes(() -> glm("broadcast", null, y, d, c, tfce.get()),
        p -> glm("blocks", p, y, d, c, tfce.get()), "glm --demean --tfce");
    Supplier<NlsparkOptions> plain = () -> NlsparkOptions.builder().maskFile(m.toString())
        .demean(true).replicates(150).seed(6).grid(GRID).build();
    RunReport base = glm("broadcast", null, y, d, c, plain.get());
    for (Integer p : new Integer[] {1, 3, 7}) {
      RunReport b = glm("blocks", p, y, d, c, plain.get());
      assertThat(ingestOf(b).get("mode")).isEqualTo("blocks");
      assertSameOutputs(base, b, "glm --demean, partitions " + p);
    }
    assertThat(glm("blocks", 3, y, d, c, plain.get()).summary().toString())
        .contains("demean_removed_column=intercept");
  }

  /**
   * The assembling task holds every contrast's whole maps of its windows: a budget below one
   * window's maps is refused (exit 3) before any tile runs, naming the budget.
   */
  @Test
  void oneWindowOfWholeMapsAboveTheBudgetIsRefused() throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    Path y = study("tight", N, 25);
    Path m = maskFile(mask);
    NlsparkOptions options = NlsparkOptions.builder().maskFile(m.toString()).tfce(true)
        .replicates(60).seed(8).grid(GRID).memoryBudgetGb(0.0002).build();
    org.assertj.core.api.Assertions.assertThatThrownBy(
        () -> glm("blocks", 3, y, design(N), contrasts(), options))
        .isInstanceOf(org.nlspark.core.ResourceRefusedException.class)
        .hasMessageStartingWith("Cannot plan tiles: one glm tile of " + mask.count()
            + " cells x 32 replicates needs")
        .hasMessageContaining("Raise --memory-budget-gb");
  }

  /**
   * Variance smoothing from blocks: the slices carry each draw's variance map beside its t map,
   * the assembling task smooths the whole variance maps and forms the pseudo-t; the bytes of the
   * driver-read path alone, with --tfce, with --cluster-threshold and with --demean.
   */
  @Test
  void glmVarianceSmoothingFromBlocksGivesTheBroadcastBytes() throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    Path y = study("smooth", N, 24);
    Path m = maskFile(mask);
    Path d = design(N);
    Path c = contrasts();
    Supplier<NlsparkOptions.Builder> alone = () -> NlsparkOptions.builder().maskFile(m.toString())
        .varianceSmoothing(5.0).replicates(150).seed(8).grid(GRID).tail(Tail.TWO);
    assertBlocksGiveTheBroadcastBytes(() -> glm("broadcast", null, y, d, c, alone.get().build()),
        p -> glm("blocks", p, y, d, c, alone.get().build()), "glm --variance-smoothing");
    assertBlocksGiveTheBroadcastBytes(
        () -> glm("broadcast", null, y, d, c, alone.get().tfce(true).build()),
        p -> glm("blocks", p, y, d, c, alone.get().tfce(true).build()),
        "glm --variance-smoothing --tfce");
    assertBlocksGiveTheBroadcastBytes(
        () -> glm("broadcast", null, y, d, c, alone.get().clusterThreshold(2.3).build()),
        p -> glm("blocks", p, y, d, c, alone.get().clusterThreshold(2.3).build()),
        "glm --variance-smoothing --cluster-threshold");
    Supplier<NlsparkOptions> demeaned = () -> alone.get().demean(true).tfce(true).build();
    RunReport base = glm("broadcast", null, y, d, c, demeaned.get());
    RunReport blocks = glm("blocks", 3, y, d, c, demeaned.get());
    assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
    assertSameOutputs(base, blocks, "glm --variance-smoothing --demean --tfce");

    // The blocks' maps are pseudo-t: not the plain t of the same run without smoothing.
    RunReport smoothed = glm("blocks", 3, y, d, c, alone.get().tfce(true).build());
    assertThat(smoothed.summary().toString()).contains("variance_smoothing_mm=5.0");
    assertThat(smoothed.result.output("tfce_tstat1")).hasSize(mask.count());
    double[] pseudo = smoothed.result.output("tstat1");
    double[] t = glm("blocks", 3, y, d, c, alone.get().varianceSmoothing(null).build()).result
        .output("tstat1");
    int differ = 0;
    for (int v = 0; v < t.length; v++) {
      differ += t[v] != pseudo[v] ? 1 : 0;
    }
    assertThat(differ).as("voxels whose pseudo-t is not the t").isGreaterThan(t.length / 2);
  }

  @Test
  void oneSampleTfceFromBlocksGivesTheBroadcastBytes() throws Exception {
    NiftiMask mask = mask(NX, NY, NZ, 0.85);
    Path y = study("one", N, 23);
    Path m = maskFile(mask);
    Supplier<NlsparkOptions> options = () -> NlsparkOptions.builder().maskFile(m.toString())
        .tfce(true).clusterMass(2.0).replicates(150).seed(7).grid(GRID).build();
    java.util.function.BiFunction<String, Integer, RunReport> run = (ingest, p) -> {
      spark.conf().set(NlsparkConf.INGEST, ingest);
      return Nlspark.oneSample(spark, y.toString(), options.get().toBuilder().partitions(p)
          .build());
    };
    assertBlocksGiveTheBroadcastBytes(() -> run.apply("broadcast", null),
        p -> run.apply("blocks", p), "one-sample --tfce --cluster-mass");
  }

  // ---- a driver heap smaller than the data ----

  /**
   * A driver of -Xmx480m (Spark's minimum is 450 MiB) and 250 samples x 262,144 voxels (262 MB
   * of float32, 524 MB as float64) with --tfce: read on the driver it is refused (exit 3); from
   * blocks it runs and writes the bits of core's in-memory whole-map run of the same values.
   */
  @Test
  void glmTfceFromBlocksRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    InMemory run = glmUnderASmallDriverHeap(List.of());
    // and the t map is the reference loop's (core's GlmRun, no whole maps)
    GlmAnalysis glm = run.glm();
    GlmModel model = glm.model();
    GlmResult reference = GlmRun.run(model, ((GlmAnalysis.Data) glm.data()).y(), glm.options());
    assertThat(bits(run.expected().result.output("tstat1")))
        .isEqualTo(bits(reference.get("tstat1")));
  }

  /**
   * The same study with --variance-smoothing 6 (2 voxels of 3 mm) and --tfce: refused on the
   * driver, from blocks the bits of core's in-memory run with the same smoothing, whose tstat1
   * is the pseudo-t (not the plain t of the reference loop).
   */
  @Test
  void glmVarianceSmoothingFromBlocksRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    InMemory run = glmUnderASmallDriverHeap(List.of("--variance-smoothing", "6"));
    GlmAnalysis glm = run.glm();
    RunReport expected = run.expected();
    GlmResult plain = GlmRun.run(glm.model(), ((GlmAnalysis.Data) glm.data()).y(),
        glm.options());
    assertThat(bits(expected.result.output("tstat1"))).isNotEqualTo(bits(plain.get("tstat1")));
  }

  /**
   * Runs glm --tfce (and {@code extra}) on 250 samples x 64^3 voxels in a child JVM of -Xmx480m:
   * refused (exit 3) with the samples read on the driver; from blocks every output is the bits
   * of core's in-memory whole-map run of the same values (with --variance-smoothing SIGMA, the
   * same smoothing on the grid's voxel sizes). Returns that in-memory analysis and its run.
   */
  private InMemory glmUnderASmallDriverHeap(List<String> extra) throws Exception {
    int nx = 64;
    int ny = 64;
    int nz = 64;
    int n = 250;
    int v = nx * ny * nz;
    Path y = dir.resolve("big.nii");
    double[] age = age(n);
    SplittableRandom r = new SplittableRandom(31);
    NiftiMask mask = mask(nx, ny, nz, 2); // every voxel
    double[] widened = new double[n * v]; // mask order (k fastest), for the reference
    try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(y), 1 << 20)) {
      out.write(header(NiftiDatatype.FLOAT32, nx, ny, nz, n).toBytes());
      ByteBuffer vol = ByteBuffer.allocate(4 * v).order(ByteOrder.LITTLE_ENDIAN);
      for (int s = 0; s < n; s++) {
        vol.clear();
        for (int f = 0; f < v; f++) {
          int i = f % nx;
          int j = (f / nx) % ny;
          int k = f / (nx * ny);
          float value = (float) (r.nextGaussian() + 1.0 + (i < 20 && j < 20 && k < 20
              ? 0.5 * age[s] : 0));
          vol.putFloat(value);
          widened[s * v + (i * ny + j) * nz + k] = value;
        }
        out.write(vol.array());
      }
    }
    Path d = design(n);
    Path c = Files.write(dir.resolve("age.csv"), List.of("name,intercept,group,age,other",
        "age,0,0,1,0"));
    String heap = "-Xmx480m";
    List<String> args = new ArrayList<>(List.of("glm", "--input", y.toString(), "--design",
        d.toString(), "--contrasts", c.toString(), "--tfce", "--permutations", "10", "--seed",
        "9", "--memory-budget-gb", "0.4", "--master", "local[2]", "--quiet"));
    args.addAll(extra);
    int smoothing = extra.indexOf("--variance-smoothing");
    Path refusedOut = dir.resolve("refused");
    List<String> refused = ChildJvm.command(heap, "-D" + NlsparkConf.INGEST + "=broadcast");
    refused.addAll(args);
    refused.addAll(List.of("--output", refusedOut.toString()));
    Path refusedErr = dir.resolve("refused-stderr.txt");
    int code = ChildJvm.run(refused, dir, refusedErr);
    String text = Files.readString(refusedErr, StandardCharsets.UTF_8);
    assertThat(code).as(text).isEqualTo(3);
    assertThat(text).contains("on the driver", "spark.nlspark.ingest=blocks");
    assertThat(refusedOut).doesNotExist();

    Path out = dir.resolve("out");
    List<String> blocks = ChildJvm.command(heap, "-D" + NlsparkConf.INGEST + "=blocks");
    blocks.addAll(args);
    blocks.addAll(List.of("--output", out.toString()));
    Path err = dir.resolve("stderr.txt");
    code = ChildJvm.run(blocks, dir, err);
    assertThat(code).as(Files.readString(err, StandardCharsets.UTF_8)).isZero();
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"mode\": \"blocks\"", "\"map_slice_partitions\"",
        "\"driver_peak_heap_bytes\"");

    // core's in-memory whole-map run of the same values (the driver-read path's computation)
    GlmRun.Options ro = NlsparkOptions.builder().replicates(10).seed(9).tfce(true).build()
        .toGlmOptions(null, null);
    GlmAnalysis glm = GlmAnalysis.prepare(DataMatrix.of(n, v, widened, "y"),
        GlmFiles.readDesign(d), GlmFiles.readContrasts(c, null), ro, "cpu", null);
    widened = null;
    RunReport expected = new LocalEngine(2, Grid.DEFAULT, null).run(smoothing < 0
        ? glm.withWholeMaps(MaskGrid.of(mask), WholeMapSettings.of(true, null))
        : glm.withWholeMaps(MaskGrid.of(mask), WholeMapSettings.of(true, null),
            Double.parseDouble(extra.get(smoothing + 1)),
            org.nlspark.core.tfce.VarianceSmoothing.voxelSizes(mask.grid().affine())));
    assertThat(expected.result.outputs().stream().map(Output::name))
        .contains("tstat1", "tfce_tstat1", "p_fwer_tfce_tstat1");
    for (Output o : expected.result.outputs()) {
      assertThat(bits(TestData.outputValues(out.resolve(o.name() + ".npy")))).as(o.name())
          .isEqualTo(bits(o.values()));
    }
    if (smoothing >= 0) {
      assertThat(summary.replaceAll("\\s+", "")).contains("\"variance_smoothing_mm\":"
          + extra.get(smoothing + 1) + ".0").contains("\"voxel_sizes_mm\":[3.0,3.0,3.0]");
    }
    System.out.println("glm --tfce " + String.join(" ", extra) + " from blocks under " + heap
        + ": " + n + " samples x " + v + " voxels x 10 permutations; " + summary.lines()
            .filter(l -> l.contains("peak_heap") || l.contains("compute_seconds")
                || l.contains("ingest_seconds"))
            .map(String::trim).reduce("", (p, q) -> p + " " + q));
    return new InMemory(glm, expected);
  }

  /**
   * one-sample --tfce --backend gpu on samples larger than a -Xmx480m driver, from blocks: the
   * whole maps no longer read the samples on the driver (that read is refused on this heap with
   * "on the driver"); the run goes to the GPU kernels on the executors and, without a GPU here,
   * is refused (exit 3) for the GPU alone, before any read. (The bits of the GPU slices are
   * TfceGpuBlocksTest's, through the host build of the kernels.)
   */
  @Test
  void tfceWithBackendGpuFromBlocksDoesNotReadOnTheDriver() throws Exception {
    int v = 64 * 64 * 64;
    int n = 250;
    Path y = dir.resolve("big-one.nii");
    SplittableRandom r = new SplittableRandom(41);
    try (OutputStream out = new java.io.BufferedOutputStream(Files.newOutputStream(y), 1 << 20)) {
      out.write(header(NiftiDatatype.FLOAT32, 64, 64, 64, n).toBytes());
      ByteBuffer vol = ByteBuffer.allocate(4 * v).order(ByteOrder.LITTLE_ENDIAN);
      for (int s = 0; s < n; s++) {
        vol.clear();
        for (int f = 0; f < v; f++) {
          vol.putFloat((float) (r.nextDouble() + 0.5));
        }
        out.write(vol.array());
      }
    }
    List<String> args = List.of("one-sample", "--input", y.toString(), "--tfce", "--backend",
        "gpu", "--permutations", "10", "--memory-budget-gb", "0.4", "--master", "local[2]",
        "--quiet");
    for (String ingest : new String[] {"broadcast", "blocks"}) {
      Path out = dir.resolve("out-" + ingest);
      List<String> cmd = ChildJvm.command("-Xmx480m", "-D" + NlsparkConf.INGEST + "=" + ingest);
      cmd.addAll(args);
      cmd.addAll(List.of("--output", out.toString()));
      Path err = dir.resolve(ingest + "-stderr.txt");
      int code = ChildJvm.run(cmd, dir, err);
      String text = Files.readString(err, StandardCharsets.UTF_8);
      assertThat(code).as(text).isEqualTo(3);
      assertThat(out).doesNotExist();
      if (ingest.equals("broadcast")) {
        assertThat(text).as(text).contains("on the driver");
      } else {
        assertThat(text).as(text).doesNotContain("on the driver")
            .contains("Cannot run on a GPU");
      }
    }
  }

  /** core's in-memory analysis of the big study (its data in memory) and its whole-map run. */
  private record InMemory(GlmAnalysis glm, RunReport expected) {}
}
