package org.nlspark.report;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Connected clusters of supra-threshold voxels on the grid: 26-connectivity (faces, edges and
 * corners, as FSL's cluster and SPM), positive and negative values apart, each with its size
 * and its peak (largest |value|) in voxel and world (mm) coordinates.
 */
final class Clusters {
  private Clusters() {}

  record Cluster(int size, double volumeMm3, double peak, int[] peakIjk, double[] peakMm) {}

  /**
   * @param dims grid dims (nx, ny, nz)
   * @param affine voxel-to-world 4 x 4
   * @param values per grid voxel in file order (i fastest); NaN = not supra-threshold
   * @return clusters, largest first (ties: larger |peak| first)
   */
  static List<Cluster> find(int[] dims, double[][] affine, double[] values) {
    int nx = dims[0];
    int ny = dims[1];
    int nz = dims[2];
    int[] label = new int[values.length];
    double voxelMm3 = Math.abs(det3(affine));
    List<Cluster> out = new ArrayList<>();
    ArrayDeque<Integer> queue = new ArrayDeque<>();
    int next = 0;
    for (int f = 0; f < values.length; f++) {
      if (Double.isNaN(values[f]) || label[f] != 0) {
        continue;
      }
      next++;
      boolean positive = values[f] > 0;
      label[f] = next;
      queue.add(f);
      int size = 0;
      int peakAt = f;
      while (!queue.isEmpty()) {
        int g = queue.poll();
        size++;
        if (Math.abs(values[g]) > Math.abs(values[peakAt])) {
          peakAt = g;
        }
        int i = g % nx;
        int j = (g / nx) % ny;
        int k = g / (nx * ny);
        for (int dk = -1; dk <= 1; dk++) {
          for (int dj = -1; dj <= 1; dj++) {
            for (int di = -1; di <= 1; di++) {
              int a = i + di;
              int b = j + dj;
              int c = k + dk;
              if (a < 0 || b < 0 || c < 0 || a >= nx || b >= ny || c >= nz) {
                continue;
              }
              int h = a + nx * (b + ny * c);
              if (label[h] == 0 && !Double.isNaN(values[h]) && (values[h] > 0) == positive) {
                label[h] = next;
                queue.add(h);
              }
            }
          }
        }
      }
      int[] ijk = {peakAt % nx, (peakAt / nx) % ny, peakAt / (nx * ny)};
      out.add(new Cluster(size, size * voxelMm3, values[peakAt], ijk, toMm(affine, ijk)));
    }
    out.sort(Comparator.comparingInt((Cluster c) -> -c.size)
        .thenComparingDouble(c -> -Math.abs(c.peak)));
    return out;
  }

  static double[] toMm(double[][] affine, int[] ijk) {
    double[] mm = new double[3];
    for (int r = 0; r < 3; r++) {
      mm[r] = affine[r][0] * ijk[0] + affine[r][1] * ijk[1] + affine[r][2] * ijk[2] + affine[r][3];
    }
    return mm;
  }

  static double det3(double[][] a) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  }
}
