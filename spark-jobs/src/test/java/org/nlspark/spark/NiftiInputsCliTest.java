package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.result.Output;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * The four resampling commands on one study given as 3-D files in a list, a 4-D file, a
 * directory, a glob, Parquet and .npy: the .npy outputs are byte-identical, the .nii.gz maps
 * carry the mask's affine and fill values, and malformed or mismatched inputs exit 2.
 */
class NiftiInputsCliTest {
  @TempDir Path dir;
  private NiftiStudy study;
  private Path mask;

  @BeforeEach
  void writeStudy() {
    study = new NiftiStudy(11, 9, 0.8);
    mask = dir.resolve("mask.nii.gz");
    study.writeMask(mask);
    StringBuilder list = new StringBuilder("# subjects in order\n");
    for (int s = 0; s < study.subjects; s++) {
      study.writeSubject(dir.resolve("subjects/sub-0" + s + ".nii.gz"), s);
      list.append("subjects/sub-0").append(s).append(".nii.gz\n");
    }
    write(dir.resolve("subjects.txt"), list.toString());
    study.write4d(dir.resolve("all_4d.nii.gz"));
    TestData.matrix(dir, "X.npy", study.subjects, study.maskCount, study.masked());
  }

  private static void write(Path p, String text) {
    try {
      Files.writeString(p, text);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  private String p(String relative) {
    return dir.resolve(relative).toString();
  }

  private CliRun run(String command, String input, String out, String... more) {
    List<String> args = new ArrayList<>(List.of(command, "--input", input, "--output", p(out),
        "--seed", "5", "--quiet"));
    if (command.equals("bootstrap")) {
      args.addAll(List.of("--samples", "60"));
    } else {
      args.addAll(List.of("--permutations", "80"));
    }
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(new String[0]));
  }

  private void assertSameNpy(String expectedDir, String actualDir) throws Exception {
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

  private Path parquet(String name, boolean shuffled) {
    SparkSession spark = SharedSpark.get();
    StructType schema = new StructType()
        .add("subject", DataTypes.IntegerType)
        .add("voxels", DataTypes.createArrayType(DataTypes.FloatType));
    List<Row> rows = new ArrayList<>();
    for (int i = 0; i < study.subjects; i++) {
      int s = shuffled ? (i * 4) % study.subjects : i; // 9 subjects: 4 is coprime
      float[] v = study.row(s);
      List<Float> values = new ArrayList<>();
      for (float f : v) {
        values.add(f);
      }
      rows.add(RowFactory.create(s, values));
    }
    Path out = dir.resolve(name);
    spark.createDataFrame(rows, schema).coalesce(1).write().parquet(out.toString());
    return out;
  }

  @Test
  void everyInputFormOfTheStudyGivesTheSameOutputs() throws Exception {
    for (String command : List.of("one-sample", "bootstrap")) {
      assertThat(run(command, p("X.npy"), command + "-npy").code()).isZero();
      CliRun list = run(command, p("subjects.txt"), command + "-list", "--mask", mask.toString());
      assertThat(list.code()).as(list.err()).isZero();
      assertSameNpy(command + "-npy", command + "-list");
    }
    // The other forms with one-sample (bootstrap shares the loading code).
    String c = "one-sample";
    assertThat(run(c, p("all_4d.nii.gz"), "4d", "--mask", mask.toString()).code()).isZero();
    assertSameNpy(c + "-npy", "4d");
    assertThat(run(c, p("subjects"), "directory", "--mask", mask.toString()).code()).isZero();
    assertSameNpy(c + "-npy", "directory");
    assertThat(run(c, p("subjects") + "/sub-*.nii.gz", "glob", "--mask", mask.toString())
        .code()).isZero();
    assertSameNpy(c + "-npy", "glob");
    parquet("table", false);
    CliRun pq = run(c, p("table"), "parquet");
    assertThat(pq.code()).as(pq.err()).isZero();
    assertSameNpy(c + "-npy", "parquet");
    parquet("shuffled", true);
    CliRun ordered = run(c, p("shuffled"), "parquet-ordered", "--column", "voxels",
        "--order-by", "subject");
    assertThat(ordered.code()).as(ordered.err()).isZero();
    assertSameNpy(c + "-npy", "parquet-ordered");
    // Without --order-by the shuffled rows are other samples: a different sign-flip result.
    assertThat(run(c, p("shuffled"), "parquet-unordered").code()).isZero();
    assertThat(Files.readAllBytes(dir.resolve("parquet-unordered/p.npy")))
        .isNotEqualTo(Files.readAllBytes(dir.resolve(c + "-npy/p.npy")));
  }

  @Test
  void orderByKeysTwoRowsShareOrNaNAreRefusedOnTheCommandLine() throws Exception {
    SparkSession spark = SharedSpark.get();
    StructType schema = new StructType().add("subject", DataTypes.DoubleType)
        .add("voxels", DataTypes.createArrayType(DataTypes.FloatType));
    for (String kind : List.of("dup", "nan")) {
      List<Row> rows = new ArrayList<>();
      for (int i = 0; i < study.subjects; i++) {
        double key = kind.equals("dup") && i == 6 ? 2 : kind.equals("nan") && i == 5
            ? Double.NaN : i;
        List<Float> values = new ArrayList<>();
        for (float f : study.row(i)) {
          values.add(f);
        }
        rows.add(RowFactory.create(key, values));
      }
      Path table = dir.resolve(kind);
      spark.createDataFrame(rows, schema).coalesce(1).write().parquet(table.toString());
      String file;
      try (var s = Files.list(table)) {
        // the listing's qualified name, as the files are read (and named in messages)
        file = "file:" + s.map(Path::toString).filter(n -> n.endsWith(".parquet")).findFirst()
            .get();
      }
      CliRun r = run("one-sample", table.toString(), kind + "-out", "--order-by", "subject");
      assertThat(r.code()).as(r.err()).isEqualTo(2);
      assertThat(r.err().strip()).isEqualTo("nlspark one-sample: " + (kind.equals("dup")
          ? "Cannot order --input " + table + " by subject: key 2.0 appears in rows 2 and 6 of "
              + file + "; give each row its own key"
          : "Cannot order --input " + file + " by subject: row 5 has no key (NaN); give each"
              + " row its own key"));
      assertThat(dir.resolve(kind + "-out")).doesNotExist();
    }
  }

  @Test
  void oneSampleTfceRunsOnImagesFromTheCommandLine() throws Exception {
    assertThat(run("one-sample", p("X.npy"), "t-npy").code()).isZero();
    CliRun tfce = run("one-sample", p("subjects.txt"), "t-tfce", "--mask", mask.toString(),
        "--tfce", "--cluster-threshold", "2.0");
    assertThat(tfce.code()).as(tfce.err()).isZero();
    assertSameNpy("t-npy", "t-tfce"); // the voxelwise outputs are the same bits
    for (String map : List.of("tfce", "p_tfce", "p_fwer_tfce", "cluster_size")) {
      assertThat(dir.resolve("t-tfce/" + map + ".nii.gz")).exists();
    }
    assertThat(dir.resolve("t-tfce/null_max_tfce.npy")).exists();
  }

  @Test
  void glmTakesImagesAndWritesItsStatisticsAsMaps() throws Exception {
    StringBuilder design = new StringBuilder("intercept,age\n");
    for (int s = 0; s < study.subjects; s++) {
      design.append("1,").append(20 + 3 * s % 7).append('\n');
    }
    write(dir.resolve("design.csv"), design.toString());
    write(dir.resolve("contrasts.csv"), "intercept,age\n1,0\n0,1\n");
    List<String> common = List.of("--design", p("design.csv"), "--contrasts",
        p("contrasts.csv"), "--permutations", "60", "--seed", "3", "--quiet");
    List<String> npy = new ArrayList<>(List.of("glm", "--input", p("X.npy"), "--output",
        p("glm-npy")));
    npy.addAll(common);
    CliRun fromNpy = CliRun.of(npy.toArray(new String[0]));
    assertThat(fromNpy.code()).as(fromNpy.err()).isZero();
    List<String> images = new ArrayList<>(List.of("glm", "--input", p("subjects.txt"), "--mask",
        mask.toString(), "--output", p("glm-nifti")));
    images.addAll(common);
    CliRun fromImages = CliRun.of(images.toArray(new String[0]));
    assertThat(fromImages.code()).as(fromImages.err()).isZero();
    assertSameNpy("glm-npy", "glm-nifti");
    for (String map : List.of("tstat1", "tstat2", "p_tstat2", "p_fwer_tstat2")) {
      assertThat(dir.resolve("glm-nifti/" + map + ".nii.gz")).exists();
    }
    assertThat(dir.resolve("glm-nifti/null_max_tstat2.nii.gz")).doesNotExist();
    assertThat(dir.resolve("glm-npy/tstat1.nii.gz")).doesNotExist();
    // The grid of the images lets glm enhance whole maps; the voxelwise maps stay the same bits.
    List<String> tfce = new ArrayList<>(images);
    tfce.set(tfce.indexOf(p("glm-nifti")), p("glm-tfce"));
    tfce.addAll(List.of("--tfce", "--cluster-threshold", "2.0"));
    CliRun enhanced = CliRun.of(tfce.toArray(new String[0]));
    assertThat(enhanced.code()).as(enhanced.err()).isZero();
    assertSameNpy("glm-npy", "glm-tfce");
    assertThat(dir.resolve("glm-tfce/tfce_tstat2.nii.gz")).exists();
    assertThat(dir.resolve("glm-tfce/p_fwer_tfce_tstat2.nii.gz")).exists();
    List<String> npyTfce = new ArrayList<>(npy);
    npyTfce.set(npyTfce.indexOf(p("glm-npy")), p("glm-npy-tfce"));
    npyTfce.add("--tfce");
    CliRun noGrid = CliRun.of(npyTfce.toArray(new String[0]));
    assertThat(noGrid.code()).isEqualTo(2);
    assertThat(noGrid.err()).contains("needs a mask image");
    try (NiftiReader r = NiftiReader.open(dir.resolve("glm-nifti/tstat2.nii.gz"));
        NiftiReader m = NiftiReader.open(mask)) {
      assertThat(r.header().grid().difference(m.header().grid(), "mask")).isNull();
    }
  }

  @Test
  void twoSampleAndCorrelationTakeImages() throws Exception {
    NiftiStudy other = new NiftiStudy(12, 7, 0.0);
    for (int s = 0; s < other.subjects; s++) {
      other.writeSubject(dir.resolve("group2/g-" + s + ".nii.gz"), s);
    }
    TestData.matrix(dir, "Y.npy", other.subjects, other.maskCount, other.masked());
    assertThat(run("two-sample", p("X.npy"), "two-npy", "--input2", p("Y.npy")).code())
        .isZero();
    CliRun images = run("two-sample", p("subjects.txt"), "two-nifti", "--input2", p("group2"),
        "--mask", mask.toString());
    assertThat(images.code()).as(images.err()).isZero();
    assertSameNpy("two-npy", "two-nifti");
    double[] target = new double[study.subjects];
    for (int i = 0; i < target.length; i++) {
      target[i] = i * 0.5 + (i % 2);
    }
    TestData.vector(dir, "y.npy", target);
    assertThat(run("correlation", p("X.npy"), "corr-npy", "--target", p("y.npy")).code())
        .isZero();
    assertThat(run("correlation", p("all_4d.nii.gz"), "corr-nifti", "--target", p("y.npy"),
        "--mask", mask.toString()).code()).isZero();
    assertSameNpy("corr-npy", "corr-nifti");
  }

  @Test
  @SuppressWarnings("unchecked")
  void mapsCarryTheMaskGridAndFillValues() throws Exception {
    assertThat(run("one-sample", p("subjects.txt"), "maps", "--mask", mask.toString()).code())
        .isZero();
    Path out = dir.resolve("maps");
    int[] order = study.maskOrder();
    for (String name : List.of("observed", "p", "p_fwer")) {
      double[] npy = TestData.outputValues(out.resolve(name + ".npy"));
      try (NiftiReader r = NiftiReader.open(out.resolve(name + ".nii.gz"))) {
        NiftiHeader h = r.header();
        assertThat(h.datatype()).isEqualTo(NiftiDatatype.FLOAT32);
        assertThat(h.spatialDims()).containsExactly(NiftiStudy.NX, NiftiStudy.NY, NiftiStudy.NZ);
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
    assertThat(out.resolve("null_max.nii.gz")).doesNotExist();
    assertThat(out.resolve("mask.nii.gz")).doesNotExist(); // the mask was given
    Map<String, Object> summary =
        (Map<String, Object>) Json.parse(Files.readString(out.resolve("summary.json")));
    Map<String, Object> grid = (Map<String, Object>) summary.get("grid");
    assertThat(grid.get("mask_source")).isEqualTo(mask.toString());
    assertThat(((Number) grid.get("mask_voxels")).intValue()).isEqualTo(study.maskCount);
    assertThat((List<Object>) summary.get("outputs")).contains("observed.nii.gz", "p.nii.gz",
        "p_fwer.nii.gz", "null_max.npy");
  }

  @Test
  @SuppressWarnings("unchecked")
  void withoutMaskTheDefaultMaskIsComputedAndWritten() throws Exception {
    CliRun r = run("bootstrap", p("subjects"), "computed");
    assertThat(r.code()).as(r.err()).isZero();
    Path out = dir.resolve("computed");
    // Outside the ellipsoid every subject is 0, inside none is: the default mask is the ellipsoid.
    assertThat(run("bootstrap", p("X.npy"), "computed-npy").code()).isZero();
    assertSameNpy("computed-npy", "computed");
    try (NiftiReader m = NiftiReader.open(out.resolve("mask.nii.gz"))) {
      float[] v = new float[m.header().voxelsPerVolume()];
      m.readVolume(v);
      for (int f = 0; f < v.length; f++) {
        assertThat(v[f]).as("mask at " + f).isEqualTo(study.inMask[f] ? 1f : 0f);
      }
    }
    for (String name : List.of("mean", "std", "ci_lower", "ci_upper", "z", "p")) {
      assertThat(out.resolve(name + ".nii.gz")).exists();
    }
    Map<String, Object> summary =
        (Map<String, Object>) Json.parse(Files.readString(out.resolve("summary.json")));
    assertThat(((Map<String, Object>) summary.get("grid")).get("mask_source"))
        .isEqualTo("computed");
    assertThat((List<Object>) summary.get("outputs")).contains("mask.nii.gz", "mean.nii.gz");
    assertThat((List<Object>) summary.get("files")).contains("mask.nii.gz", "mean.nii.gz");
  }

  @Test
  void badInputsExit2WithTheirMessage() throws Exception {
    // Another grid's dims.
    NiftiStudy.write(dir.resolve("bad/dims.nii.gz"),
        NiftiStudy.header(NiftiDatatype.FLOAT32, NiftiStudy.NX, NiftiStudy.NY, NiftiStudy.NZ + 1),
        new float[NiftiStudy.NX * NiftiStudy.NY * (NiftiStudy.NZ + 1)]);
    write(dir.resolve("bad-dims.txt"), "subjects/sub-00.nii.gz\nbad/dims.nii.gz\n");
    CliRun dims = run("one-sample", p("bad-dims.txt"), "o1", "--mask", mask.toString());
    assertThat(dims.code()).isEqualTo(2);
    assertThat(dims.err()).contains("dims.nii.gz", "dims (6,5,5) vs mask (6,5,4)");
    // Same dims, shifted affine.
    double[][] shifted = {{-3, 0, 0, 9}, {0, 3, 0, -12}, {0, 0, 3, -4.5}};
    NiftiStudy.write(dir.resolve("bad/affine.nii.gz"), NiftiHeader.builder()
        .shape(NiftiStudy.NX, NiftiStudy.NY, NiftiStudy.NZ).sform(4, shifted).build(),
        study.volumes[0]);
    write(dir.resolve("bad-affine.txt"), "subjects/sub-00.nii.gz\nbad/affine.nii.gz\n");
    CliRun affine = run("one-sample", p("bad-affine.txt"), "o2");
    assertThat(affine.code()).isEqualTo(2);
    assertThat(affine.err()).contains("affine.nii.gz", "affine differs by 2.0");
    // A truncated gzip.
    byte[] whole = Files.readAllBytes(dir.resolve("subjects/sub-01.nii.gz"));
    Files.createDirectories(dir.resolve("trunc"));
    Files.write(dir.resolve("trunc/sub.nii.gz"), java.util.Arrays.copyOf(whole, whole.length / 2));
    write(dir.resolve("bad-trunc.txt"), "subjects/sub-00.nii.gz\ntrunc/sub.nii.gz\n");
    CliRun trunc = run("one-sample", p("bad-trunc.txt"), "o3", "--mask", mask.toString());
    assertThat(trunc.code()).isEqualTo(2);
    assertThat(trunc.err()).contains("sub.nii.gz").containsIgnoringCase("truncated");
    // --mask with an .npy, --column with NIfTI, a missing Parquet column, a missing list entry.
    CliRun npyMask = run("one-sample", p("X.npy"), "o4", "--mask", mask.toString());
    assertThat(npyMask.code()).isEqualTo(2);
    assertThat(npyMask.err()).contains("Cannot use --mask", "has no grid");
    CliRun column = run("bootstrap", p("subjects.txt"), "o5", "--column", "v");
    assertThat(column.code()).isEqualTo(2);
    assertThat(column.err()).contains("--column", "Parquet inputs only");
    parquet("table2", false);
    CliRun missing = run("one-sample", p("table2"), "o6", "--column", "betas");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("no column betas", "[subject, voxels]");
    // a struct of one number is not an array of voxels
    SharedSpark.get().sql("SELECT named_struct('a', CAST(id AS DOUBLE)) AS voxels FROM range(4)")
        .coalesce(1).write().parquet(dir.resolve("struct").toString());
    CliRun struct = run("one-sample", p("struct"), "o9");
    assertThat(struct.code()).as(struct.err()).isEqualTo(2);
    assertThat(struct.err()).contains("column voxels is not an array of numbers (its type:"
        + " required group voxels {\\n  required double a;\\n})"); // escaped by the CLI
    write(dir.resolve("bad-list.txt"), "subjects/sub-00.nii.gz\nsubjects/nope.nii.gz\n");
    CliRun absent = run("one-sample", p("bad-list.txt"), "o7");
    assertThat(absent.code()).isEqualTo(2);
    assertThat(absent.err()).contains("nope.nii.gz", "does not exist");
    // A group of images against a matrix.
    CliRun mixed = run("two-sample", p("subjects"), "o8", "--input2", p("X.npy"));
    assertThat(mixed.code()).isEqualTo(2);
    assertThat(mixed.err()).contains("both groups must be NIfTI");
  }

  @Test
  void apiTakesPathsAndDataFrames() {
    SparkSession spark = SharedSpark.get();
    NlsparkOptions o = NlsparkOptions.builder().seed(3).replicates(50).build();
    RunReport fromMatrix = Nlspark.bootstrap(spark, DataMatrix.of(study.subjects,
        study.maskCount, study.masked(), "X"), o);
    RunReport fromImages = Nlspark.bootstrap(spark, p("subjects.txt"),
        NlsparkOptions.builder().seed(3).replicates(50).maskFile(mask.toString()).build());
    assertThat(fromImages.mask()).isNotNull();
    assertThat(fromImages.mask().count()).isEqualTo(study.maskCount);
    assertThat(fromMatrix.mask()).isNull();
    Dataset<Row> df = spark.read().parquet(parquet("api", true).toString());
    RunReport fromFrame = Nlspark.bootstrap(spark, df, o.toBuilder().orderBy("subject").build());
    RunReport t1 = Nlspark.oneSample(spark, df, o.toBuilder().orderBy("subject").build());
    RunReport t2 = Nlspark.oneSample(spark, p("all_4d.nii.gz"), o);
    for (int i = 0; i < fromMatrix.result.outputs().size(); i++) {
      Output e = fromMatrix.result.outputs().get(i);
      assertThat(fromImages.result.outputs().get(i).values()).as(e.name())
          .isEqualTo(e.values());
      assertThat(fromFrame.result.outputs().get(i).values()).as(e.name()).isEqualTo(e.values());
    }
    for (int i = 0; i < t1.result.outputs().size(); i++) {
      assertThat(t2.result.outputs().get(i).values()).isEqualTo(t1.result.outputs().get(i)
          .values());
    }
    assertThat(t2.maskSource()).isEqualTo("computed");
    assertThat(o.mask()).isNull(); // the caller's options are not changed
  }

  @Test
  void demoWritesANiftiStudyThatTheCommandsReadAgain() throws Exception {
    CliRun demo = CliRun.of("demo", "--output", p("demo"), "--samples", "40", "--permutations",
        "60", "--quiet");
    assertThat(demo.code()).as(demo.err()).isZero();
    assertThat(demo.out()).contains("in the blob", p("demo") + "/one-sample/");
    Path data = dir.resolve("demo/data");
    assertThat(data.resolve("sub-40.nii.gz")).exists();
    CliRun again = CliRun.of("one-sample", "--input", data.resolve("subjects.txt").toString(),
        "--mask", data.resolve("mask.nii.gz").toString(), "--stat", "t", "--permutations", "60",
        "--output", p("again"), "--quiet");
    assertThat(again.code()).as(again.err()).isZero();
    assertSameNpy("demo/one-sample", "again");
    for (String name : List.of("observed", "p", "p_fwer")) {
      assertThat(Files.readAllBytes(dir.resolve("again/" + name + ".nii.gz")))
          .isEqualTo(Files.readAllBytes(dir.resolve("demo/one-sample/" + name + ".nii.gz")));
    }
    try (NiftiReader r = NiftiReader.open(dir.resolve("demo/bootstrap/mean.nii.gz"))) {
      assertThat(r.header().spatialDims()).containsExactly(40, 48, 40);
      assertThat(r.header().qformCode()).isEqualTo(4);
      assertThat(r.header().sformCode()).isEqualTo(4);
    }
  }

  /**
   * The demo ends with what it found, the peak in mm from the mask's affine, and its report; and
   * TFCE on the demo's study writes its maps as NIfTI, strongest inside the planted blob.
   */
  @Test
  void demoNamesItsPeakInMillimetresAndTfceFindsThePlantedBlob() throws Exception {
    CliRun demo = CliRun.of("demo", "--output", p("demo"), "--samples", "40", "--permutations",
        "100");
    assertThat(demo.code()).as(demo.err()).isZero();
    String[] lines = demo.out().strip().split("\n");
    assertThat(lines[lines.length - 1]).matches("max-T: \\d+ voxels p_fwer < 0\\.05, peak t [0-9.]+ at "
        + "\\(-?\\d+, -?\\d+, -?\\d+\\) mm, two-tailed");
    assertThat(lines[lines.length - 2]).matches("report: .*/one-sample/report\\.html");
    // a second demo into the same directory replaces its own results, and says so
    CliRun again = CliRun.of("demo", "--output", p("demo"), "--samples", "40", "--permutations",
        "100");
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(again.err()).contains("nlspark demo: replacing the results of an earlier demo in "
        + p("demo"));
    String[] second = again.out().strip().split("\n");
    // the same seed: the same findings, lines for lines
    assertThat(second[second.length - 2]).isEqualTo(lines[lines.length - 2]);
    assertThat(second[second.length - 1]).isEqualTo(lines[lines.length - 1]);
    Path data = dir.resolve("demo/data");
    CliRun tfce = CliRun.of("one-sample", "--input", data.resolve("subjects.txt").toString(),
        "--mask", data.resolve("mask.nii.gz").toString(), "--stat", "t", "--tfce",
        "--permutations", "100", "--output", p("tfce"), "--quiet");
    assertThat(tfce.code()).as(tfce.err()).isZero();
    double[] score = null;
    for (String name : List.of("tfce", "p_tfce", "p_fwer_tfce", "null_max_tfce")) {
      assertThat(dir.resolve("tfce/" + name + ".npy")).exists();
    }
    for (String name : List.of("tfce", "p_tfce", "p_fwer_tfce")) {
      try (NiftiReader r = NiftiReader.open(dir.resolve("tfce/" + name + ".nii.gz"))) {
        assertThat(r.header().spatialDims()).as(name).containsExactly(40, 48, 40);
        if (name.equals("tfce")) {
          score = new double[r.header().voxelsPerVolume()];
          r.readVolume(score);
        }
      }
    }
    double[] effect;
    try (NiftiReader r = NiftiReader.open(data.resolve("effect.nii.gz"))) {
      effect = new double[r.header().voxelsPerVolume()];
      r.readVolume(effect);
    }
    int peak = 0;
    for (int v = 1; v < score.length; v++) {
      if (score[v] > score[peak]) {
        peak = v;
      }
    }
    assertThat(score[peak]).isPositive();
    assertThat(effect[peak]).as("the largest TFCE score lies in the planted blob").isPositive();
  }
}
