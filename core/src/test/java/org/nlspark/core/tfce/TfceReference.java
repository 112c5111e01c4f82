package org.nlspark.core.tfce;

import java.util.ArrayDeque;
import org.nlspark.core.job.Tail;

/**
 * The plain definitions, for tests only: TFCE as nilearn's textbook loop (for every threshold,
 * label the supra-threshold voxels by breadth-first search over face neighbours on the grid, add
 * size^E · h^H to each voxel), and cluster sizes at one threshold. Works on grid coordinates and
 * does not use {@link MaskGrid}'s neighbour lists; neighbours are the steps (di, dj, dk) in
 * {-1, 0, 1}^3 with |di| + |dj| + |dk| = 1 (6), ≤ 2 (18) or ≤ 3 (26), as scipy.ndimage's
 * generate_binary_structure(3, 1 | 2 | 3).
 */
public final class TfceReference {
  private TfceReference() {}

  /** Thresholds of nilearn: {@code np.linspace(0, max, steps + 1)[1:]}. */
  public static double[] thresholds(double max, int steps) {
    double[] h = new double[steps];
    double step = max / steps;
    for (int k = 1; k <= steps; k++) {
      h[k - 1] = step != 0 ? k * step : (double) k / steps * max; // numpy's rule for subnormals
    }
    h[steps - 1] = max; // linspace sets the endpoint exactly
    return h;
  }

  public static double[] tfce(
      int ni, int nj, int nk, boolean[] mask, double[] stat, Tail tail, double e, double hExp,
      int steps) {
    return tfce(ni, nj, nk, mask, stat, tail, e, hExp, steps, 6);
  }

  public static double[] tfce(
      int ni, int nj, int nk, boolean[] mask, double[] stat, Tail tail, double e, double hExp,
      int steps, int connectivity) {
    double[] full = unmask(ni, nj, nk, mask, stat);
    double max = 0;
    for (double s : stat) {
      if (Double.isFinite(s)) {
        max = Math.max(max, tail == Tail.UPPER ? s : tail == Tail.LOWER ? -s : Math.abs(s));
      }
    }
    double[] scoreFull = new double[full.length];
    if (max > 0) {
      double[] h = thresholds(max, steps);
      double[] signs = tail == Tail.TWO ? new double[] {1, -1}
          : tail == Tail.UPPER ? new double[] {1} : new double[] {-1};
      for (double sign : signs) {
        for (double thr : h) {
          boolean[] active = new boolean[full.length];
          for (int c = 0; c < full.length; c++) {
            double x = sign * full[c];
            active[c] = Double.isFinite(x) && x != 0 && x >= thr;
          }
          int[][] labels = label(ni, nj, nk, active, connectivity);
          int[] label = labels[0];
          int[] sizes = labels[1];
          for (int c = 0; c < full.length; c++) {
            if (label[c] > 0) {
              scoreFull[c] += sign * Math.pow(sizes[label[c]], e) * Math.pow(thr, hExp);
            }
          }
        }
      }
    }
    double[] out = new double[stat.length];
    int v = 0;
    for (int c = 0; c < full.length; c++) {
      if (mask[c]) {
        out[v] = Double.isFinite(stat[v]) ? scoreFull[c] : Double.NaN;
        v++;
      }
    }
    return out;
  }

  public static int[] clusterSizes(
      int ni, int nj, int nk, boolean[] mask, double[] stat, Tail tail, double t) {
    return clusterSizes(ni, nj, nk, mask, stat, tail, t, 6);
  }

  public static int[] clusterSizes(
      int ni, int nj, int nk, boolean[] mask, double[] stat, Tail tail, double t,
      int connectivity) {
    double[] full = unmask(ni, nj, nk, mask, stat);
    int[] sizeFull = new int[full.length];
    double[] signs = tail == Tail.TWO ? new double[] {1, -1}
        : tail == Tail.UPPER ? new double[] {1} : new double[] {-1};
    for (double sign : signs) {
      boolean[] active = new boolean[full.length];
      for (int c = 0; c < full.length; c++) {
        double x = sign * full[c];
        active[c] = Double.isFinite(x) && x >= t;
      }
      int[][] labels = label(ni, nj, nk, active, connectivity);
      for (int c = 0; c < full.length; c++) {
        if (labels[0][c] > 0) {
          sizeFull[c] = labels[1][labels[0][c]];
        }
      }
    }
    int[] out = new int[stat.length];
    int v = 0;
    for (int c = 0; c < full.length; c++) {
      if (mask[c]) {
        out[v++] = sizeFull[c];
      }
    }
    return out;
  }

