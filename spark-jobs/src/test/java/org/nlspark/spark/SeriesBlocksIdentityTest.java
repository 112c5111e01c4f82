package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscResult;
import org.nlspark.core.result.Output;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 for the series commands: {@code isc} and {@code timeseries-correlation} run on the
 * voxel blocks executors read (spark.nlspark.ingest=blocks) give the bytes of the series read
 * on the driver and broadcast, for 1, 3 and 7 partitions and a retried task, from an .npy and
 * from 4-D NIfTI images (scaled int16, with and without --mask); and a run whose series do not
 * fit the driver heap runs from blocks in a JVM where the driver-read path is refused.
 */
class SeriesBlocksIdentityTest {
  static final int S = 5;
  static final int T = 16;
  static final int V = 2200; // 3 voxel blocks of the default grid

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  /** S subjects' series: a shared response in every third voxel plus noise, in float32. */
  private static float[] series(int subjects, int timepoints, int voxels, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[subjects * timepoints * voxels];
    for (int s = 0; s < subjects; s++) {
      for (int t = 0; t < timepoints; t++) {
        for (int v = 0; v < voxels; v++) {
          double shared = v % 3 == 0 ? Math.sin(0.6 * t + 0.01 * v) : 0;
          x[(s * timepoints + t) * voxels + v] = (float) (shared + 0.7 * r.nextGaussian());
        }
      }
    }
    return x;
  }

