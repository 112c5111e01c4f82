package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.surface.Cifti;
import org.nlspark.core.io.surface.Gifti;
import org.nlspark.core.io.surface.VertexData;
import org.nlspark.core.surface.Grayordinates;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * CIFTI-2 grayordinates from the command line (DESIGN §8, §9): a cortex-only study runs TFCE and
 * clusters as the same data in GIFTI on the one mesh of both hemispheres (the surface nlspark
 * writes beside the outputs, with its grayordinate mask), byte for byte, whose TFCE and
 * clusters SurfaceCliTest checks against PALM's definition; t against the naive formula; the
 * same bytes from a list and a glob; maps written as .dscalar.nii with the inputs' brain
 * models; subcortical voxels in voxelwise inference, and in TFCE and clusters on their grid
 * beside the cortex (against the definitions computed here); and the refusals.
 */
class CiftiCliTest {
  @TempDir static Path dir;
  static final int SUBJECTS = 10;
  static final int SIDE = 8; // each cortex an 8 x 8 grid of vertices, 1 mm apart
  static Grayordinates cortex;
  static Grayordinates withVoxels;
  static double[][] full; // per subject, per full-space slot (both cortices, then 3 voxels)

  @BeforeAll
  static void writeStudy() throws IOException {
    writeMesh(dir.resolve("L.surf.gii"), SIDE, 0);
    writeMesh(dir.resolve("R.surf.gii"), SIDE, 40);
    writeMesh(dir.resolve("small.surf.gii"), SIDE - 1, 0);
    int n = SIDE * SIDE;
    int[] left = new int[n - 2]; // the "medial wall": vertices 0 and 9 are not grayordinates
    for (int v = 2, k = 0; v < n; v++) {
      left[k++] = v == 9 ? 1 : v;
    }
    java.util.Arrays.sort(left);
    int[] right = new int[n];
    for (int v = 0; v < n; v++) {
      right[v] = v;
    }
    List<Grayordinates.Model> models = new ArrayList<>(List.of(
        new Grayordinates.Model(Grayordinates.CORTEX_LEFT, true, 0, n - 2, n, left),
        new Grayordinates.Model(Grayordinates.CORTEX_RIGHT, true, n - 2, n, n, right)));
    cortex = new Grayordinates(models, null, null);
    models.add(new Grayordinates.Model("CIFTI_STRUCTURE_THALAMUS_LEFT", false, 2 * n - 2, 3, 0,
        new int[] {1, 1, 1, 1, 1, 2, 2, 2, 2}));
    withVoxels = new Grayordinates(models, new int[] {4, 4, 4},
        new double[] {2, 0, 0, -4, 0, 2, 0, -4, 0, 0, 2, -4, 0, 0, 0, 1});
    SplittableRandom random = new SplittableRandom(7);
    full = new double[SUBJECTS][2 * n + 3];
    List<String> cifti = new ArrayList<>();
    List<String> voxels = new ArrayList<>();
    for (int s = 0; s < SUBJECTS; s++) {
      for (int v = 0; v < full[s].length; v++) {
        // an effect on a patch of each cortex (rows 2-4 of the grid), noise elsewhere
        int row = v % n / SIDE;
        full[s][v] = random.nextGaussian() + (v < 2 * n && row >= 2 && row <= 4 ? 1.5 : 0)
            + (v >= 2 * n ? 2.0 : 0); // and on the voxels
      }
      float[] values = new float[full[s].length];
      for (int v = 0; v < values.length; v++) {
        values[v] = (float) full[s][v];
        full[s][v] = values[v];
      }
      String name = String.format("sub-%02d.dscalar.nii", s + 1);
      try (OutputStream out = Files.newOutputStream(dir.resolve(name))) {
        Cifti.writeMap(out, cortex, "thickness", java.util.Arrays.copyOf(values, 2 * n));
      }
      try (OutputStream out = Files.newOutputStream(dir.resolve("vox-" + name))) {
        Cifti.writeMap(out, withVoxels, "thickness", values);
      }
      // the same data in GIFTI, on every vertex of both meshes (0 off the grayordinates)
      float[] gifti = java.util.Arrays.copyOf(values, 2 * n);
      gifti[0] = 0;
      gifti[9] = 0;
      try (OutputStream out = Files.newOutputStream(dir.resolve(name + ".func.gii"))) {
        Gifti.writeMap(out, "thickness", gifti);
      }
      cifti.add(name);
      voxels.add("vox-" + name);
    }
    Files.write(dir.resolve("cifti.txt"), cifti);
    Files.write(dir.resolve("voxels.txt"), voxels);
    List<String> gifti = new ArrayList<>();
    for (String c : cifti) {
      gifti.add(c + ".func.gii");
    }
    Files.write(dir.resolve("gifti.txt"), gifti);
  }

