package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
 * Input resolution hands its mask along the run ({@link org.nlspark.spark.api.ResolvedInputs})
 * and never writes it into the caller's options: after a run on NIfTI inputs every field of the
 * options is what it was (mask() still null), and a second run with the same options object
 * writes the same bytes as the first and as a run with fresh options.
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

  /** Every field of {@code o} by name (the options hold plain values, records and enums). */
  private static Map<String, Object> fields(NlsparkOptions o) throws IllegalAccessException {
    Map<String, Object> m = new LinkedHashMap<>();
    for (Field f : NlsparkOptions.class.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        f.setAccessible(true);
        m.put(f.getName(), f.get(o));
      }
    }
    return m;
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
   * Runs twice with one options object and once with fresh ones: the options are unchanged
   * after each run, the maps are on the mask's grid, and all three write the same bytes.
   */
  private void assertRunsLeaveTheOptions(Supplier<NlsparkOptions> options,
      java.util.function.Function<NlsparkOptions, RunReport> run, String what, String map)
      throws Exception {
    NlsparkOptions o = options.get();
    Map<String, Object> before = fields(o);
    RunReport first = run.apply(o);
    assertThat(first.mask()).as(what).isNotNull();
    assertThat(first.mask().count()).as(what).isEqualTo(study.maskCount);
    assertThat(o.mask()).as(what).isNull();
    assertThat(o.maskSource()).as(what).isNull();
    assertThat(fields(o)).as(what).isEqualTo(before);
    Map<String, byte[]> a = written(first, what + "-1");
    assertThat(a).as(what).containsKeys(map + ".npy", map + ".nii.gz");
    RunReport second = run.apply(o);
    assertThat(fields(o)).as(what).isEqualTo(before);
    assertSame(a, written(second, what + "-2"), what + ", the same options again");
    assertSame(a, written(run.apply(options.get()), what + "-3"), what + ", fresh options");
  }

  @Test
  void oneSampleOnImagesLeavesTheOptionsAsTheyWere() throws Exception {
    // computed mask, the sources path
    assertRunsLeaveTheOptions(() -> NlsparkOptions.defaults().seed(5).replicates(40),
        o -> Nlspark.oneSample(spark, images.toString(), o), "one-sample", "p");
    // a mask file and TFCE: the whole-map path on the mask's grid
    assertRunsLeaveTheOptions(() -> NlsparkOptions.defaults().seed(5).replicates(40)
        .maskFile(mask.toString()).tfce(true),
        o -> Nlspark.oneSample(spark, images.toString(), o), "one-sample-tfce", "p_fwer_tfce");
  }

  @Test
  void glmOnImagesLeavesTheOptionsAsTheyWere() throws Exception {
    String design = dir.resolve("design.csv").toString();
    String con = dir.resolve("con.csv").toString();
    assertRunsLeaveTheOptions(() -> NlsparkOptions.defaults().seed(5).replicates(40)
        .maskFile(mask.toString()).tfce(true),
        o -> Nlspark.glm(spark, images.toString(), design, con, o), "glm-tfce",
        "p_fwer_tfce_tstat1");
    // prepared, not run (the CLI's path): the mask is in the prepared inputs, not in o
    NlsparkOptions o = NlsparkOptions.defaults().seed(5).replicates(40).tfce(true);
    Map<String, Object> before = fields(o);
    Nlspark.PreparedGlm prepared = Nlspark.prepareGlm(spark, images.toString(), design, con, o);
    assertThat(prepared.inputs().mask().count()).isEqualTo(study.maskCount);
    assertThat(prepared.inputs().maskSource()).isEqualTo("computed");
    assertThat(fields(o)).isEqualTo(before);
  }
}
