package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.result.Output;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * isc and timeseries-correlation on one 4-D NIfTI per subject (DESIGN §8), given as a list
 * file, a directory and a glob, with and without --mask: the .npy outputs are byte-identical to
 * the same series given as .npy, the .nii.gz maps carry the mask's affine and fill values, and
 * subjects off the grid or of another length exit 2 naming the file.
 */
class NiftiSeriesCliTest {
  private static final int SUBJECTS = 4;
  private static final int T = 12;

  @TempDir Path dir;
  private NiftiStudy grid; // the grid, the ellipsoid mask and its voxel order
  private Path mask;
  /** Per subject and time point, the volume in file order; 0 outside the mask. */
  private float[][][] volumes;

  @BeforeEach
  void writeStudy() throws IOException {
    grid = new NiftiStudy(1, 1, 0.0);
    mask = dir.resolve("mask.nii.gz");
    grid.writeMask(mask);
    int n = NiftiStudy.NX * NiftiStudy.NY * NiftiStudy.NZ;
    SplittableRandom r = new SplittableRandom(21);
    volumes = new float[SUBJECTS][T][n];
    StringBuilder list = new StringBuilder("# one 4-D image per subject, in subject order\n");
    for (int s = 0; s < SUBJECTS; s++) {
      for (int t = 0; t < T; t++) {
        for (int f = 0; f < n; f++) {
          if (grid.inMask[f]) {
            // A shared response (so that ISC is positive) plus each subject's noise.
            float v = (float) (Math.sin(0.7 * t + 0.3 * (f % 5)) + 0.8 * r.nextGaussian());
            volumes[s][t][f] = v == 0 ? 1e-3f : v;
          }
        }
      }
      write4d(dir.resolve("bold/sub-0" + s + "_bold.nii.gz"), volumes[s]);
      list.append("bold/sub-0").append(s).append("_bold.nii.gz\n");
    }
    Files.writeString(dir.resolve("subjects.txt"), list.toString());
    NpyWriter.writeFloat64(dir.resolve("bold.npy"), new long[] {SUBJECTS, T, grid.maskCount},
        masked(SUBJECTS));
    NpyWriter.writeFloat64(dir.resolve("x.npy"), new long[] {T, grid.maskCount}, masked(1));
    double[] y = new double[T];
    for (int t = 0; t < T; t++) {
      y[t] = Math.sin(0.7 * t) + 0.1 * t;
    }
    NpyWriter.writeFloat64(dir.resolve("y.npy"), new long[] {T}, y);
  }

  private static void write4d(Path p, float[][] series) {
    NiftiStudy.write(p, NiftiStudy.header(NiftiDatatype.FLOAT32, NiftiStudy.NX, NiftiStudy.NY,
        NiftiStudy.NZ, series.length), series);
  }

  /** The first {@code subjects} series masked in nilearn's order: (subjects, T, voxels). */
  private double[] masked(int subjects) {
    int[] order = grid.maskOrder();
    int v = order.length;
    double[] x = new double[subjects * T * v];
    for (int s = 0; s < subjects; s++) {
      for (int t = 0; t < T; t++) {
        for (int k = 0; k < v; k++) {
          x[(s * T + t) * v + k] = volumes[s][t][order[k]];
        }
      }
    }
    return x;
  }

  private String p(String relative) {
    return dir.resolve(relative).toString();
  }