  private static CliRun oneSample(String out, String... inputs) {
    List<String> args = new ArrayList<>(List.of("one-sample", "--stat", "t", "--tfce",
        "--cluster-threshold", "2", "--tail", "upper", "--permutations", "100", "--seed", "3",
        "--output", out, "--quiet"));
    args.addAll(List.of(inputs));
    return CliRun.of(args.toArray(new String[0]));
  }

  private static String path(String name) {
    return dir.resolve(name).toString();
  }

  @Test
  void cortexGrayordinatesRunAsTheirGiftiOnTheJoinedMeshWithMapsInCifti() throws Exception {
    String meshes = "--surface-left=" + path("L.surf.gii");
    CliRun list = oneSample(path("out-list"), "--input", path("cifti.txt"), meshes,
        "--surface-right", path("R.surf.gii"));
    assertThat(list.code()).as(list.err()).isZero();
    CliRun glob = oneSample(path("out-glob"), "--input", path("sub-*.dscalar.nii"), meshes,
        "--surface-right", path("R.surf.gii"), "--partitions", "3");
    assertThat(glob.code()).as(glob.err()).isZero();
    // the GIFTI run on the mesh and grayordinate mask the CIFTI run wrote for its report
    CliRun gifti = oneSample(path("out-gifti"), "--input", path("gifti.txt"), "--surface",
        path("out-list/surface.surf.gii"), "--mask", path("out-list/mask.func.gii"));
    assertThat(gifti.code()).as(gifti.err()).isZero();
    for (String map : List.of("observed", "p", "p_fwer", "tfce", "p_tfce", "p_fwer_tfce",
        "null_max_tfce", "cluster_size", "p_fwer_cluster", "null_max_cluster")) {
      byte[] want = TestData.bytes(dir.resolve("out-list/" + map + ".npy"));
      assertThat(TestData.bytes(dir.resolve("out-glob/" + map + ".npy"))).as(map + " glob")
          .isEqualTo(want);
      assertThat(TestData.bytes(dir.resolve("out-gifti/" + map + ".npy"))).as(map + " gifti")
          .isEqualTo(want);
    }
    // t on the grayordinates, in full-space order, against the naive formula
    int[] slot = cortex.slotOfColumn();
    double[] t = TestData.outputValues(dir.resolve("out-list/observed.npy"));
    assertThat(t).hasSize(cortex.columns());
    int[] sorted = slot.clone();
    java.util.Arrays.sort(sorted);
    for (int k = 0; k < t.length; k++) {
      assertThat(t[k]).isCloseTo(naiveT(sorted[k]), org.assertj.core.api.Assertions.within(1e-9));
    }
    // maps as .dscalar.nii with the inputs' brain models, the .npy values as float32
    double[] tfce = TestData.outputValues(dir.resolve("out-list/tfce.npy"));
    VertexData written = Cifti.readData(Files.newInputStream(
        dir.resolve("out-list/tfce.dscalar.nii")), "tfce.dscalar.nii");
    assertThat(written.grayordinates().sameModels(cortex)).isTrue();
    for (int k = 0; k < tfce.length; k++) {
      assertThat(written.samples()[0][sorted[k]]).isEqualTo((double) (float) tfce[k]);
    }
    String summary = Files.readString(dir.resolve("out-list/summary.json"));
    assertThat(summary).contains("\"cifti_brain_models\": \"CORTEX_LEFT 62 of 64 vertices,"
        + " CORTEX_RIGHT 64 of 64 vertices\"").contains("every grayordinate of the CIFTI file")
        .contains("\"peak_grayordinate\": \"CORTEX_");
    assertThat(Files.readString(dir.resolve("out-list/report.html")))
        .contains("lateral\"").doesNotContain("cannot be read now");
  }

