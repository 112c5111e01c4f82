package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.surface.Gifti;
import org.nlspark.core.stats.ZScores;

/**
 * Surface data from the command line (DESIGN §8, §9): one-sample TFCE and clusters on a mesh
 * against PALM's definitions computed here the naive way (z of t with n - 1 degrees of freedom;
 * for each of 100 heights the components of vertices at or above it through triangle edges,
 * each adding (its summed vertex area)^E h^H; times dh; vertex area a third of its triangles'),
 * the same bytes from every input form, mesh file and partitioning, maps in the input's format,
 * and the refusals. The mesh: a 642-vertex icosphere (PALM's own surface example has 642).
 */
class SurfaceCliTest {
  @TempDir static Path dir;
  static double[] xyz;
  static int[] tri;
  static final int SUBJECTS = 12;
  static float[][] data;

  @BeforeAll
  static void writeStudy() throws IOException {
    icosphere(3, 60);
    int n = xyz.length / 3;
    SplittableRandom random = new SplittableRandom(44);
    data = new float[SUBJECTS][n];
    for (int s = 0; s < SUBJECTS; s++) {
      for (int v = 0; v < n; v++) {
        // a patch of effect around vertex 0 (within 25 mm), noise elsewhere
        double dx = xyz[3 * v] - xyz[0];
        double dy = xyz[3 * v + 1] - xyz[1];
        double dz = xyz[3 * v + 2] - xyz[2];
        double effect = Math.sqrt(dx * dx + dy * dy + dz * dz) < 25 ? 1.2 : 0;
        data[s][v] = (float) (random.nextGaussian() + effect);
      }
    }
    List<String> list = new ArrayList<>();
    for (int s = 0; s < SUBJECTS; s++) {
      String name = String.format("sub-%02d.func.gii", s + 1);
      try (OutputStream out = Files.newOutputStream(dir.resolve(name))) {
        Gifti.writeMap(out, "thickness", data[s]);
      }
      list.add(name);
    }
    Files.write(dir.resolve("subjects.txt"), list);
    writeMgh(dir.resolve("all.mgh"), data);
    writeFreeSurferSurface(dir.resolve("lh.sphere"));
    writeGiftiSurface(dir.resolve("lh.sphere.surf.gii"));
  }

