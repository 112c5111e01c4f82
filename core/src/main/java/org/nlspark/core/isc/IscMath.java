package org.nlspark.core.isc;

import java.util.Arrays;
import org.nlspark.core.accumulate.QuickSelect;

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
    return 0.5 * StrictMath.log1p(2 * c / (1 - c));
  }

  /**
   * numpy's median of values[off, off + n): the middle value, or the mean (a + b) / 2 of two
   * ({@link QuickSelect#median}); values is not changed. No NaN.
   */
  public static double median(double[] values, int off, int n) {
    return QuickSelect.median(values, off, n, new long[n]);
  }

  /**
   * numpy's median of the multiset in which sorted[off + j] occurs w[wOff + item[off + j]] times
   * (a subject pair drawn c_s · c_t times, self pairs excluded upstream; or a subject drawn c_s
   * times). Weights are whole numbers held in doubles; {@code total} is their sum, > 0. The walk
   * starts between items m0 − 1 and m0 (0 &lt; m0 &lt;= n), given {@code below}, the weight of
   * items [0, m0), and moves down or up until the middle rank(s) are passed.
   */
  public static double weightedMedian(double[] sorted, int[] item, int off, int n, double[] w,
      int wOff, long total, int m0, long below) {
    long lo = (total - 1) / 2;
    long hi = total / 2;
    int j = off + m0 - 1;
    long cum = below; // invariant: the weight of items [off, j], j inclusive
    if (cum > lo) {
      while (true) {
        long wj = (long) w[wOff + item[j]];
        if (cum - wj > lo) {
          cum -= wj;
          j--;
        } else {
          break;
        }
      }
    } else {
      do {
        j++;
        cum += (long) w[wOff + item[j]];
      } while (cum <= lo);
    }
    double vlo = sorted[j];
    if (cum > hi) {
      return vlo;
    }
    int end = off + n;
    for (j++; j < end; j++) {
      if (w[wOff + item[j]] > 0) {
        return (vlo + sorted[j]) / 2;
      }
    }
    throw new IllegalStateException("[BUG] weighted median ran past " + n + " values, total "
        + total);
  }

  /**
   * Sorts keys[from, to) ascending and applies the same permutation to items (quicksort with
   * insertion sort for short runs; equal keys may end in any order, which no median can see).
   * Keys must not be NaN.
   */
  public static void sortWithItems(double[] keys, int[] items, int from, int to) {
    while (to - from > 16) {
      int mid = (from + to) >>> 1;
      // median of three as the pivot
      if (keys[mid] < keys[from]) {
        swap(keys, items, mid, from);
      }
      if (keys[to - 1] < keys[from]) {
        swap(keys, items, to - 1, from);
      }
      if (keys[to - 1] < keys[mid]) {
        swap(keys, items, to - 1, mid);
      }
      double pivot = keys[mid];
      int i = from;
      int j = to - 1;
      while (i <= j) {
        while (keys[i] < pivot) {
          i++;
        }
        while (keys[j] > pivot) {
          j--;
        }
        if (i <= j) {
          swap(keys, items, i++, j--);
        }
      }
      // recurse into the smaller side, loop on the larger: O(log n) stack
      if (j - from < to - i) {
        sortWithItems(keys, items, from, j + 1);
        from = i;
      } else {
        sortWithItems(keys, items, i, to);
        to = j + 1;
      }
    }
    for (int i = from + 1; i < to; i++) {
      double k = keys[i];
      int it = items[i];
      int j = i - 1;
      while (j >= from && keys[j] > k) {
        keys[j + 1] = keys[j];
        items[j + 1] = items[j];
        j--;
      }
      keys[j + 1] = k;
      items[j + 1] = it;
    }
  }

  private static void swap(double[] keys, int[] items, int a, int b) {
    double k = keys[a];
    keys[a] = keys[b];
    keys[b] = k;
    int t = items[a];
    items[a] = items[b];
    items[b] = t;
  }
}