  private CliRun isc(String input, String out, String... more) {
    List<String> args = new ArrayList<>(List.of("isc", "--input", input, "--output", p(out),
        "--seed", "7", "--quiet"));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(new String[0]));
  }

  private CliRun ts(String input, String out, String... more) {
    List<String> args = new ArrayList<>(List.of("timeseries-correlation", "--input", input,
        "--target", p("y.npy"), "--output", p(out), "--permutations", "50", "--seed", "7",
        "--quiet"));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(new String[0]));
  }

  private static void ok(CliRun run) {
    assertThat(run.code()).as(run.err()).isZero();
    assertThat(run.err()).isEmpty();
  }

  private void assertSameNpy(String expectedDir, String actualDir) throws IOException {
    List<String> names = new ArrayList<>();
    try (var s = Files.list(dir.resolve(expectedDir))) {
      s.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".npy")).forEach(names::add);
    }
    assertThat(names).isNotEmpty();
    for (String n : names) {
      assertThat(Files.readAllBytes(dir.resolve(actualDir).resolve(n))).as(actualDir + "/" + n)
          .isEqualTo(Files.readAllBytes(dir.resolve(expectedDir).resolve(n)));
    }
  }

  @Test
  void iscGivesTheNpyBytesForEveryFormOfTheImages() throws Exception {
    String[] boot = {"--samples", "60", "--save-samples"};
    ok(isc(p("bold.npy"), "boot-npy", boot));
    assertThat(dir.resolve("boot-npy/samples.npy")).exists();
    ok(isc(p("subjects.txt"), "boot-list", concat(boot, "--mask", mask.toString())));
    assertSameNpy("boot-npy", "boot-list");
    // The default mask: outside the ellipsoid every volume is 0, inside none is.
    ok(isc(p("bold"), "boot-directory", boot));
    assertSameNpy("boot-npy", "boot-directory");
    ok(isc(p("bold") + "/sub-*_bold.nii.gz", "boot-glob", boot));
    assertSameNpy("boot-npy", "boot-glob");
    // The surrogate nulls, with FWER.
    for (String method : List.of("circle-shift", "phase-randomize")) {
      String[] surrogate = {"--null", method, "--permutations", "40", "--metric", "mean",
          "--summary", "leave-one-out"};
      ok(isc(p("bold.npy"), method + "-npy", surrogate));
      assertThat(dir.resolve(method + "-npy/p_fwer.npy")).exists();
      ok(isc(p("bold") + "/sub-0?_bold.nii.gz", method + "-glob",
          concat(surrogate, "--mask", mask.toString())));
      assertSameNpy(method + "-npy", method + "-glob");
    }
    // The list's order is the subjects' order: the bootstrap resamples other subjects.
    Files.writeString(dir.resolve("reversed.txt"), "bold/sub-03_bold.nii.gz\n"
        + "bold/sub-02_bold.nii.gz\nbold/sub-01_bold.nii.gz\nbold/sub-00_bold.nii.gz\n");
    ok(isc(p("reversed.txt"), "reversed", boot));
    assertThat(Files.readAllBytes(dir.resolve("reversed/samples.npy")))
        .isNotEqualTo(Files.readAllBytes(dir.resolve("boot-npy/samples.npy")));
  }

  @Test
  void timeseriesCorrelationGivesTheNpyBytesForOneSubjectsImage() throws Exception {
    ok(ts(p("x.npy"), "ts-npy"));
    ok(ts(p("bold/sub-00_bold.nii.gz"), "ts-file", "--mask", mask.toString()));
    assertSameNpy("ts-npy", "ts-file");
    Files.writeString(dir.resolve("one.txt"), "bold/sub-00_bold.nii.gz\n");
    ok(ts(p("one.txt"), "ts-list"));
    assertSameNpy("ts-npy", "ts-list");
    assertThat(dir.resolve("ts-list/mask.nii.gz")).exists();
    write4d(dir.resolve("single/run-1.nii.gz"), volumes[0]);
    ok(ts(p("single"), "ts-directory", "--mask", mask.toString()));
    assertSameNpy("ts-npy", "ts-directory");
    ok(ts(p("bold") + "/sub-00_*.nii.gz", "ts-glob", "--null", "circle-shift"));
    assertSameNpy("ts-npy", "ts-glob");
    ok(ts(p("x.npy"), "ts-npy-phase", "--null", "phase-randomize"));
    ok(ts(p("bold/sub-00_bold.nii.gz"), "ts-phase", "--null", "phase-randomize"));
    assertSameNpy("ts-npy-phase", "ts-phase");
    // Several subjects are several runs of the command, not one.
    CliRun several = ts(p("subjects.txt"), "ts-several");
    assertThat(several.code()).isEqualTo(2);
    assertThat(several.err()).contains("names 4 images", "sub-00_bold.nii.gz",
        "run once per subject");
    assertThat(dir.resolve("ts-several")).doesNotExist();
  }

  @Test
  @SuppressWarnings("unchecked")
  void mapsCarryTheMaskGridAndFillValues() throws Exception {
    ok(isc(p("subjects.txt"), "maps", "--null", "circle-shift", "--permutations", "30",
        "--mask", mask.toString()));
    ok(isc(p("bold"), "maps-computed", "--null", "circle-shift", "--permutations", "30"));
    ok(ts(p("bold/sub-01_bold.nii.gz"), "ts-maps"));
    int[] order = grid.maskOrder();
    Map<String, List<String>> maps = Map.of(
        "maps", List.of("isc", "p", "ci_lower", "ci_upper", "p_fwer"),
        "ts-maps", List.of("observed", "p", "p_fwer"));
    for (Map.Entry<String, List<String>> run : maps.entrySet()) {
      Path out = dir.resolve(run.getKey());
      for (String name : run.getValue()) {
        double[] npy = TestData.outputValues(out.resolve(name + ".npy"));
        try (NiftiReader r = NiftiReader.open(out.resolve(name + ".nii.gz"))) {
          NiftiHeader h = r.header();
          assertThat(h.datatype()).isEqualTo(NiftiDatatype.FLOAT32);
          assertThat(h.spatialDims()).containsExactly(NiftiStudy.NX, NiftiStudy.NY,
              NiftiStudy.NZ);
          assertThat(h.sformCode()).isEqualTo(4);
          double[][] affine = h.affine();
          for (int i = 0; i < 3; i++) {
            assertThat(affine[i]).containsExactly(NiftiStudy.SFORM[i]);
          }
          float[] volume = new float[h.voxelsPerVolume()];
          r.readVolume(volume);
          float outside = name.startsWith("p") ? 1f : 0f;
          boolean[] seen = new boolean[volume.length];
          for (int n = 0; n < order.length; n++) {
            assertThat(volume[order[n]]).as(name + " voxel " + n).isEqualTo((float) npy[n]);
            seen[order[n]] = true;
          }
          for (int f = 0; f < volume.length; f++) {
            if (!seen[f]) {
              assertThat(volume[f]).as(name + " outside at " + f).isEqualTo(outside);
            }
          }
        }
      }
      assertThat(out.resolve("null_max.npy")).exists();
      assertThat(out.resolve("null_max.nii.gz")).doesNotExist();
    }
    // A given mask is the user's file; a computed one is written, on the same grid.
    assertThat(dir.resolve("maps/mask.nii.gz")).doesNotExist();
    assertSameNpy("maps", "maps-computed");
    try (NiftiReader m = NiftiReader.open(dir.resolve("maps-computed/mask.nii.gz"))) {
      float[] v = new float[m.header().voxelsPerVolume()];
      m.readVolume(v);
      for (int f = 0; f < v.length; f++) {
        assertThat(v[f]).as("mask at " + f).isEqualTo(grid.inMask[f] ? 1f : 0f);
      }
    }
    Map<String, Object> summary = (Map<String, Object>) Json.parse(
        Files.readString(dir.resolve("maps-computed/summary.json")));
    assertThat(((Map<String, Object>) summary.get("grid")).get("mask_source"))
        .isEqualTo("computed");
    assertThat(((Number) ((Map<String, Object>) summary.get("grid")).get("mask_voxels"))
        .intValue()).isEqualTo(grid.maskCount);
    Map<String, Object> inputs = (Map<String, Object>) summary.get("inputs");
    assertThat((Map<String, Object>) inputs.get("input")).containsEntry("format", "nifti")
        .containsEntry("files", (long) SUBJECTS);
    assertThat((List<Object>) summary.get("outputs")).contains("isc.nii.gz", "mask.nii.gz",
        "null_max.npy");
  }

  @Test
  void subjectsOffTheGridOrOfAnotherLengthExitTwoNamingTheFile() throws Exception {
    write4d(dir.resolve("bad/short_bold.nii.gz"), java.util.Arrays.copyOf(volumes[1], T - 2));
    Files.writeString(dir.resolve("short.txt"),
        "bold/sub-00_bold.nii.gz\nbad/short_bold.nii.gz\nbold/sub-02_bold.nii.gz\n");
    for (String[] withMask : List.of(new String[0], new String[] {"--mask", mask.toString()})) {
      CliRun shorter = isc(p("short.txt"), "o-short", withMask);
      assertThat(shorter.code()).as(shorter.err()).isEqualTo(2);
      assertThat(shorter.err()).contains("short_bold.nii.gz", "subject 1",
          "has " + (T - 2) + " time points", "sub-00_bold.nii.gz has " + T);
    }
    int nz = NiftiStudy.NZ + 1;
    float[][] other = new float[T][NiftiStudy.NX * NiftiStudy.NY * nz];
    for (float[] v : other) {
      java.util.Arrays.fill(v, 1f);
    }
    NiftiStudy.write(dir.resolve("bad/grid_bold.nii.gz"), NiftiStudy.header(
        NiftiDatatype.FLOAT32, NiftiStudy.NX, NiftiStudy.NY, nz, T), other);
    Files.writeString(dir.resolve("grid.txt"),
        "bold/sub-00_bold.nii.gz\nbold/sub-01_bold.nii.gz\nbad/grid_bold.nii.gz\n");
    CliRun withMask = isc(p("grid.txt"), "o-grid", "--mask", mask.toString());
    assertThat(withMask.code()).isEqualTo(2);
    assertThat(withMask.err()).contains("grid_bold.nii.gz", "dims (6,5,5) vs mask (6,5,4)");
    CliRun computed = isc(p("grid.txt"), "o-grid2");
    assertThat(computed.code()).isEqualTo(2);
    assertThat(computed.err()).contains("grid_bold.nii.gz", "dims (6,5,5) vs first image");
    CliRun ts = ts(p("bad/grid_bold.nii.gz"), "o-grid3", "--mask", mask.toString());
    assertThat(ts.code()).isEqualTo(2);
    assertThat(ts.err()).contains("grid_bold.nii.gz", "dims (6,5,5) vs mask (6,5,4)");
    // The target has one value per time point of the image.
    NpyWriter.writeFloat64(dir.resolve("y-short.npy"), new long[] {T - 1}, new double[T - 1]);
    CliRun target = CliRun.of("timeseries-correlation", "--input", p("bold/sub-00_bold.nii.gz"),
        "--target", p("y-short.npy"), "--output", p("o-target"), "--quiet");
    assertThat(target.code()).isEqualTo(2);
    assertThat(target.err()).contains("--target must have one value per time point (" + T + ")");
    // A NaN inside the mask is named with its file and volume; outside the mask it is left out.
    float[][] nan = new float[T][];
    for (int t = 0; t < T; t++) {
      nan[t] = volumes[2][t].clone();
    }
    nan[5][grid.maskOrder()[3]] = Float.NaN;
    write4d(dir.resolve("bad/nan_bold.nii.gz"), nan);
    Files.writeString(dir.resolve("nan.txt"),
        "bold/sub-00_bold.nii.gz\nbold/sub-01_bold.nii.gz\nbad/nan_bold.nii.gz\n");
    CliRun nanMasked = isc(p("nan.txt"), "o-nan", "--mask", mask.toString());
    assertThat(nanMasked.code()).isEqualTo(2);
    assertThat(nanMasked.err()).contains("nan_bold.nii.gz", "volume 5 holds NaN at voxel 3");
    // without --mask the NaN voxel leaves the default mask, and the run says so (issue 41)
    CliRun nanComputed = isc(p("nan.txt"), "nan-computed", "--null", "circle-shift",
        "--permutations", "10");
    assertThat(nanComputed.code()).as(nanComputed.err()).isZero();
    assertThat(nanComputed.err()).startsWith("warning: the default mask left out 1 voxels that are"
        + " NaN or infinite in some sample");
    assertThat(TestData.outputValues(dir.resolve("nan-computed/isc.npy")))
        .hasSize(grid.maskCount - 1);
    for (String out : List.of("o-short", "o-grid", "o-grid2", "o-grid3", "o-target", "o-nan")) {
      assertThat(dir.resolve(out)).doesNotExist();
    }
  }

  @Test
  void maskWithAnNpyIsAUsageErrorBeforeSparkStarts() {
    CliRun isc = isc(p("bold.npy"), "u1", "--mask", mask.toString());
    assertThat(isc.code()).isEqualTo(2);
    assertThat(isc.err()).startsWith("nlspark isc: Cannot use --mask").contains("has no grid");
    CliRun ts = ts(p("x.npy"), "u2", "--mask", mask.toString());
    assertThat(ts.code()).isEqualTo(2);
    assertThat(ts.err()).startsWith("nlspark timeseries-correlation: Cannot use --mask")
        .contains("has no grid");
    assertThat(dir.resolve("u1")).doesNotExist();
    assertThat(dir.resolve("u2")).doesNotExist();
  }

  @Test
  void seriesBeyondOneJavaArrayAreRefusedWithExitThreeBeforeTheyAreRead() throws Exception {
    // 3 subjects x 1000 time points x 10^6 mask voxels = 3 * 10^9 values: declared by the
    // headers, refused from them (the files hold only the start of their data).
    int side = 100;
    double[][] sform = {{2, 0, 0, -99}, {0, 2, 0, -99}, {0, 0, 2, -99}};
    NiftiHeader big = NiftiHeader.builder().datatype(NiftiDatatype.UINT8)
        .shape(side, side, side, 1000).sform(4, sform).build();
    byte[] noise = new byte[1_200_000]; // more than 10^9 / 1032 bytes, so the size is plausible
    new SplittableRandom(3).nextBytes(noise);
    writeGzip(dir.resolve("big/sub-01.nii.gz"), big.toBytes(), noise);
    NiftiHeader maskHeader = NiftiHeader.builder().datatype(NiftiDatatype.UINT8)
        .shape(side, side, side).sform(4, sform).build();
    byte[] ones = new byte[side * side * side];
    java.util.Arrays.fill(ones, (byte) 1);
    writeGzip(dir.resolve("big/mask.nii.gz"), maskHeader.toBytes(), ones);
    Files.writeString(dir.resolve("big/subjects.txt"), "sub-01.nii.gz\nsub-01.nii.gz\n"
        + "sub-01.nii.gz\n");
    SparkSession spark = SharedSpark.get();
    try {
      // read on the driver (ingest=broadcast): one array, refused
      spark.conf().set(NlsparkConf.INGEST, "broadcast");
      CliRun r = isc(p("big/subjects.txt"), "o-big", "--mask", p("big/mask.nii.gz"));
      assertThat(r.code()).as(r.err()).isEqualTo(3);
      assertThat(r.err()).contains("3 subjects x 1000 time points x 1000000 mask voxels",
          "more than the 2147483639 one Java array holds");
      assertThat(dir.resolve("o-big")).doesNotExist();
      // read by executors into voxel blocks (what auto chooses for them): no one array, so
      // the run reads the files and meets their truncated data (exit 2, naming the file)
      spark.conf().unset(NlsparkConf.INGEST);
      CliRun b = isc(p("big/subjects.txt"), "o-big", "--mask", p("big/mask.nii.gz"),
          "--null", "circle-shift", "--permutations", "10");
      assertThat(b.code()).as(b.err()).isEqualTo(2);
      assertThat(b.err()).contains("sub-01.nii.gz").doesNotContain("one Java array");
      assertThat(dir.resolve("o-big")).doesNotExist();
    } finally {
      spark.conf().unset(NlsparkConf.INGEST);
    }
  }

  @Test
  void apiTakesTheImagesAndLeavesTheOptionsAlone() {
    SparkSession spark = SharedSpark.get();
    NlsparkOptions o = NlsparkOptions.builder().seed(4).nullMethod("phase-randomize")
        .replicates(30).build();
    RunReport fromNpy = Nlspark.isc(spark, p("bold.npy"), o);
    NlsparkOptions masked = o.toBuilder().maskFile(mask.toString()).build();
    RunReport fromImages = Nlspark.isc(spark, p("subjects.txt"), masked);
    assertThat(fromNpy.mask()).isNull();
    assertThat(fromImages.mask().count()).isEqualTo(grid.maskCount);
    assertThat(fromImages.maskSource()).isEqualTo(mask.toString());
    assertThat(masked.mask()).isNull(); // the caller's options are not changed
    for (int i = 0; i < fromNpy.result.outputs().size(); i++) {
      Output e = fromNpy.result.outputs().get(i);
      assertThat(fromImages.result.outputs().get(i).values()).as(e.name())
          .isEqualTo(e.values());
    }
    RunReport ts = Nlspark.timeseriesCorrelation(spark, p("bold/sub-00_bold.nii.gz"),
        p("y.npy"), NlsparkOptions.builder().replicates(20).build());
    assertThat(ts.maskSource()).isEqualTo("computed");
    assertThat(ts.result.voxels()).isEqualTo(grid.maskCount);
  }

  private static String[] concat(String[] a, String... b) {
    String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, all, a.length, b.length);
    return all;
  }

  private static void writeGzip(Path p, byte[]... parts) {
    try {
      Files.createDirectories(p.getParent());
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
        for (byte[] part : parts) {
          out.write(part);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