  private static CliRun oneSample(String input, String mesh, String out, String... more) {
    List<String> args = new ArrayList<>(List.of("one-sample", "--input", input, "--surface",
        mesh, "--stat", "t", "--tfce", "--cluster-threshold", "2.5", "--tail", "upper",
        "--permutations", "200", "--seed", "3", "--output", out, "--quiet"));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(new String[0]));
  }

  @Test
  void tfceAndClustersOnTheMeshArePalmsAndEveryInputFormGivesTheSameBytes() throws Exception {
    String list = dir.resolve("subjects.txt").toString();
    CliRun a = oneSample(list, dir.resolve("lh.sphere.surf.gii").toString(),
        dir.resolve("out-list").toString());
    assertThat(a.code()).as(a.err()).isZero();
    CliRun b = oneSample(dir.resolve("all.mgh").toString(), dir.resolve("lh.sphere").toString(),
        dir.resolve("out-mgh").toString(), "--partitions", "3");
    assertThat(b.code()).as(b.err()).isZero();
    CliRun c = oneSample(dir.resolve("sub-*.func.gii").toString(),
        dir.resolve("lh.sphere").toString(), dir.resolve("out-glob").toString(),
        "--partitions", "2");
    assertThat(c.code()).as(c.err()).isZero();
    for (String map : List.of("observed", "p", "p_fwer", "tfce", "p_tfce", "p_fwer_tfce",
        "null_max_tfce", "cluster_size", "p_fwer_cluster", "null_max_cluster")) {
      byte[] want = TestData.bytes(dir.resolve("out-list/" + map + ".npy"));
      assertThat(java.util.Arrays.equals(want,
          TestData.bytes(dir.resolve("out-mgh/" + map + ".npy")))).as(map + " mgh").isTrue();
      assertThat(java.util.Arrays.equals(want,
          TestData.bytes(dir.resolve("out-glob/" + map + ".npy")))).as(map + " glob").isTrue();
    }

    double[] t = TestData.outputValues(dir.resolve("out-list/observed.npy"));
    int n = t.length;
    assertThat(n).isEqualTo(642);
    double[] z = new double[n];
    for (int v = 0; v < n; v++) {
      z[v] = ZScores.ofT(t[v], SUBJECTS - 1);
    }
    double largest = assertTfceAndClustersOnZ(z, vertexAreas(n), dir.resolve("out-list"), "");
    assertThat(largest).as("the patch forms a cluster").isGreaterThan(100);

    // Maps in the input's own format, on every vertex: GIFTI for GIFTI, MGH for MGH.
    double[] got = TestData.outputValues(dir.resolve("out-list/tfce.npy"));
    double[] gifti = Gifti.readData(Files.newInputStream(dir.resolve("out-list/tfce.func.gii")),
        "tfce.func.gii").samples()[0];
    double[] mgh = org.nlspark.core.io.surface.FreeSurfer.readMgh(
        Files.newInputStream(dir.resolve("out-mgh/tfce.mgh")), "tfce.mgh").samples()[0];
    for (int v = 0; v < n; v++) {
      assertThat(gifti[v]).isEqualTo((double) (float) got[v]);
      assertThat(mgh[v]).isEqualTo((double) (float) got[v]);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> summary = (Map<String, Object>) Json.parse(Files.readString(
        dir.resolve("out-list/summary.json")));
    @SuppressWarnings("unchecked")
    Map<String, Object> whole = (Map<String, Object>) summary.get("whole_map");
    assertThat(whole).containsEntry("on_z_of_t_with_df", 11.0)
        .containsEntry("tfce_extent_exponent", 1.0).containsEntry("tfce_times_dh", true)
        .containsEntry("connectivity", "triangle edges").containsEntry("surface_vertices", 642L);
    assertThat(Files.readString(dir.resolve("out-list/summary.json")))
        .contains("\"elements\": \"vertices\"").contains("tfce.func.gii");

    // report.html draws the maps on the mesh (lateral and medial views) and lists the clusters
    // of the surviving vertices by peak vertex
    String html = Files.readString(dir.resolve("out-list/report.html"));
    assertThat(html).contains("lateral\"").contains("medial\"").contains("<th>peak vertex</th>")
        .contains("on the mesh " + dir.resolve("lh.sphere.surf.gii"))
        .doesNotContain("cannot be read now");
  }

  /**
   * Checks the upper-tail TFCE (E = 1, H = 2: PALM's -tfce2D, the surface default) and the
   * cluster areas at z >= 2.5 in {@code out} (maps {@code tfce{suffix}}, {@code
   * cluster_size{suffix}}) against union-find on {@code z} with these vertex areas; returns the
   * largest cluster's area.
   */
  private static double assertTfceAndClustersOnZ(double[] z, double[] area, Path out,
      String suffix) {
    int n = z.length;
    List<List<Integer>> neighbours = neighbours(n);
    double m = 0;
    for (double x : z) {
      m = Math.max(m, x);
    }
    double dh = m / 100;
    double[] tfce = new double[n];
    for (int k = 1; k <= 100; k++) {
      double h = k < 100 ? k * dh : m;
      for (List<Integer> component : components(z, h, neighbours)) {
        double extent = 0;
        for (int v : component) {
          extent += area[v];
        }
        for (int v : component) {
          tfce[v] += extent * h * h;
        }
      }
    }
    double[] got = TestData.outputValues(out.resolve("tfce" + suffix + ".npy"));
    double[] clusters = TestData.outputValues(out.resolve("cluster_size" + suffix + ".npy"));
    double[] wantClusters = new double[n];
    for (List<Integer> component : components(z, 2.5, neighbours)) {
      double extent = 0;
      for (int v : component) {
        extent += area[v];
      }
      for (int v : component) {
        wantClusters[v] = extent;
      }
    }
    double largest = 0;
    for (int v = 0; v < n; v++) {
      assertThat(got[v]).as("tfce vertex %d", v)
          .isCloseTo(tfce[v] * dh, within(1e-12 * Math.abs(tfce[v] * dh) + 1e-300));
      assertThat(clusters[v]).as("cluster vertex %d", v)
          .isCloseTo(wantClusters[v], within(1e-12 * wantClusters[v]));
      largest = Math.max(largest, wantClusters[v]);
    }
    return largest;
  }

  @Test
  void givenVertexAreasWeighTheExtentsInsteadOfTheTriangles() throws Exception {
    int n = xyz.length / 3;
    float[] given = new float[n];
    double[] area = new double[n];
    for (int v = 0; v < n; v++) {
      given[v] = 0.5f + (v % 7) * 0.25f; // far from the triangles' thirds, exact in float32
      area[v] = given[v];
    }
    Path areaFile = dir.resolve("lh.area.func.gii");
    try (OutputStream o = Files.newOutputStream(areaFile)) {
      Gifti.writeMap(o, "area", given);
    }
    Path out = dir.resolve("out-area");
    CliRun r = oneSample(dir.resolve("subjects.txt").toString(),
        dir.resolve("lh.sphere").toString(), out.toString(), "--vertex-area",
        areaFile.toString());
    assertThat(r.code()).as(r.err()).isZero();
    double[] t = TestData.outputValues(out.resolve("observed.npy"));
    double[] z = new double[n];
    for (int v = 0; v < n; v++) {
      z[v] = ZScores.ofT(t[v], SUBJECTS - 1);
    }
    assertThat(assertTfceAndClustersOnZ(z, area, out, "")).isGreaterThan(10);
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"vertex_area\": \"" + areaFile + "\"");

    // Refused before anything is written: no mesh, a count not the mesh's, a negative area.
    Path refused = dir.resolve("refused-area");
    CliRun noMesh = CliRun.of("one-sample", "--input", dir.resolve("subjects.txt").toString(),
        "--vertex-area", areaFile.toString(), "--output", refused.toString(), "--quiet");
    assertThat(noMesh.code()).isEqualTo(2);
    assertThat(noMesh.err()).contains("--vertex-area " + areaFile + " gives the area of each"
        + " vertex of a mesh; give the mesh with --surface too");
    Path short162 = dir.resolve("short.area.func.gii");
    try (OutputStream o = Files.newOutputStream(short162)) {
      Gifti.writeMap(o, "area", java.util.Arrays.copyOf(given, 162));
    }
    CliRun count = oneSample(dir.resolve("subjects.txt").toString(),
        dir.resolve("lh.sphere").toString(), refused.toString(), "--vertex-area",
        short162.toString());
    assertThat(count.code()).isEqualTo(2);
    assertThat(count.err()).contains("Cannot use --vertex-area " + short162 + " on the surface "
        + dir.resolve("lh.sphere") + ": --vertex-area is one value per vertex (642), but it"
        + " holds 1 x 162");
    given[5] = -1;
    Path negative = dir.resolve("negative.area.func.gii");
    try (OutputStream o = Files.newOutputStream(negative)) {
      Gifti.writeMap(o, "area", given);
    }
    CliRun bad = oneSample(dir.resolve("subjects.txt").toString(),
        dir.resolve("lh.sphere").toString(), refused.toString(), "--vertex-area",
        negative.toString());
    assertThat(bad.code()).isEqualTo(2);
    assertThat(bad.err()).contains("Cannot use --vertex-area " + negative + ": the area of"
        + " vertex 5 is -1.0; an area is a finite number >= 0 (mm2)");
    assertThat(refused).doesNotExist();
  }

  @Test
  void glmTfceOnTheMeshIsOnZOfEachContrastsTAndF() throws Exception {
    List<String> design = new ArrayList<>(List.of("intercept,age,group"));
    for (int s = 0; s < SUBJECTS; s++) {
      design.add("1," + (20 + (s * 7) % 11) + "," + s % 2);
    }
    Path d = Files.write(dir.resolve("design.csv"), design);
    Path c = Files.write(dir.resolve("contrasts.csv"),
        List.of("name,intercept,age,group", "mean,1,0,0", "age,0,1,0"));
    Path f = Files.write(dir.resolve("f.csv"), List.of("mean,age", "1,1"));
    Path out = dir.resolve("out-glm");
    Path mesh = Files.copy(dir.resolve("lh.sphere.surf.gii"), dir.resolve("glm.surf.gii"));
    CliRun r = CliRun.of("glm", "--input", dir.resolve("subjects.txt").toString(), "--design",
        d.toString(), "--contrasts", c.toString(), "--f-contrasts", f.toString(), "--surface",
        mesh.toString(), "--tfce", "--cluster-threshold", "2.5",
        "--permutations", "50", "--seed", "6", "--output", out.toString(), "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    int n = xyz.length / 3;
    double df = SUBJECTS - 3; // n - rank(X)
    double[] t = TestData.outputValues(out.resolve("tstat1.npy"));
    double[] fs = TestData.outputValues(out.resolve("fstat1.npy"));
    double[] zt = new double[n];
    double[] zf = new double[n];
    for (int v = 0; v < n; v++) {
      zt[v] = ZScores.ofT(t[v], df);
      zf[v] = ZScores.ofF(fs[v], 2, df); // the F of two t contrasts: rank 2
    }
    double[] area = vertexAreas(n);
    assertThat(assertTfceAndClustersOnZ(zt, area, out, "_tstat1")).isGreaterThan(50);
    assertThat(assertTfceAndClustersOnZ(zf, area, out, "_fstat1")).isGreaterThan(50);
    @SuppressWarnings("unchecked")
    Map<String, Object> whole = (Map<String, Object>) ((Map<String, Object>) Json.parse(
        Files.readString(out.resolve("summary.json")))).get("whole_map");
    assertThat(whole).containsEntry("on_z_of_t_with_df", df)
        .containsEntry("f_contrasts_on_z_of_f_with_df", Map.of("fstat1", List.of(2.0, df)));

    // The report of a run whose mesh has gone since: the page says so instead of drawing.
    assertThat(Files.readString(out.resolve("report.html"))).contains("lateral\"");
    Files.delete(mesh);
    CliRun again = CliRun.of("report", out.toString());
    assertThat(again.code()).as(again.err()).isZero();
    assertThat(Files.readString(out.resolve("report.html"))).doesNotContain("lateral\"")
        .contains("The mesh " + mesh + " cannot be read now (");
  }

  /**
   * glm variance groups on a mesh (issue 45 on issue 44's surfaces): two groups with their own
   * means and variances, the group contrast is Welch's two-sample t; TFCE and clusters see its
   * z through Welch–Satterthwaite's df per vertex, both written here from the textbook.
   */
  @Test
  void glmVarianceGroupsOnTheMeshAreOnTheZOfWelchsT() throws Exception {
    List<String> design = new ArrayList<>(List.of("intercept,group"));
    List<String> groups = new ArrayList<>();
    for (int s = 0; s < SUBJECTS; s++) {
      design.add("1," + (s < 5 ? 1 : 0));
      groups.add(s < 5 ? "2" : "1");
    }
    Path d = Files.write(dir.resolve("vg-design.csv"), design);
    Path c = Files.write(dir.resolve("vg-contrasts.csv"),
        List.of("name,intercept,group", "group,0,1"));
    Path vg = Files.write(dir.resolve("vg.csv"), groups);
    Path out = dir.resolve("out-vg");
    CliRun r = CliRun.of("glm", "--input", dir.resolve("subjects.txt").toString(), "--design",
        d.toString(), "--contrasts", c.toString(), "--variance-groups", vg.toString(),
        "--surface", dir.resolve("lh.sphere.surf.gii").toString(), "--tfce",
        "--cluster-threshold", "2.5", "--permutations", "30", "--seed", "6", "--output",
        out.toString(), "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    int n = xyz.length / 3;
    double[] v = TestData.outputValues(out.resolve("vstat1.npy"));
    double[] z = new double[n];
    for (int x = 0; x < n; x++) {
      double[] mean = new double[2];
      double[] ss = new double[2];
      int[] size = {5, SUBJECTS - 5};
      for (int s = 0; s < SUBJECTS; s++) {
        mean[s < 5 ? 0 : 1] += (double) data[s][x] / size[s < 5 ? 0 : 1];
      }
      for (int s = 0; s < SUBJECTS; s++) {
        double e = (double) data[s][x] - mean[s < 5 ? 0 : 1];
        ss[s < 5 ? 0 : 1] += e * e;
      }
      double a1 = ss[0] / (size[0] - 1) / size[0];
      double a0 = ss[1] / (size[1] - 1) / size[1];
      double welch = (mean[0] - mean[1]) / Math.sqrt(a0 + a1);
      double df = (a0 + a1) * (a0 + a1) / (a1 * a1 / (size[0] - 1) + a0 * a0 / (size[1] - 1));
      assertThat(v[x]).as("v is Welch's t at %d", x).isCloseTo(welch,
          within(1e-9 * Math.max(1, Math.abs(welch))));
      z[x] = ZScores.ofT(welch, df);
    }
    assertTfceAndClustersOnZ(z, vertexAreas(n), out, "_vstat1");
    assertThat(Files.readString(out.resolve("summary.json")))
        .doesNotContain("on_z_of_t_with_df").contains("\"tfce_times_dh\": true");
  }

  @Test
  void correlationTfceOnTheMeshIsOnZOfTheTOfR() throws Exception {
    double[] target = new double[SUBJECTS];
    for (int s = 0; s < SUBJECTS; s++) {
      target[s] = s % 3 + 0.5 * s;
    }
    Path y = TestData.vector(dir, "age.npy", target);
    Path out = dir.resolve("out-r");
    CliRun r = CliRun.of("correlation", "--input", dir.resolve("subjects.txt").toString(),
        "--target", y.toString(), "--surface", dir.resolve("lh.sphere").toString(), "--tfce",
        "--tail", "two", "--permutations", "50", "--output", out.toString(), "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    double[] rho = TestData.outputValues(out.resolve("observed.npy"));
    int n = rho.length;
    double df = SUBJECTS - 2;
    double[] z = new double[n];
    double top = 0;
    for (int v = 0; v < n; v++) {
      double t = rho[v] * Math.sqrt(df / (1 - rho[v] * rho[v]));
      z[v] = ZScores.ofT(t, df);
      top = Math.max(top, Math.abs(z[v]));
    }
    double[] area = vertexAreas(n);
    List<List<Integer>> neighbours = neighbours(n);
    double dh = top / 100;
    double[] want = new double[n];
    for (int sign : new int[] {1, -1}) {
      double[] signed = new double[n];
      for (int v = 0; v < n; v++) {
        signed[v] = sign * z[v];
      }
      for (int k = 1; k <= 100; k++) {
        double h = k < 100 ? k * dh : top;
        for (List<Integer> component : components(signed, h, neighbours)) {
          double extent = 0;
          for (int v : component) {
            extent += area[v];
          }
          for (int v : component) {
            want[v] += sign * extent * h * h * dh;
          }
        }
      }
    }
    double[] got = TestData.outputValues(out.resolve("tfce.npy"));
    for (int v = 0; v < n; v++) {
      assertThat(got[v]).as("vertex %d", v)
          .isCloseTo(want[v], within(1e-12 * Math.abs(want[v]) + 1e-300));
    }
    assertThat(Files.readString(out.resolve("summary.json"))).contains("\"t_of_r\"");
  }

  @Test
  void badSurfaceRunsAreRefusedInOneSentenceBeforeAnythingIsWritten() throws IOException {
    String list = dir.resolve("subjects.txt").toString();
    Path out = dir.resolve("refused");
    CliRun noMesh = CliRun.of("one-sample", "--input", list, "--output", out.toString(),
        "--quiet");
    assertThat(noMesh.code()).isEqualTo(2);
    assertThat(noMesh.err()).contains("it is surface data (GIFTI or MGH), which needs its mesh;"
        + " give --surface");
    icosphere(2, 60); // 162 vertices
    Path small = dir.resolve("small.white");
    writeFreeSurferSurface(small);
    icosphere(3, 60);
    CliRun wrong = oneSample(list, small.toString(), out.toString());
    assertThat(wrong.code()).isEqualTo(2);
    assertThat(wrong.err()).contains("it has 642 vertices, but the surface " + small
        + " has 162; give the data and the mesh of one hemisphere and one template");
    CliRun connectivity = oneSample(list, dir.resolve("lh.sphere").toString(), out.toString(),
        "--connectivity", "6");
    assertThat(connectivity.code()).isEqualTo(2);
    assertThat(connectivity.err()).contains("--connectivity sets how voxels of a grid join, but"
        + " on the surface");
    CliRun twoSample = CliRun.of("two-sample", "--input", list, "--input2", list, "--surface",
        dir.resolve("lh.sphere").toString(), "--tfce", "--output", out.toString(), "--quiet");
    assertThat(twoSample.code()).isEqualTo(2);
    assertThat(twoSample.err()).contains("--tfce on a surface runs on z of a t statistic (as"
        + " PALM), and two-sample --stat welch-t has no t distribution to convert; compare two"
        + " groups with glm and a group column");
    CliRun npy = CliRun.of("one-sample", "--input",
        TestData.matrix(dir, "x.npy", 4, 642, TestData.gaussian(1, 4, 642, 0)).toString(),
        "--surface", dir.resolve("lh.sphere").toString(), "--output", out.toString(), "--quiet");
    assertThat(npy.code()).isEqualTo(2);
    assertThat(npy.err()).contains("--surface is the mesh of surface data");
    assertThat(out).doesNotExist();
  }

  // --- the study's files, written here ---

  private static List<List<Integer>> components(double[] z, double h,
      List<List<Integer>> neighbours) {
    int n = z.length;
    boolean[] seen = new boolean[n];
    List<List<Integer>> out = new ArrayList<>();
    for (int s = 0; s < n; s++) {
      if (seen[s] || !(z[s] >= h)) {
        continue;
      }
      List<Integer> members = new ArrayList<>();
      ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(s));
      seen[s] = true;
      while (!queue.isEmpty()) {
        int v = queue.poll();
        members.add(v);
        for (int u : neighbours.get(v)) {
          if (!seen[u] && z[u] >= h) {
            seen[u] = true;
            queue.add(u);
          }
        }
      }
      out.add(members);
    }
    return out;
  }

  private static List<List<Integer>> neighbours(int n) {
    List<List<Integer>> nb = new ArrayList<>();
    for (int v = 0; v < n; v++) {
      nb.add(new ArrayList<>());
    }
    for (int f = 0; f < tri.length; f += 3) {
      for (int e = 0; e < 3; e++) {
        int a = tri[f + e];
        int b = tri[f + (e + 1) % 3];
        if (!nb.get(a).contains(b)) {
          nb.get(a).add(b);
          nb.get(b).add(a);
        }
      }
    }
    return nb;
  }

  /** PALM's palm_calcarea: a third of the areas of each vertex's triangles. */
  private static double[] vertexAreas(int n) {
    double[] area = new double[n];
    for (int f = 0; f < tri.length; f += 3) {
      double third = triangleArea(tri[f], tri[f + 1], tri[f + 2]) / 3;
      for (int k = 0; k < 3; k++) {
        area[tri[f + k]] += third;
      }
    }
    return area;
  }

  private static double triangleArea(int a, int b, int c) {
    double[] u = new double[3];
    double[] w = new double[3];
    for (int d = 0; d < 3; d++) {
      u[d] = xyz[3 * b + d] - xyz[3 * a + d];
      w[d] = xyz[3 * c + d] - xyz[3 * a + d];
    }
    double x = u[1] * w[2] - u[2] * w[1];
    double y = u[2] * w[0] - u[0] * w[2];
    double zc = u[0] * w[1] - u[1] * w[0];
    return 0.5 * Math.sqrt(x * x + y * y + zc * zc);
  }

  /** An icosahedron subdivided {@code levels} times on a sphere of radius r, in float32. */
  private static void icosphere(int levels, double r) {
    double g = (1 + Math.sqrt(5)) / 2;
    List<double[]> v = new ArrayList<>();
    for (double[] p : new double[][] {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0},
        {0, -1, g}, {0, 1, g}, {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1},
        {-g, 0, 1}}) {
      v.add(unit(p));
    }
    int[][] faces = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9},
        {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6},
        {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    for (int level = 0; level < levels; level++) {
      Map<Long, Integer> middle = new HashMap<>();
      List<int[]> next = new ArrayList<>();
      for (int[] f : faces) {
        int ab = middle(v, middle, f[0], f[1]);
        int bc = middle(v, middle, f[1], f[2]);
        int ca = middle(v, middle, f[2], f[0]);
        next.add(new int[] {f[0], ab, ca});
        next.add(new int[] {f[1], bc, ab});
        next.add(new int[] {f[2], ca, bc});
        next.add(new int[] {ab, bc, ca});
      }
      faces = next.toArray(new int[0][]);
    }
    xyz = new double[3 * v.size()];
    for (int i = 0; i < v.size(); i++) {
      for (int d = 0; d < 3; d++) {
        xyz[3 * i + d] = (float) (r * v.get(i)[d]); // the files hold float32
      }
    }
    tri = new int[3 * faces.length];
    for (int f = 0; f < faces.length; f++) {
      System.arraycopy(faces[f], 0, tri, 3 * f, 3);
    }
  }

  private static int middle(List<double[]> v, Map<Long, Integer> cache, int a, int b) {
    long key = (long) Math.min(a, b) << 32 | Math.max(a, b);
    Integer known = cache.get(key);
    if (known != null) {
      return known;
    }
    double[] p = v.get(a);
    double[] q = v.get(b);
    v.add(unit(new double[] {p[0] + q[0], p[1] + q[1], p[2] + q[2]}));
    cache.put(key, v.size() - 1);
    return v.size() - 1;
  }

  private static double[] unit(double[] p) {
    double len = Math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return new double[] {p[0] / len, p[1] / len, p[2] / len};
  }

  /** FreeSurfer's triangle surface: magic, two text lines, counts, float32 xyz, int32 faces. */
  private static void writeFreeSurferSurface(Path path) throws IOException {
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(path))) {
      out.write(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFE});
      out.write("created by a test\n\n".getBytes(StandardCharsets.US_ASCII));
      out.writeInt(xyz.length / 3);
      out.writeInt(tri.length / 3);
      for (double c : xyz) {
        out.writeFloat((float) c);
      }
      for (int i : tri) {
        out.writeInt(i);
      }
    }
  }

  /** The same mesh as a GIFTI .surf.gii, in ASCII encoding. */
  private static void writeGiftiSurface(Path path) throws IOException {
    StringBuilder points = new StringBuilder();
    for (double c : xyz) {
      points.append((float) c).append(' ');
    }
    StringBuilder faces = new StringBuilder();
    for (int i : tri) {
      faces.append(i).append(' ');
    }
    Files.writeString(path, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<GIFTI Version=\"1.0\""
        + " NumberOfDataArrays=\"2\">\n<DataArray Intent=\"NIFTI_INTENT_POINTSET\""
        + " DataType=\"NIFTI_TYPE_FLOAT32\" ArrayIndexingOrder=\"RowMajorOrder\""
        + " Dimensionality=\"2\" Dim0=\"" + xyz.length / 3 + "\" Dim1=\"3\" Encoding=\"ASCII\""
        + " Endian=\"LittleEndian\" ExternalFileName=\"\" ExternalFileOffset=\"\"><Data>"
        + points + "</Data></DataArray>\n<DataArray Intent=\"NIFTI_INTENT_TRIANGLE\""
        + " DataType=\"NIFTI_TYPE_INT32\" ArrayIndexingOrder=\"RowMajorOrder\""
        + " Dimensionality=\"2\" Dim0=\"" + tri.length / 3 + "\" Dim1=\"3\" Encoding=\"ASCII\""
        + " Endian=\"LittleEndian\" ExternalFileName=\"\" ExternalFileOffset=\"\"><Data>"
        + faces + "</Data></DataArray>\n</GIFTI>\n");
  }

  /** One MGH of vertices x 1 x 1 x samples, float32, big-endian, data at byte 284. */
  static void writeMgh(Path path, float[][] samples) throws IOException {
    try (DataOutputStream out = new DataOutputStream(Files.newOutputStream(path))) {
      out.writeInt(1);
      out.writeInt(samples[0].length);
      out.writeInt(1);
      out.writeInt(1);
      out.writeInt(samples.length);
      out.writeInt(3);
      out.writeInt(0);
      out.writeShort(0);
      out.write(new byte[284 - 30]);
      for (float[] s : samples) {
        for (float x : s) {
          out.writeFloat(x);
        }
      }
    }
  }
}
