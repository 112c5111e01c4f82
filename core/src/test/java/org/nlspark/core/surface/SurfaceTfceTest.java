package org.nlspark.core.surface;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tfce.ClusterExtent;
import org.nlspark.core.tfce.MeshAdjacency;
import org.nlspark.core.tfce.Tfce;

/**
 * TFCE on a surface mesh against PALM's definition, computed here the naive way: for each
 * threshold h of MATLAB's {@code dh:dh:m} (dh = m / 100, the last one m), label the components of
 * the vertices with z ≥ h through triangle edges, add (summed vertex area)^E · h^H to each of
 * their vertices, and multiply the sum by dh ({@code palm_tfce}); vertex areas as {@code
 * palm_calcarea} (a third of the adjacent triangles' areas).
 */
class SurfaceTfceTest {
  private static final double RELATIVE = 1e-12;

  @Test
  void vertexAreasAreAThirdOfTheirTrianglesAreas() {
    // A 2 x 1 mm rectangle as two triangles: each triangle 1 mm²; the diagonal's ends touch both.
    SurfaceMesh rect = new SurfaceMesh("rect",
        new double[] {0, 0, 0, 2, 0, 0, 2, 1, 0, 0, 1, 0}, new int[] {0, 1, 2, 0, 2, 3});
    assertThat(rect.triangleArea(0)).isEqualTo(1.0);
    assertThat(rect.vertexAreas()).containsExactly(2.0 / 3, 1.0 / 3, 2.0 / 3, 1.0 / 3);
    MeshAdjacency all = MeshAdjacency.of(rect);
    assertThat(all.neighboursOf(0)).containsExactly(1, 2, 3);
    assertThat(all.neighboursOf(1)).containsExactly(0, 2);
    assertThat(all.maxNeighbours()).isEqualTo(3);
  }

  @Test
  void theIcosahedronsVerticesAreAlikeAndAConstantMapScoresTheFormula() {
    SurfaceMesh ico = Icosphere.of(0, 1.0);
    MeshAdjacency graph = MeshAdjacency.of(ico);
    double total = 0;
    for (int t = 0; t < ico.triangles(); t++) {
      total += ico.triangleArea(t);
    }
    // 20 equilateral triangles of edge 4 / sqrt(10 + 2 sqrt 5) on the unit sphere.
    double edge = 4 / Math.sqrt(10 + 2 * Math.sqrt(5));
    assertThat(total).isCloseTo(20 * Math.sqrt(3) / 4 * edge * edge, within(1e-12));
    for (int v = 0; v < 12; v++) {
      assertThat(graph.area(v)).isCloseTo(total / 12, within(1e-14));
      assertThat(graph.neighboursOf(v)).hasSize(5);
    }
    double z = 3.0;
    double[] map = new double[12];
    java.util.Arrays.fill(map, z);
    double[] got = new Tfce(graph, 1.0, 2.0, 100, true).enhance(map, Tail.UPPER);
    double dh = z / 100;
    double sum = 0;
    for (int k = 1; k <= 100; k++) {
      double h = k < 100 ? k * dh : z;
      sum += Math.pow(total, 1.0) * h * h;
    }
    for (double g : got) {
      assertThat(g).isCloseTo(sum * dh, within(1e-12 * sum * dh));
    }
  }

  @Test
  void randomMapsOnIcospheresEqualTheNaiveDefinition() {
    SplittableRandom random = new SplittableRandom(44);
    for (int levels = 1; levels <= 3; levels++) {
      SurfaceMesh mesh = Icosphere.of(levels, 50 + levels);
      for (int trial = 0; trial < 4; trial++) {
        boolean[] mask = new boolean[mesh.vertices()];
        for (int v = 0; v < mask.length; v++) {
          mask[v] = trial == 0 || random.nextDouble() < 0.85;
        }
        double[] areas = null;
        if (trial == 3) { // given areas, as PALM's -s surf area
          areas = new double[mesh.vertices()];
          for (int v = 0; v < areas.length; v++) {
            areas[v] = 0.5 + random.nextDouble();
          }
        }
        MeshAdjacency graph = MeshAdjacency.of(mesh, mask, areas, null);
        double[] map = smoothMap(mesh, graph, random);
        if (trial == 2) {
          map[random.nextInt(map.length)] = Double.NaN;
        }
        double e = trial % 2 == 0 ? 1.0 : 0.5;
        double h = trial == 1 ? 1.5 : 2.0;
        Tfce tfce = new Tfce(graph, e, h, 100, true);
        for (Tail tail : Tail.values()) {
          double[] got = tfce.enhance(map, tail);
          double[] want = naive(graph, map, tail, e, h);
          for (int v = 0; v < want.length; v++) {
            String what = "level " + levels + " trial " + trial + " " + tail + " vertex " + v;
            if (Double.isNaN(want[v])) {
              assertThat(got[v]).as(what).isNaN();
            } else {
              assertThat(got[v]).as(what)
                  .isCloseTo(want[v], within(RELATIVE * Math.abs(want[v]) + 1e-300));
            }
          }
        }
      }
    }
  }

