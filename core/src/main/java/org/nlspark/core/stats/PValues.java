package org.nlspark.core.stats;

import org.nlspark.core.job.Tail;
import java.util.Arrays;

/**
 * The one p-value rule of nlspark (DESIGN §4). Ties count as extreme; only permuted draws are
 * counted, so with P draws the smallest attainable p-value is 1/(P+1). When the draws enumerate the
 * whole permutation group (identity included) the exact p-value is count/nDraws instead.
 *
 * <p>Inputs are extremeness keys (see {@link Tail#key(double)}): "as extreme" is always key ≥ key.
 * A NaN observed key (a statistic undefined for that voxel) gives a NaN p-value; NaN null keys never
 * count.
 */
public final class PValues {
  private PValues() {}

  /** (count + 1) / (P + 1). */
  public static double uncorrected(long count, long nPermutations) {
    checkCount(count, nPermutations, "permutations");
    return (count + 1.0) / (nPermutations + 1.0);
  }

  /** count / nDraws, for an exact enumeration whose draws include the identity. */
  public static double enumerated(long count, long nDraws) {
    checkCount(count, nDraws, "draws");
    return (double) count / (double) nDraws;
  }

  /**
   * Family-wise error rate by the max statistic: (#{r : m_r ≥ s} + 1) / (P + 1), or #{..}/P when
   * {@code enumerated}. P is {@code nullMaxima.length}. Sorts one copy of the maxima, then
   * binary-searches each observed key, so the cost is (P + V) log P and P × V is never formed.
   */
  public static double[] fwer(double[] nullMaxima, double[] observedKeys, boolean enumerated) {
    long p = nullMaxima.length;
    if (p < 1) {
      throw new IllegalArgumentException(
          "Cannot compute FWER p-values: the null distribution is empty (need at least 1 permutation,"
              + " --permutations)");
    }
    double[] sorted = nullMaxima.clone();
    Arrays.sort(sorted); // NaN sorts last and never counts
    int end = sorted.length;
    while (end > 0 && Double.isNaN(sorted[end - 1])) {
      end--;
    }
    double[] out = new double[observedKeys.length];
    for (int v = 0; v < observedKeys.length; v++) {
      double s = observedKeys[v];
      if (Double.isNaN(s)) {
        out[v] = Double.NaN;
        continue;
      }
      long count = end - firstAtLeast(sorted, end, s);
      out[v] = enumerated ? enumerated(count, p) : uncorrected(count, p);
    }
    return out;
  }

  /** Per-element p-values from exceedance counts over n null draws; NaN where observed is NaN. */
  public static double[] fromCounts(
      long[] counts, long n, double[] observedKeys, boolean enumerated) {
    if (counts.length != observedKeys.length) {
      throw new IllegalArgumentException(
          "[BUG] counts and observed keys must have the same length, but were: "
              + counts.length
              + " and "
              + observedKeys.length);
    }
    double[] out = new double[counts.length];
    for (int v = 0; v < counts.length; v++) {
      if (Double.isNaN(observedKeys[v])) {
        out[v] = Double.NaN;
      } else {
        out[v] = enumerated ? enumerated(counts[v], n) : uncorrected(counts[v], n);
      }
    }
    return out;
  }

  /** Smallest index i in [0, end) with sorted[i] >= s, or end. */
  private static int firstAtLeast(double[] sorted, int end, double s) {
    int lo = 0;
    int hi = end;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (sorted[mid] < s) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  private static void checkCount(long count, long n, String what) {
    if (n < 1) {
      throw new IllegalArgumentException(
          "Cannot compute a p-value: the number of " + what
              + " must be >= 1 (--permutations), but was: " + n);
    }
    if (count < 0 || count > n) {
      throw new IllegalArgumentException(
          "[BUG] exceedance count must be in [0, " + n + "], but was: " + count);
    }
  }
}