  @Test
  void subcorticalVoxelsRunVoxelwiseAndInTfceAndClustersOnTheirGrid() throws Exception {
    CliRun run = CliRun.of("one-sample", "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--stat", "t",
        "--permutations", "100", "--seed", "3", "--output", path("out-voxels"), "--quiet");
    assertThat(run.code()).as(run.err()).isZero();
    double[] t = TestData.outputValues(dir.resolve("out-voxels/observed.npy"));
    assertThat(t).hasSize(withVoxels.columns());
    int[] sorted = withVoxels.slotOfColumn().clone();
    java.util.Arrays.sort(sorted);
    for (int k = 0; k < t.length; k++) {
      assertThat(t[k]).isCloseTo(naiveT(sorted[k]), org.assertj.core.api.Assertions.within(1e-9));
    }
    VertexData p = Cifti.readData(Files.newInputStream(dir.resolve("out-voxels/p.dscalar.nii")),
        "p.dscalar.nii");
    assertThat(p.grayordinates().sameModels(withVoxels)).isTrue();

    // --mask as a CIFTI file of the same models: its zero grayordinates are left out
    float[] keep = new float[withVoxels.fullSize()];
    java.util.Arrays.fill(keep, 1);
    int[] dropped = {withVoxels.slotOfColumn()[0], withVoxels.slotOfColumn()[70],
        withVoxels.fullSize() - 1};
    for (int slot : dropped) {
      keep[slot] = 0;
    }
    try (OutputStream out = Files.newOutputStream(dir.resolve("mask.dscalar.nii"))) {
      Cifti.writeMap(out, withVoxels, "mask", keep);
    }
    CliRun masked = CliRun.of("one-sample", "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--mask",
        path("mask.dscalar.nii"), "--stat", "t", "--permutations", "10", "--output",
        path("out-masked"), "--quiet");
    assertThat(masked.code()).as(masked.err()).isZero();
    double[] inMask = TestData.outputValues(dir.resolve("out-masked/observed.npy"));
    assertThat(inMask).hasSize(withVoxels.columns() - dropped.length);
    int k = 0;
    for (int slot : sorted) {
      if (keep[slot] != 0) {
        assertThat(inMask[k++]).isEqualTo(t[java.util.Arrays.binarySearch(sorted, slot)]);
      }
    }
    // a mask that leaves out every voxel lets TFCE run on the cortex
    for (int v = 2 * SIDE * SIDE; v < keep.length; v++) {
      keep[v] = 0;
    }
    try (OutputStream out = Files.newOutputStream(dir.resolve("cortex-mask.dscalar.nii"))) {
      Cifti.writeMap(out, withVoxels, "mask", keep);
    }
    CliRun cortexOnly = oneSample(path("out-cortex-mask"), "--input", path("voxels.txt"),
        "--surface-left", path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--mask",
        path("cortex-mask.dscalar.nii"));
    assertThat(cortexOnly.code()).as(cortexOnly.err()).isZero();
    // a mask on other grayordinates is named, not laid over the data
    try (OutputStream out = Files.newOutputStream(dir.resolve("other-mask.dscalar.nii"))) {
      Cifti.writeMap(out, cortex, "mask", new float[cortex.fullSize() + 3]);
    }
    CliRun other = CliRun.of("one-sample", "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--mask",
        path("other-mask.dscalar.nii"), "--output", path("refused-mask"), "--quiet");
    assertThat(other.code()).isEqualTo(2);
    assertThat(other.err()).contains("its brain models (CORTEX_LEFT 62 of 64 vertices,"
        + " CORTEX_RIGHT 64 of 64 vertices) are not the data's");

    // TFCE and clusters over the whole grayordinate map: the cortex on its meshes (E = 1, areas),
    // the voxels on their grid (E = 0.5 with 6 neighbours, counts; clusters with 26), one dh
    CliRun tfce = oneSample(path("out-voxels-tfce"), "--input", path("voxels.txt"),
        "--surface-left", path("L.surf.gii"), "--surface-right", path("R.surf.gii"));
    assertThat(tfce.code()).as(tfce.err()).isZero();
    double[] z = new double[sorted.length];
    for (int e = 0; e < z.length; e++) {
      z[e] = org.nlspark.core.stats.ZScores.ofT(naiveT(sorted[e]), SUBJECTS - 1);
    }
    double[] gotTfce = TestData.outputValues(dir.resolve("out-voxels-tfce/tfce.npy"));
    double[] wantTfce = naiveGrayordinateTfce(sorted, z, 6);
    for (int e = 0; e < z.length; e++) {
      assertThat(gotTfce[e]).as("tfce of slot %d", sorted[e]).isCloseTo(wantTfce[e],
          org.assertj.core.api.Assertions.within(1e-9 * Math.abs(wantTfce[e]) + 1e-12));
    }
    double[] gotSize = TestData.outputValues(dir.resolve("out-voxels-tfce/cluster_size.npy"));
    double[] wantSize = naiveExtents(sorted, z, 2.0, 26);
    for (int e = 0; e < z.length; e++) {
      assertThat(gotSize[e]).as("cluster of slot %d", sorted[e]).isCloseTo(wantSize[e],
          org.assertj.core.api.Assertions.within(1e-9 * wantSize[e]));
    }
    int last = z.length - 1; // the voxels score: (1,1,1) and (1,1,2) face neighbours, (2,2,2) apart
    assertThat(wantTfce[last - 1]).isGreaterThan(0);
    assertThat(z[last]).isGreaterThan(2);
    assertThat(wantSize[last]).isEqualTo(3); // one cluster of 26-neighbours
    assertThat(Files.readString(dir.resolve("out-voxels-tfce/summary.json")))
        .contains("\"voxel_tfce_extent_exponent\": 0.5").contains("\"mask_voxels\": 3")
        .contains("\"cluster_extent_unit\": \"mm2 on the cortex, voxels on the subcortical grid");

    // glm: a t and an F contrast, whose z the executors derive from the driver's joined grids
    List<String> design = new ArrayList<>(List.of("intercept,age"));
    for (int s = 0; s < SUBJECTS; s++) {
      design.add("1," + (20 + (s * 7) % 11));
    }
    Files.write(dir.resolve("design.csv"), design);
    Files.write(dir.resolve("contrasts.csv"), List.of("name,intercept,age", "mean,1,0",
        "age,0,1"));
    Files.write(dir.resolve("f.csv"), List.of("mean,age", "1,1"));
    CliRun glm = CliRun.of("glm", "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--design",
        path("design.csv"), "--contrasts", path("contrasts.csv"), "--f-contrasts", path("f.csv"),
        "--tfce", "--permutations", "30", "--seed", "4", "--partitions", "2", "--output",
        path("out-voxels-glm"), "--quiet");
    assertThat(glm.code()).as(glm.err()).isZero();
    double[] f = TestData.outputValues(dir.resolve("out-voxels-glm/fstat1.npy"));
    double[] zf = new double[f.length];
    for (int q = 0; q < f.length; q++) {
      zf[q] = org.nlspark.core.stats.ZScores.ofF(f[q], 2, SUBJECTS - 2);
    }
    double[] gotF = TestData.outputValues(dir.resolve("out-voxels-glm/tfce_fstat1.npy"));
    double[] wantF = naiveGrayordinateTfce(sorted, zf, 6);
    for (int q = 0; q < zf.length; q++) {
      assertThat(gotF[q]).as("F tfce of slot %d", sorted[q]).isCloseTo(wantF[q],
          org.assertj.core.api.Assertions.within(1e-9 * Math.abs(wantF[q]) + 1e-12));
    }

    CliRun e = oneSample(path("refused"), "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--tfce-e", "0.5");
    assertThat(e.code()).isEqualTo(2);
    assertThat(e.err()).contains("Cannot run --tfce with --tfce-e 0.5 on CIFTI data with 3"
        + " subcortical voxels: E is 1.0 on the cortex and 0.5 on the voxels");
    CliRun twoD = oneSample(path("refused"), "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--tfce-2d");
    assertThat(twoD.code()).isEqualTo(2);
    assertThat(twoD.err()).contains("Cannot run --tfce-2d on CIFTI data with 3 subcortical"
        + " voxels");
    // --connectivity sets the voxels' cluster neighbours: on faces (2,2,2) stands apart
    CliRun faces = CliRun.of("one-sample", "--stat", "t", "--cluster-threshold", "2",
        "--connectivity", "6", "--tail", "upper", "--permutations", "20", "--seed", "3",
        "--output", path("out-voxels-faces"), "--quiet", "--input", path("voxels.txt"),
        "--surface-left", path("L.surf.gii"), "--surface-right", path("R.surf.gii"));
    assertThat(faces.code()).as(faces.err()).isZero();
    double[] gotFaces = TestData.outputValues(dir.resolve("out-voxels-faces/cluster_size.npy"));
    double[] wantFaces = naiveExtents(sorted, z, 2.0, 6);
    for (int q = 0; q < z.length; q++) {
      assertThat(gotFaces[q]).as("6-connected cluster of slot %d", sorted[q])
          .isCloseTo(wantFaces[q], org.assertj.core.api.Assertions.within(1e-9 * wantFaces[q]));
    }
    assertThat(wantFaces[last]).isEqualTo(1);
    assertThat(wantFaces[last - 1]).isEqualTo(2);
    assertThat(Files.readString(dir.resolve("out-voxels-faces/summary.json")))
        .contains("\"voxel_cluster_connectivity\": 6");
    CliRun noVoxels = oneSample(path("refused"), "--input", path("voxels.txt"),
        "--surface-left", path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--mask",
        path("cortex-mask.dscalar.nii"), "--connectivity", "26"); // even the default, said
    assertThat(noVoxels.code()).isEqualTo(2);
    assertThat(noVoxels.err()).contains("Cannot run --connectivity 26: it sets how CIFTI's"
        + " subcortical voxels join in clusters, but the data (with its mask) keeps none");
    CliRun conn = oneSample(path("refused"), "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--tfce-connectivity", "26");
    assertThat(conn.code()).isEqualTo(2);
    assertThat(conn.err()).contains("--tfce-connectivity sets how voxels of a grid join in"
        + " TFCE, but CIFTI data joins its cortex's vertices through the edges of their"
        + " triangles");
    assertThat(dir.resolve("refused")).doesNotExist();
  }

