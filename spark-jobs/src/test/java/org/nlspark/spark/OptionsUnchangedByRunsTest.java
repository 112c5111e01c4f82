package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * Input resolution hands its mask along the run ({@link org.nlspark.spark.api.ResolvedInputs}),
 * not through the options (an immutable value, which no run can change): a run on NIfTI inputs
 * with options that hold no mask reports the mask it resolved, and a second run with the same
 * options value writes the same bytes as the first and as a run with an equal value built
 * afresh.
 */
class OptionsUnchangedByRunsTest {
  @TempDir Path dir;
  private final SparkSession spark = SharedSpark.get();
  private NiftiStudy study;
  private Path mask;
  private Path images;

  @BeforeEach
  void writeStudy() throws IOException {
    study = new NiftiStudy(11, 9, 0.8);
    mask = dir.resolve("mask.nii.gz");
    study.writeMask(mask);
    images = dir.resolve("all_4d.nii.gz");
    study.write4d(images);
    List<String> design = new ArrayList<>(List.of("intercept,age"));
    for (int s = 0; s < study.subjects; s++) {
      design.add("1," + (20 + 3 * s % 7));
    }
    Files.write(dir.resolve("design.csv"), design);
    Files.write(dir.resolve("con.csv"), List.of("name,intercept,age", "age,0,1"));
  }

  /** Each written file but the timed ones (summary.json, report.html), as bytes by name. */
  private Map<String, byte[]> written(RunReport report, String name) throws IOException {
    Path out = dir.resolve(name);
    Nlspark.write(report, out.toString(), false);
    Map<String, byte[]> files = new java.util.TreeMap<>();
    try (var s = Files.list(out)) {
      for (Path p : s.toList()) {
        String f = p.getFileName().toString();
        if (!f.equals("summary.json") && !f.equals("report.html")) {
          files.put(f, Files.readAllBytes(p));
        }
      }
    }
    return files;
  }

  private void assertSame(Map<String, byte[]> expected, Map<String, byte[]> actual, String what) {
    assertThat(actual.keySet()).as(what).containsExactlyElementsOf(expected.keySet());
    for (String f : expected.keySet()) {
      assertThat(actual.get(f)).as(what + ": " + f).isEqualTo(expected.get(f));
    }
  }

  /**
   * Runs twice with one options value and once with an equal one built afresh: the maps are on
   * the resolved mask's grid, and all three write the same bytes.
   */
  private void assertRunsLeaveTheOptions(Supplier<NlsparkOptions> options,
      java.util.function.Function<NlsparkOptions, RunReport> run, String what, String map)
      throws Exception {
    NlsparkOptions o = options.get();
    assertThat(o.mask()).as(what).isNull();
    assertThat(o.maskSource()).as(what).isNull();
    RunReport first = run.apply(o);
    assertThat(first.mask()).as(what).isNotNull();
    assertThat(first.mask().count()).as(what).isEqualTo(study.maskCount);
    Map<String, byte[]> a = written(first, what + "-1");
    assertThat(a).as(what).containsKeys(map + ".npy", map + ".nii.gz");
    assertSame(a, written(run.apply(o), what + "-2"), what + ", the same options again");
    NlsparkOptions fresh = options.get();
    assertThat(fresh).as(what).isNotSameAs(o).isEqualTo(o);
    assertSame(a, written(run.apply(fresh), what + "-3"), what + ", fresh options");
  }

  @Test
  void oneSampleOnImagesLeavesTheOptionsAsTheyWere() throws Exception {
    // computed mask, the sources path
    assertRunsLeaveTheOptions(() -> NlsparkOptions.builder().seed(5).replicates(40).build(),
        o -> Nlspark.oneSample(spark, images.toString(), o), "one-sample", "p");
    // a mask file and TFCE: the whole-map path on the mask's grid
    assertRunsLeaveTheOptions(() -> NlsparkOptions.builder().seed(5).replicates(40)
        .maskFile(mask.toString()).tfce(true).build(),
        o -> Nlspark.oneSample(spark, images.toString(), o), "one-sample-tfce", "p_fwer_tfce");
  }

  @Test
  void glmOnImagesLeavesTheOptionsAsTheyWere() throws Exception {
    String design = dir.resolve("design.csv").toString();
    String con = dir.resolve("con.csv").toString();
    assertRunsLeaveTheOptions(() -> NlsparkOptions.builder().seed(5).replicates(40)
        .maskFile(mask.toString()).tfce(true).build(),
        o -> Nlspark.glm(spark, images.toString(), design, con, o), "glm-tfce",
        "p_fwer_tfce_tstat1");
    // prepared, not run (the CLI's path): the computed mask is in the prepared inputs
    NlsparkOptions o = NlsparkOptions.builder().seed(5).replicates(40).tfce(true).build();
    Nlspark.PreparedGlm prepared = Nlspark.prepareGlm(spark, images.toString(), design, con, o);
    assertThat(prepared.inputs().mask().count()).isEqualTo(study.maskCount);
    assertThat(prepared.inputs().maskSource()).isEqualTo("computed");
  }
}
