package org.nlspark.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.stats.PValues;

class ReportTest {
  private static final Pattern IMG = Pattern.compile(
      "<img class=\"([a-z]+)\" src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\" width=\"(\\d+)\""
          + " height=\"(\\d+)\"");
  private static final Pattern COUNT = Pattern.compile(
      "data-file=\"([^\"]+)\" data-alpha=\"([0-9.]+)\">(\\d+)<");

  @TempDir Path tmp;

  @Test
  void gridRunCountsEqualTheNpyFilesAndThePeakIsInTheBlob() throws Exception {
    GridFixture f = GridFixture.make(11);
    Path dir = tmp.resolve("run");
    f.write(dir, true);
    Path page = ReportPages.write(dir);
    String html = Files.readString(page, StandardCharsets.UTF_8);

    // counts on the page = counts recomputed here from the .npy files, by brute force
    Matcher m = COUNT.matcher(html);
    int seen = 0;
    while (m.find()) {
      double[] values = NpyReader.read(dir.resolve(m.group(1)), 1).data();
      double alpha = Double.parseDouble(m.group(2));
      int expected = 0;
      for (double v : values) {
        expected += v < alpha ? 1 : 0;
      }
      assertThat(Integer.parseInt(m.group(3))).as(m.group(0)).isEqualTo(expected);
      seen++;
    }
    assertThat(seen).isEqualTo(4);
    assertThat(Report.countBelow(f.pFwer, 0.05)).isGreaterThan(10);

    // images: all decode, at the size the page declares; 3 montages + colour bar + 3 charts
    List<String> kinds = new ArrayList<>();
    Matcher im = IMG.matcher(html);
    while (im.find()) {
      BufferedImage img = ImageIO.read(new ByteArrayInputStream(
          Base64.getDecoder().decode(im.group(2))));
      assertThat(img).isNotNull();
      assertThat(img.getWidth()).isEqualTo(Integer.parseInt(im.group(3)));
      assertThat(img.getHeight()).isEqualTo(Integer.parseInt(im.group(4)));
      kinds.add(im.group(1));
    }
    assertThat(kinds).containsExactly("map", "map", "map", "map", "chart", "chart", "chart");
    assertThat(html.split("<img", -1).length - 1).isEqualTo(kinds.size());

    // self-contained: nothing fetched, no script
    assertThat(html).doesNotContain("http://").doesNotContain("https://")
        .doesNotContain("<script").doesNotContain("<link");
    // the command line is shown escaped
    assertThat(html).contains("nlspark one-sample --input &#39;data/X.npy&#39; --stat t");

    // the largest cluster's peak lies in the planted blob
    PlantedRegion.assertPeakWithin(dir, GridFixture.blobCentreMm(),
        GridFixture.BLOB_RADIUS_VOXELS * GridFixture.VOXEL_MM);
    assertThat(html).contains(Report.findingsLine(
        (java.util.Map<String, Object>) org.nlspark.core.io.Json.parse(
            Files.readString(dir.resolve("summary.json"))), f.mask).replace("<", "&lt;"));
  }

  @Test
  void peakCheckFailsWhenThePlantedRegionIsElsewhere() throws Exception {
    Path dir = tmp.resolve("run");
    GridFixture.make(3).write(dir, true);
    ReportPages.write(dir);
    assertThatThrownBy(() -> PlantedRegion.assertPeakWithin(dir, new double[] {10, 10, 10}, 4))
        .isInstanceOf(AssertionError.class).hasMessageContaining("from the planted centre");
  }

  @Test
  void findingsLineNamesCountStatisticAndMillimetres() throws Exception {
    GridFixture f = GridFixture.make(5);
    Path dir = tmp.resolve("run");
    f.write(dir, true);
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> summary = (java.util.Map<String, Object>)
        org.nlspark.core.io.Json.parse(Files.readString(dir.resolve("summary.json")));
    int at = ((Number) ((java.util.Map<?, ?>) summary.get("findings"))
        .get("max_abs_statistic_voxel")).intValue();
    double[] mm = Clusters.toMm(GridFixture.affine(), f.mask.ijk(at));
    String line = Report.findingsLine(summary, f.mask);
    assertThat(line).startsWith(Report.countBelow(f.pFwer, 0.05) + " voxels p_fwer < 0.05, max t ")
        .endsWith(String.format(java.util.Locale.ROOT, " at (%.0f, %.0f, %.0f) mm",
            mm[0], mm[1], mm[2]));
    assertThat(GridFixture.inBlob(f.mask.ijk(at))).isTrue();
    assertThat(Report.findingsLine(summary, null)).endsWith(" at voxel " + at);
  }

