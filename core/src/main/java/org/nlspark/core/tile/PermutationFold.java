package org.nlspark.core.tile;

import org.nlspark.core.job.Tail;

/**
 * The fused permutation epilogue: one pass over a window of null statistics that turns each into
 * its extremeness key, counts keys >= the observed key per voxel, and reduces each replicate's
 * maximum key, so the pass costs about as much as reading the window once.
 *
 * <p>Undefined voxels (NaN observed) get threshold +Infinity and every NaN key becomes -Infinity,
 * so they never count and never raise a maximum — the same rules as ExceedanceCounter and
 * NullMaxAccumulator (which fold the results).
 */
final class PermutationFold {
  private PermutationFold() {}

  /** Thresholds per voxel: the observed key, or +Infinity where it is NaN. */
  static double[] thresholds(double[] observed, Tail tail) {
    double[] thr = new double[observed.length];
    for (int v = 0; v < observed.length; v++) {
      thr[v] = tail.threshold(observed[v]);
    }
    return thr;
  }

  /**
   * @param stats rows x b null statistics, row-major
   * @param counts per-voxel counts, incremented
   * @param rowMax per-row maximum key (-Infinity if none), written
   */
  static void fold(double[] stats, int rows, int b, Tail tail, double[] thr, int[] counts,
      double[] rowMax) {
    for (int r = 0; r < rows; r++) {
      int base = r * b;
      double m = Double.NEGATIVE_INFINITY;
      switch (tail) {
        case TWO:
          for (int v = 0; v < b; v++) {
            double k = Math.abs(stats[base + v]);
            k = k == k ? k : Double.NEGATIVE_INFINITY;
            counts[v] += k >= thr[v] ? 1 : 0;
            m = Math.max(m, k);
          }
          break;
        case UPPER:
          for (int v = 0; v < b; v++) {
            double k = stats[base + v];
            k = k == k ? k : Double.NEGATIVE_INFINITY;
            counts[v] += k >= thr[v] ? 1 : 0;
            m = Math.max(m, k);
          }
          break;
        default:
          for (int v = 0; v < b; v++) {
            double k = -stats[base + v];
            k = k == k ? k : Double.NEGATIVE_INFINITY;
            counts[v] += k >= thr[v] ? 1 : 0;
            m = Math.max(m, k);
          }
          break;
      }
      rowMax[r] = m;
    }
  }
}