  /**
   * The neighbours of each element (full-space slots {@code slots}, in order): the triangle edges
   * of the two 8 x 8 meshes, and for the voxels the grid steps of {@code connectivity}.
   */
  private static List<List<Integer>> neighbours(int[] slots, int connectivity) throws IOException {
    int n = SIDE * SIDE;
    SurfaceMesh grid = Gifti.readMesh(Files.newInputStream(dir.resolve("L.surf.gii")), "L");
    int[] tri = grid.triangleIndices();
    List<List<Integer>> out = new ArrayList<>();
    for (int a : slots) {
      List<Integer> mine = new ArrayList<>();
      for (int f = 0; f < slots.length; f++) {
        int b = slots[f];
        if (a == b) {
          continue;
        }
        if (a < 2 * n && b < 2 * n && a / n == b / n) {
          for (int q = 0; q < tri.length; q += 3) {
            List<Integer> t = List.of(tri[q], tri[q + 1], tri[q + 2]);
            if (t.contains(a % n) && t.contains(b % n)) {
              mine.add(f);
              break;
            }
          }
        } else if (a >= 2 * n && b >= 2 * n) {
          int[] ia = voxel(a - 2 * n);
          int[] ib = voxel(b - 2 * n);
          int order = 0;
          int most = 0;
          for (int d = 0; d < 3; d++) {
            order += Math.abs(ia[d] - ib[d]);
            most = Math.max(most, Math.abs(ia[d] - ib[d]));
          }
          if (most == 1 && (order == 1 || order == 2 && connectivity >= 18 || connectivity == 26)) {
            mine.add(f);
          }
        }
      }
      out.add(mine);
    }
    return out;
  }

