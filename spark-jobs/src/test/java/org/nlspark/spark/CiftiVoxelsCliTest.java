package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.surface.Cifti;
import org.nlspark.core.io.surface.VertexData;
import org.nlspark.core.stats.ZScores;
import org.nlspark.core.surface.Grayordinates;

/**
 * CIFTI-2 data of subcortical voxels only (no cortex model, so no mesh to give; DESIGN §8, §9):
 * the voxels are a volume in grayordinate order. t against the naive formula; TFCE against
 * PALM's volume definition computed here on z of t (E and the neighbours the volume's defaults,
 * or --tfce-e and --tfce-connectivity), clusters against counts on 26 (or --connectivity)
 * neighbours worked out from the voxels' (i, j, k); maps as .dscalar.nii with the inputs' models.
 */
class CiftiVoxelsCliTest {
  @TempDir static Path dir;
  static final int SUBJECTS = 12;
  static Grayordinates models;
  static int[][] ijk; // per column (= full-space slot: voxels only), its voxel
  static double[][] data; // per subject, per column

  @BeforeAll
  static void writeStudy() throws IOException {
    // two structures on one 5 x 5 x 4 grid, about 70% of its voxels kept, across both
    SplittableRandom random = new SplittableRandom(11);
    List<int[]> thalamus = new ArrayList<>();
    List<int[]> caudate = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      for (int j = 0; j < 5; j++) {
        for (int k = 0; k < 4; k++) {
          if (random.nextDouble() < 0.7) {
            (k < 2 ? thalamus : caudate).add(new int[] {i, j, k});
          }
        }
      }
    }
    List<Grayordinates.Model> list = new ArrayList<>();
    list.add(model("CIFTI_STRUCTURE_THALAMUS_LEFT", 0, thalamus));
    list.add(model("CIFTI_STRUCTURE_CAUDATE_LEFT", thalamus.size(), caudate));
    models = new Grayordinates(list, new int[] {5, 5, 4},
        new double[] {2, 0, 0, -4, 0, 2, 0, -4, 0, 0, 2, -4, 0, 0, 0, 1});
    List<int[]> all = new ArrayList<>(thalamus);
    all.addAll(caudate);
    ijk = all.toArray(new int[0][]);
    data = new double[SUBJECTS][ijk.length];
    List<String> files = new ArrayList<>();
    for (int s = 0; s < SUBJECTS; s++) {
      float[] values = new float[ijk.length];
      for (int v = 0; v < values.length; v++) {
        // an effect in one corner of the grid, noise elsewhere
        boolean effect = ijk[v][0] <= 2 && ijk[v][1] <= 2;
        values[v] = (float) (random.nextGaussian() + (effect ? 1.6 : 0));
        data[s][v] = values[v];
      }
      String name = String.format("sub-%02d.dscalar.nii", s + 1);
      try (OutputStream out = Files.newOutputStream(dir.resolve(name))) {
        Cifti.writeMap(out, models, "volume", values);
      }
      files.add(name);
    }
    Files.write(dir.resolve("subjects.txt"), files);
  }

  private static Grayordinates.Model model(String name, int offset, List<int[]> voxels) {
    int[] indices = new int[3 * voxels.size()];
    for (int v = 0; v < voxels.size(); v++) {
      System.arraycopy(voxels.get(v), 0, indices, 3 * v, 3);
    }
    return new Grayordinates.Model(name, false, offset, voxels.size(), 0, indices);
  }

  private static CliRun oneSample(String out, String... more) {
    List<String> args = new ArrayList<>(List.of("one-sample", "--input", path("subjects.txt"),
        "--stat", "t", "--tail", "upper", "--permutations", "40", "--seed", "5", "--output",
        path(out), "--quiet"));
    args.addAll(List.of(more));
    return CliRun.of(args.toArray(new String[0]));
  }

  private static String path(String name) {
    return dir.resolve(name).toString();
  }

  @Test
  void voxelsOnlyRunAsAVolumeInGrayordinateOrder() throws IOException {
    CliRun run = oneSample("out", "--tfce", "--cluster-threshold", "2.3");
    assertThat(run.code()).as(run.err()).isZero();
    double[] t = TestData.outputValues(dir.resolve("out/observed.npy"));
    assertThat(t).hasSize(ijk.length);
    double[] z = new double[t.length];
    for (int v = 0; v < t.length; v++) {
      assertThat(t[v]).isCloseTo(naiveT(v), within(1e-9));
      z[v] = ZScores.ofT(naiveT(v), SUBJECTS - 1);
    }
    // TFCE: the volume's defaults (E = 0.5, faces), on z, one dh (PALM)
    double[] tfce = TestData.outputValues(dir.resolve("out/tfce.npy"));
    double[] want = naiveTfce(z, 0.5, 6);
    for (int v = 0; v < z.length; v++) {
      assertThat(tfce[v]).as("tfce of voxel %d", v)
          .isCloseTo(want[v], within(1e-9 * Math.abs(want[v]) + 1e-12));
    }
    double[] size = TestData.outputValues(dir.resolve("out/cluster_size.npy"));
    double[] wantSize = naiveExtents(z, 2.3, 26);
    for (int v = 0; v < z.length; v++) {
      assertThat(size[v]).as("cluster of voxel %d", v).isEqualTo(wantSize[v]);
    }
    assertThat(java.util.Arrays.stream(wantSize).max().orElseThrow()).isGreaterThan(3);
    VertexData p = Cifti.readData(Files.newInputStream(dir.resolve("out/p_fwer_tfce.dscalar.nii")),
        "p_fwer_tfce.dscalar.nii");
    assertThat(p.grayordinates().sameModels(models)).isTrue();
    assertThat(dir.resolve("out/surface.surf.gii")).doesNotExist();
    assertThat(dir.resolve("out/report.html")).exists();
    String summary = Files.readString(dir.resolve("out/summary.json"));
    assertThat(summary).contains("\"cifti_brain_models\": \"THALAMUS_LEFT "
            + models.models().get(0).count() + " voxels, CAUDATE_LEFT "
            + models.models().get(1).count() + " voxels\"")
        .contains("\"cluster_extent_unit\": \"voxels\"")
        .contains("\"voxel_tfce_extent_exponent\": 0.5")
        .contains("\"space\": \"CIFTI subcortical voxels, no cortex\"")
        .contains("\"elements\": \"voxels\"").contains("\"peak_grayordinate\": \"")
        .doesNotContain("\"surface\":").doesNotContain("vertices\"");

    // a volume's settings apply: --tfce-e, --tfce-connectivity, --connectivity (at a height
    // where faces and 26 neighbours join differently)
    double height = 0;
    for (double h = 2.3; h > 0.5 && height == 0; h -= 0.1) {
      height = java.util.Arrays.equals(naiveExtents(z, h, 6), naiveExtents(z, h, 26)) ? 0 : h;
    }
    assertThat(height).isPositive();
    String threshold = String.format(java.util.Locale.ROOT, "%.1f", height);
    CliRun set = oneSample("out-set", "--tfce", "--tfce-e", "1", "--tfce-connectivity", "26",
        "--cluster-threshold", threshold, "--connectivity", "6");
    assertThat(set.code()).as(set.err()).isZero();
    double[] tfce2 = TestData.outputValues(dir.resolve("out-set/tfce.npy"));
    double[] want2 = naiveTfce(z, 1.0, 26);
    for (int v = 0; v < z.length; v++) {
      assertThat(tfce2[v]).as("E = 1, 26: tfce of voxel %d", v)
          .isCloseTo(want2[v], within(1e-9 * Math.abs(want2[v]) + 1e-12));
    }
    double[] size6 = TestData.outputValues(dir.resolve("out-set/cluster_size.npy"));
    double[] want6 = naiveExtents(z, Double.parseDouble(threshold), 6);
    for (int v = 0; v < z.length; v++) {
      assertThat(size6[v]).as("6-connected cluster of voxel %d", v).isEqualTo(want6[v]);
    }
    assertThat(want6).isNotEqualTo(naiveExtents(z, Double.parseDouble(threshold), 26));

    // maps added after the run (--fdr) are CIFTI too, with the peaks' structures
    CliRun fdr = oneSample("out-fdr", "--fdr");
    assertThat(fdr.code()).as(fdr.err()).isZero();
    for (String name : new String[] {"observed", "p"}) {
      VertexData m = Cifti.readData(Files.newInputStream(
          dir.resolve("out-fdr/" + name + ".dscalar.nii")), name + ".dscalar.nii");
      assertThat(m.grayordinates().sameModels(models)).as(name).isTrue();
    }
    assertThat(Files.readString(dir.resolve("out-fdr/summary.json")))
        .contains("\"peak_grayordinate\": \"");

    // a cortex mesh for a file without a cortex is named
    CliRun mesh = oneSample("refused", "--tfce", "--surface-left", path("subjects.txt"));
    assertThat(mesh.code()).isEqualTo(2);
    assertThat(mesh.err()).contains("Cannot use --surface-left with --input")
        .contains("have no left cortex");
    assertThat(dir.resolve("refused")).doesNotExist();
  }

  private static double naiveT(int v) {
    double mean = 0;
    for (double[] s : data) {
      mean += s[v];
    }
    mean /= SUBJECTS;
    double ss = 0;
    for (double[] s : data) {
      ss += (s[v] - mean) * (s[v] - mean);
    }
    return mean / Math.sqrt(ss / (SUBJECTS - 1) / SUBJECTS);
  }

  /** Whether two voxels are neighbours at {@code connectivity} (6 faces, 18 edges, 26). */
  private static boolean joined(int[] a, int[] b, int connectivity) {
    int order = 0;
    int most = 0;
    for (int d = 0; d < 3; d++) {
      order += Math.abs(a[d] - b[d]);
      most = Math.max(most, Math.abs(a[d] - b[d]));
    }
    return most == 1 && (order == 1 || order == 2 && connectivity >= 18 || connectivity == 26);
  }

  /** Components of the voxels at or above h, by breadth-first search over every pair. */
  private static int[] label(double[] z, double h, int connectivity) {
    int[] label = new int[z.length];
    java.util.Arrays.fill(label, -1);
    for (int start = 0, next = 0; start < z.length; start++) {
      if (label[start] >= 0 || !(z[start] >= h)) {
        continue;
      }
      ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(start));
      label[start] = next;
      while (!queue.isEmpty()) {
        int u = queue.poll();
        for (int w = 0; w < z.length; w++) {
          if (label[w] < 0 && z[w] >= h && joined(ijk[u], ijk[w], connectivity)) {
            label[w] = next;
            queue.add(w);
          }
        }
      }
      next++;
    }
    return label;
  }

  /** PALM's TFCE (upper tail): dh = max / 100, counts^E · h^2 at each h, times dh. */
  private static double[] naiveTfce(double[] z, double e, int connectivity) {
    double m = java.util.Arrays.stream(z).max().orElseThrow();
    double dh = m / 100;
    double[] out = new double[z.length];
    for (int k = 1; k <= 100; k++) {
      double h = k < 100 ? k * dh : m;
      double[] counts = naiveCounts(label(z, h, connectivity));
      for (int v = 0; v < z.length; v++) {
        out[v] += counts[v] == 0 ? 0 : Math.pow(counts[v], e) * h * h * dh;
      }
    }
    return out;
  }

  /** Each voxel's cluster size in voxels at z >= threshold (0 below). */
  private static double[] naiveExtents(double[] z, double threshold, int connectivity) {
    return naiveCounts(label(z, threshold, connectivity));
  }

  private static double[] naiveCounts(int[] label) {
    double[] size = new double[label.length];
    for (int l : label) {
      if (l >= 0) {
        size[l]++;
      }
    }
    double[] out = new double[label.length];
    for (int v = 0; v < label.length; v++) {
      out[v] = label[v] >= 0 ? size[label[v]] : 0;
    }
    return out;
  }
}
