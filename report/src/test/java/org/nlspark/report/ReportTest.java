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
    Path page = Report.write(dir);
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
    Report.write(dir);
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
    String html = Files.readString(Report.write(dir));
    assertThat(html).doesNotContain("class=\"map\"").contains("class=\"chart\"")
        .contains("none (inputs without a grid)");
  }

  @Test
  void demoLayoutGetsOneSectionPerRun() throws Exception {
    Path dir = tmp.resolve("demo");
    GridFixture.make(2).write(dir.resolve("one-sample"), false);
    GridFixture.make(4).write(dir.resolve("bootstrap"), false);
    String html = Files.readString(Report.write(dir));
    assertThat(html).contains("<section id=\"bootstrap\"").contains("<section id=\"one-sample\"")
        .contains("data-file=\"one-sample/p.npy\"");
    // the demo's check after image inputs: the one-sample section's peak in the planted blob
    GridFixture.make(6).write(tmp.resolve("grid"), true);
    Files.copy(tmp.resolve("grid/mask.nii.gz"), dir.resolve("one-sample/mask.nii.gz"));
    Files.copy(tmp.resolve("grid/observed.npy"), dir.resolve("one-sample/observed.npy"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.copy(tmp.resolve("grid/p_fwer.npy"), dir.resolve("one-sample/p_fwer.npy"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Report.write(dir);
    PlantedRegion.assertPeakWithin(dir, "one-sample", GridFixture.blobCentreMm(),
        GridFixture.BLOB_RADIUS_VOXELS * GridFixture.VOXEL_MM);
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
    assertThatThrownBy(() -> Report.write(dir)).isInstanceOf(InvalidInputException.class)
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
    Report.write(dir);
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
    assertThatThrownBy(() -> Report.write(dir)).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot write a report of " + dir + ": summary.json there was not written by"
            + " nlspark (it lacks \"nlspark_output_format\"), and the report is written only"
            + " beside nlspark's own results; name the output directory of an nlspark run");
    assertThat(dir.resolve("report.html")).hasContent("theirs");
  }

  @Test
  void aDirectoryWithoutSummaryIsRefusedWithTheFix() {
    assertThatThrownBy(() -> Report.write(tmp)).isInstanceOf(InvalidInputException.class)
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
}
