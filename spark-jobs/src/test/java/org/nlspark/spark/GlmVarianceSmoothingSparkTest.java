package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.VarianceSmoothing;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@code glm --variance-smoothing} on Spark (the brute force is core's {@code
 * GlmVarianceSmoothingTest}): outputs are bit-identical for 1, 3 and 7 partitions, for a retried
 * task, and to core's LocalEngine (DESIGN §5), on a mask of anisotropic voxels taken from its
 * affine; summary.json says the maps are pseudo-t; the CLI refuses F contrasts, an .npy input
 * and a bad sigma with exit 2 before any work.
 */
class GlmVarianceSmoothingSparkTest {
  static final double SIGMA_MM = 4.0;
  static final double[][] SFORM = {{2, 0, 0, -8}, {0, 3, 0, -9}, {0, 0, 2.5, -5}};

  @TempDir Path dir;

  /** TfceSparkTest's mask on voxels of 2 x 3 x 2.5 mm. */
  static NiftiMask mask() {
    NiftiHeader header = NiftiHeader.builder().datatype(NiftiDatatype.UINT8)
        .shape(TfceSparkTest.NX, TfceSparkTest.NY, TfceSparkTest.NZ)
        .pixdim(1, 2, 3, 2.5, 1, 1, 1, 1).sform(4, SFORM).build();
    SplittableRandom r = new SplittableRandom(5);
    boolean[] selected = new boolean[TfceSparkTest.NX * TfceSparkTest.NY * TfceSparkTest.NZ];
    for (int f = 0; f < selected.length; f++) {
      selected[f] = r.nextDouble() > 0.15;
    }
    return NiftiMask.fromSelection(header, selected, "mask");
  }

