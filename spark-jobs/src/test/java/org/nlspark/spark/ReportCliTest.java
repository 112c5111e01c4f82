package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;

/** Every run writes report.html; the result line says what was found; nlspark report DIR. */
class ReportCliTest {
  static final int[] DIMS = {5, 6, 4};
  static final int V = DIMS[0] * DIMS[1] * DIMS[2];

  @TempDir Path dir;

  @Test
  void aRunWritesItsReportAndTheResultLineNamesFindingsAndReport() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 16, V, TestData.gaussian(3, 16, V, 2.0));
    Path out = dir.resolve("out");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "200", "--stat", "t");
    assertThat(r.code()).as(r.err()).isZero();
    Path page = out.resolve("report.html");
    assertThat(page).exists();
    String html = Files.readString(page, StandardCharsets.UTF_8);
    assertThat(html).contains("data-file=\"p_fwer.npy\"").contains("class=\"chart\"")
        .doesNotContain("http://").doesNotContain("https://");
    Map<?, ?> findings = (Map<?, ?>) ((Map<?, ?>) Json.parse(
        Files.readString(out.resolve("summary.json")))).get("findings");
    double[] pFwer = TestData.outputValues(out.resolve("p_fwer.npy"));
    int significant = 0;
    for (double p : pFwer) {
      significant += p < 0.05 ? 1 : 0;
    }
    assertThat(findings.get("p_fwer_below_0_05")).isEqualTo((long) significant);
    String[] lines = r.out().strip().split("\n");
    // the run line, the report's line, max-T's line (p_fwer counted from the map here)
    assertThat(lines).hasSize(3);
    assertThat(lines[1]).isEqualTo("report: " + page);
    double[] t = TestData.outputValues(out.resolve("observed.npy"));
    int peak = 0;
    for (int v = 1; v < t.length; v++) {
      peak = Math.abs(t[v]) > Math.abs(t[peak]) ? v : peak;
    }
    assertThat(lines[2]).isEqualTo(String.format(Locale.ROOT,
        significant > 0 ? "max-T: %d voxels p_fwer < 0.05, peak t %s at voxel %d, two-tailed"
            : "max-T: nothing survives at FWER 0.05 (smallest p_fwer %4$s), max t %2$s at voxel"
            + " %3$d, two-tailed", significant, lineNumber(t[peak]), peak,
        lineNumber(Arrays.stream(pFwer).min().orElseThrow())));
    assertThat(findings.get("max_abs_statistic_voxel")).isEqualTo((long) peak);
    // the report is not an output of the run, and the directory holds no temporary file
    assertThat(String.valueOf(((Map<?, ?>) Json.parse(Files.readString(out.resolve(
        "summary.json")))).get("outputs"))).doesNotContain("report.html");
    try (var s = Files.list(out)) {
      assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("."));
    }

    // again with --overwrite: the page is replaced, not refused
    Files.writeString(page, "old page");
    CliRun again = CliRun.of("one-sample", "--input", x.toString(), "--output",
        out.toString(), "--permutations", "50", "--stat", "t", "--overwrite");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(Files.readString(page)).contains("<section").contains("permutations 50,");
  }

  @Test
  void reportCommandRegeneratesThePageWithTheMaskInMillimetres() throws Exception {
    double[] values = TestData.gaussian(5, 14, V, 0.0);
    NiftiMask mask = mask();
    // a strong effect in voxel (1, 2, 3): the peak the line must place in mm
    int planted = -1;
    for (int n = 0; n < mask.count(); n++) {
      int[] ijk = mask.ijk(n);
      if (ijk[0] == 1 && ijk[1] == 2 && ijk[2] == 3) {
        planted = n;
      }
    }
    for (int i = 0; i < 14; i++) {
      values[i * V + planted] += 6;
    }
    Path x = TestData.matrix(dir, "x.npy", 14, V, values);
    Path out = dir.resolve("out");
    assertThat(CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "100", "--quiet").code()).isZero();
    NiftiWriter.writeMask(out.resolve("mask.nii.gz"), mask);
    Files.delete(out.resolve("report.html"));
    CliRun r = CliRun.of("report", out.toString());
    assertThat(r.code()).as(r.err()).isZero();
    // voxel (1, 2, 3) at 2 mm from (-4, -6, -3): (-2, -2, 3) mm
    assertThat(r.out().strip()).startsWith("report: " + out.resolve("report.html") + "\n")
        .endsWith(" at (-2, -2, 3) mm, two-tailed");
    String html = Files.readString(out.resolve("report.html"));
    assertThat(html).contains("class=\"map\"").contains("<td class=\"peak-mm\">-2.0, -2.0, 3.0");
  }

  @Test
  void reportOfADirectoryWithoutSummaryIsAUsageError() {
    CliRun r = CliRun.of("report", dir.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("Cannot write a report of").contains("no summary.json");
    assertThat(dir.resolve("report.html")).doesNotExist();
  }

  @Test
  void reportOfAnotherToolsDirectoryLeavesItsReportAlone() throws Exception {
    // any JSON object as summary.json is not enough: nlspark's carries its mark
    Files.writeString(dir.resolve("summary.json"), "{\"my\": 1}");
    Files.writeString(dir.resolve("report.html"), "mine");
    CliRun r = CliRun.of("report", dir.toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("nlspark report: Cannot write a report of " + dir
        + ": summary.json there was not written by nlspark (it lacks"
        + " \"nlspark_output_format\"), and the report is written only beside nlspark's own"
        + " results; name the output directory of an nlspark run");
    assertThat(dir.resolve("report.html")).hasContent("mine");
  }

  /**
   * Issue 41 case 15: DIR holds a run in DIR/run/ and the user's own report.html, no
   * summary.json at its top: the page of the runs below is not written over the user's (exit 2);
   * without that file, or over nlspark's own page, it is (the demo's layout).
   */
  @Test
  void aRunInASubdirectoryNeverReplacesTheUsersOwnReport() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 10, V, TestData.gaussian(4, 10, V, 1.0));
    Path study = dir.resolve("study");
    CliRun run = CliRun.of("one-sample", "--input", x.toString(), "--output",
        study.resolve("run").toString(), "--permutations", "20", "--quiet");
    assertThat(run.code()).as(run.err()).isZero();
    Files.writeString(study.resolve("report.html"), "<html>my own notes</html>");
    CliRun r = CliRun.of("report", study.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip()).isEqualTo("nlspark report: Cannot write a report of " + study
        + ": it has no summary.json of its own, and its report.html was not written by nlspark,"
        + " so it is left as it is; name a run's own directory, or move that report.html away");
    assertThat(study.resolve("report.html")).hasContent("<html>my own notes</html>");
    Files.delete(study.resolve("report.html"));
    CliRun fresh = CliRun.of("report", study.toString(), "--quiet");
    assertThat(fresh.code()).as(fresh.err()).isZero();
    CliRun again = CliRun.of("report", study.toString(), "--quiet"); // its own page: replaced
    assertThat(again.code()).as(again.err()).isZero();
  }

  /** Issue 41 case 23: a truncated summary.json is named, not "Cannot parse JSON" alone. */
  @Test
  void aTruncatedSummaryIsNamed() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 10, V, TestData.gaussian(5, 10, V, 1.0));
    Path out = dir.resolve("cut");
    CliRun run = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "20", "--quiet");
    assertThat(run.code()).as(run.err()).isZero();
    byte[] summary = Files.readAllBytes(out.resolve("summary.json"));
    Files.write(out.resolve("summary.json"), Arrays.copyOf(summary, summary.length / 2));
    CliRun r = CliRun.of("report", out.toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).startsWith("nlspark report: Cannot read summary.json in " + out
        + ": it is not valid JSON (").contains("is it truncated?");
    assertThat(r.err().strip().split("\n")).hasSize(1);
  }

  static String lineNumber(double v) {
    double a = Math.abs(v);
    return String.format(Locale.ROOT, a >= 100 ? "%.1f" : "%.3g", v);
  }

  static NiftiMask mask() {
    double[][] affine = {{2, 0, 0, -4}, {0, 2, 0, -6}, {0, 0, 2, -3}};
    NiftiHeader h = NiftiHeader.builder().shape(DIMS[0], DIMS[1], DIMS[2])
        .pixdim(1, 2, 2, 2, 1, 1, 1, 1).sform(2, affine).build();
    boolean[] all = new boolean[V];
    java.util.Arrays.fill(all, true);
    return NiftiMask.fromSelection(h, all, "test mask");
  }
}
