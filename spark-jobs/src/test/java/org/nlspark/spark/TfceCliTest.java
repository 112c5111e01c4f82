package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line of whole-map inference: the flags on the three permutation commands and
 * {@code glm}, their checks before Spark starts, and exit 2 for an input without a grid (an .npy
 * matrix).
 */
class TfceCliTest {
  @TempDir Path dir;

  @Test
  void thePermutationCommandsListTheFlagsAndTheOthersDoNot() {
    for (String command : new String[] {"one-sample", "two-sample", "correlation"}) {
      CliRun help = CliRun.of(command, "--help");
      assertThat(help.code()).isZero();
      assertThat(help.out()).as(command).contains("--tfce").contains("--cluster-threshold=T")
          .contains("p_fwer_tfce.npy");
    }
    CliRun glm = CliRun.of("glm", "--help");
    assertThat(glm.code()).isZero();
    assertThat(glm.out()).contains("--tfce").contains("--cluster-threshold=T")
        .contains("tfce_tstat{c}").contains("p_fwer_cluster_tstat{c}");
    for (String command : new String[] {"bootstrap", "isc", "timeseries-correlation"}) {
      assertThat(CliRun.of(command, "--help").out()).as(command).doesNotContain("--tfce");
    }
  }

  @Test
  void anNpyInputHasNoGridSoTfceExitsTwo() {
    Path x = TestData.matrix(dir, "x.npy", 8, 30, TestData.gaussian(1, 8, 30, 0.5));
    Path out = dir.resolve("out");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--tfce", "--permutations", "20", "--quiet");
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("needs a mask image");
    assertThat(out).doesNotExist();
    Path y = TestData.vector(dir, "y.npy", TestData.gaussian(2, 1, 8, 0));
    CliRun c = CliRun.of("correlation", "--input", x.toString(), "--target", y.toString(),
        "--output", out.toString(), "--cluster-threshold", "3", "--quiet");
    assertThat(c.code()).as(c.err()).isEqualTo(2);
    assertThat(c.err()).contains("needs a mask image").contains("--cluster-threshold");
  }

  @Test
  void aClusterThresholdThatIsNotAPositiveHeightIsRefusedBeforeSparkStarts() {
    for (String bad : new String[] {"0", "-2", "Infinity", "NaN"}) {
      CliRun r = CliRun.of("two-sample", "--input", "a.npy", "--input2", "b.npy", "--output",
          dir.resolve("o").toString(), "--cluster-threshold", bad);
      assertThat(r.code()).as(bad + ": " + r.err()).isEqualTo(2);
      // 0 and -2 by the threshold rule, Infinity and NaN already by the number parser
      assertThat(r.err()).contains("--cluster-threshold must be").contains("but was: " + bad);
    }
  }