  static GlmContrasts tContrasts() {
    return GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, new int[0][]);
  }

  static NlsparkOptions options(NiftiMask mask) {
    return NlsparkOptions.builder().mask(mask).varianceSmoothing(SIGMA_MM).tfce(true)
        .clusterMass(2.5).replicates(200).seed(4).grid(TfceSparkTest.GRID).tail(Tail.TWO).build();
  }

  @Test
  void isBitIdenticalForAnyPartitioningRetryAndLocalEngine() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = mask();
    GlmDesign design = GlmTfceSparkTest.design();
    DataMatrix y = GlmTfceSparkTest.data(mask, design, 72);
    RunReport base = Nlspark.glm(spark, y, design, tContrasts(), null, options(mask));
    assertThat(base.plan.tileCount()).isGreaterThan(2);
    assertThat(VarianceSmoothing.voxelSizes(mask.grid().affine())).containsExactly(2.0, 3.0,
        2.5);

    GlmRun.Options glm = options(mask).toGlmOptions(null, "exchangeability blocks");
    GlmAnalysis prepared = GlmAnalysis.prepare(y, design, tContrasts(), glm, "cpu", null);
    RunReport local = new LocalEngine(3, TfceSparkTest.GRID, 1).run(prepared.withWholeMaps(
        MaskGrid.of(mask), options(mask).wholeMapSettings(), SIGMA_MM, new double[] {2, 3, 2.5}));
    TfceSparkTest.assertSame(base.result, local.result, "LocalEngine");
    for (int partitions : new int[] {1, 3, 7}) {
      TfceSparkTest.assertSame(base.result, Nlspark.glm(spark, y, design, tContrasts(), null,
          options(mask).toBuilder().partitions(partitions)
              .build()).result, partitions + " partitions");
    }
    SharedSpark.withRetriedTile(spark, 2, () -> {
      TfceSparkTest.assertSame(base.result, Nlspark.glm(spark, y, design, tContrasts(), null,
          options(mask)).result, "retried");
    });

    // Smoothing alone runs on the whole-map path too, and changes the statistic.
    NlsparkOptions alone = NlsparkOptions.builder().mask(mask).varianceSmoothing(SIGMA_MM)
        .replicates(200).seed(4).grid(TfceSparkTest.GRID).tail(Tail.TWO).build();
    RunReport smoothedOnly = Nlspark.glm(spark, y, design, tContrasts(), null, alone);
    for (int partitions : new int[] {1, 7}) {
      TfceSparkTest.assertSame(smoothedOnly.result, Nlspark.glm(spark, y, design, tContrasts(),
          null, alone.toBuilder().partitions(partitions).build()).result, "alone, " + partitions);
    }
    assertThat(smoothedOnly.result.output("tstat1")).isEqualTo(base.result.output("tstat1"));
    RunReport plain = Nlspark.glm(spark, y, design, tContrasts(), null,
        alone.toBuilder().varianceSmoothing(null).build());
    double[] t = plain.result.output("tstat1");
    double[] pseudo = smoothedOnly.result.output("tstat1");
    int differ = 0;
    for (int v = 0; v < t.length; v++) {
      differ += t[v] != pseudo[v] ? 1 : 0;
    }
    assertThat(differ).as("voxels whose pseudo-t is not the t").isGreaterThan(t.length / 2);
  }

  @Test
  void summaryRecordsTheSmoothingAndThePseudoT() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = mask();
    GlmDesign design = GlmTfceSparkTest.design();
    RunReport report = Nlspark.glm(spark, GlmTfceSparkTest.data(mask, design, 73), design,
        tContrasts(), null, NlsparkOptions.builder().mask(mask).varianceSmoothing(SIGMA_MM)
            .replicates(50).grid(TfceSparkTest.GRID).build());
    Path out = dir.resolve("glm");
    Nlspark.write(report, out.toString(), false);
    for (String name : new String[] {"tstat1", "p_tstat1", "p_fwer_tstat1", "null_max_tstat1",
        "tstat2", "p_tstat2", "p_fwer_tstat2", "null_max_tstat2"}) {
      assertThat(out.resolve(name + ".npy")).as(name).exists();
    }
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"variance_smoothing_mm\": 4.0")
        .contains("\"statistic\": \"pseudo-t (variance smoothing)")
        .contains("\"whole_maps_for\": \"variance smoothing");
    assertThat(summary.replaceAll("\\s+", "")).contains("\"kernel_radii_voxels\":[8,6,7]")
        .contains("\"voxel_sizes_mm\":[2.0,3.0,2.5]");
  }

  @Test
  void theApiRefusesFContrastsAndAMissingGrid() {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = mask();
    GlmDesign design = GlmTfceSparkTest.design();
    DataMatrix y = GlmTfceSparkTest.data(mask, design, 74);
    assertThatThrownBy(() -> Nlspark.glm(spark, y, design, GlmTfceSparkTest.contrasts(), null,
        options(mask))).isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot smooth the variance of F contrasts:");
    assertThatThrownBy(() -> Nlspark.glm(spark, y, design, tContrasts(), null,
        NlsparkOptions.builder().varianceSmoothing(SIGMA_MM).build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot smooth the variance: --variance-smoothing smooths over"
            + " the image grid");
  }

  private CliRun glm(Path out, String... args) {
    List<String> all = new ArrayList<>(List.of("glm"));
    all.addAll(List.of(args));
    all.addAll(List.of("--output", out.toString(), "--quiet", "--permutations", "20"));
    return CliRun.of(all.toArray(new String[0]));
  }

  private void refused(String message, String... args) {
    Path out = dir.resolve("refused");
    CliRun r = glm(out, args);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("nlspark glm: " + message + "\n");
    assertThat(out).doesNotExist();
  }

  @Test
  void theCliRefusesFContrastsAnNpyInputAndABadSigmaWithExitTwo() throws Exception {
    NiftiStudy study = new NiftiStudy(81, 10, 0.8);
    Path images = dir.resolve("y.nii.gz");
    study.write4d(images);
    Path maskFile = dir.resolve("mask.nii.gz");
    study.writeMask(maskFile);
    Path design = dir.resolve("design.csv");
    List<String> rows = new ArrayList<>(List.of("intercept,group,age"));
    for (int i = 0; i < 10; i++) {
      rows.add("1," + (i % 2) + "," + (20 + 3 * i + (i * 7) % 5));
    }
    Files.write(design, rows);
    Path con = dir.resolve("con.csv");
    Files.write(con, List.of("name,intercept,group,age", "g,0,1,0", "a,0,0,1"));
    Path fts = dir.resolve("fts.csv");
    Files.write(fts, List.of("g,a", "1,1"));
    refused("Cannot smooth the variance of F contrasts: --variance-smoothing makes pseudo-t"
        + " statistics of t contrasts only (as randomise -v), but 1 F contrast was given; drop"
        + " --f-contrasts or --variance-smoothing", "--input", images.toString(), "--mask",
        maskFile.toString(), "--design", design.toString(), "--contrasts", con.toString(),
        "--f-contrasts", fts.toString(), "--variance-smoothing", "3");
    Path npy = TestData.matrix(dir, "y.npy", 10, 30, TestData.gaussian(3, 10, 30, 0.5));
    refused("Cannot smooth the variance: --variance-smoothing smooths over the image grid in mm,"
        + " but this input has no grid (an .npy matrix); give NIfTI inputs (with --mask)"
        + " instead", "--input", npy.toString(), "--design", design.toString(), "--contrasts",
        con.toString(), "--variance-smoothing", "3");
    for (String bad : new String[] {"0", "-2", "NaN", "Infinity"}) {
      // NaN and Infinity already by the number parser, 0 and -2 by the sigma rule
      refused(bad.matches("-?[0-9]+") ? "--variance-smoothing must be a finite standard deviation"
          + " > 0 in mm, but was: " + Double.parseDouble(bad)
          : "--variance-smoothing must be a finite number, but was: " + bad, "--input", images.toString(), "--mask",
          maskFile.toString(), "--design", design.toString(), "--contrasts", con.toString(),
          "--variance-smoothing", bad);
    }
    // And it runs: the maps are written as NIfTI under today's names.
    Path out = dir.resolve("ok");
    CliRun ok = glm(out, "--input", images.toString(), "--mask", maskFile.toString(), "--design",
        design.toString(), "--contrasts", con.toString(), "--variance-smoothing", "3");
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(out.resolve("tstat1.nii.gz")).exists();
    assertThat(out.resolve("p_fwer_tstat2.nii.gz")).exists();
    assertThat(Files.readString(out.resolve("summary.json")))
        .contains("\"variance_smoothing_mm\": 3.0");
  }
}
