package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmFiles;
import org.nlspark.core.glm.GlmResult;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@code nlspark glm} and {@code Nlspark.glm}: files equal to core's single-thread reference
 * ({@link GlmRun}, itself checked against OLS refits counted by hand), the equivalences of issue
 * 11 with one-sample and two-sample, F = t^2, exchangeability blocks, and every exit-2 refusal
 * of the model before any work.
 */
class GlmCommandTest {
  static final int N = 16;
  static final int V = 40;

  @TempDir Path dir;

  private Path write(String name, String... lines) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, List.of(lines));
    return p;
  }

  /** intercept, age (continuous), group (0/1), and data with an age effect in some voxels. */
  private Path design() throws IOException {
    double[] age = TestData.gaussian(50, 1, N, 0);
    List<String> lines = new ArrayList<>(List.of("intercept,age,group"));
    for (int i = 0; i < N; i++) {
      lines.add("1," + age[i] + "," + (i % 2));
    }
    Path p = dir.resolve("design.csv");
    Files.write(p, lines);
    return p;
  }

  private Path data() {
    double[] age = TestData.gaussian(50, 1, N, 0);
    double[] y = TestData.gaussian(51, N, V, 0);
    for (int i = 0; i < N; i++) {
      for (int v = 0; v < V; v += 5) {
        y[i * V + v] += 1.5 * age[i];
      }
    }
    return TestData.matrix(dir, "y.npy", N, V, y);
  }

  private CliRun glm(Path out, String... args) {
    return CliRun.of(Stream.concat(Stream.of("glm"), Stream.concat(Stream.of(args),
        Stream.of("--output", out.toString(), "--quiet"))).toArray(String[]::new));
  }

  @Test
  void writesTheReferenceMapsBitForBit() throws Exception {
    Path y = data();
    Path d = design();
    Path c = write("con.csv", "name,intercept,age,group", "age,0,1,0", "group,0,0,1");
    Path f = write("f.csv", "age,group", "1,1");
    Path out = dir.resolve("out");
    CliRun run = glm(out, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--f-contrasts", f.toString(), "--permutations", "300", "--seed", "3",
        "--fwer-across-contrasts");
    assertThat(run.err()).isEmpty();
    assertThat(run.code()).isZero();
    GlmRun.Options o = GlmRun.Options.defaults(300, 3).withFwerAcrossContrasts(true);
    GlmResult expected = GlmRun.run(
        org.nlspark.core.glm.GlmModel.prepare(GlmFiles.readDesign(d),
            GlmFiles.readContrasts(c, f), N),
        DataMatrix.of(N, V, TestData.outputValues(y), "y"), o);
    assertThat(expected.maps().keySet()).containsExactly("tstat1", "p_tstat1", "p_fwer_tstat1",
        "null_max_tstat1", "tstat2", "p_tstat2", "p_fwer_tstat2", "null_max_tstat2", "fstat1",
        "p_fstat1", "p_fwer_fstat1", "null_max_fstat1", "p_cfwer_tstat1", "p_cfwer_tstat2",
        "p_cfwer_fstat1");
    for (String name : expected.maps().keySet()) {
      assertThat(TestData.outputValues(out.resolve(name + ".npy"))).as(name)
          .isEqualTo(expected.get(name));
    }
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"command\": \"glm\"").contains("\"method\": \"freedman-lane\"")
        .contains("\"contrasts\"");
    // The age effect is found (uncorrected) in a voxel that carries it.
    double[] p = TestData.outputValues(out.resolve("p_tstat1.npy"));
    assertThat(p[0]).isLessThan(0.05);
  }

  /** one-sample --stat t is glm with an intercept-only design (sign flips by default). */
  @Test
  void interceptOnlyGlmIsTheOneSampleT() throws Exception {
    Path y = TestData.matrix(dir, "x.npy", 11, 30, TestData.gaussian(52, 11, 30, 0.8));
    List<String> ones = new ArrayList<>(List.of("intercept"));
    for (int i = 0; i < 11; i++) {
      ones.add("1");
    }
    Path d = dir.resolve("ones.csv");
    Files.write(d, ones);
    Path c = write("mean.csv", "intercept", "1");
    for (String permutations : new String[] {"300", "5000"}) { // sampled, then all 2^11
      Path one = dir.resolve("one" + permutations);
      Path g = dir.resolve("glm" + permutations);
      CliRun a = CliRun.of("one-sample", "--input", y.toString(), "--stat", "t", "--tail", "two",
          "--permutations", permutations, "--seed", "17", "--output", one.toString(), "--quiet");
      assertThat(a.code()).as(a.err()).isZero();
      CliRun b = glm(g, "--input", y.toString(), "--design", d.toString(), "--contrasts",
          c.toString(), "--tail", "two", "--permutations", permutations, "--seed", "17");
      assertThat(b.code()).as(b.err()).isZero();
      double[] t1 = TestData.outputValues(one.resolve("observed.npy"));
      double[] t2 = TestData.outputValues(g.resolve("tstat1.npy"));
      for (int v = 0; v < t1.length; v++) {
        assertThat(t2[v]).isCloseTo(t1[v], org.assertj.core.data.Offset.offset(
            1e-10 * Math.max(1, Math.abs(t1[v]))));
      }
      assertThat(TestData.outputValues(g.resolve("p_tstat1.npy")))
          .isEqualTo(TestData.outputValues(one.resolve("p.npy")));
      assertThat(TestData.outputValues(g.resolve("p_fwer_tstat1.npy")))
          .isEqualTo(TestData.outputValues(one.resolve("p_fwer.npy")));
    }
  }

  /** Pooled t is monotone in the mean difference: the same draws give the same uncorrected p. */
  @Test
  void groupDesignGivesTheTwoSampleMeanDiffP() throws Exception {
    int n1 = 8;
    int n2 = 7;
    double[] a = TestData.gaussian(53, n1, 20, 0.7);
    double[] b = TestData.gaussian(54, n2, 20, 0);
    Path x = TestData.matrix(dir, "a.npy", n1, 20, a);
    Path yb = TestData.matrix(dir, "b.npy", n2, 20, b);
    double[] stacked = new double[(n1 + n2) * 20];
    System.arraycopy(a, 0, stacked, 0, a.length);
    System.arraycopy(b, 0, stacked, a.length, b.length);
    Path all = TestData.matrix(dir, "all.npy", n1 + n2, 20, stacked);
    List<String> design = new ArrayList<>(List.of("intercept,first"));
    for (int i = 0; i < n1 + n2; i++) {
      design.add("1," + (i < n1 ? 1 : 0));
    }
    Path d = dir.resolve("groups.csv");
    Files.write(d, design);
    Path c = write("diff.csv", "intercept,first", "0,1");
    Path two = dir.resolve("two");
    Path g = dir.resolve("glm");
    CliRun r1 = CliRun.of("two-sample", "--input", x.toString(), "--input2", yb.toString(),
        "--stat", "mean-diff", "--permutations", "400", "--seed", "23", "--output",
        two.toString(), "--quiet");
    assertThat(r1.code()).as(r1.err()).isZero();
    CliRun r2 = glm(g, "--input", all.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--tail", "two", "--permutations", "400", "--seed", "23");
    assertThat(r2.code()).as(r2.err()).isZero();
    assertThat(TestData.outputValues(g.resolve("p_tstat1.npy")))
        .isEqualTo(TestData.outputValues(two.resolve("p.npy")));
  }

  /**
   * Contrast columns are the design's by name: a header in another order, or naming only the
   * tested column, tests the same contrast (the same bits); a misspelt name is exit 2. Each
   * contrast's weights are in summary.json and on a result line.
   */
  @Test
  void contrastColumnsAreMatchedByName() throws Exception {
    Path y = data();
    Path d = design();
    Path ordered = write("ordered.csv", "intercept,age,group", "0,1,0");
    Path swapped = write("swapped.csv", "group,age,intercept", "0,1,0");
    Path alone = write("alone.csv", "name,age", "age,1");
    Path a = dir.resolve("a");
    CliRun ra = glm(a, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        ordered.toString(), "--permutations", "100");
    assertThat(ra.code()).as(ra.err()).isZero();
    for (Path c : List.of(swapped, alone)) {
      Path b = dir.resolve("b-" + c.getFileName());
      CliRun rb = CliRun.of("glm", "--input", y.toString(), "--design", d.toString(),
          "--contrasts", c.toString(), "--permutations", "100", "--output", b.toString());
      assertThat(rb.code()).as(rb.err()).isZero();
      assertThat(Files.readAllBytes(b.resolve("tstat1.npy")))
          .isEqualTo(Files.readAllBytes(a.resolve("tstat1.npy")));
      assertThat(Files.readAllBytes(b.resolve("p_tstat1.npy")))
          .isEqualTo(Files.readAllBytes(a.resolve("p_tstat1.npy")));
      assertThat(rb.out()).contains("contrast: tstat1 " + (c == alone ? "age" : "C1")
          + " = age\n");
      assertThat(Files.readString(b.resolve("summary.json")))
          .containsPattern("\"design_column_names\": \\[\\s*\"intercept\",\\s*\"age\",\\s*"
              + "\"group\"\\s*]")
          .containsPattern("\"weights\": \\{\\s*\"intercept\": 0\\.0,\\s*\"age\": 1\\.0,"
              + "\\s*\"group\": 0\\.0\\s*}");
    }
    Path misspelt = write("misspelt.csv", "intercept,agee,group", "0,1,0");
    CliRun bad = glm(dir.resolve("bad"), "--input", y.toString(), "--design", d.toString(),
        "--contrasts", misspelt.toString(), "--permutations", "100");
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("the contrast column 'agee' names no design column (did you"
        + " mean 'age'?)");
  }

  /** F of a one-row contrast is t^2, and its (upper) p is t's two-tailed p on the same draws. */
  @Test
  void fOfOneRowIsTSquared() throws Exception {
    Path y = data();
    Path d = design();
    Path c = write("con.csv", "intercept,age,group", "0,1,0");
    Path f = write("f.csv", "C1", "1");
    Path out = dir.resolve("f");
    CliRun run = glm(out, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--f-contrasts", f.toString(), "--tail", "two", "--permutations", "200");
    assertThat(run.code()).as(run.err()).isZero();
    double[] t = TestData.outputValues(out.resolve("tstat1.npy"));
    double[] fs = TestData.outputValues(out.resolve("fstat1.npy"));
    for (int v = 0; v < V; v++) {
      assertThat(fs[v]).isCloseTo(t[v] * t[v],
          org.assertj.core.data.Offset.offset(1e-10 * t[v] * t[v]));
    }
    assertThat(TestData.outputValues(out.resolve("p_fstat1.npy")))
        .isEqualTo(TestData.outputValues(out.resolve("p_tstat1.npy")));
  }

  /**
   * Within blocks of two, only 2^(n/2) arrangements of a continuous regressor exist, all
   * enumerated (p = count / N); whole blocks of four: (n/4)! arrangements.
   */
  @Test
  void exchangeabilityBlocksBoundTheDraws() throws Exception {
    Path y = data();
    Path d = design();
    Path c = write("con.csv", "intercept,age,group", "0,1,0");
    List<String> pairs = new ArrayList<>(List.of("block"));
    List<String> quads = new ArrayList<>(List.of("block"));
    for (int i = 0; i < N; i++) {
      pairs.add(Integer.toString(i / 2));
      quads.add(Integer.toString(i / 4));
    }
    Path bp = dir.resolve("pairs.csv");
    Files.write(bp, pairs);
    Path bq = dir.resolve("quads.csv");
    Files.write(bq, quads);
    Path within = dir.resolve("within");
    CliRun r = glm(within, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--exchangeability-blocks", bp.toString(), "--permutations", "1000");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(TestData.outputValues(within.resolve("null_max_tstat1.npy"))).hasSize(256);
    assertThat(Files.readString(within.resolve("summary.json")))
        .contains("\"exact_enumeration\": true");
    Path whole = dir.resolve("whole");
    r = glm(whole, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--exchangeability-blocks", bq.toString(), "--whole-blocks",
        "--permutations", "1000");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(TestData.outputValues(whole.resolve("null_max_tstat1.npy"))).hasSize(24);
  }

  /**
   * PALM's multi-level blocks (issue 45): [-1, family, subject] is within-family shuffling and
   * [1, -family, subject] whole families, so they give the bytes of the one-column file (PALM
   * reads one column as exactly these trees); twins inside families of four (the twins swap,
   * the other two siblings swap) allow 4 draws per family, all enumerated; and the file's
   * refusals exit 2.
   */
  @Test
  void multiLevelBlocksAreThePalmTree() throws Exception {
    Path y = data();
    Path d = design();
    Path c = write("con.csv", "intercept,age,group", "0,1,0");
    List<String> pairs = new ArrayList<>(List.of("block"));
    List<String> withinTree = new ArrayList<>(List.of("top,family,subject"));
    List<String> quads = new ArrayList<>();
    List<String> wholeTree = new ArrayList<>();
    List<String> twins = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      pairs.add(Integer.toString(i / 2));
      withinTree.add("-1," + (i / 2 + 1) + "," + (i + 1));
      quads.add(Integer.toString(i / 4));
      wholeTree.add("1 -" + (i / 4 + 1) + " " + (i + 1));
      // a family of four: a twin pair (sibship 1) and two non-twin siblings (sibship 2)
      twins.add("-1\t-" + (i / 4 + 1) + "\t" + (i % 4 < 2 ? 1 : 2) + "\t" + (i + 1));
    }
    String[] model = {"--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--permutations", "1000"};
    Path one = dir.resolve("one");
    Path tree = dir.resolve("tree");
    CliRun r = glm(one, concat(model, "--exchangeability-blocks", file("pairs.csv", pairs)));
    assertThat(r.code()).as(r.err()).isZero();
    r = glm(tree, concat(model, "--exchangeability-blocks", file("eb.csv", withinTree)));
    assertThat(r.code()).as(r.err()).isZero();
    for (String map : List.of("tstat1.npy", "p_tstat1.npy", "p_fwer_tstat1.npy")) {
      assertThat(Files.readAllBytes(tree.resolve(map))).as(map)
          .isEqualTo(Files.readAllBytes(one.resolve(map)));
    }
    String summary = Files.readString(tree.resolve("summary.json"));
    assertThat(summary).contains("\"exchangeability_levels\": 3")
        .contains("\"draws_possible\": 256").contains("\"exact_enumeration\": true");
    Path wholeOne = dir.resolve("whole-one");
    Path wholeTreeOut = dir.resolve("whole-tree");
    r = glm(wholeOne, concat(model, "--exchangeability-blocks", file("quads.txt", quads),
        "--whole-blocks"));
    assertThat(r.code()).as(r.err()).isZero();
    r = glm(wholeTreeOut, concat(model, "--exchangeability-blocks",
        file("whole-eb.txt", wholeTree)));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.readAllBytes(wholeTreeOut.resolve("p_tstat1.npy")))
        .isEqualTo(Files.readAllBytes(wholeOne.resolve("p_tstat1.npy")));
    Path twinOut = dir.resolve("twins");
    r = glm(twinOut, concat(model, "--exchangeability-blocks", file("twins.tsv", twins)));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(TestData.outputValues(twinOut.resolve("null_max_tstat1.npy"))).hasSize(256);
    assertThat(Files.readString(twinOut.resolve("summary.json")))
        .contains("\"exchangeability_levels\": 4");
    // refusals
    String eb = file("eb.csv", withinTree);
    refused("Cannot use --whole-blocks with the multi-level exchangeability blocks " + eb
        + ": there the sign of each block id says whether its sub-blocks move as wholes (+) or"
        + " stay in place (-); drop --whole-blocks",
        concat(model, "--exchangeability-blocks", eb, "--whole-blocks"));
    List<String> ragged = new ArrayList<>(wholeTree);
    ragged.set(3, "1 -1");
    String bad = file("ragged.txt", ragged);
    refused("Cannot read the exchangeability blocks " + bad + ": line 4 has 2 values but line 1"
        + " has 3; give every sample one id per level",
        concat(model, "--exchangeability-blocks", bad));
    List<String> uneven = new ArrayList<>(wholeTree);
    uneven.set(3, "1 -2 4");
    String odd = file("uneven.txt", uneven);
    refused("Cannot use the exchangeability blocks " + odd + ": the block of samples 1, 2, 3,"
        + " 4, 5, 6, … at level 1 has a positive id, so its sub-blocks are shuffled as wholes,"
        + " but the sub-block of samples 4, 5, 6, 7, 8 has 5 samples where samples 13, 14, 15,"
        + " 16 has 4; give whole-block sub-blocks the same shape, or the block a negative id to"
        + " keep them in place", concat(model, "--exchangeability-blocks", odd));
  }

  /**
   * Variance groups (PALM's -vg, issue 45): with two groups the t contrast is the Aspin-Welch v
   * and the F contrast Welch's G, written as vstat1 / gstat1 with their p maps; one group is
   * the t run's bytes; auto takes the groups from the blocks (families within which members
   * are shuffled: one group per family); refusals exit 2.
   */
  @Test
  void varianceGroupsGiveVAndG() throws Exception {
    Path y = data();
    Path d = design();
    Path c = write("con.csv", "name,intercept,age,group", "age,0,1,0", "group,0,0,1");
    Path f = write("f.csv", "age,group", "1,1");
    List<String> two = new ArrayList<>(List.of("vg"));
    List<String> one = new ArrayList<>(List.of("vg"));
    List<String> families = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      two.add(i < N / 2 ? "1" : "2");
      one.add("7");
      families.add("-1 " + (i / 4 + 1) + " " + (i + 1));
    }
    String[] model = {"--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--f-contrasts", f.toString(), "--permutations", "200"};
    Path vg = dir.resolve("vg");
    CliRun r = glm(vg, concat(model, "--variance-groups", file("vg.csv", two)));
    assertThat(r.code()).as(r.err()).isZero();
    for (String map : List.of("vstat1", "p_vstat1", "p_fwer_vstat1", "vstat2", "gstat1",
        "p_gstat1", "p_fwer_gstat1")) {
      assertThat(vg.resolve(map + ".npy")).as(map).exists();
    }
    assertThat(vg.resolve("tstat1.npy")).doesNotExist();
    Path plain = dir.resolve("plain");
    r = glm(plain, model);
    assertThat(r.code()).as(r.err()).isZero();
    double[] t = TestData.outputValues(plain.resolve("tstat1.npy"));
    double[] v = TestData.outputValues(vg.resolve("vstat1.npy"));
    assertThat(v).isNotEqualTo(t);
    for (int i = 0; i < V; i++) {
      assertThat(Math.signum(v[i])).isEqualTo(Math.signum(t[i])); // same estimate, other scale
    }
    assertThat(Files.readString(vg.resolve("summary.json")).replaceAll("\\s", ""))
        .contains("\"variance_groups\":2").contains("\"variance_group_sizes\":[8,8]")
        .contains("2variancegroups:tandFarevandG,theirpcountedontheirz(Welch'sdegreesof"
            + "freedompervoxelanddraw)");
    Path single = dir.resolve("single");
    r = glm(single, concat(model, "--variance-groups", file("one.csv", one)));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.readAllBytes(single.resolve("tstat1.npy")))
        .isEqualTo(Files.readAllBytes(plain.resolve("tstat1.npy")));
    Path auto = dir.resolve("auto");
    r = glm(auto, concat(model, "--exchangeability-blocks", file("fam.txt", families),
        "--variance-groups", "auto"));
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(Files.readString(auto.resolve("summary.json")))
        .contains("\"variance_groups\": 4").contains("\"variance_groups_source\": \"auto\"");
    // Across contrasts: v and G are counted on z already, so p_cfwer is their z's maximum.
    Path across = dir.resolve("across");
    r = glm(across, concat(model, "--variance-groups", file("vg.csv", two),
        "--fwer-across-contrasts"));
    assertThat(r.code()).as(r.err()).isZero();
    double[] pc = TestData.outputValues(across.resolve("p_cfwer_vstat1.npy"));
    double[] pf = TestData.outputValues(across.resolve("p_fwer_vstat1.npy"));
    for (int i = 0; i < V; i++) {
      assertThat(pc[i]).as("across contrasts is at least the contrast's own FWER p")
          .isGreaterThanOrEqualTo(pf[i]);
    }
    assertThat(Files.readAllBytes(across.resolve("vstat1.npy")))
        .isEqualTo(Files.readAllBytes(vg.resolve("vstat1.npy")));
    String shortFile = file("short.csv", two.subList(0, N));
    refused("Cannot use the variance groups " + shortFile + ": they hold " + (N - 1) + " values"
        + " but the data has " + N + " samples; give one group id per sample",
        concat(model, "--variance-groups", shortFile));
  }

  private String file(String name, List<String> lines) throws IOException {
    Path p = dir.resolve(name);
    Files.write(p, lines);
    return p.toString();
  }

  private static String[] concat(String[] head, String... tail) {
    return Stream.concat(Stream.of(head), Stream.of(tail)).toArray(String[]::new);
  }

  /** FSL's VEST files (design.mat, .con, .fts, .grp) give the bits of the same CSV model. */
  @Test
  void vestFilesGiveTheSameMapsAsCsv() throws Exception {
    Path y = data();
    Path d = design();
    List<String> csv = Files.readAllLines(d);
    List<String> mat = new ArrayList<>(List.of("/NumWaves 3", "/NumPoints " + N, "/Matrix"));
    List<String> grpCsv = new ArrayList<>(List.of("block"));
    List<String> grp = new ArrayList<>(List.of("/NumWaves 1", "/NumPoints " + N, "/Matrix"));
    for (int i = 1; i < csv.size(); i++) {
      mat.add(csv.get(i).replace(',', ' '));
      grpCsv.add(Integer.toString(1 + (i - 1) / 4));
      grp.add(Integer.toString(1 + (i - 1) / 4));
    }
    Path vd = dir.resolve("design.mat");
    Files.write(vd, mat);
    Path vc = write("design.con", "/ContrastName1 age", "/ContrastName2 group", "/NumWaves 3",
        "/NumContrasts 2", "/Matrix", "0 1 0", "0 0 1");
    Path vf = write("design.fts", "/NumWaves 2", "/NumContrasts 1", "/Matrix", "1 1");
    Path vg = dir.resolve("design.grp");
    Files.write(vg, grp);
    Path cg = dir.resolve("blocks.csv");
    Files.write(cg, grpCsv);
    Path c = write("con.csv", "name,intercept,age,group", "age,0,1,0", "group,0,0,1");
    Path f = write("f.csv", "age,group", "1,1");
    Path a = dir.resolve("vest");
    Path b = dir.resolve("csv");
    CliRun r1 = glm(a, "--input", y.toString(), "--design", vd.toString(), "--contrasts",
        vc.toString(), "--f-contrasts", vf.toString(), "--exchangeability-blocks", vg.toString(),
        "--permutations", "150");
    assertThat(r1.code()).as(r1.err()).isZero();
    CliRun r2 = glm(b, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--f-contrasts", f.toString(), "--exchangeability-blocks", cg.toString(),
        "--permutations", "150");
    assertThat(r2.code()).as(r2.err()).isZero();
    for (String name : List.of("tstat1", "p_tstat1", "p_fwer_tstat2", "fstat1", "p_fstat1")) {
      assertThat(TestData.bytes(a.resolve(name + ".npy"))).as(name)
          .isEqualTo(TestData.bytes(b.resolve(name + ".npy")));
    }
  }

  @Test
  void theApiReturnsTheSameResult() throws Exception {
    Path y = data();
    Path d = design();
    Path c = write("con.csv", "intercept,age,group", "0,1,0");
    RunReport report = Nlspark.glm(SharedSpark.get(), y.toString(), d.toString(), c.toString(),
        NlsparkOptions.builder().replicates(100).seed(9).tail(Tail.TWO).partitions(3)
            .grid(new Grid(16, 32)).build());
    GlmResult expected = GlmRun.run(
        org.nlspark.core.glm.GlmModel.prepare(GlmFiles.readDesign(d),
            GlmFiles.readContrasts(c, null), N),
        DataMatrix.of(N, V, TestData.outputValues(y), "y"),
        GlmRun.Options.defaults(100, 9).withTail(Tail.TWO).withGrid(new Grid(16, 32)));
    for (String name : expected.maps().keySet()) {
      assertThat(report.result.output(name)).as(name).isEqualTo(expected.get(name));
    }
    var frame = Nlspark.toDataFrame(SharedSpark.get(), report.result);
    assertThat(frame.columns()).containsExactly("voxel", "tstat1", "p_tstat1", "p_fwer_tstat1");
    assertThat(frame.count()).isEqualTo(V);
    GlmDesign design = GlmFiles.readDesign(d);
    GlmContrasts contrasts = GlmFiles.readContrasts(c, null);
    RunReport inMemory = Nlspark.glm(SharedSpark.get(),
        DataMatrix.of(N, V, TestData.outputValues(y), "y"), design, contrasts, null,
        NlsparkOptions.builder().replicates(100).seed(9).tail(Tail.TWO)
            .grid(new Grid(16, 32)).build());
    assertThat(inMemory.result.output("p_tstat1")).isEqualTo(expected.get("p_tstat1"));
  }

  /**
   * The Java API takes PALM's block levels ({@link Nlspark#glmWithBlockLevels}) and variance
   * groups ({@code NlsparkOptions.varianceGroups}) as the command line does: the same bytes.
   */
  @Test
  void theApiTakesBlockLevelsAndVarianceGroups() throws Exception {
    Path y = data();
    Path d = design();
    Path c = write("con.csv", "intercept,age,group", "0,1,0");
    int[][] levels = new int[N][];
    List<String> eb = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      levels[i] = new int[] {-1, i / 4 + 1, i + 1};
      eb.add("-1," + (i / 4 + 1) + "," + (i + 1));
    }
    String vg = file("vg.csv", java.util.Collections.nCopies(N / 2, "1").stream()
        .flatMap(one -> Stream.of(one, "2")).toList());
    Path out = dir.resolve("cli");
    CliRun r = glm(out, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        c.toString(), "--exchangeability-blocks", file("eb.csv", eb), "--variance-groups", vg,
        "--permutations", "300", "--seed", "4");
    assertThat(r.code()).as(r.err()).isZero();
    RunReport api = Nlspark.glmWithBlockLevels(SharedSpark.get(),
        DataMatrix.of(N, V, TestData.outputValues(y), "y"), GlmFiles.readDesign(d),
        GlmFiles.readContrasts(c, null), levels, NlsparkOptions.builder().replicates(300)
            .seed(4).varianceGroups(vg).build());
    for (String map : List.of("vstat1", "p_vstat1", "p_fwer_vstat1")) {
      assertThat(api.result.output(map)).as(map)
          .isEqualTo(TestData.outputValues(out.resolve(map + ".npy")));
    }
  }

  private void refused(String message, String... args) {
    Path out = dir.resolve("refused");
    CliRun r = glm(out, args);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).isEqualTo("nlspark glm: " + message + "\n");
    assertThat(out).doesNotExist();
  }

  /** Issue 11 item 2: every refusal is exit 2 with its message, before any work. */
  @Test
  void badModelsExitTwoBeforeAnyWork() throws Exception {
    String y = data().toString();
    String d = design().toString();
    String c = write("con.csv", "intercept,age,group", "0,1,0").toString();
    // non-estimable: group and its complement with the intercept
    List<String> collinear = new ArrayList<>(List.of("intercept,g1,g2"));
    for (int i = 0; i < N; i++) {
      collinear.add("1," + (i % 2) + "," + (1 - i % 2));
    }
    Path dc = dir.resolve("collinear.csv");
    Files.write(dc, collinear);
    String cg = write("cg.csv", "intercept,g1,g2", "0,1,0").toString();
    refused("Cannot test t contrast 1 (C1) of " + cg + ": it is not estimable in the design "
        + dc + " (rank 2 of 3 columns): it weights a combination of columns the data cannot"
        + " separate; change the contrast or the design",
        "--input", y, "--design", dc.toString(), "--contrasts", cg);
    // rows != samples
    Path shortDesign = write("short.csv", "intercept,age", "1,0.5", "1,0.7", "1,0.1");
    String c2 = write("c2.csv", "intercept,age", "0,1").toString();
    refused("Cannot fit the design " + shortDesign + ": it has 3 rows but the data has " + N
        + " samples; give one design row per sample, in the order of the data",
        "--input", y, "--design", shortDesign.toString(), "--contrasts", c2);
    // all-zero column, second constant column, NaN
    List<String> zero = new ArrayList<>(List.of("intercept,age,nothing"));
    List<String> twoConst = new ArrayList<>(List.of("intercept,age,also"));
    List<String> nan = new ArrayList<>(List.of("intercept,age,group"));
    for (int i = 0; i < N; i++) {
      zero.add("1," + i + ",0");
      twoConst.add("1," + i + ",2");
      nan.add("1," + (i == 3 ? "NaN" : Integer.toString(i)) + "," + (i % 2));
    }
    Path dz = dir.resolve("zero.csv");
    Files.write(dz, zero);
    Path d2 = dir.resolve("twoconst.csv");
    Files.write(d2, twoConst);
    Path dn = dir.resolve("nan.csv");
    Files.write(dn, nan);
    refused("Cannot fit the design " + dz + ": column 3 (nothing) is all zero; remove it",
        "--input", y, "--design", dz.toString(), "--contrasts", c);
    refused("Cannot fit the design " + d2 + ": columns 1 (intercept) and 3 (also) are both"
        + " constant; keep one intercept column",
        "--input", y, "--design", d2.toString(), "--contrasts", c);
    refused("Cannot fit the design " + dn + ": row 4, column 2 (age) is NaN; every design value"
        + " must be a finite number", "--input", y, "--design", dn.toString(), "--contrasts", c);
    // contrast columns are design columns by name (a positional reading would test another)
    String c4 = write("c4.csv", "a,b", "0,1").toString();
    refused("Cannot match the contrasts " + c4 + " to the design " + d + ": the contrast column"
        + " 'a' names no design column; contrast columns are matched to the design's by name (the"
        + " design's: intercept, age, group)",
        "--input", y, "--design", d, "--contrasts", c4);
    // unequal blocks with --whole-blocks
    List<String> uneven = new ArrayList<>(List.of("block"));
    for (int i = 0; i < N; i++) {
      uneven.add(i < 5 ? "1" : "2");
    }
    Path bu = dir.resolve("uneven.csv");
    Files.write(bu, uneven);
    refused("Cannot permute whole blocks of " + bu + ": block 1 has 5 samples but block 2 has 11;"
        + " whole-block draws need blocks of equal size (or drop --whole-blocks to permute within"
        + " blocks)", "--input", y, "--design", d, "--contrasts", c, "--exchangeability-blocks",
        bu.toString(), "--whole-blocks");
    // flags checked before Spark reads anything
    refused("--errors must be one of exchangeable, symmetric, both, but was: 'flip'",
        "--input", y, "--design", d, "--contrasts", c, "--errors", "flip");
    refused("Cannot permute whole blocks: --whole-blocks needs --exchangeability-blocks FILE",
        "--input", y, "--design", d, "--contrasts", c, "--whole-blocks");
    refused("Cannot run glm: --design is required", "--input", y, "--contrasts", c);
    refused("--fwer-across-contrasts and --no-fwer contradict each other; pass one",
        "--input", y, "--design", d, "--contrasts", c, "--fwer-across-contrasts", "--no-fwer");
    refused("Cannot read --design " + dir.resolve("missing.csv")
        + ": no such file; check the path", "--input", y, "--design",
        dir.resolve("missing.csv").toString(), "--contrasts", c);
  }

  /**
   * Issue 41 case 22: a UTF-8 byte-order mark at the start of a contrasts or blocks file was
   * read as part of the first name or id ("column 1 (\ufeffname) is not a number"; a block
   * id lost, then "15 values"); it is dropped, and the run equals the one without it.
   */
  @Test
  void aByteOrderMarkIsNotPartOfTheFirstNameOrId() throws Exception {
    Path y = data();
    Path d = design();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < N; i++) {
      ids.add(Integer.toString(i / 4));
    }
    Path plainBlocks = dir.resolve("blocks.txt");
    Files.write(plainBlocks, ids);
    Path bomBlocks = dir.resolve("bom-blocks.txt");
    Files.writeString(bomBlocks, "\uFEFF" + String.join("\n", ids) + "\n");
    Path plainCon = write("con.csv", "name,intercept,age,group", "age,0,1,0");
    Path bomCon = dir.resolve("bom-con.csv");
    Files.writeString(bomCon, "\uFEFFname,intercept,age,group\nage,0,1,0\n");
    Path plain = dir.resolve("plain");
    CliRun a = glm(plain, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        plainCon.toString(), "--exchangeability-blocks", plainBlocks.toString(),
        "--permutations", "200");
    assertThat(a.code()).as(a.err()).isZero();
    Path bom = dir.resolve("bom");
    CliRun b = glm(bom, "--input", y.toString(), "--design", d.toString(), "--contrasts",
        bomCon.toString(), "--exchangeability-blocks", bomBlocks.toString(),
        "--permutations", "200");
    assertThat(b.code()).as(b.err()).isZero();
    assertThat(Files.readAllBytes(bom.resolve("null_max_tstat1.npy")))
        .isEqualTo(Files.readAllBytes(plain.resolve("null_max_tstat1.npy")));
    assertThat(Files.readAllBytes(bom.resolve("tstat1.npy")))
        .isEqualTo(Files.readAllBytes(plain.resolve("tstat1.npy")));
  }
}
