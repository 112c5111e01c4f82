package org.nlspark.core.accumulate;

/**
 * In-place selection on a range of longs: after {@link #select}, a[nth] holds the value it would
 * hold if the range were sorted, everything before it is &lt;= and everything after is &gt;=.
 * Partitioning is Lomuto's without branches on the data (a swap every step, the boundary advanced
 * by the comparison's outcome), because tails see random data where a branch mispredicts half the
 * time. When nth falls at or right of the boundary, a second branch-free pass gathers the values
 * equal to the pivot, so many repeated values (small-n medians, integer data) stay linear.
 *
 * <p>The one quickselect of the project: the retained tails select on their sortable keys, and
 * the medians ISC needs ({@link #median}) select on the same keys of their values.
 */
public final class QuickSelect {
  private QuickSelect() {}

  /**
   * numpy's median of values[off, off + n) (the middle value, or the mean (a + b) / 2 of the two
   * middle ones), selected on the values' sortable keys in {@code scratch} (length &gt;= n), so
   * it equals the median of the values sorted by {@link Double#compare} order; values is not
   * changed. No NaN.
   */
  public static double median(double[] values, int off, int n, long[] scratch) {
    for (int i = 0; i < n; i++) {
      scratch[i] = TailAccumulator.key(values[off + i]);
    }
    int k = n / 2;
    select(scratch, 0, n, k);
    double middle = TailAccumulator.value(scratch[k]);
    if (n % 2 == 1) {
      return middle;
    }
    long below = scratch[0];
    for (int i = 1; i < k; i++) {
      below = Math.max(below, scratch[i]);
    }
    return (TailAccumulator.value(below) + middle) / 2;
  }

  /** Moves the nth smallest of a[from, to) to a[nth], smaller-or-equal values before it. */
  public static void select(long[] a, int from, int to, int nth) {
    int lo = from;
    int hi = to - 1;
    while (hi > lo) {
      // median of three as pivot, moved to hi
      int mid = (lo + hi) >>> 1;
      if (a[mid] < a[lo]) {
        swap(a, mid, lo);
      }
      if (a[hi] < a[lo]) {
        swap(a, hi, lo);
      }
      if (a[mid] < a[hi]) {
        swap(a, mid, hi);
      }
      long pivot = a[hi];
      int store = lo;
      for (int i = lo; i < hi; i++) {
        long v = a[i];
        a[i] = a[store];
        a[store] = v;
        store += v < pivot ? 1 : 0;
      }
      swap(a, store, hi);
      if (nth < store) {
        hi = store - 1;
        continue;
      }
      // [store, hi] >= pivot: gather the values equal to it at the front
      int equal = store;
      for (int i = store; i <= hi; i++) {
        long v = a[i];
        a[i] = a[equal];
        a[equal] = v;
        equal += v == pivot ? 1 : 0;
      }
      if (nth < equal) {
        return; // a[nth] is the pivot; left <=, right >=
      }
      lo = equal;
    }
  }

  private static void swap(long[] a, int i, int j) {
    long t = a[i];
    a[i] = a[j];
    a[j] = t;
  }
}
