package org.nlspark.core.isc;

import java.util.Arrays;

/** Fisher's z, numpy's median, and the weighted medians a subject bootstrap needs. */
public final class IscMath {
  /**
   * |r| is capped here before arctanh, so identical series give a finite z (about 14.2) instead of
   * infinity, and a mean over pairs stays defined.
   */
  public static final double R_MAX = 1.0 - 0x1p-40;

  private IscMath() {}

  /** arctanh(r), with r clamped to [−R_MAX, R_MAX]. */
  public static double fisherZ(double r) {
    double c = Math.max(-R_MAX, Math.min(R_MAX, r));
    return 0.5 * Math.log1p(2 * c / (1 - c));
  }

  /** numpy's median of values[off, off + n): the middle value, or the mean (a + b) / 2 of two. */
  public static double median(double[] values, int off, int n) {
    double[] s = Arrays.copyOfRange(values, off, off + n);
    Arrays.sort(s);
    return (n % 2 == 1) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /**
   * numpy's median of the multiset in which sorted[off + j] occurs c[a[j]] · c[b[j]] times (a
   * subject pair drawn c_s · c_t times, self pairs excluded upstream). {@code total} is the sum of
   * the weights, > 0. Walks the sorted values until the middle rank(s) are passed.
   */
  public static double medianOfPairs(double[] sorted, short[] a, short[] b, int off, int n,
      int[] c, long total) {
    long lo = (total - 1) / 2;
    long hi = total / 2;
    long cum = 0;
    int end = off + n;
    int j = off;
    for (; j < end; j++) {
      cum += c[a[j]] * c[b[j]];
      if (cum > lo) {
        break;
      }
    }
    double vlo = sorted[j];
    if (cum > hi) {
      return vlo;
    }
    for (j++; j < end; j++) {
      if (c[a[j]] * c[b[j]] > 0) {
        return (vlo + sorted[j]) / 2;
      }
    }
    throw new IllegalStateException("[BUG] weighted median ran past " + n + " values, total "
        + total);
  }

  /** As {@link #medianOfPairs}, with weight c[a[j]] for each value (subjects drawn c_s times). */
  public static double medianOfSubjects(double[] sorted, short[] a, int off, int n, int[] c,
      long total) {
    long lo = (total - 1) / 2;
    long hi = total / 2;
    long cum = 0;
    int end = off + n;
    int j = off;
    for (; j < end; j++) {
      cum += c[a[j]];
      if (cum > lo) {
        break;
      }
    }
    double vlo = sorted[j];
    if (cum > hi) {
      return vlo;
    }
    for (j++; j < end; j++) {
      if (c[a[j]] > 0) {
        return (vlo + sorted[j]) / 2;
      }
    }
    throw new IllegalStateException("[BUG] weighted median ran past " + n + " values, total "
        + total);
  }
}