  private static double[] widened(float[] f) {
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      d[i] = f[i];
    }
    return d;
  }

  private RunReport isc(String ingest, Integer partitions, String input, NlsparkOptions o) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return Nlspark.isc(spark, input, o.toBuilder().partitions(partitions).build());
  }

  /** Pearson r of two series, by the textbook formula. */
  private static double pearson(double[] a, double[] b) {
    double ma = 0;
    double mb = 0;
    for (int i = 0; i < a.length; i++) {
      ma += a[i];
      mb += b[i];
    }
    ma /= a.length;
    mb /= b.length;
    double ab = 0;
    double aa = 0;
    double bb = 0;
    for (int i = 0; i < a.length; i++) {
      ab += (a[i] - ma) * (b[i] - mb);
      aa += (a[i] - ma) * (a[i] - ma);
      bb += (b[i] - mb) * (b[i] - mb);
    }
    return ab / Math.sqrt(aa * bb);
  }

  /** Pairwise median ISC of voxel v: the median of r over the S(S-1)/2 subject pairs. */
  private static double naiveIsc(double[] x, int subjects, int timepoints, int voxels, int v) {
    double[][] ts = new double[subjects][timepoints];
    for (int s = 0; s < subjects; s++) {
      for (int t = 0; t < timepoints; t++) {
        ts[s][t] = x[(s * timepoints + t) * voxels + v];
      }
    }
    List<Double> r = new ArrayList<>();
    for (int i = 0; i < subjects; i++) {
      for (int j = i + 1; j < subjects; j++) {
        r.add(pearson(ts[i], ts[j]));
      }
    }
    double[] sorted = r.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
  }

  @Test
  void iscFromAnNpyGivesTheBroadcastBytesForAnyPartitioningARetryAndTheReference()
      throws Exception {
    float[] f = series(S, T, V, 31);
    Path x = dir.resolve("bold32.npy");
    NpyWriter.writeFloat32(x, new long[] {S, T, V}, f);
    double[] d = widened(f);
    List<NlsparkOptions> runs = List.of(
        NlsparkOptions.builder().replicates(60).seed(3).saveSamples(true).build(),
        NlsparkOptions.builder().replicates(40).seed(4).nullMethod("circle-shift").build(),
        NlsparkOptions.builder().replicates(30).seed(5).nullMethod("phase-randomize")
            .iscSummary("leave-one-out").iscMetric("mean").build());
    for (NlsparkOptions o : runs) {
      RunReport base = isc("broadcast", null, x.toString(), o);
      assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
      assertThat((Long) base.engineFacts.get("broadcast_bytes")).isPositive();
      for (Integer p : new Integer[] {null, 1, 3, 7}) {
        RunReport blocks = isc("blocks", p, x.toString(), o);
        assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
        assertThat(ingestOf(blocks).get("precision")).isEqualTo("float32");
        assertThat(ingestOf(blocks).get("blocks")).isEqualTo(3);
        assertThat(blocks.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
        assertSameOutputs(base, blocks, "isc blocks " + o.toIscOptions() + ", partitions " + p);
      }
      // core's reference run on the same values in memory (its own engine, on threads)
      IscResult reference = Isc.run(d, S, T, V, o.toIscOptions());
      List<Output> outputs = base.result.outputs();
      List<Output> expected = reference.outputs();
      assertThat(outputs).hasSameSizeAs(expected);
      for (int i = 0; i < outputs.size(); i++) {
        assertThat(bits(outputs.get(i).values())).as("reference " + expected.get(i).name())
            .isEqualTo(bits(expected.get(i).values()));
      }
    }
    // a task that fails once is retried with the same bytes
    NlsparkOptions boot = runs.get(0);
    RunReport base = isc("broadcast", null, x.toString(), boot);
    RunReport retried = SharedSpark.retriedOnce(spark, 1,
        () -> isc("blocks", 3, x.toString(), boot));
    assertSameOutputs(base, retried, "isc blocks, retried");
    // the observed ISC against a textbook median of pairwise Pearson r
    double[] observed = retried.result.outputs().get(0).values();
    for (int v = 0; v < V; v += 37) {
      assertThat(observed[v]).as("voxel " + v)
          .isCloseTo(naiveIsc(d, S, T, V, v), org.assertj.core.data.Offset.offset(1e-12));
    }
  }

  private RunReport ts(String ingest, Integer partitions, String input, String target,
      NlsparkOptions o) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return Nlspark.timeseriesCorrelation(spark, input, target, o.toBuilder().partitions(partitions)
        .build());
  }

  private static double[] target(int timepoints) {
    double[] y = new double[timepoints];
    for (int t = 0; t < timepoints; t++) {
      y[t] = Math.sin(0.6 * t) + 0.05 * t;
    }
    return y;
  }

  @Test
  void timeseriesFromAnNpyGivesTheBroadcastBytesForAnyPartitioningARetryAndTheReference()
      throws Exception {
    int t = 40;
    float[] f = series(1, t, V, 35);
    Path x = dir.resolve("x32.npy");
    NpyWriter.writeFloat32(x, new long[] {t, V}, f);
    double[] y = target(t);
    Path yPath = dir.resolve("y.npy");
    NpyWriter.writeFloat64(yPath, new long[] {t}, y);
    double[] d = widened(f);
    List<NlsparkOptions> runs = List.of(
        NlsparkOptions.builder().replicates(50).seed(3).build(),
        NlsparkOptions.builder().replicates(70).seed(4).nullMethod("phase-randomize").build());
    RunReport last = null;
    for (NlsparkOptions o : runs) {
      RunReport base = ts("broadcast", null, x.toString(), yPath.toString(), o);
      assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
      for (Integer p : new Integer[] {null, 1, 3, 7}) {
        RunReport blocks = ts("blocks", p, x.toString(), yPath.toString(), o);
        assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
        assertThat(ingestOf(blocks).get("blocks")).isEqualTo(3);
        assertThat(blocks.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
        assertSameOutputs(base, blocks, "timeseries blocks " + o.toTimeSeriesOptions().method() + ", partitions "
            + p);
      }
      List<Output> expected = TimeSeriesCorrelation.run(d, t, V, y, o.toTimeSeriesOptions())
          .outputs();
      List<Output> outputs = base.result.outputs();
      assertThat(outputs).hasSameSizeAs(expected);
      for (int i = 0; i < outputs.size(); i++) {
        assertThat(bits(outputs.get(i).values())).as("reference " + expected.get(i).name())
            .isEqualTo(bits(expected.get(i).values()));
      }
      last = base;
    }
    NlsparkOptions phase = runs.get(1);
    RunReport retried = SharedSpark.retriedOnce(spark, 2,
        () -> ts("blocks", 3, x.toString(), yPath.toString(), phase));
    assertSameOutputs(last, retried, "timeseries blocks, retried");
    // the observed r against the textbook Pearson r of each voxel's series with y
    double[] r = retried.result.outputs().get(0).values();
    for (int v = 0; v < V; v += 41) {
      double[] col = new double[t];
      for (int i = 0; i < t; i++) {
        col[i] = d[i * V + v];
      }
      assertThat(r[v]).as("voxel " + v)
          .isCloseTo(pearson(col, y), org.assertj.core.data.Offset.offset(1e-12));
    }
  }

  // ---- images: one 4-D int16 NIfTI per subject, scaled by a float slope ----

  static final int NX = 16;
  static final int NY = 14;
  static final int NZ = 12;
  static final double[][] SFORM = {{-2, 0, 0, 40}, {0, 2, 0, -20}, {0, 0, 2, 10}};

  private static NiftiHeader header(NiftiDatatype type, long... shape) {
    return NiftiHeader.builder().datatype(type).shape(shape)
        .pixdim(1, 2, 2, 2, 1, 1, 1, 1).sform(4, SFORM)
        .qform(0, new double[3], new double[3]).build();
  }

  private static void gzip(Path p, byte[] header, ByteBuffer data) {
    try {
      Files.createDirectories(p.toAbsolutePath().getParent());
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
        out.write(header);
        out.write(data.array());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Subjects' int16 4-D images scaled by 0.1f (so a scaled value is not a float32 value): 0
   * outside an irregular brain; the list file names them in subject order. Returns the mask
   * (1 inside), in file order.
   */
  private boolean[] writeImages(int subjects, int timepoints, long seed) {
    int n = NX * NY * NZ;
    boolean[] inside = new boolean[n];
    for (int i = 0; i < n; i++) {
      inside[i] = (i * 7 % 10) < 8;
    }
    SplittableRandom r = new SplittableRandom(seed);
    StringBuilder list = new StringBuilder();
    for (int s = 0; s < subjects; s++) {
      ByteBuffer data = ByteBuffer.allocate(2 * n * timepoints).order(ByteOrder.LITTLE_ENDIAN);
      for (int t = 0; t < timepoints; t++) {
        for (int i = 0; i < n; i++) {
          short raw = 0;
          if (inside[i]) {
            raw = (short) Math.round(300 * Math.sin(0.6 * t + 0.01 * i) + 250 * r.nextGaussian());
            raw = raw == 0 ? 1 : raw;
          }
          data.putShort(2 * (t * n + i), raw);
        }
      }
      NiftiHeader h = NiftiHeader.builder().datatype(NiftiDatatype.INT16)
          .shape(NX, NY, NZ, timepoints).pixdim(1, 2, 2, 2, 1, 1, 1, 1).sform(4, SFORM)
          .qform(0, new double[3], new double[3]).scaling(0.1f, 0).build();
      String name = String.format("bold/sub-%02d_bold.nii.gz", s);
      gzip(dir.resolve(name), h.toBytes(), data);
      list.append(name).append('\n');
    }
    try {
      Files.writeString(dir.resolve("subjects.txt"), list.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return inside;
  }

  private Path writeMask(boolean[] inside) {
    ByteBuffer m = ByteBuffer.allocate(inside.length);
    for (int i = 0; i < inside.length; i++) {
      m.put(i, (byte) (inside[i] && i % 11 != 0 ? 1 : 0));
    }
    Path p = dir.resolve("mask.nii.gz");
    gzip(p, header(NiftiDatatype.UINT8, NX, NY, NZ).toBytes(), m);
    return p;
  }

  private static Map<String, byte[]> files(Path out) throws IOException {
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

  private CliRun cli(String ingest, String command, Path out, String... args) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return CliRun.of(Stream.concat(Stream.of(command), Stream.concat(Stream.of(args),
        Stream.of("--output", out.toString(), "--quiet"))).toArray(String[]::new));
  }

  /** Every written file of the blocks runs (partitions 1, 3, 7) has the broadcast run's bytes. */
  private void assertBlocksWriteTheBroadcastFiles(String command, String name, String... args)
      throws Exception {
    Path broadcast = dir.resolve(name + "-broadcast");
    CliRun a = cli("broadcast", command, broadcast, args);
    assertThat(a.code()).as(a.err()).isZero();
    Map<String, byte[]> expected = files(broadcast);
    assertThat(expected.keySet()).anyMatch(f -> f.endsWith(".nii.gz"));
    for (String p : new String[] {"1", "3", "7"}) {
      Path out = dir.resolve(name + "-blocks" + p);
      CliRun b = cli("blocks", command, out, Stream.concat(Stream.of(args),
          Stream.of("--partitions", p)).toArray(String[]::new));
      assertThat(b.code()).as(b.err()).isZero();
      Map<String, byte[]> got = files(out);
      assertThat(got.keySet()).isEqualTo(expected.keySet());
      for (String f : expected.keySet()) {
        assertThat(got.get(f)).as(name + " " + f + ", partitions " + p)
            .isEqualTo(expected.get(f));
      }
      assertThat(Files.readString(out.resolve("summary.json"))).contains("\"mode\": \"blocks\"");
    }
  }

  @Test
  void iscFromScaledImagesWritesTheSameFilesFromBlocksWithAndWithoutAMask() throws Exception {
    boolean[] inside = writeImages(4, 14, 41);
    Path mask = writeMask(inside);
    String list = dir.resolve("subjects.txt").toString();
    assertBlocksWriteTheBroadcastFiles("isc", "isc-masked", "--input", list, "--mask",
        mask.toString(), "--samples", "40", "--seed", "6");
    // the default mask, computed by executors: every voxel that is non-zero somewhere
    assertBlocksWriteTheBroadcastFiles("isc", "isc-default", "--input", list, "--null",
        "circle-shift", "--permutations", "30", "--seed", "6");
    assertThat(files(dir.resolve("isc-default-blocks3"))).containsKey("mask.nii.gz");
    // timeseries-correlation on one subject's image
    NpyWriter.writeFloat64(dir.resolve("y14.npy"), new long[] {14}, target(14));
    String one = dir.resolve("bold/sub-02_bold.nii.gz").toString();
    String y = dir.resolve("y14.npy").toString();
    assertBlocksWriteTheBroadcastFiles("timeseries-correlation", "ts-masked", "--input", one,
        "--target", y, "--mask", mask.toString(), "--permutations", "40", "--seed", "6");
    assertBlocksWriteTheBroadcastFiles("timeseries-correlation", "ts-default", "--input", one,
        "--target", y, "--null", "phase-randomize", "--permutations", "40", "--seed", "6");
    // and a retried task of the image run gives the same bytes
    Map<String, byte[]> expected = files(dir.resolve("isc-masked-broadcast"));
    SharedSpark.withRetriedTile(spark, 1, () -> {
      Path out = dir.resolve("isc-retried");
      CliRun b = cli("blocks", "isc", out, "--input", list, "--mask", mask.toString(),
          "--samples", "40", "--seed", "6", "--partitions", "3");
      assertThat(b.code()).as(b.err()).isZero();
      assertThat(files(out).keySet()).isEqualTo(expected.keySet());
      for (String f : expected.keySet()) {
        assertThat(files(out).get(f)).as("retried " + f).isEqualTo(expected.get(f));
      }
    });
  }

  // ---- a driver heap smaller than the data ----

  /**
   * A driver of -Xmx480m (Spark's minimum is 450 MiB) and series of 512 MB as float64: the
   * driver-read path is refused (exit 3), the block path runs and writes the reference bytes.
   */
  @Test
  void iscFromBlocksRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    int s = 8;
    int t = 100;
    int v = 80_000;
    float[] f = series(s, t, v, 33);
    Path x = dir.resolve("big.npy");
    NpyWriter.writeFloat32(x, new long[] {s, t, v}, f);
    String heap = "-Xmx480m";
    List<String> args = List.of("isc", "--input", x.toString(), "--samples", "20", "--seed",
        "9", "--master", "local[2]", "--quiet");
    Path refusedOut = dir.resolve("refused");
    List<String> refused = ChildJvm.command(heap, "-D" + NlsparkConf.INGEST + "=broadcast");
    refused.addAll(args);
    refused.addAll(List.of("--output", refusedOut.toString()));
    Path refusedErr = dir.resolve("refused-stderr.txt");
    int code = ChildJvm.run(refused, dir, refusedErr);
    String text = Files.readString(refusedErr, StandardCharsets.UTF_8);
    assertThat(code).as(text).isEqualTo(3);
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

    double[] d = widened(f);
    f = null;
    IscResult expected = Isc.run(d, s, t, v, NlsparkOptions.builder().replicates(20).seed(9).build()
        .toIscOptions());
    d = null;
    for (Output o : expected.outputs()) {
      assertThat(bits(TestData.outputValues(out.resolve(o.name() + ".npy")))).as(o.name())
          .isEqualTo(bits(o.values()));
    }
    System.out.println("isc from blocks under " + heap + ": " + s + " subjects x " + t
        + " time points x " + v + " voxels x 20 samples; " + summary.lines()
            .filter(l -> l.contains("peak_heap") || l.contains("compute_seconds")
                || l.contains("ingest_seconds")).map(String::trim)
            .reduce("", (p, q) -> p + " " + q));
  }

  /** The same for timeseries-correlation: a (timepoints, voxels) series of 512 MB as float64. */
  @Test
  void timeseriesFromBlocksRunsUnderADriverHeapSmallerThanTheData() throws Exception {
    int t = 400;
    int v = 160_000;
    float[] f = series(1, t, v, 37);
    Path x = dir.resolve("big-ts.npy");
    NpyWriter.writeFloat32(x, new long[] {t, v}, f);
    double[] y = target(t);
    Path yPath = dir.resolve("y-big.npy");
    NpyWriter.writeFloat64(yPath, new long[] {t}, y);
    String heap = "-Xmx480m";
    List<String> args = List.of("timeseries-correlation", "--input", x.toString(), "--target",
        yPath.toString(), "--null", "phase-randomize", "--permutations", "20", "--seed", "9",
        "--master", "local[2]", "--quiet");
    Path refusedOut = dir.resolve("refused");
    List<String> refused = ChildJvm.command(heap, "-D" + NlsparkConf.INGEST + "=broadcast");
    refused.addAll(args);
    refused.addAll(List.of("--output", refusedOut.toString()));
    Path refusedErr = dir.resolve("refused-stderr.txt");
    int code = ChildJvm.run(refused, dir, refusedErr);
    assertThat(code).as(Files.readString(refusedErr, StandardCharsets.UTF_8)).isEqualTo(3);
    assertThat(refusedOut).doesNotExist();

    Path out = dir.resolve("out");
    List<String> blocks = ChildJvm.command(heap, "-D" + NlsparkConf.INGEST + "=blocks");
    blocks.addAll(args);
    blocks.addAll(List.of("--output", out.toString()));
    Path err = dir.resolve("stderr.txt");
    code = ChildJvm.run(blocks, dir, err);
    assertThat(code).as(Files.readString(err, StandardCharsets.UTF_8)).isZero();
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"mode\": \"blocks\"");
    double[] d = widened(f);
    f = null;
    List<Output> expected = TimeSeriesCorrelation.run(d, t, v, y, NlsparkOptions.builder()
        .replicates(20).seed(9).nullMethod("phase-randomize").build().toTimeSeriesOptions())
            .outputs();
    d = null;
    for (Output o : expected) {
      assertThat(bits(TestData.outputValues(out.resolve(o.name() + ".npy")))).as(o.name())
          .isEqualTo(bits(o.values()));
    }
    System.out.println("timeseries-correlation from blocks under " + heap + ": " + t
        + " time points x " + v + " voxels x 20 surrogates; " + summary.lines()
            .filter(l -> l.contains("peak_heap") || l.contains("compute_seconds")
                || l.contains("ingest_seconds")).map(String::trim)
            .reduce("", (p, q) -> p + " " + q));
  }

  static String[] concat(String[] a, String... b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