  private static int[] voxel(int k) {
    int[] ijk = withVoxels.models().get(2).indices();
    return new int[] {ijk[3 * k], ijk[3 * k + 1], ijk[3 * k + 2]};
  }

  /** Each element's share of an extent: its vertex area (both meshes alike), or 1 for a voxel. */
  private static double[] weights(int[] slots) throws IOException {
    int n = SIDE * SIDE;
    SurfaceMesh grid = Gifti.readMesh(Files.newInputStream(dir.resolve("L.surf.gii")), "L");
    double[] w = new double[slots.length];
    for (int e = 0; e < w.length; e++) {
      w[e] = slots[e] < 2 * n ? grid.vertexAreas()[slots[e] % n] : 1.0;
    }
    return w;
  }

  /** Components of the elements at or above h, by breadth-first search. */
  private static int[] label(List<List<Integer>> nb, double[] z, double h) {
    int[] label = new int[z.length];
    java.util.Arrays.fill(label, -1);
    for (int start = 0, next = 0; start < z.length; start++) {
      if (label[start] >= 0 || !(z[start] >= h)) {
        continue;
      }
      java.util.ArrayDeque<Integer> queue = new java.util.ArrayDeque<>(List.of(start));
      label[start] = next;
      while (!queue.isEmpty()) {
        for (int u : nb.get(queue.poll())) {
          if (label[u] < 0 && z[u] >= h) {
            label[u] = next;
            queue.add(u);
          }
        }
      }
      next++;
    }
    return label;
  }

