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
 * models; subcortical voxels in voxelwise inference; and the refusals.
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
        full[s][v] = random.nextGaussian() + (v < 2 * n && row >= 2 && row <= 4 ? 1.5 : 0);
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
  void subcorticalVoxelsRunVoxelwiseAndTfceOnThemIsRefused() throws Exception {
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

    CliRun tfce = oneSample(path("refused"), "--input", path("voxels.txt"), "--surface-left",
        path("L.surf.gii"), "--surface-right", path("R.surf.gii"));
    assertThat(tfce.code()).isEqualTo(2);
    assertThat(tfce.err()).contains("Cannot run --tfce and --cluster-threshold on the 3"
        + " subcortical voxels of " + path("voxels.txt") + ": TFCE and clusters join vertices"
        + " through the mesh's triangles");
    assertThat(dir.resolve("refused")).doesNotExist();
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
