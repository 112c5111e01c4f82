package org.nlspark.core.stats;

import java.util.function.LongPredicate;
import java.util.function.LongToDoubleFunction;

/**
 * {@code numpy.percentile(a, q, method='linear')}, bit for bit (ports §3.11 of DESIGN.md). It is both
 * the brute-force reference of the tests and the rule {@code TailAccumulator} applies to its retained
 * order statistics, so the streaming interval and the complete-distribution one share one code path.
 *
 * <p>numpy's steps, with n values sorted ascending:
 *
 * <ol>
 *   <li>virtual index h = (n - 1) · (q / 100);
 *   <li>if h ≥ n - 1 both neighbours are the last value and the weight is t = h + 1 (numpy sets the
 *       previous index to -1 before computing t = h - previous); else lo = floor(h), hi = lo + 1,
 *       t = h - lo;
 *   <li>{@code _lerp}: d = b - a; result = a + d·t, or b - d·(1 - t) where t ≥ 0.5.
 * </ol>
 *
 * The clamped weight and the second lerp branch only change the last bit or the sign of a zero, but
 * "exact" means exact. A NaN anywhere gives NaN, as numpy does.
 */
public final class NumpyPercentile {
  private NumpyPercentile() {}

  /** Percentile q ∈ [0, 100] of values already sorted ascending (NaN last), at least one value. */
  public static double ofSorted(double[] sorted, double q) {
    if (sorted.length == 0) {
      throw new IllegalArgumentException("Cannot take a percentile of an empty array");
    }
    if (Double.isNaN(sorted[sorted.length - 1])) {
      checkQ(q);
      return Double.NaN;
    }
    return ofOrderStatistics(sorted.length, q, j -> sorted[(int) j], j -> true);
  }

  /**
   * Percentile q of n values given by their order statistics (rank 0 = smallest). Only the ranks
   * numpy's lerp uses are read, and a rank {@code retained} rejects is read only when its value
   * cannot change the result: with t = 0 numpy computes a + (b - a)·0, which is a + 0.0 for any
   * finite b, and b ≤ the maximum (rank n - 1).
   *
   * @throws IllegalStateException ("[BUG] ...") when a rank the result depends on is not retained
   */
  public static double ofOrderStatistics(
      long n, double q, LongToDoubleFunction orderStatistic, LongPredicate retained) {
    checkQ(q);
    if (n < 1) {
      throw new IllegalArgumentException("Cannot take a percentile of an empty array");
    }
    double h = virtualIndex(n, q);
    long lo;
    long hi;
    double t;
    if (h >= n - 1) {
      lo = n - 1;
      hi = n - 1;
      t = h + 1.0;
    } else {
      lo = (long) Math.floor(h);
      hi = lo + 1;
      t = h - lo;
    }
    double a = read(orderStatistic, retained, lo, n, q);
    if (t == 0.0 && !retained.test(hi)) {
      double max = read(orderStatistic, retained, n - 1, n, q);
      if (Double.isInfinite(a) || Double.isNaN(a)) {
        return Double.NaN;
      }
      if (Double.isInfinite(max)) {
        throw missing(hi, n, q);
      }
      return a + 0.0;
    }
    double b = read(orderStatistic, retained, hi, n, q);
    return lerp(a, b, t);
  }

  /** numpy's {@code _lerp}: a + (b - a)·t, or b - (b - a)·(1 - t) where t ≥ 0.5. */
  public static double lerp(double a, double b, double t) {
    double d = b - a;
    return t >= 0.5 ? b - d * (1.0 - t) : a + d * t;
  }

  /** h = (n - 1) · (q / 100), evaluated as numpy does (q divided first). */
  public static double virtualIndex(long n, double q) {
    return (double) (n - 1) * (q / 100.0);
  }

  /**
   * The smallest tail size k such that keeping the k smallest and k largest of n values lets
   * {@link #ofOrderStatistics} compute percentile q exactly. With q = 100(1 - c)/2 and 100(1 + c)/2
   * this never exceeds the reference's k = min(ceil((B - 1)(1 - c)/2) + 1, B).
   */
  public static int minimumTailSize(long n, double q) {
    checkQ(q);
    if (n < 1) {
      throw new IllegalArgumentException("Cannot size a tail for an empty array, n was: " + n);
    }
    double h = virtualIndex(n, q);
    if (h >= n - 1) {
      return 1;
    }
    long lo = (long) Math.floor(h);
    long need = Math.min(lo + 1, n - lo);
    if (h - lo != 0.0) {
      long hi = lo + 1;
      need = Math.max(need, Math.min(hi + 1, n - hi));
    }
    return (int) Math.min(need, Integer.MAX_VALUE);
  }

  private static double read(
      LongToDoubleFunction orderStatistic, LongPredicate retained, long rank, long n, double q) {
    if (!retained.test(rank)) {
      throw missing(rank, n, q);
    }
    return orderStatistic.applyAsDouble(rank);
  }

  private static IllegalStateException missing(long rank, long n, double q) {
    return new IllegalStateException(
        "[BUG] percentile "
            + q
            + " of "
            + n
            + " values needs order statistic "
            + rank
            + ", which lies outside the retained tails (tail size too small for this q; need at least "
            + minimumTailSize(n, q)
            + ")");
  }

  private static void checkQ(double q) {
    if (!(q >= 0.0 && q <= 100.0)) {
      throw new IllegalArgumentException("Percentile q must be in [0, 100], but was: " + q);
    }
  }
}