  @Test
  void withoutTheStepAndWithUnitAreasItIsTheVoxelDefinition() {
    // Weights of 1 and no dh: a mesh's TFCE is the grid TFCE's formula on the mesh's graph.
    SurfaceMesh mesh = Icosphere.of(2, 10);
    double[] ones = new double[mesh.vertices()];
    java.util.Arrays.fill(ones, 1.0);
    MeshAdjacency graph = MeshAdjacency.of(mesh, null, ones, null);
    double[] map = smoothMap(mesh, graph, new SplittableRandom(7));
    double[] got = new Tfce(graph, 0.5, 2.0, 100, false).enhance(map, Tail.TWO);
    double[] want = naive(graph, map, Tail.TWO, 0.5, 2.0);
    double m = 0;
    for (double x : map) {
      m = Math.max(m, Math.abs(x));
    }
    for (int v = 0; v < got.length; v++) {
      assertThat(got[v] * (m / 100)).isCloseTo(want[v], within(RELATIVE * Math.abs(want[v])));
    }
  }

  @Test
  void clusterExtentOnAMeshIsTheSummedAreaOfItsVertices() {
    SplittableRandom random = new SplittableRandom(45);
    SurfaceMesh mesh = Icosphere.of(3, 40);
    boolean[] mask = new boolean[mesh.vertices()];
    for (int v = 0; v < mask.length; v++) {
      mask[v] = random.nextDouble() < 0.9;
    }
    MeshAdjacency graph = MeshAdjacency.of(mesh, mask, null, null);
    double[] map = smoothMap(mesh, graph, random);
    for (Tail tail : Tail.values()) {
      ClusterExtent clusters = new ClusterExtent(graph, 1.5, tail);
      double[] got = clusters.extents(map);
      // Naive: breadth-first components of the vertices at or beyond T on each side.
      double[] want = new double[map.length];
      double largest = 0;
      boolean[] seen = new boolean[map.length];
      for (int s = 0; s < map.length; s++) {
        int side = tail != Tail.LOWER && map[s] >= 1.5 ? 1 : tail != Tail.UPPER && -map[s] >= 1.5
            ? -1 : 0;
        if (side == 0 || seen[s]) {
          continue;
        }
        java.util.List<Integer> members =
            Icosphere.component(graph, s, u -> side * map[u] >= 1.5, seen);
        double area = 0;
        for (int v : members) {
          area += graph.area(v);
        }
        for (int v : members) {
          want[v] = area;
        }
        largest = Math.max(largest, area);
      }
      assertThat(largest).as("%s has clusters", tail).isGreaterThan(0);
      for (int v = 0; v < want.length; v++) {
        assertThat(got[v]).as("%s vertex %d", tail, v).isCloseTo(want[v], within(1e-12 * want[v]));
      }
      assertThat(clusters.largest(map, 0)).isCloseTo(largest, within(1e-12 * largest));
    }
  }

  @Test
  void badMasksAndAreasAreRefusedInOneSentence() {
    SurfaceMesh mesh = Icosphere.of(0, 1);
    assertThatThrownBy(() -> MeshAdjacency.of(mesh, new boolean[11], null, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("The mask has 11 vertices, but the surface icosphere-0 has 12");
    assertThatThrownBy(() -> MeshAdjacency.of(mesh, new boolean[12], null, null))
        .hasMessage("The mask keeps no vertex of the surface icosphere-0");
    double[] areas = new double[12];
    areas[4] = -1;
    assertThatThrownBy(() -> MeshAdjacency.of(mesh, null, areas, null))
        .hasMessage("The area of vertex 4 must be a finite number >= 0, but was: -1.0");
    assertThatThrownBy(() -> new SurfaceMesh("m", new double[9], new int[] {0, 1, 3}))
        .hasMessage("The surface m has triangle 0 (0, 1, 3) naming a vertex outside 0..2");
    assertThatThrownBy(() -> new SurfaceMesh("m", new double[9], new int[] {0, 1, 1}))
        .hasMessage("The surface m has triangle 0 (0, 1, 1) naming the same vertex twice");
  }

  /** A smooth random field on the mesh (a few neighbour averages of noise): real clusters. */
  static double[] smoothMap(SurfaceMesh mesh, MeshAdjacency graph, SplittableRandom random) {
    double[] x = Icosphere.smooth(graph, random, 3);
    for (int v = 0; v < x.length; v++) {
      x[v] = 4 * x[v] + 0.5;
    }
    return x;
  }

  /** PALM's TFCE by labelling components at every threshold (breadth-first search). */
  static double[] naive(MeshAdjacency graph, double[] map, Tail tail, double e, double hExp) {
    int n = graph.voxels();
    double[] out = new double[n];
    double m = 0;
    for (int v = 0; v < n; v++) {
      if (Double.isNaN(map[v])) {
        out[v] = Double.NaN;
      } else {
        double x = tail == Tail.UPPER ? map[v] : tail == Tail.LOWER ? -map[v] : Math.abs(map[v]);
        m = Math.max(m, x);
      }
    }
    if (m <= 0) {
      return out;
    }
    double dh = m / 100;
    for (int sign : new int[] {1, -1}) {
      if (sign == 1 && tail == Tail.LOWER || sign == -1 && tail == Tail.UPPER) {
        continue;
      }
      double[] sum = new double[n];
      for (int k = 1; k <= 100; k++) {
        double h = k < 100 ? k * dh : m;
        boolean[] seen = new boolean[n];
        for (int s = 0; s < n; s++) {
          if (seen[s] || !(sign * map[s] >= h)) {
            continue;
          }
          java.util.List<Integer> members =
              Icosphere.component(graph, s, u -> sign * map[u] >= h, seen);
          double area = 0;
          for (int v : members) {
            area += graph.area(v);
          }
          for (int v : members) {
            sum[v] += Math.pow(area, e) * Math.pow(h, hExp);
          }
        }
      }
      for (int v = 0; v < n; v++) {
        if (sum[v] > 0) {
          out[v] = sign * sum[v] * dh;
        }
      }
    }
    return out;
  }
}
