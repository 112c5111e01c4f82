package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyWriter;

/**
 * Runs that succeed but must say why some results are undefined or unresolved (issue: "--samples
 * 1 exits 0 with NaN and no notice", "--confidence 0.999 --samples 10 without a warning", "an ISC
 * voxel with a constant subject is NaN without the zero-variance notice"): a "warning:" line on
 * stderr, also under --quiet, and the same text in summary.json's warnings.
 */
class RunWarningsCliTest {
  @TempDir Path dir;

  @SuppressWarnings("unchecked")
  private static List<String> warnings(Path out) throws Exception {
    Map<String, Object> s = (Map<String, Object>) Json.parse(
        Files.readString(out.resolve("summary.json")));
    return (List<String>) s.get("warnings");
  }

  @Test
  void oneBootstrapSampleSaysItsSpreadIsUndefined() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 8, 5, TestData.gaussian(1, 8, 5, 0));
    Path out = dir.resolve("b1");
    CliRun r = CliRun.of("bootstrap", "--input", x.toString(), "--samples", "1", "--quiet",
        "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("warning: 1 bootstrap sample").contains("--samples 2 or more");
    assertThat(warnings(out)).singleElement().asString().startsWith("1 bootstrap sample");
  }

  @Test
  void tooFewSamplesForTheConfidenceSayHowManyAreNeeded() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 8, 5, TestData.gaussian(2, 8, 5, 0));
    Path out = dir.resolve("b10");
    CliRun r = CliRun.of("bootstrap", "--input", x.toString(), "--samples", "10",
        "--confidence", "0.999", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    // (1 - 0.999) / 2 * (B - 1) >= 1 needs B >= 2001
    assertThat(r.err()).contains("warning: --confidence 0.999 with 10 samples")
        .contains("use at least 2001 samples");
    assertThat(warnings(out)).hasSize(1);
  }

  @Test
  void enoughSamplesWarnNothing() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 8, 5, TestData.gaussian(3, 8, 5, 0));
    Path out = dir.resolve("b41");
    CliRun r = CliRun.of("bootstrap", "--input", x.toString(), "--samples", "41", "--quiet",
        "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).doesNotContain("warning");
    assertThat(warnings(out)).isEmpty();
  }

  @Test
  void iscVoxelWithAConstantSubjectIsNamed() throws Exception {
    int subjects = 4;
    int time = 20;
    int voxels = 6;
    double[] d = TestData.gaussian(4, subjects * time, voxels, 0);
    for (int t = 0; t < time; t++) {
      d[(1 * time + t) * voxels + 2] = 5.0; // subject 1 is constant at voxel 2
    }
    Path in = dir.resolve("d.npy");
    NpyWriter.writeFloat64(in, new long[] {subjects, time, voxels}, d);
    Path out = dir.resolve("isc");
    CliRun r = CliRun.of("isc", "--input", in.toString(), "--null", "circle-shift",
        "--permutations", "20", "--quiet", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("warning: 1 of 6 voxels are undefined (NaN)")
        .contains("a subject is constant there");
    assertThat(warnings(out)).hasSize(1);
  }

  /**
   * Issue 41 case 3: without --mask, a NaN patch leaves the default mask; the voxels it takes are
   * counted on stderr and in summary.json (warnings, grid.mask_left_out), the same whichever way
   * the samples travel (read by executors into blocks, or on the driver and broadcast).
   */
  @Test
  void defaultMaskSaysHowManyNonFiniteVoxelsItLeftOut() throws Exception {
    NiftiStudy study = new NiftiStudy(41, 6, 0.5);
    int[] order = study.maskOrder();
    study.volumes[2][order[0]] = Float.NaN; // three masked voxels, non-finite in one sample
    study.volumes[4][order[1]] = Float.POSITIVE_INFINITY;
    study.volumes[0][order[2]] = Float.NaN;
    study.volumes[5][order[2]] = Float.NaN;
    for (int s = 0; s < study.subjects; s++) {
      study.writeSubject(dir.resolve("nan/sub-" + s + ".nii.gz"), s);
    }
    int grid = NiftiStudy.NX * NiftiStudy.NY * NiftiStudy.NZ;
    long zero = grid - study.maskCount;
    org.apache.spark.sql.SparkSession spark = SharedSpark.get();
    try {
      for (String ingest : List.of("blocks", "broadcast")) {
        spark.conf().set(org.nlspark.spark.conf.NlsparkConf.INGEST, ingest);
        Path out = dir.resolve("nan-" + ingest);
        CliRun r = CliRun.of("one-sample", "--input", dir.resolve("nan").toString(),
            "--permutations", "19", "--quiet", "--output", out.toString());
        assertThat(r.code()).as(r.err()).isZero();
        String expected = "the default mask left out 3 voxels that are NaN or infinite in some"
            + " sample (and " + zero + " that are zero in every sample), analysing "
            + (study.maskCount - 3);
        assertThat(r.err()).as(ingest).contains("warning: " + expected);
        assertThat(warnings(out)).as(ingest).anySatisfy(w -> assertThat(w).startsWith(expected));
        @SuppressWarnings("unchecked")
        Map<String, Object> g = (Map<String, Object>) ((Map<String, Object>) Json.parse(
            Files.readString(out.resolve("summary.json")))).get("grid");
        assertThat(g.get("mask_left_out")).as(ingest)
            .isEqualTo(Map.of("non_finite", 3L, "zero_in_every_sample", zero));
        assertThat(out.resolve("mask.nii.gz")).exists();
        assertThat(Files.readString(out.resolve("report.html"))).contains(expected);
      }
    } finally {
      spark.conf().unset(org.nlspark.spark.conf.NlsparkConf.INGEST);
    }
  }

  /**
   * Issue 41 case 11: sub-1 ... sub-12 in a directory or glob are taken in byte order (sub-1,
   * sub-10, sub-11, sub-12, sub-2, ...), kept so; summary.json lists the order taken, and
   * stderr and warnings say that design rows meet samples in it. A list file says nothing.
   */
  @Test
  @SuppressWarnings("unchecked")
  void byteOrderAgainstTheNumbersInTheNamesIsSaid() throws Exception {
    NiftiStudy study = new NiftiStudy(12, 12, 0.5);
    Path mask = dir.resolve("mask.nii.gz");
    study.writeMask(mask);
    StringBuilder list = new StringBuilder();
    for (int s = 0; s < 12; s++) {
      study.writeSubject(dir.resolve("subs/sub-" + (s + 1) + ".nii.gz"), s);
      list.append("subs/sub-").append(s + 1).append(".nii.gz\n");
    }
    Files.writeString(dir.resolve("list.txt"), list.toString());
    List<String> byteOrder = List.of("sub-1.nii.gz", "sub-10.nii.gz", "sub-11.nii.gz",
        "sub-12.nii.gz", "sub-2.nii.gz", "sub-3.nii.gz", "sub-4.nii.gz", "sub-5.nii.gz",
        "sub-6.nii.gz", "sub-7.nii.gz", "sub-8.nii.gz", "sub-9.nii.gz");
    Path out = dir.resolve("dir");
    CliRun r = CliRun.of("one-sample", "--input", dir.resolve("subs").toString(), "--mask",
        mask.toString(), "--permutations", "19", "--quiet", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).contains("takes its 12 files in the byte order of their names (sub-1.nii.gz,"
        + " sub-10.nii.gz, sub-11.nii.gz, sub-12.nii.gz, sub-2.nii.gz, sub-3.nii.gz, ...)")
        .contains("(sub-2.nii.gz before sub-10.nii.gz)")
        .contains("design rows, --target values and exchangeability blocks are matched to samples"
            + " in that order")
        .contains("list file").contains("zero-padded");
    assertThat(warnings(out)).singleElement().asString().contains("byte order of their names");
    Map<String, Object> input = (Map<String, Object>) ((Map<String, Object>) ((Map<String,
        Object>) Json.parse(Files.readString(out.resolve("summary.json")))).get("inputs"))
        .get("input");
    assertThat(input.get("samples")).isEqualTo(byteOrder);
    assertThat(input.get("sample_order")).isEqualTo("byte order of the names");
    assertThat(Files.readString(out.resolve("report.html"))).contains("sample order")
        .contains("sub-1.nii.gz, sub-10.nii.gz, sub-11.nii.gz, sub-12.nii.gz, sub-2.nii.gz")
        .contains("(sub-2.nii.gz before sub-10.nii.gz)");

    // glm through a glob: the same order, the same warning, the samples in its summary too
    List<String> design = new java.util.ArrayList<>(List.of("intercept"));
    for (int s = 0; s < 12; s++) {
      design.add("1");
    }
    Files.write(dir.resolve("design.csv"), design);
    Files.write(dir.resolve("con.csv"), List.of("name,intercept", "mean,1"));
    Path glm = dir.resolve("glm");
    CliRun g = CliRun.of("glm", "--input", dir.resolve("subs").toString() + "/sub-*.nii.gz",
        "--mask", mask.toString(), "--design", dir.resolve("design.csv").toString(),
        "--contrasts", dir.resolve("con.csv").toString(), "--permutations", "19", "--quiet",
        "--output", glm.toString());
    assertThat(g.code()).as(g.err()).isZero();
    assertThat(g.err()).contains("(sub-2.nii.gz before sub-10.nii.gz)");
    assertThat(warnings(glm)).anySatisfy(w -> assertThat(w).contains("byte order"));
    Map<String, Object> glmInput = (Map<String, Object>) ((Map<String, Object>) ((Map<String,
        Object>) Json.parse(Files.readString(glm.resolve("summary.json")))).get("inputs"))
        .get("input");
    assertThat(glmInput.get("samples")).isEqualTo(byteOrder);

    // a list file is the user's order: recorded, no warning
    Path listed = dir.resolve("listed");
    CliRun l = CliRun.of("one-sample", "--input", dir.resolve("list.txt").toString(), "--mask",
        mask.toString(), "--permutations", "19", "--quiet", "--output", listed.toString());
    assertThat(l.code()).as(l.err()).isZero();
    assertThat(l.err()).doesNotContain("byte order");
    assertThat(warnings(listed)).isEmpty();
  }
}
