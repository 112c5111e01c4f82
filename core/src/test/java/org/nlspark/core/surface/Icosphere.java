package org.nlspark.core.surface;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.IntPredicate;
import org.nlspark.core.tfce.MeshAdjacency;

/**
 * Icosahedra and their subdivisions on a sphere, built here (test geometry with known answers),
 * and what the surface tests do on them: smooth random fields and components found the naive
 * way.
 */
public final class Icosphere {
  private Icosphere() {}

  /** The icosahedron (12 vertices, 20 triangles) subdivided {@code levels} times, radius r. */
  public static SurfaceMesh of(int levels, double r) {
    double t = (1 + Math.sqrt(5)) / 2;
    List<double[]> v = new ArrayList<>();
    double[][] base = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
        {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    for (double[] p : base) {
      v.add(unit(p));
    }
    int[][] faces = {{0, 11, 5}, {0, 5, 1}, {0, 1, 7}, {0, 7, 10}, {0, 10, 11}, {1, 5, 9},
        {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8}, {3, 9, 4}, {3, 4, 2}, {3, 2, 6},
        {3, 6, 8}, {3, 8, 9}, {4, 9, 5}, {2, 4, 11}, {6, 2, 10}, {8, 6, 7}, {9, 8, 1}};
    for (int level = 0; level < levels; level++) {
      Map<Long, Integer> middle = new HashMap<>();
      int[][] next = new int[faces.length * 4][];
      int n = 0;
      for (int[] f : faces) {
        int ab = middle(v, middle, f[0], f[1]);
        int bc = middle(v, middle, f[1], f[2]);
        int ca = middle(v, middle, f[2], f[0]);
        next[n++] = new int[] {f[0], ab, ca};
        next[n++] = new int[] {f[1], bc, ab};
        next[n++] = new int[] {f[2], ca, bc};
        next[n++] = new int[] {ab, bc, ca};
      }
      faces = next;
    }
    double[] xyz = new double[3 * v.size()];
    for (int i = 0; i < v.size(); i++) {
      for (int d = 0; d < 3; d++) {
        xyz[3 * i + d] = r * v.get(i)[d];
      }
    }
    int[] tri = new int[3 * faces.length];
    for (int f = 0; f < faces.length; f++) {
      System.arraycopy(faces[f], 0, tri, 3 * f, 3);
    }
    return new SurfaceMesh("icosphere-" + levels, xyz, tri);
  }

  private static int middle(List<double[]> v, Map<Long, Integer> cache, int a, int b) {
    long key = (long) Math.min(a, b) << 32 | Math.max(a, b);
    return cache.computeIfAbsent(key, k -> {
      double[] p = v.get(a);
      double[] q = v.get(b);
      v.add(unit(new double[] {p[0] + q[0], p[1] + q[1], p[2] + q[2]}));
      return v.size() - 1;
    });
  }

  private static double[] unit(double[] p) {
    double n = Math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    return new double[] {p[0] / n, p[1] / n, p[2] / n};
  }

  /** Gaussian noise averaged with its neighbours {@code passes} times. */
  public static double[] smooth(MeshAdjacency graph, SplittableRandom random, int passes) {
    int n = graph.voxels();
    double[] x = new double[n];
    for (int v = 0; v < n; v++) {
      x[v] = random.nextGaussian();
    }
    for (int pass = 0; pass < passes; pass++) {
      double[] y = new double[n];
      for (int v = 0; v < n; v++) {
        double s = x[v];
        int[] nb = graph.neighboursOf(v);
        for (int u : nb) {
          s += x[u];
        }
        y[v] = s / (nb.length + 1);
      }
      x = y;
    }
    return x;
  }

  /**
   * The component of vertex {@code start} among the vertices {@code in} accepts, by breadth-first
   * search; marks them in {@code seen} (start included).
   */
  public static List<Integer> component(MeshAdjacency graph, int start, IntPredicate in,
      boolean[] seen) {
    List<Integer> members = new ArrayList<>();
    ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(start));
    seen[start] = true;
    while (!queue.isEmpty()) {
      int v = queue.poll();
      members.add(v);
      for (int u : graph.neighboursOf(v)) {
        if (!seen[u] && in.test(u)) {
          seen[u] = true;
          queue.add(u);
        }
      }
    }
    return members;
  }
}