  /** PALM's TFCE (upper tail) with E = 1 on the cortex, 0.5 on the voxels, one dh. */
  private static double[] naiveGrayordinateTfce(int[] slots, double[] z, int connectivity)
      throws IOException {
    List<List<Integer>> nb = neighbours(slots, connectivity);
    double[] w = weights(slots);
    double m = java.util.Arrays.stream(z).max().orElseThrow();
    double dh = m / 100;
    double[] out = new double[z.length];
    for (int k = 1; k <= 100; k++) {
      double h = k < 100 ? k * dh : m;
      int[] label = label(nb, z, h);
      double[] extent = new double[z.length];
      for (int e = 0; e < z.length; e++) {
        extent[Math.max(0, label[e])] += label[e] >= 0 ? w[e] : 0;
      }
      for (int e = 0; e < z.length; e++) {
        if (label[e] >= 0) {
          double exponent = slots[e] >= 2 * SIDE * SIDE ? 0.5 : 1.0;
          out[e] += Math.pow(extent[label[e]], exponent) * h * h * dh;
        }
      }
    }
    return out;
  }

  /** Cluster extents at z >= threshold: summed areas on the cortex, voxel counts on the grid. */
  private static double[] naiveExtents(int[] slots, double[] z, double threshold,
      int connectivity) throws IOException {
    int[] label = label(neighbours(slots, connectivity), z, threshold);
    double[] w = weights(slots);
    double[] extent = new double[z.length];
    for (int e = 0; e < z.length; e++) {
      extent[Math.max(0, label[e])] += label[e] >= 0 ? w[e] : 0;
    }
    double[] out = new double[z.length];
    for (int e = 0; e < z.length; e++) {
      out[e] = label[e] >= 0 ? extent[label[e]] : 0;
    }
    return out;
  }