  /**
   * Cluster mass by brute force: per side, label the voxels at least t (breadth-first search),
   * then each voxel gets Σ of the statistic over its cluster (signed: negative clusters sum to a
   * negative mass), 0 outside every cluster.
   */
  public static double[] clusterMasses(
      int ni, int nj, int nk, boolean[] mask, double[] stat, Tail tail, double t,
      int connectivity) {
    double[] full = unmask(ni, nj, nk, mask, stat);
    double[] massFull = new double[full.length];
    double[] signs = tail == Tail.TWO ? new double[] {1, -1}
        : tail == Tail.UPPER ? new double[] {1} : new double[] {-1};
    for (double sign : signs) {
      boolean[] active = new boolean[full.length];
      for (int c = 0; c < full.length; c++) {
        double x = sign * full[c];
        active[c] = Double.isFinite(x) && x >= t;
      }
      int[] label = label(ni, nj, nk, active, connectivity)[0];
      double[] sums = new double[full.length + 1];
      for (int c = 0; c < full.length; c++) {
        if (label[c] > 0) {
          sums[label[c]] += full[c];
        }
      }
      for (int c = 0; c < full.length; c++) {
        if (label[c] > 0) {
          massFull[c] = sums[label[c]];
        }
      }
    }
    double[] out = new double[stat.length];
    int v = 0;
    for (int c = 0; c < full.length; c++) {
      if (mask[c]) {
        out[v++] = massFull[c];
      }
    }
    return out;
  }

  /** Full grid, NaN outside the mask (so outside voxels never join a cluster). */
  private static double[] unmask(int ni, int nj, int nk, boolean[] mask, double[] stat) {
    double[] full = new double[ni * nj * nk];
    int v = 0;
    for (int c = 0; c < full.length; c++) {
      full[c] = mask[c] ? stat[v++] : Double.NaN;
    }
    if (v != stat.length) {
      throw new IllegalArgumentException("mask has " + v + " voxels, map " + stat.length);
    }
    return full;
  }

  /** {labels (0 = background, 1..), sizes by label}. */
  static int[][] label(int ni, int nj, int nk, boolean[] active, int connectivity) {
    int order = connectivity == 6 ? 1 : connectivity == 18 ? 2 : 3;
    int[] label = new int[active.length];
    int[] sizes = new int[active.length + 1];
    int next = 0;
    ArrayDeque<int[]> queue = new ArrayDeque<>();
    java.util.List<int[]> steps = new java.util.ArrayList<>();
    for (int a = -1; a <= 1; a++) {
      for (int b = -1; b <= 1; b++) {
        for (int d = -1; d <= 1; d++) {
          int o = Math.abs(a) + Math.abs(b) + Math.abs(d);
          if (o >= 1 && o <= order) {
            steps.add(new int[] {a, b, d});
          }
        }
      }
    }
    int[][] faces = steps.toArray(new int[0][]);
    for (int i = 0; i < ni; i++) {
      for (int j = 0; j < nj; j++) {
        for (int k = 0; k < nk; k++) {
          int c = (i * nj + j) * nk + k;
          if (!active[c] || label[c] != 0) {
            continue;
          }
          int id = ++next;
          label[c] = id;
          queue.add(new int[] {i, j, k});
          while (!queue.isEmpty()) {
            int[] p = queue.poll();
            sizes[id]++;
            for (int[] f : faces) {
              int a = p[0] + f[0];
              int b = p[1] + f[1];
              int d = p[2] + f[2];
              if (a < 0 || b < 0 || d < 0 || a >= ni || b >= nj || d >= nk) {
                continue;
              }
              int q = (a * nj + b) * nk + d;
              if (active[q] && label[q] == 0) {
                label[q] = id;
                queue.add(new int[] {a, b, d});
              }
            }
          }
        }
      }
    }
    return new int[][] {label, sizes};
  }
}