  @Test
  void glmWithAnNpyInputHasNoGridSoTfceExitsTwo() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 8, 30, TestData.gaussian(3, 8, 30, 0.5));
    Path design = dir.resolve("design.csv");
    java.nio.file.Files.write(design, java.util.List.of("intercept,group", "1,0", "1,1", "1,0",
        "1,1", "1,0", "1,1", "1,0", "1,1"));
    Path contrasts = dir.resolve("con.csv");
    java.nio.file.Files.write(contrasts, java.util.List.of("name,intercept,group", "g,0,1"));
    Path out = dir.resolve("glm");
    for (String[] flags : new String[][] {{"--tfce"}, {"--cluster-threshold", "2.3"},
        {"--tfce", "--cluster-threshold", "3"}}) {
      java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("glm", "--input",
          x.toString(), "--design", design.toString(), "--contrasts", contrasts.toString(),
          "--output", out.toString(), "--permutations", "20", "--quiet"));
      args.addAll(java.util.List.of(flags));
      CliRun r = CliRun.of(args.toArray(new String[0]));
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err()).contains("needs a mask image")
          .contains(flags.length == 1 ? "--tfce" : flags[0]);
      assertThat(out).doesNotExist();
    }
    CliRun bad = CliRun.of("glm", "--input", x.toString(), "--design", design.toString(),
        "--contrasts", contrasts.toString(), "--output", out.toString(), "--cluster-threshold",
        "-1");
    assertThat(bad.code()).as(bad.err()).isEqualTo(2);
    assertThat(bad.err()).contains("--cluster-threshold must be").contains("but was: -1");
    CliRun gpu = CliRun.of("glm", "--input", x.toString(), "--design", design.toString(),
        "--contrasts", contrasts.toString(), "--output", out.toString(), "--tfce", "--backend",
        "gpu");
    assertThat(gpu.code()).as(gpu.err()).isEqualTo(3);
    assertThat(gpu.err()).contains("--backend cpu or auto");
  }

  /** Issue 41 case 13: exponents whose scores overflow to Inf are refused, naming the range. */
  @Test
  void tfceExponentsOutsideTheFiniteRangeExitTwo() {
    for (String[] bad : new String[][] {{"--tfce-e", "1e300"}, {"--tfce-h", "10.5"},
        {"--tfce-e", "-1"}, {"--tfce-h", "0"}}) {
      CliRun r = CliRun.of("one-sample", "--input", "x.npy", "--output",
          dir.resolve("o").toString(), "--tfce", bad[0], bad[1]);
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err()).as(bad[1]).contains(bad[0] + " must be in (0, 10], but was: ")
          .contains("overflow to infinity");
    }
    Path x = TestData.matrix(dir, "x.npy", 8, 30, TestData.gaussian(5, 8, 30, 0.5));
    CliRun ten = CliRun.of("one-sample", "--input", x.toString(), "--output",
        dir.resolve("o").toString(), "--tfce", "--tfce-e", "10", "--tfce-h", "10", "--quiet");
    assertThat(ten.err()).contains("needs a mask image"); // past the exponents' check
  }

  /**
   * Issue 41 case 4: --backend auto with TFCE stays on the CPU; summary.json records "auto" as
   * asked and why it fell back, not "requested: cpu".
   */
  @Test
  @SuppressWarnings("unchecked")
  void autoBackendIsRecordedAsAskedWithTheReason() throws Exception {
    NiftiStudy study = new NiftiStudy(7, 6, 0.8);
    Path mask = dir.resolve("mask.nii.gz");
    study.writeMask(mask);
    study.write4d(dir.resolve("all.nii.gz"));
    Path out = dir.resolve("auto");
    CliRun r = CliRun.of("one-sample", "--input", dir.resolve("all.nii.gz").toString(),
        "--mask", mask.toString(), "--tfce", "--permutations", "19", "--backend", "auto",
        "--quiet", "--output", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    java.util.Map<String, Object> s = (java.util.Map<String, Object>)
        org.nlspark.core.io.Json.parse(java.nio.file.Files.readString(
            out.resolve("summary.json")));
    assertThat(((java.util.Map<String, Object>) s.get("parameters")).get("backend_requested"))
        .isEqualTo("auto");
    java.util.Map<String, Object> backend = (java.util.Map<String, Object>) s.get("backend");
    assertThat(backend.get("requested")).isEqualTo("auto");
    assertThat(backend.get("used")).isEqualTo("cpu");
    assertThat((String) backend.get("reason")).startsWith("auto: CPU, as ")
        .doesNotContain("requested: cpu");
    // a CPU-only command records the request too (isc said "cpu" whatever was asked)
    double[] d = TestData.gaussian(9, 4 * 20, 6, 0);
    Path series = dir.resolve("series.npy");
    org.nlspark.core.io.NpyWriter.writeFloat64(series, new long[] {4, 20, 6}, d);
    Path iscOut = dir.resolve("isc");
    CliRun isc = CliRun.of("isc", "--input", series.toString(), "--null", "circle-shift",
        "--permutations", "10", "--backend", "auto", "--quiet", "--output", iscOut.toString());
    assertThat(isc.code()).as(isc.err()).isZero();
    java.util.Map<String, Object> iscBackend = (java.util.Map<String, Object>)
        ((java.util.Map<String, Object>) org.nlspark.core.io.Json.parse(
            java.nio.file.Files.readString(iscOut.resolve("summary.json")))).get("backend");
    assertThat(iscBackend.get("requested")).isEqualTo("auto");
    assertThat(iscBackend.get("reason")).isEqualTo("auto: isc runs on the CPU");
  }
}
