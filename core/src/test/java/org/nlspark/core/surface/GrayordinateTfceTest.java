package org.nlspark.core.surface;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tfce.ClusterExtent;
import org.nlspark.core.tfce.MeshAdjacency;
import org.nlspark.core.tfce.Tfce;

/**
 * TFCE and clusters on a CIFTI study's full space (DESIGN §9): cortex vertices joined by triangle
 * edges, weighing their areas, with E = 1; subcortical voxels joined by grid neighbours, counting
 * 1, with E = 0.5; one dh = max / 100 over the whole map, the sum times dh (PALM). The reference
 * here labels components at every threshold by breadth-first search over neighbours it works out
 * itself: the triangles' edges, and the voxels' (i, j, k) steps.
 */
class GrayordinateTfceTest {
  private static final int SIDE = 4; // a 4 x 4 x 3 block of voxels beside the cortex

  @Test
  void cortexAndVoxelsEachFollowTheirOwnDefinition() {
    SplittableRandom random = new SplittableRandom(46);
    SurfaceMesh cortex = Icosphere.of(2, 30);
    Study study = study(cortex, random);
    MeshAdjacency graph = MeshAdjacency.of(study.mesh, study.keep, null, null);
    for (int connectivity : new int[] {6, 18, 26}) {
      MeshAdjacency joined = graph.withVoxels(study.ijk, connectivity, "voxels");
      assertThat(joined.voxelCount()).isEqualTo(study.keptVoxels);
      double[] map = study.map(joined, random);
      Tfce tfce = new Tfce(joined, 1.0, 2.0, 100, true, 0.5);
      for (Tail tail : Tail.values()) {
        double[] got = tfce.enhance(map, tail);
        double[] want = naiveTfce(study, joined, map, tail, connectivity);
        int voxelScores = 0;
        for (int e = 0; e < want.length; e++) {
          String what = connectivity + " " + tail + " element " + e;
          assertThat(got[e]).as(what).isCloseTo(want[e], within(1e-12 * Math.abs(want[e])
              + 1e-300));
          voxelScores += study.isVoxel(joined, e) && want[e] != 0 ? 1 : 0;
        }
        assertThat(voxelScores).as("voxels scored, %s", tail).isGreaterThan(3);
      }
      for (Tail tail : Tail.values()) {
        ClusterExtent clusters = new ClusterExtent(joined, 1.0, tail);
        double[] got = clusters.extents(map);
        double[] want = naiveExtents(study, joined, map, tail, 1.0, connectivity);
        for (int e = 0; e < want.length; e++) {
          assertThat(got[e]).as("%s %s cluster of %d", connectivity, tail, e)
              .isCloseTo(want[e], within(1e-12 * want[e]));
        }
      }
    }
    // Deserialized (as on an executor: no mesh) it joins again, and a whole-map inference
    // derived there (glm's z of F) keeps the driver's grids.
    MeshAdjacency joined = graph.withVoxels(study.ijk, 26, "voxels");
    MeshAdjacency copy = roundTrip(joined);
    assertThat(copy.mesh()).isNull();
    double[] map = study.map(joined, random);
    assertThat(new Tfce(copy.withConnectivity(6), 1.0, 2.0, 100, true, 0.5)
        .enhance(map, Tail.TWO))
        .containsExactly(new Tfce(joined.withConnectivity(6), 1.0, 2.0, 100, true, 0.5)
            .enhance(map, Tail.TWO));
    org.nlspark.core.tfce.WholeMapInference whole = org.nlspark.core.tfce.WholeMapInference.of(
        joined, org.nlspark.core.tfce.WholeMapSettings.of(true, 2.0)
            .withTfce(1.0, null, null), joined.voxels()).onZ(10);
    assertThat(roundTrip(whole).onZOfF(2).gridBytes()).isEqualTo(whole.gridBytes());
    assertThat(whole.gridBytes()).isGreaterThan(joined.heldBytes()); // the 6- and 26-lists

    // joined with no voxel kept, the adjacency is the mesh's
    boolean[] cortexOnly = study.keep.clone();
    for (int v = cortex.vertices(); v < cortexOnly.length; v++) {
      cortexOnly[v] = false;
    }
    MeshAdjacency none = MeshAdjacency.of(study.mesh, cortexOnly, null, null)
        .withVoxels(study.ijk, 26, "voxels");
    assertThat(none.voxelCount()).isZero();
    assertThat(none.describe()).doesNotContainKey("mask_voxels");
  }