  @Test
  void withoutAGridThereAreNoMapsButTheTestsAreThere() throws Exception {
    Path dir = tmp.resolve("run");
    GridFixture.make(2).write(dir, false);
    String html = Files.readString(ReportPages.write(dir));
    assertThat(html).doesNotContain("class=\"map\"").contains("class=\"chart\"")
        .contains("none (inputs without a grid)");
  }

  @Test
  void demoLayoutGetsOneSectionPerRun() throws Exception {
    Path dir = tmp.resolve("demo");
    GridFixture.make(2).write(dir.resolve("one-sample"), false);
    GridFixture.make(4).write(dir.resolve("bootstrap"), false);
    String html = Files.readString(ReportPages.write(dir));
    assertThat(html).contains("<section id=\"bootstrap\"").contains("<section id=\"one-sample\"")
        .contains("data-file=\"one-sample/p.npy\"");
    // the demo's check after image inputs: the one-sample section's peak in the planted blob
    GridFixture.make(6).write(tmp.resolve("grid"), true);
    Files.copy(tmp.resolve("grid/mask.nii.gz"), dir.resolve("one-sample/mask.nii.gz"));
    Files.copy(tmp.resolve("grid/observed.npy"), dir.resolve("one-sample/observed.npy"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.copy(tmp.resolve("grid/p_fwer.npy"), dir.resolve("one-sample/p_fwer.npy"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    ReportPages.write(dir);
    PlantedRegion.assertPeakWithin(dir, "one-sample", GridFixture.blobCentreMm(),
        GridFixture.BLOB_RADIUS_VOXELS * GridFixture.VOXEL_MM);
  }

  @Test
  void runFoldersUnderAnyNameAreReportedByTheCommandTheirSummaryNames() throws Exception {
    // a run folder named after nothing: the command comes from its summary.json
    Path single = tmp.resolve("my results 2024");
    GridFixture.make(2).write(single, false);
    String one = Files.readString(ReportPages.write(single));
    assertThat(one).contains("<title>nlspark report: one-sample</title>");
    // a study folder holding runs under names of its own, and another tool's folder
    Path study = tmp.resolve("study");
    GridFixture.make(2).write(study.resolve("run-b"), false);
    GridFixture.make(4).write(study.resolve("run-a"), false);
    Files.createDirectories(study.resolve("theirs"));
    Files.writeString(study.resolve("theirs/summary.json"), "{\"my\": 1}");
    Files.createDirectories(study.resolve("broken"));
    Files.writeString(study.resolve("broken/summary.json"), "not json");
    String html = Files.readString(ReportPages.write(study));
    assertThat(html).contains("<section id=\"run-a\"").contains("<section id=\"run-b\"")
        .contains("data-file=\"run-b/p.npy\"").doesNotContain("theirs").doesNotContain("broken")
        .contains("<title>nlspark report: one-sample (run-a), one-sample (run-b)</title>");
    assertThat(html.indexOf("<section id=\"run-a\"")).isLessThan(
        html.indexOf("<section id=\"run-b\""));
    // nothing of nlspark's at the top or below: the one refusal, naming the directory
    Path none = tmp.resolve("none");
    Files.createDirectories(none.resolve("theirs"));
    Files.writeString(none.resolve("theirs/summary.json"), "{\"my\": 1}");
    assertThatThrownBy(() -> ReportPages.write(none)).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot write a report of " + none + ": it holds no summary.json (neither at"
            + " the top nor in a run's sub-directory); name the output directory of a finished"
            + " nlspark run");
  }

  @Test
  void aMaskThatMovedSinceTheRunIsNamedWithTheFix() throws Exception {
    Path dir = tmp.resolve("moved");
    Files.createDirectories(dir);
    GridFixture.make(3).write(dir, false);
    Path gone = tmp.resolve("elsewhere/mask.nii.gz");
    String summary = Files.readString(dir.resolve("summary.json"));
    Files.writeString(dir.resolve("summary.json"), summary.replaceFirst("\"command\"",
        "\"grid\": {\"mask_uri\": \"" + gone + "\"},\n  \"command\""));
    assertThatThrownBy(() -> ReportPages.write(dir)).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot write a report of " + dir + ": summary.json names the mask " + gone
            + ", which cannot be read now (no such file); put it back there, or copy it beside"
            + " the outputs as mask.nii.gz");
    assertThat(dir.resolve("report.html")).doesNotExist();
  }

  @Test
  void nlsparksOwnNanMapsAreDrawnAndAMisshapenMapIsNamedNotDrawn() throws Exception {
    Path dir = tmp.resolve("nan");
    Files.createDirectories(dir);
    GridFixture f = GridFixture.make(3);
    f.write(dir, true);
    double[] observed = f.observed.clone();
    observed[0] = Double.NaN; // a constant voxel has no t
    GridFixture.npy(dir.resolve("observed.npy"), observed);
    GridFixture.npy(dir.resolve("p.npy"), new double[] {0.5, 0.5});
    ReportPages.write(dir);
    String html = Files.readString(dir.resolve("report.html"));
    assertThat(html).contains("p.npy has 2 values but the run has " + f.mask.count()
        + " voxels; it is not drawn");
  }

  @Test
  void aSummaryNlsparkDidNotWriteIsNotReportedOn() throws Exception {
    Path dir = tmp.resolve("foreign");
    Files.createDirectories(dir);
    GridFixture.make(3).write(dir, true);
    String summary = Files.readString(dir.resolve("summary.json"));
    Files.writeString(dir.resolve("summary.json"),
        summary.replace("\"nlspark_output_format\": 1,", ""));
    Files.writeString(dir.resolve("report.html"), "theirs");
    assertThatThrownBy(() -> ReportPages.write(dir)).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot write a report of " + dir + ": summary.json there was not written by"
            + " nlspark (it lacks \"nlspark_output_format\"), and the report is written only"
            + " beside nlspark's own results; name the output directory of an nlspark run");
    assertThat(dir.resolve("report.html")).hasContent("theirs");
  }

  @Test
  void aDirectoryWithoutSummaryIsRefusedWithTheFix() {
    assertThatThrownBy(() -> ReportPages.write(tmp)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot write a report of").hasMessageContaining("no summary.json");
  }

  @Test
  void fwerThresholdSeparatesExactlyTheVoxelsCoreCallsSignificant() {
    SplittableRandom r = new SplittableRandom(9);
    for (int draws : new int[] {1, 18, 19, 20, 39, 99, 199, 999, 1000}) {
      double[] nullMax = new double[draws];
      for (int d = 0; d < draws; d++) {
        nullMax[d] = Math.floor(r.nextDouble() * 50) / 10; // ties on purpose
      }
      double[] keys = new double[300];
      for (int v = 0; v < keys.length; v++) {
        keys[v] = Math.floor(r.nextDouble() * 60) / 10;
      }
      double[] pFwer = PValues.fwer(nullMax, keys, false);
      double t = Report.fwerThreshold(nullMax, 0.05);
      for (int v = 0; v < keys.length; v++) {
        boolean significant = pFwer[v] < 0.05;
        boolean above = !Double.isNaN(t) && keys[v] > t;
        assertThat(above).as("draws %d key %s threshold %s p %s", draws, keys[v], t, pFwer[v])
            .isEqualTo(significant);
      }
    }
  }

  @Test
  void clustersAre26ConnectedAndSignSeparated() {
    int[] dims = {6, 6, 6};
    double[] v = new double[216];
    java.util.Arrays.fill(v, Double.NaN);
    // a diagonal chain of 3 (corner neighbours), a lone negative voxel touching it, one far away
    v[0] = 2;
    v[1 + 6 * (1 + 6)] = 5;
    v[2 + 6 * (2 + 6 * 2)] = 3;
    v[3 + 6 * (2 + 6 * 2)] = -4;
    v[5 + 6 * (5 + 6 * 5)] = 1;
    double[][] affine = {{2, 0, 0, -6}, {0, 2, 0, -6}, {0, 0, 2, -6}, {0, 0, 0, 1}};
    List<Clusters.Cluster> c = Clusters.find(dims, affine, v);
    assertThat(c).hasSize(3);
    assertThat(c.get(0).size()).isEqualTo(3);
    assertThat(c.get(0).peak()).isEqualTo(5);
    assertThat(c.get(0).peakIjk()).containsExactly(1, 1, 1);
    assertThat(c.get(0).peakMm()).containsExactly(-4, -4, -4);
    assertThat(c.get(0).volumeMm3()).isEqualTo(24);
    assertThat(c.get(1).peak()).isEqualTo(-4);
  }

  /** The fixture's run with summary.json's findings as core writes them (with inferences). */
  @SuppressWarnings("unchecked")
  static void withInferences(Path dir, GridFixture f, double[] pFwer) throws Exception {
    java.util.Map<String, Object> summary = (java.util.Map<String, Object>)
        org.nlspark.core.io.Json.parse(Files.readString(dir.resolve("summary.json")));
    List<org.nlspark.core.result.Output> outs = List.of(out("observed", f.observed),
        out("p", f.p), out("p_fwer", pFwer), out("null_max", f.nullMax));
    GridFixture.npy(dir.resolve("p_fwer.npy"), pFwer);
    org.nlspark.core.result.Result result = new org.nlspark.core.result.Result() {
      @Override
      public List<org.nlspark.core.result.Output> outputs() {
        return outs;
      }

      @Override
      public java.util.Map<String, Object> facts() {
        return java.util.Map.of();
      }

      @Override
      public int voxels() {
        return f.observed.length;
      }
    };
    summary.put("findings", org.nlspark.core.result.Findings.of(result, summary, f.mask));
    Files.writeString(dir.resolve("summary.json"), org.nlspark.core.io.Json.write(summary));
  }

  static org.nlspark.core.result.Output out(String name, double[] v) {
    return new org.nlspark.core.result.Output(name, new long[] {v.length}, v);
  }

  @Test
  void eachInferenceHasItsPartWithCountsMapsAndNullAndSaysWhenNothingSurvives()
      throws Exception {
    GridFixture f = GridFixture.make(11);
    Path dir = tmp.resolve("run");
    f.write(dir, true);
    withInferences(dir, f, f.pFwer);
    String html = Files.readString(ReportPages.write(dir), StandardCharsets.UTF_8);
    assertThat(html).contains("data-inference=\"max-T\"")
        .contains("max-T: " + Report.countBelow(f.pFwer, 0.05) + " voxels p_fwer &lt; 0.05, peak t ")
        .doesNotContain("Nothing survives");
    Matcher m = COUNT.matcher(html);
    int seen = 0;
    while (m.find()) {
      double[] values = NpyReader.read(dir.resolve(m.group(1)), 1).data();
      int expected = 0;
      for (double v : values) {
        expected += v < Double.parseDouble(m.group(2)) ? 1 : 0;
      }
      assertThat(Integer.parseInt(m.group(3))).as(m.group(0)).isEqualTo(expected);
      seen++;
    }
    assertThat(seen).isEqualTo(2); // max-T's p_fwer < 0.05 and < 0.01
    assertThat(html).contains("alt=\"null distribution of the maximum |t|\"")
        .contains("data-view=\"axial\"");

    // no effect: p_fwer 1 everywhere; the part says so and draws no map
    Path none = tmp.resolve("none");
    f.write(none, true);
    double[] ones = new double[f.pFwer.length];
    java.util.Arrays.fill(ones, 1.0);
    withInferences(none, f, ones);
    String empty = Files.readString(ReportPages.write(none), StandardCharsets.UTF_8);
    assertThat(empty).contains("Nothing survives at FWER 0.05: the smallest p_fwer is 1.00.")
        .contains("max-T: nothing survives at FWER 0.05").doesNotContain("class=\"map\"");
  }

  /**
   * Neurological convention whatever the storage order: a voxel at +x mm is drawn in the right
   * half of its axial slice and a voxel at +y mm in the upper half, for a RAS and a LAS affine
   * (and with the axes permuted); the pixel is where {@link Slices#pixelOf} says.
   */
  @Test
  void plusXIsOnTheRightAndAnteriorUpForAnyStorageOrder() {
    int[] dims = {9, 7, 5};
    double[][][] affines = {
      {{2, 0, 0, -8}, {0, 2, 0, -6}, {0, 0, 2, -4}, {0, 0, 0, 1}},
      {{-2, 0, 0, 8}, {0, 2, 0, -6}, {0, 0, 2, -4}, {0, 0, 0, 1}},
      {{-2, 0, 0, 8}, {0, -2, 0, 6}, {0, 0, 2, -4}, {0, 0, 0, 1}}};
    for (double[][] a : affines) {
      for (int i = 0; i < dims[0]; i++) {
        for (int j = 0; j < dims[1]; j++) {
          int[] ijk = {i, j, 2};
          double[] mm = Clusters.toMm(a, ijk);
          if (mm[0] == 0 || mm[1] == 0) {
            continue; // on the midline: neither half
          }
          double[] overlay = new double[dims[0] * dims[1] * dims[2]];
          java.util.Arrays.fill(overlay, Double.NaN);
          overlay[i + dims[0] * (j + dims[1] * 2)] = 5.0;
          double[] background = new double[overlay.length];
          java.util.Arrays.fill(background, 1.0);
          Slices.Orientation o = Slices.Orientation.of(a);
          int[] slices = {2};
          BufferedImage img = Slices.montage(dims, a, Slices.View.AXIAL, slices, overlay,
              background, 5.0, 5.0);
          // the one coloured voxel, found by scanning the image
          int sumX = 0;
          int sumY = 0;
          int n = 0;
          for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
              int rgb = img.getRGB(x, y) & 0xffffff;
              if (rgb == 0xffff00) {
                sumX += x;
                sumY += y;
                n++;
              }
            }
          }
          assertThat(n).as("coloured pixels").isPositive();
          int px = sumX / n;
          int py = sumY / n;
          int left = Slices.planeX(dims, o, Slices.View.AXIAL, 0);
          int width = Slices.planeWidth(dims, o, Slices.View.AXIAL);
          int top = Slices.planeY();
          int height = dims[o.axis[1]] * Slices.scale(dims, o, Slices.View.AXIAL);
          assertThat(px > left + width / 2).as("x %.0f mm drawn at column %d of [%d, %d)",
              mm[0], px, left, left + width).isEqualTo(mm[0] > 0);
          assertThat(py < top + height / 2).as("y %.0f mm drawn at row %d", mm[1], py)
              .isEqualTo(mm[1] > 0);
          int[] expected = Slices.pixelOf(dims, o, Slices.View.AXIAL, 0, ijk);
          assertThat(Math.abs(expected[0] - px)).isLessThanOrEqualTo(1);
          assertThat(Math.abs(expected[1] - py)).isLessThanOrEqualTo(1);
        }
      }
    }
  }

  /**
   * The result line reads the findings: one line per inference with the contrast named for glm,
   * the peak on the tested tail (an upper-tailed contrast whose largest |t| is negative quotes
   * its largest t), nothing-survives wording, and the warning when the draws cannot reach 0.05.
   */
  @Test
  void resultLinesPerInferenceWithTailPeakAndUnattainableP() {
    java.util.Map<String, Object> one = new java.util.LinkedHashMap<>();
    one.put("statistic", "tstat1");
    one.put("statistic_label", "t");
    one.put("inference", "TFCE");
    one.put("measure", "p_fwer");
    one.put("tail", "upper");
    one.put("below_0_05", 123);
    one.put("smallest_possible_p", 1.0 / 501);
    one.put("peak_voxel", 7);
    one.put("peak_statistic", 11.04);
    one.put("peak_mm", List.of(26.0, 8.0, 14.0));
    one.put("peak_p", 0.002);
    java.util.Map<String, Object> two = new java.util.LinkedHashMap<>(one);
    two.put("statistic", "tstat2");
    two.put("inference", "max-T");
    two.put("below_0_05", 0);
    two.put("peak_statistic", 2.5);
    two.put("peak_p", 0.5);
    two.put("smallest_possible_p", 1.0 / 16);
    java.util.Map<String, Object> unc = new java.util.LinkedHashMap<>(two);
    unc.put("inference", "uncorrected");
    unc.put("measure", "p");
    java.util.Map<String, Object> summary = java.util.Map.of("findings",
        java.util.Map.of("inferences", List.of(one, two, unc)));
    assertThat(Report.findingsLines(summary, null)).containsExactly(
        "tstat1 TFCE: 123 voxels p_fwer < 0.05, peak t 11.0 at (26, 8, 14) mm, upper tail",
        "tstat2 max-T: nothing survives at FWER 0.05 (smallest p_fwer 0.500), max t 2.50 at"
            + " (26, 8, 14) mm, upper tail; the smallest p these draws can give is 0.0625, not"
            + " below 0.05: more samples (or permutations) are needed");
  }
}
