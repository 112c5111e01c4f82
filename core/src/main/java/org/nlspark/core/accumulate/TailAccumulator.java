package org.nlspark.core.accumulate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.nlspark.core.stats.NumpyPercentile;

/**
 * The k smallest and k largest values per element, exact, so that numpy's linear percentile of
 * everything seen can be reproduced from them (ports §3.11 of DESIGN.md and the retained-tail rule
 * k = min(ceil((B - 1)(1 - c)/2) + 1, B) of the reference).
 *
 * <pre>
 * Invariants
 *  1. n = number of replicates (rows) seen; every row holds one value per element.
 *  2. undefined[e] = number of NaN values seen for element e; NaN is never retained, and any NaN
 *     makes the element's percentiles NaN (as numpy's).
 *  3. filled[e] = min(k, n - undefined[e]) values are retained at each end of element e.
 *  4. lower[e*k .. e*k+filled[e]) is a max-heap of the filled[e] smallest values seen, upper[..]
 *     a min-heap of the largest, both under the total order -0.0 &lt; +0.0 (so the retained multiset
 *     is unique and merge order cannot change it).
 *  5. lowerRoot[e] == lower[e*k] and upperRoot[e] == upper[e*k] when filled[e] == k, else NaN:
 *     dense copies of the roots, so the common "belongs to neither tail" test reads memory
 *     sequentially (a NaN root sends every value to the exact path while the heaps fill).
 *  6. toBytes() stores each tail sorted ascending, so equal state gives equal bytes.
 * </pre>
 *
 * <p>Serialized layout (little-endian): byte magic 'T' (0x54), byte version 1, int elements, int k,
 * long n, long[elements] undefined, then per element e: filled[e] doubles of the lower tail
 * ascending followed by filled[e] doubles of the upper tail ascending.
 *
 * <p>The update is on the hot path (B = 5,000 × 20,000 voxels, k = 126): heaps live in flat
 * primitive arrays, the buffer is read in memory order, and a value that belongs to neither tail
 * costs one comparison with each (densely stored) root. Columns are walked in cache-sized blocks so
 * the heaps being sifted stay in cache across a window.
 */
public final class TailAccumulator {
  private static final byte MAGIC = 'T';
  private static final String WHAT = "TailAccumulator";
  /** Heap bytes one column block of update() may touch: about half a typical per-core L2. */
  private static final int CACHE_BLOCK_BYTES = 256 * 1024;

  private final int elements;
  private final int k;
  private long n;
  private final long[] undefined;
  private final int[] filled;
  private final double[] lower;
  private final double[] upper;
  private final double[] lowerRoot;
  private final double[] upperRoot;