  @SuppressWarnings("unchecked")
  private static <T extends java.io.Serializable> T roundTrip(T value) {
    try {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
        out.writeObject(value);
      }
      try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
          new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
        return (T) in.readObject();
      }
    } catch (java.io.IOException | ClassNotFoundException e) {
      throw new AssertionError(e);
    }
  }

  /** An icosphere of the cortex, then SIDE x SIDE x 3 voxels as points, about 85% kept. */
  private static Study study(SurfaceMesh cortex, SplittableRandom random) {
    int nv = cortex.vertices();
    int voxels = SIDE * SIDE * 3;
    double[] coords = new double[3 * (nv + voxels)];
    int[] ijk = new int[3 * (nv + voxels)];
    java.util.Arrays.fill(ijk, -1);
    for (int v = 0; v < nv; v++) {
      System.arraycopy(cortex.coordinate(v), 0, coords, 3 * v, 3);
    }
    int n = nv;
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < SIDE; j++) {
        for (int i = 0; i < SIDE; i++) {
          ijk[3 * n] = i + 10;
          ijk[3 * n + 1] = j + 20;
          ijk[3 * n + 2] = k + 30;
          coords[3 * n] = 2 * i;
          coords[3 * n + 1] = 2 * j;
          coords[3 * n + 2] = 2 * k;
          n++;
        }
      }
    }
    boolean[] keep = new boolean[nv + voxels];
    int keptVoxels = 0;
    for (int v = 0; v < keep.length; v++) {
      keep[v] = random.nextDouble() < 0.85;
      keptVoxels += v >= nv && keep[v] ? 1 : 0;
    }
    return new Study(cortex, new SurfaceMesh("cifti", coords, cortex.triangleIndices()), ijk,
        keep, keptVoxels);
  }

  private record Study(SurfaceMesh cortex, SurfaceMesh mesh, int[] ijk, boolean[] keep,
      int keptVoxels) {
    boolean isVoxel(MeshAdjacency g, int e) {
      return g.vertexOf(e) >= cortex.vertices();
    }

    /** Smooth on the cortex; on the voxels a blob, positive at its centre, negative at corners. */
    double[] map(MeshAdjacency g, SplittableRandom random) {
      double[] smooth = Icosphere.smooth(g, random, 3);
      double[] x = new double[g.voxels()];
      for (int e = 0; e < x.length; e++) {
        int m = g.vertexOf(e);
        if (isVoxel(g, e)) {
          double di = ijk[3 * m] - 11.5;
          double dj = ijk[3 * m + 1] - 21.5;
          double dk = ijk[3 * m + 2] - 31;
          x[e] = 3.0 - 0.9 * (di * di + dj * dj + dk * dk) + 0.8 * random.nextDouble();
        } else {
          x[e] = 4 * smooth[e] + 0.5;
        }
      }
      return x;
    }

    /** The neighbours of element e, worked out from the triangles and the voxels' indices. */
    List<Integer> neighbours(MeshAdjacency g, int e, int connectivity) {
      List<Integer> out = new ArrayList<>();
      int me = g.vertexOf(e);
      for (int f = 0; f < g.voxels(); f++) {
        int other = g.vertexOf(f);
        if (f == e) {
          continue;
        }
        if (isVoxel(g, e) && isVoxel(g, f)) {
          int di = Math.abs(ijk[3 * me] - ijk[3 * other]);
          int dj = Math.abs(ijk[3 * me + 1] - ijk[3 * other + 1]);
          int dk = Math.abs(ijk[3 * me + 2] - ijk[3 * other + 2]);
          int order = di + dj + dk;
          if (Math.max(di, Math.max(dj, dk)) == 1 && (order == 1 || order == 2
              && connectivity >= 18 || connectivity == 26)) {
            out.add(f);
          }
        } else if (!isVoxel(g, e) && !isVoxel(g, f)) {
          int[] t = cortex.triangleIndices();
          for (int q = 0; q < t.length; q += 3) {
            boolean hasMe = t[q] == me || t[q + 1] == me || t[q + 2] == me;
            boolean hasOther = t[q] == other || t[q + 1] == other || t[q + 2] == other;
            if (hasMe && hasOther) {
              out.add(f);
              break;
            }
          }
        }
      }
      return out;
    }

    double weight(MeshAdjacency g, int e) {
      return isVoxel(g, e) ? 1.0 : cortex.vertexAreas()[g.vertexOf(e)];
    }
  }

  /** Components of the elements passing {@code in}, by breadth-first search; -1 outside. */
  private static int[] label(Study s, MeshAdjacency g, java.util.function.IntPredicate in,
      int connectivity, List<List<Integer>> neighbours) {
    int[] label = new int[g.voxels()];
    java.util.Arrays.fill(label, -1);
    int next = 0;
    for (int start = 0; start < label.length; start++) {
      if (label[start] >= 0 || !in.test(start)) {
        continue;
      }
      ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(start));
      label[start] = next;
      while (!queue.isEmpty()) {
        for (int u : neighbours.get(queue.poll())) {
          if (label[u] < 0 && in.test(u)) {
            label[u] = next;
            queue.add(u);
          }
        }
      }
      next++;
    }
    return label;
  }

  private static List<List<Integer>> allNeighbours(Study s, MeshAdjacency g, int connectivity) {
    List<List<Integer>> all = new ArrayList<>();
    for (int e = 0; e < g.voxels(); e++) {
      all.add(s.neighbours(g, e, connectivity));
    }
    return all;
  }

  /** Per label, the summed weights of its elements (areas on the cortex, 1 a voxel). */
  private static double[] extentOfLabels(Study s, MeshAdjacency g, int[] label) {
    double[] extent = new double[label.length];
    for (int e = 0; e < label.length; e++) {
      if (label[e] >= 0) {
        extent[label[e]] += s.weight(g, e);
      }
    }
    return extent;
  }

  private static double[] naiveTfce(Study s, MeshAdjacency g, double[] map, Tail tail,
      int connectivity) {
    List<List<Integer>> nb = allNeighbours(s, g, connectivity);
    int n = map.length;
    double m = 0;
    for (double x : map) {
      m = Math.max(m, tail == Tail.UPPER ? x : tail == Tail.LOWER ? -x : Math.abs(x));
    }
    double dh = m / 100;
    double[] out = new double[n];
    for (int sign : new int[] {1, -1}) {
      if (sign == 1 && tail == Tail.LOWER || sign == -1 && tail == Tail.UPPER) {
        continue;
      }
      for (int k = 1; k <= 100; k++) {
        double h = k < 100 ? k * dh : m;
        int[] label = label(s, g, u -> sign * map[u] >= h, connectivity, nb);
        double[] extent = extentOfLabels(s, g, label);
        for (int e = 0; e < n; e++) {
          if (label[e] >= 0) {
            double exponent = s.isVoxel(g, e) ? 0.5 : 1.0;
            out[e] += sign * Math.pow(extent[label[e]], exponent) * h * h * dh;
          }
        }
      }
    }
    return out;
  }

  private static double[] naiveExtents(Study s, MeshAdjacency g, double[] map, Tail tail,
      double threshold, int connectivity) {
    List<List<Integer>> nb = allNeighbours(s, g, connectivity);
    int n = map.length;
    double[] out = new double[n];
    for (int sign : new int[] {1, -1}) {
      if (sign == 1 && tail == Tail.LOWER || sign == -1 && tail == Tail.UPPER) {
        continue;
      }
      int[] label = label(s, g, u -> sign * map[u] >= threshold, connectivity, nb);
      double[] extent = extentOfLabels(s, g, label);
      for (int e = 0; e < n; e++) {
        if (label[e] >= 0) {
          out[e] = extent[label[e]];
        }
      }
    }
    return out;
  }
}
