package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.float32;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmFiles;
import org.nlspark.core.glm.GlmModel;
import org.nlspark.core.glm.GlmResult;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.result.Output;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 for glm: tiles run on the voxel blocks executors read (spark.nlspark.ingest=blocks)
 * give the bytes of the samples read on the driver and broadcast, for 1, 3 and 7 partitions and
 * a retried task, and the maps of core's reference loop ({@link GlmRun#run}); a glm whose data
 * do not fit the driver heap runs from blocks in a JVM where the driver-read path is refused.
 */
class GlmBlocksIdentityTest {
  static final int N = 20;
  static final int V = 2200; // 3 voxel blocks of the default grid

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  /** intercept, age, group (0/1) for n samples; the same age as {@link #values}. */
  private Path design(int n) throws Exception {
    double[] age = TestData.gaussian(60, 1, n, 0);
    List<String> lines = new ArrayList<>(List.of("intercept,age,group"));
    for (int i = 0; i < n; i++) {
      lines.add("1," + age[i] + "," + (i % 2));
    }
    return Files.write(dir.resolve("design" + n + ".csv"), lines);
  }

  /** Gaussian data with an age effect in every fifth voxel, rounded to float32. */
  private static float[] values(int n, int v, long seed) {
    double[] age = TestData.gaussian(60, 1, n, 0);
    double[] y = TestData.gaussian(seed, n, v, 0);
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < v; j += 5) {
        y[i * v + j] += 1.2 * age[i];
      }
    }
    return float32(y);
  }

  private Path contrasts() throws Exception {
    return Files.write(dir.resolve("con.csv"), List.of("name,intercept,age,group",
        "age,0,1,0", "group,0,0,-1"));
  }

  private Path fContrasts() throws Exception {
    return Files.write(dir.resolve("f.csv"), List.of("age,group", "1,1"));
  }

  private Path exchangeabilityBlocks(int n) throws Exception {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      lines.add(String.valueOf(1 + i % 4));
    }
    return Files.write(dir.resolve("eb.txt"), lines);
  }

  private RunReport glm(String ingest, Integer partitions, Path y, Path design, Path contrasts,
      NlsparkOptions options) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return Nlspark.glm(spark, y.toString(), design.toString(), contrasts.toString(),
        options.toBuilder().partitions(partitions).build());
  }

  @Test
  void blocksGiveTheBroadcastBytesForAnyPartitioningARetryAndTheReferenceLoop()
      throws Exception {
    float[] f = values(N, V, 61);
    Path y = dir.resolve("y32.npy");
    NpyWriter.writeFloat32(y, new long[] {N, V}, f);
    Path d = design(N);
    Path c = contrasts();
    Path fc = fContrasts();
    java.util.function.Supplier<NlsparkOptions> options = () -> NlsparkOptions.builder()
        .replicates(300).seed(7).fwerAcrossContrasts(true).fContrasts(fc.toString()).build();
    RunReport base = glm("broadcast", null, y, d, c, options.get());
    assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
    assertThat((Long) base.engineFacts.get("broadcast_bytes")).isPositive();
    for (Integer p : new Integer[] {null, 1, 3, 7}) {
      RunReport blocks = glm("blocks", p, y, d, c, options.get());
      assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
      assertThat(ingestOf(blocks).get("precision")).isEqualTo("float32");
      assertThat(ingestOf(blocks).get("blocks")).isEqualTo(3);
      assertThat(blocks.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
      if (p != null) {
        assertThat(blocks.engineFacts.get("partitions")).isEqualTo(Math.min(p, 3));
      }
      assertSameOutputs(base, blocks, "glm blocks, partitions " + p);
      assertThat(blocks.summary().toString()).contains("freedman-lane");
    }
    // a task that fails once is retried with the same bytes
    RunReport retried = SharedSpark.retriedOnce(spark, 2,
        () -> glm("blocks", 3, y, d, c, options.get()));
    assertSameOutputs(base, retried, "glm blocks, retried");
    // core's single-thread reference loop on the same values, in memory
    double[] widened = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      widened[i] = f[i];
    }
    GlmModel model = GlmModel.prepare(GlmFiles.readDesign(d), GlmFiles.readContrasts(c, fc), N);
    GlmRun.Options ro = options.get().toGlmOptions(null, null);
    GlmResult expected = GlmRun.run(model, DataMatrix.of(N, V, widened, "y"),
        ro.errors() == null ? ro.withErrors(GlmRun.defaultErrors(model)) : ro);
    List<Output> outputs = glm("blocks", 3, y, d, c, options.get()).result.outputs();
    assertThat(outputs.stream().map(Output::name)).containsExactlyElementsOf(
        expected.maps().keySet());
    for (Output o : outputs) {
      assertThat(bits(o.values())).as("reference " + o.name())
          .isEqualTo(bits(expected.get(o.name())));
    }
    // and the in-memory API (samples already in a matrix) gives the same bytes
    RunReport inMemory = Nlspark.glm(spark, DataMatrix.of(N, V, widened, "y"),
        GlmFiles.readDesign(d), GlmFiles.readContrasts(c, fc), null, options.get());
    assertSameOutputs(base, inMemory, "glm in memory");
  }

  private static NiftiMask mask(int nx, int ny, int nz) {
    NiftiHeader h = NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(nx, ny, nz)
        .sform(1, new double[][] {{-2, 0, 0, 40}, {0, 2, 0, -20}, {0, 0, 2, 10}}).build();
    double[] m = new double[nx * ny * nz];
    for (int i = 0; i < m.length; i++) {
      m[i] = (i * 7 % 10) < 8 ? 1 : 0;
    }
    return NiftiMask.fromImage(h, m, "mask");
  }

  private static Map<String, byte[]> files(Path out) throws Exception {
    Map<String, byte[]> m = new TreeMap<>();
    try (Stream<Path> s = Files.list(out)) {
      for (Path p : (Iterable<Path>) s::iterator) {
        String name = p.getFileName().toString();
        if (!name.equals("summary.json") && !name.endsWith(".html")) {
          m.put(name, Files.readAllBytes(p));
        }
      }
    }
    return m;
  }

  private CliRun cli(String ingest, Path out, String... args) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return CliRun.of(Stream.concat(Stream.of("glm"), Stream.concat(Stream.of(args),
        Stream.of("--output", out.toString(), "--quiet"))).toArray(String[]::new));
  }

  /** 3-D .nii.gz files with blocks: every written file has the bytes of the broadcast run. */
  @Test
  void niftiFilesWithExchangeabilityBlocksWriteTheSameFilesFromBlocks() throws Exception {
    NiftiMask mask = mask(16, 14, 12); // 2150 voxels in the mask: 3 blocks
    int n = 16;
    float[] f = values(n, mask.count(), 62);
    StringBuilder list = new StringBuilder();
    for (int s = 0; s < n; s++) {
      float[] vol = new float[mask.count()];
      System.arraycopy(f, s * mask.count(), vol, 0, mask.count());
      Path p = dir.resolve(String.format("sub-%02d.nii.gz", s));
      NiftiWriter.writeMap(p, mask, vol, 0f);
      list.append(p.getFileName()).append('\n');
    }
    Path listFile = Files.writeString(dir.resolve("subjects.txt"), list.toString());
    Path maskFile = dir.resolve("mask.nii.gz");
    NiftiWriter.writeMask(maskFile, mask);
    String[] args = {"--input", listFile.toString(), "--mask", maskFile.toString(), "--design",
        design(n).toString(), "--contrasts", contrasts().toString(), "--exchangeability-blocks",
        exchangeabilityBlocks(n).toString(), "--errors", "both", "--permutations", "200",
        "--seed", "5"};
    Path broadcast = dir.resolve("broadcast");
    CliRun a = cli("broadcast", broadcast, args);
    assertThat(a.code()).as(a.err()).isZero();
    Map<String, byte[]> expected = files(broadcast);
    assertThat(expected).containsKeys("tstat1.npy", "tstat1.nii.gz", "p_fwer_tstat2.nii.gz");
    for (String p : new String[] {"1", "3", "7"}) {
      Path out = dir.resolve("blocks" + p);
      String[] withPartitions = Stream.concat(Stream.of(args), Stream.of("--partitions", p))
          .toArray(String[]::new);
      CliRun b = cli("blocks", out, withPartitions);
      assertThat(b.code()).as(b.err()).isZero();
      Map<String, byte[]> got = files(out);
      assertThat(got.keySet()).isEqualTo(expected.keySet());
      for (String name : expected.keySet()) {
        assertThat(got.get(name)).as(name + ", partitions " + p).isEqualTo(expected.get(name));
      }
      String summary = Files.readString(out.resolve("summary.json"));
      assertThat(summary).contains("\"mode\": \"blocks\"");
    }
    // TFCE from the blocks (slices of the maps regrouped by replicate window): the same bytes
    Path tfceBroadcast = dir.resolve("tfce-broadcast");
    Path tfceBlocks = dir.resolve("tfce-blocks");
    String[] tfce = Stream.concat(Stream.of(args), Stream.of("--tfce")).toArray(String[]::new);
    tfce[java.util.Arrays.asList(tfce).indexOf("200")] = "40";
    assertThat(cli("broadcast", tfceBroadcast, tfce).code()).isZero();
    CliRun t = cli("blocks", tfceBlocks, tfce);
    assertThat(t.code()).as(t.err()).isZero();
    Map<String, byte[]> tfceExpected = files(tfceBroadcast);
    assertThat(tfceExpected).containsKey("p_fwer_tfce_tstat1.nii.gz");
    Map<String, byte[]> tfceGot = files(tfceBlocks);
    assertThat(tfceGot.keySet()).isEqualTo(tfceExpected.keySet());
    for (String name : tfceExpected.keySet()) {
      assertThat(tfceGot.get(name)).as("tfce " + name).isEqualTo(tfceExpected.get(name));
    }
    // Variance groups (one per block, auto): v and G travel beside the z the tiles count on,
    // voxelwise and in the maps' slices; the same bytes from blocks.
    String[] vg = Stream.concat(Stream.of(tfce), Stream.of("--variance-groups", "auto",
        "--f-contrasts", fContrasts().toString())).toArray(String[]::new);
    for (String[] run : List.of(vg, Stream.of(vg).filter(arg -> !arg.equals("--tfce"))
        .toArray(String[]::new))) {
      boolean withTfce = run.length == vg.length;
      Path vgBroadcast = dir.resolve("vg-broadcast" + withTfce);
      Path vgBlocks = dir.resolve("vg-blocks" + withTfce);
      CliRun vb = cli("broadcast", vgBroadcast, run);
      assertThat(vb.code()).as(vb.err()).isZero();
      CliRun vk = cli("blocks", vgBlocks, Stream.concat(Stream.of(run),
          Stream.of("--partitions", "3")).toArray(String[]::new));
      assertThat(vk.code()).as(vk.err()).isZero();
      Map<String, byte[]> vgExpected = files(vgBroadcast);
      assertThat(vgExpected).containsKeys("vstat1.npy", "gstat1.npy", "p_fwer_vstat2.npy");
      if (withTfce) {
        assertThat(vgExpected).containsKey("p_fwer_tfce_gstat1.npy");
      }
      Map<String, byte[]> vgGot = files(vgBlocks);
      assertThat(vgGot.keySet()).isEqualTo(vgExpected.keySet());
      for (String name : vgExpected.keySet()) {
        assertThat(vgGot.get(name)).as("variance groups " + name).isEqualTo(vgExpected.get(name));
      }
      assertThat(TestData.outputValues(vgBlocks.resolve("null_max_vstat1.npy"))).hasSize(40);
    }
  }

  /**
   * A driver of -Xmx480m (Spark's minimum is 450 MiB) and samples of 512 MB as float64: the
   * driver-read path is refused (exit 3), the block path runs and writes the reference bytes.
   */
  @Test
  void glmFromBlocksRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    int n = 200;
    int v = 320_000;
    float[] f = values(n, v, 63);
    Path y = dir.resolve("big.npy");
    NpyWriter.writeFloat32(y, new long[] {n, v}, f);
    Path d = design(n);
    Path c = contrasts();
    String heap = "-Xmx480m";
    List<String> args = List.of("glm", "--input", y.toString(), "--design", d.toString(),
        "--contrasts", c.toString(), "--permutations", "20", "--seed", "9", "--master",
        "local[2]", "--quiet");
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
    assertThat(summary).contains("\"mode\": \"blocks\"", "\"driver_peak_heap_bytes\"");

    double[] widened = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      widened[i] = f[i];
    }
    f = null;
    GlmModel model = GlmModel.prepare(GlmFiles.readDesign(d), GlmFiles.readContrasts(c, null),
        n);
    GlmRun.Options ro = NlsparkOptions.builder().replicates(20).seed(9).build().toGlmOptions(null,
        null);
    GlmResult expected = GlmRun.run(model, DataMatrix.of(n, v, widened, "y"),
        ro.errors() == null ? ro.withErrors(GlmRun.defaultErrors(model)) : ro);
    widened = null;
    assertThat(expected.maps().keySet()).contains("tstat1", "p_fwer_tstat2");
    for (String name : expected.maps().keySet()) {
      assertThat(bits(TestData.outputValues(out.resolve(name + ".npy")))).as(name)
          .isEqualTo(bits(expected.get(name)));
    }
    System.out.println("glm from blocks under " + heap + ": " + n + " samples x " + v
        + " voxels x 20 permutations; " + summary.lines().filter(l -> l.contains("peak_heap")
            || l.contains("compute_seconds") || l.contains("ingest_seconds"))
            .map(String::trim).reduce("", (p, q) -> p + " " + q));
  }
}