  public TailAccumulator(int elements, int k) {
    if (elements < 0) {
      throw new IllegalArgumentException("elements must be >= 0, but was: " + elements);
    }
    if (k < 1) {
      throw new IllegalArgumentException("Retained tail size k must be >= 1, but was: " + k);
    }
    long cells = (long) elements * k;
    if (cells > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "Cannot allocate tails of " + elements + " elements x k=" + k + ": " + cells
              + " values exceed one array; use smaller voxel blocks");
    }
    this.elements = elements;
    this.k = k;
    this.undefined = new long[elements];
    this.filled = new int[elements];
    this.lower = new double[(int) cells];
    this.upper = new double[(int) cells];
    this.lowerRoot = new double[elements];
    this.upperRoot = new double[elements];
    Arrays.fill(lowerRoot, Double.NaN);
    Arrays.fill(upperRoot, Double.NaN);
  }

  /** Adds {@code rows} replicates from a row-major window buffer; {@code cols} must equal elements. */
  public void update(double[] buf, int offset, int rows, int cols) {
    if (cols != elements) {
      throw new IllegalArgumentException(
          "Cannot update " + WHAT + ": window has " + cols + " columns, but the accumulator has "
              + elements + " elements");
    }
    Bytes.checkWindow(WHAT, buf, offset, rows, cols);
    final double[] lowerRoot = this.lowerRoot;
    final double[] upperRoot = this.upperRoot;
    // Column blocks whose heaps fit in cache, rows inside, columns innermost: each row's run of a
    // block is contiguous, and the heaps a block sifts into stay hot for the whole window.
    final int block = Math.max(1, CACHE_BLOCK_BYTES / (16 * k));
    for (int c0 = 0; c0 < cols; c0 += block) {
      final int c1 = Math.min(cols, c0 + block);
      for (int r = 0; r < rows; r++) {
        int row = offset + r * cols;
        for (int e = c0; e < c1; e++) {
          double x = buf[row + e];
          // One comparison per root; true also for NaN x, for a root still NaN (filling), and for
          // x equal to a root (where -0.0 / +0.0 must be told apart): insert() decides exactly.
          if (!(x > lowerRoot[e]) || !(x < upperRoot[e])) {
            insert(e, x);
          }
        }
      }
    }
    n += rows;
  }

  /** Adds another accumulator of the same shape; the result does not depend on merge order. */
  public void merge(TailAccumulator other) {
    if (other.elements != elements || other.k != k) {
      throw new IllegalArgumentException(
          "[BUG] Cannot merge " + WHAT + " of " + other.elements + " elements, k=" + other.k
              + " into one of " + elements + " elements, k=" + k);
    }
    double[] a = new double[k];
    double[] b = new double[k];
    double[] merged = new double[k];
    for (int e = 0, h = 0; e < elements; e++, h += k) {
      int sa = filled[e];
      int sb = other.filled[e];
      int m = Math.min(k, sa + sb);
      // lower: the m smallest of both, stored descending (a valid max-heap)
      sortedCopy(lower, h, sa, a);
      sortedCopy(other.lower, h, sb, b);
      int i = 0;
      int j = 0;
      for (int t = 0; t < m; t++) {
        merged[t] = (j >= sb || (i < sa && !Bytes.less(b[j], a[i]))) ? a[i++] : b[j++];
      }
      for (int t = 0; t < m; t++) {
        lower[h + t] = merged[m - 1 - t];
      }
      // upper: the m largest of both, stored ascending (a valid min-heap)
      sortedCopy(upper, h, sa, a);
      sortedCopy(other.upper, h, sb, b);
      i = sa - 1;
      j = sb - 1;
      for (int t = m - 1; t >= 0; t--) {
        merged[t] = (j < 0 || (i >= 0 && !Bytes.less(a[i], b[j]))) ? a[i--] : b[j--];
      }
      System.arraycopy(merged, 0, upper, h, m);
      filled[e] = m;
      refreshRoots(e);
      undefined[e] += other.undefined[e];
    }
    n += other.n;
  }

  /** The exact rule for one value; update() calls it only when a root test could not rule it out. */
  private void insert(int e, double x) {
    if (x != x) {
      undefined[e]++;
      return;
    }
    int h = e * k;
    int s = filled[e];
    if (s < k) {
      siftUpMax(lower, h, s, x);
      siftUpMin(upper, h, s, x);
      filled[e] = s + 1;
      if (s + 1 == k) {
        lowerRoot[e] = lower[h];
        upperRoot[e] = upper[h];
      }
      return;
    }
    if (Bytes.less(x, lower[h])) {
      siftDownMax(lower, h, k, x);
      lowerRoot[e] = lower[h];
    }
    if (Bytes.less(upper[h], x)) {
      siftDownMin(upper, h, k, x);
      upperRoot[e] = upper[h];
    }
  }

  /** Re-derives the dense roots from the heaps (invariant 5). */
  private void refreshRoots(int e) {
    int h = e * k;
    boolean full = filled[e] == k;
    lowerRoot[e] = full ? lower[h] : Double.NaN;
    upperRoot[e] = full ? upper[h] : Double.NaN;
  }

  /** Replicates seen. */
  public long n() {
    return n;
  }

  public int k() {
    return k;
  }

  public int elements() {
    return elements;
  }

  public boolean isEmpty() {
    return n == 0;
  }

  /** NaN values seen for one element (a statistic undefined in those replicates). */
  public long undefinedCount(int element) {
    return undefined[checkElement(element)];
  }

  /**
   * numpy's linear percentile q ∈ [0, 100] of all n values seen for one element, from the retained
   * order statistics: rank j is lower[j] when j &lt; min(k, n), else upper[j - (n - min(k, n))].
   *
   * @throws IllegalStateException "[BUG] ..." when q needs a rank outside both tails (k too small)
   */
  public double percentile(int element, double q) {
    checkElement(element);
    double[] lo = new double[k];
    double[] hi = new double[k];
    return percentile(element, q, lo, hi);
  }

  /** {@link #percentile(int, double)} of every element into {@code out}. */
  public void percentiles(double q, double[] out) {
    if (out.length != elements) {
      throw new IllegalArgumentException(
          "[BUG] output must have " + elements + " elements, but had: " + out.length);
    }
    double[] lo = new double[k];
    double[] hi = new double[k];
    for (int e = 0; e < elements; e++) {
      out[e] = percentile(e, q, lo, hi);
    }
  }

  private double percentile(int e, double q, double[] lo, double[] hi) {
    if (n == 0) {
      throw new IllegalStateException(
          "Cannot take percentile " + q + " of element " + e + ": no replicates were accumulated");
    }
    if (undefined[e] > 0) {
      return Double.NaN;
    }
    final int m = filled[e];
    final long n = this.n;
    int h = e * k;
    sortedCopy(lower, h, m, lo);
    sortedCopy(upper, h, m, hi);
    final long upperStart = n - m;
    return NumpyPercentile.ofOrderStatistics(
        n,
        q,
        j -> j < m ? lo[(int) j] : hi[(int) (j - upperStart)],
        j -> j < m || j >= upperStart);
  }

  /** The retained smallest values of one element, sorted ascending (a copy). */
  public double[] lowerTail(int element) {
    int e = checkElement(element);
    double[] out = new double[filled[e]];
    sortedCopy(lower, e * k, filled[e], out);
    return out;
  }

  /** The retained largest values of one element, sorted ascending (a copy). */
  public double[] upperTail(int element) {
    int e = checkElement(element);
    double[] out = new double[filled[e]];
    sortedCopy(upper, e * k, filled[e], out);
    return out;
  }

  /** Canonical bytes: the layout in the class comment. */
  public byte[] toBytes() {
    long size = 2 + 4 + 4 + 8 + 8L * elements;
    for (int e = 0; e < elements; e++) {
      size += 16L * filled[e];
    }
    ByteBuffer b = Bytes.allocate(WHAT, size, MAGIC);
    b.putInt(elements).putInt(k).putLong(n);
    for (int e = 0; e < elements; e++) {
      b.putLong(undefined[e]);
    }
    double[] tmp = new double[k];
    for (int e = 0, h = 0; e < elements; e++, h += k) {
      int m = filled[e];
      sortedCopy(lower, h, m, tmp);
      for (int i = 0; i < m; i++) {
        b.putDouble(tmp[i]);
      }
      sortedCopy(upper, h, m, tmp);
      for (int i = 0; i < m; i++) {
        b.putDouble(tmp[i]);
      }
    }
    return b.array();
  }

  public static TailAccumulator fromBytes(byte[] bytes) {
    ByteBuffer b = Bytes.open(WHAT, bytes, MAGIC);
    try {
      int elements = b.getInt();
      int k = b.getInt();
      long n = b.getLong();
      if (elements < 0 || k < 1 || n < 0) {
        throw Bytes.corrupt(WHAT, "elements=" + elements + ", k=" + k + ", n=" + n
            + " (need elements >= 0, k >= 1, n >= 0)");
      }
      if (b.remaining() < 8L * elements) {
        throw Bytes.corrupt(WHAT, "the bytes are truncated");
      }
      TailAccumulator acc = new TailAccumulator(elements, k);
      acc.n = n;
      long expected = 0;
      for (int e = 0; e < elements; e++) {
        long u = b.getLong();
        if (u < 0 || u > n) {
          throw Bytes.corrupt(WHAT, "NaN count of element " + e + " must be in [0, " + n
              + "], but was: " + u);
        }
        acc.undefined[e] = u;
        acc.filled[e] = (int) Math.min(k, n - u);
        expected += 16L * acc.filled[e];
      }
      Bytes.expectRemaining(WHAT, b, expected);
      for (int e = 0, h = 0; e < elements; e++, h += k) {
        int m = acc.filled[e];
        for (int i = m - 1; i >= 0; i--) {
          acc.lower[h + i] = b.getDouble(); // ascending in, descending stored: a max-heap
        }
        for (int i = 0; i < m; i++) {
          acc.upper[h + i] = b.getDouble(); // ascending: a min-heap
        }
        acc.refreshRoots(e);
        for (int i = 1; i < m; i++) {
          if (!(acc.lower[h + i - 1] >= acc.lower[h + i]) || !(acc.upper[h + i - 1] <= acc.upper[h + i])) {
            throw Bytes.corrupt(WHAT, "the tails of element " + e + " are not sorted or hold NaN");
          }
        }
      }
      return acc;
    } catch (BufferUnderflowException e) {
      throw Bytes.truncated(WHAT, e);
    }
  }

  private int checkElement(int element) {
    if (element < 0 || element >= elements) {
      throw new IndexOutOfBoundsException(
          "element must be in [0, " + elements + "), but was: " + element);
    }
    return element;
  }

  /** Copies heap[h .. h+m) into out[0 .. m) sorted ascending (-0.0 before +0.0). */
  private static void sortedCopy(double[] heap, int h, int m, double[] out) {
    System.arraycopy(heap, h, out, 0, m);
    Arrays.sort(out, 0, m);
  }

  /** Inserts x into the max-heap heap[h .. h+s), growing it by one. */
  private static void siftUpMax(double[] heap, int h, int s, double x) {
    int i = s;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      double p = heap[h + parent];
      if (!Bytes.less(p, x)) {
        break;
      }
      heap[h + i] = p;
      i = parent;
    }
    heap[h + i] = x;
  }

  private static void siftUpMin(double[] heap, int h, int s, double x) {
    int i = s;
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      double p = heap[h + parent];
      if (!Bytes.less(x, p)) {
        break;
      }
      heap[h + i] = p;
      i = parent;
    }
    heap[h + i] = x;
  }

  /** Replaces the root of the full max-heap heap[h .. h+s) by x. */
  private static void siftDownMax(double[] heap, int h, int s, double x) {
    int i = 0;
    int half = s >>> 1;
    while (i < half) {
      int c = 2 * i + 1;
      double cv = heap[h + c];
      int right = c + 1;
      if (right < s && Bytes.less(cv, heap[h + right])) {
        c = right;
        cv = heap[h + c];
      }
      if (!Bytes.less(x, cv)) {
        break;
      }
      heap[h + i] = cv;
      i = c;
    }
    heap[h + i] = x;
  }

  private static void siftDownMin(double[] heap, int h, int s, double x) {
    int i = 0;
    int half = s >>> 1;
    while (i < half) {
      int c = 2 * i + 1;
      double cv = heap[h + c];
      int right = c + 1;
      if (right < s && Bytes.less(heap[h + right], cv)) {
        c = right;
        cv = heap[h + c];
      }
      if (!Bytes.less(cv, x)) {
        break;
      }
      heap[h + i] = cv;
      i = c;
    }
    heap[h + i] = x;
  }
}