  @Test
  void badCiftiRunsAreRefusedInOneSentence() throws IOException {
    String out = path("refused-bad");
    CliRun noLeft = oneSample(out, "--input", path("cifti.txt"), "--surface-right",
        path("R.surf.gii"));
    assertThat(noLeft.code()).isEqualTo(2);
    assertThat(noLeft.err()).contains("it is CIFTI data with CORTEX_LEFT (62 of 64 vertices),"
        + " which needs its mesh; give --surface-left");
    CliRun small = oneSample(out, "--input", path("cifti.txt"), "--surface-left",
        path("small.surf.gii"), "--surface-right", path("R.surf.gii"));
    assertThat(small.code()).isEqualTo(2);
    assertThat(small.err()).contains("the mesh has 49 vertices, but the CIFTI model CORTEX_LEFT"
        + " is on a surface of 64");
    CliRun surface = oneSample(out, "--input", path("cifti.txt"), "--surface",
        path("L.surf.gii"));
    assertThat(surface.code()).isEqualTo(2);
    assertThat(surface.err()).contains("it is CIFTI data, whose cortex meshes are"
        + " --surface-left and --surface-right");
    Path mixed = dir.resolve("mixed.txt");
    Files.write(mixed, List.of(path("sub-01.dscalar.nii"), path("vox-sub-02.dscalar.nii")));
    CliRun models = CliRun.of("one-sample", "--input", mixed.toString(), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"), "--permutations", "10",
        "--output", out, "--quiet");
    assertThat(models.code()).isEqualTo(2);
    assertThat(models.err()).contains("its brain models (CORTEX_LEFT 62 of 64 vertices,"
        + " CORTEX_RIGHT 64 of 64 vertices, THALAMUS_LEFT 3 voxels) are not the study's");
    CliRun gifti = oneSample(out, "--input", path("gifti.txt"), "--surface-left",
        path("L.surf.gii"));
    assertThat(gifti.code()).isEqualTo(2);
    assertThat(gifti.err()).contains("--surface-left and --surface-right are the cortex meshes"
        + " of CIFTI data");
    assertThat(dir.resolve("refused-bad")).doesNotExist();
  }

  private static double naiveT(int slot) {
    double mean = 0;
    for (double[] s : full) {
      mean += s[slot];
    }
    mean /= SUBJECTS;
    double ss = 0;
    for (double[] s : full) {
      ss += (s[slot] - mean) * (s[slot] - mean);
    }
    return mean / Math.sqrt(ss / (SUBJECTS - 1) / SUBJECTS);
  }

  /** An side × side grid of vertices 1 mm apart at x offset dx, two triangles a square. */
  private static void writeMesh(Path path, int side, double dx) throws IOException {
    double[] xyz = new double[3 * side * side];
    List<Integer> tri = new ArrayList<>();
    for (int i = 0; i < side; i++) {
      for (int j = 0; j < side; j++) {
        int v = i * side + j;
        xyz[3 * v] = j + dx;
        xyz[3 * v + 1] = i;
        if (i + 1 < side && j + 1 < side) {
          tri.addAll(List.of(v, v + 1, v + side, v + 1, v + side + 1, v + side));
        }
      }
    }
    try (OutputStream out = Files.newOutputStream(path)) {
      Gifti.writeMesh(out, new SurfaceMesh(path.getFileName().toString(), xyz,
          tri.stream().mapToInt(Integer::intValue).toArray()));
    }
  }
}
