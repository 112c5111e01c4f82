package org.nlspark.core.accumulate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.nlspark.core.stats.NumpyPercentile;
import org.nlspark.core.simd.Simd;

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
 *  3. Values are kept as sortable keys (a monotone map of the total order -0.0 &lt; +0.0, so the
 *     retained multiset is unique and merge order cannot change it).
 *  4. The lower region of e, lo[e*2k .. e*2k + loN[e]), contains the min(k, seen) smallest values
 *     seen (seen = n - undefined[e]) plus at most k later candidates; likewise hi for the largest.
 *     {@link #settle} selects exactly the min(k, seen) extremes (what every reader sees).
 *  5. While seen &lt; k the thresholds are NaN and every value is kept; afterwards loTau[e] is the
 *     largest of the k smallest as of the last settle — only values below it (total order) can
 *     still be among the k smallest — and hiTau[e] the mirror for the largest.
 *  6. toBytes() stores each tail sorted ascending, so equal state gives equal bytes.
 * </pre>
 *
 * <p>Serialized layout (big-endian): byte magic 'T' (0x54), byte version 2, int elements, int k,
 * long n, long[elements] undefined, then per element e: min(k, seen) doubles of the lower tail
 * ascending followed as many doubles of the upper tail ascending.
 *
 * <p>{@link #upperOnly} keeps the largest k only (the per-voxel null tails of the tail
 * approximation, where the smallest are never read): no lower region, half the memory and work;
 * the same upper tail, bit for bit, as the two-ended accumulator fed the same values. Its form
 * is the same layout without the lower tails, under magic 'U' ({@link
 * PartialFamily#UPPER_TAIL_ACCUMULATOR}); percentiles need both ends and are refused.
 *
 * <p>The update is on the hot path (B = 5,000 × 20,000 voxels, k = 126). It runs element by
 * element over an element-major copy of a few columns: a vector of one element's values strictly
 * inside both thresholds costs one test; other values are appended to their regions without
 * branches (no sifting); when a region holds 2k values, a branch-free quickselect keeps the k
 * extremes and tightens the threshold — a few operations per candidate instead of a heap's
 * unpredictable sift over log2(k) levels. The row-major path it replaced stays behind a
 * package-private switch, so tests compare the two bit for bit.
 */
public final class TailAccumulator {
  private static final PartialFamily FAMILY = PartialFamily.TAIL_ACCUMULATOR;
  private static final PartialFamily UPPER_FAMILY = PartialFamily.UPPER_TAIL_ACCUMULATOR;
  private static final String WHAT = "TailAccumulator";
  /** Columns copied element-major at a time by the element path: one cache line of a row. */
  private static final int COLUMN_BLOCK = 8;

  private final int elements;
  private final int k;
  /** Only the largest k are kept: no lower region ({@link #upperOnly}). */
  private final boolean upperOnly;
  private final int cap;
  private long n;
  private final long[] undefined;
  private final long[] lo;
  private final long[] hi;
  private final int[] loN;
  private final int[] hiN;
  private final double[] loTau;
  private final double[] hiTau;
  private final long[] scratch;
  /** Elements started at given bounds ({@link #seed}) until {@link #endSeeding}; else null. */
  private boolean[] seeded;
  /** SIMD threshold tests (package-private switch so tests can compare paths). */
  boolean simd = Simd.enabled();
  private double[] columns;

  public TailAccumulator(int elements, int k) {
    this(elements, k, false);
  }

  /** An accumulator of the k largest values per element only (class comment). */
  public static TailAccumulator upperOnly(int elements, int k) {
    return new TailAccumulator(elements, k, true);
  }

  private TailAccumulator(int elements, int k, boolean upperOnly) {
    if (elements < 0) {
      throw new IllegalArgumentException("elements must be >= 0, but was: " + elements);
    }
    if (k < 1) {
      throw new IllegalArgumentException("Retained tail size k must be >= 1, but was: " + k);
    }
    long cells = (long) elements * k * 2;
    if (cells > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "Cannot allocate tails of " + elements + " elements x k=" + k + ": " + cells
              + " values exceed one array; use smaller voxel blocks");
    }
    this.elements = elements;
    this.k = k;
    this.upperOnly = upperOnly;
    this.cap = 2 * k;
    this.undefined = new long[elements];
    this.lo = new long[upperOnly ? 0 : (int) cells];
    this.hi = new long[(int) cells];
    this.loN = new int[elements];
    this.hiN = new int[elements];
    this.loTau = new double[elements];
    this.hiTau = new double[elements];
    this.scratch = new long[cap];
    Arrays.fill(loTau, Double.NaN);
    Arrays.fill(hiTau, Double.NaN);
  }

  /** Sortable key: monotone in the total order of doubles (-0.0 &lt; +0.0); its own inverse. */
  static long key(double x) {
    long bits = Double.doubleToRawLongBits(x);
    return bits ^ ((bits >> 63) & 0x7FFFFFFFFFFFFFFFL);
  }

  static double value(long key) {
    return Double.longBitsToDouble(key ^ ((key >> 63) & 0x7FFFFFFFFFFFFFFFL));
  }

  /**
   * Starts each element at given bounds instead of filling ({@link TailSeeds}): from the first
   * value on, only values strictly below
   * {@code lower[e]} (above {@code upper[e]}) are kept, and each end settles on its own. Far
   * fewer values then enter the regions than when the thresholds start from the first k values
   * seen. A bound that held back too much leaves an end with fewer than min(k, seen) values:
   * {@link #shortElements} names those elements, whose exact tails must come from a fresh
   * accumulator fed the same values ({@link #adopt}) before {@link #endSeeding}; afterwards the
   * state is that of an unseeded accumulator with the same retained multisets (same bytes). An
   * element whose bound is not finite is not seeded.
   */
  public void seed(double[] lower, double[] upper) {
    if (upperOnly || n != 0 || seeded != null) {
      throw new IllegalStateException("[BUG] Only an empty two-ended " + WHAT + " can be seeded");
    }
    if (lower.length != elements || upper.length != elements) {
      throw new IllegalArgumentException("[BUG] bounds must have " + elements + " elements");
    }
    seeded = new boolean[elements];
    for (int e = 0; e < elements; e++) {
      if (Double.isFinite(lower[e]) && Double.isFinite(upper[e])) {
        seeded[e] = true;
        loTau[e] = lower[e];
        hiTau[e] = upper[e];
      }
    }
  }

  /** Seeded elements that hold fewer than min(k, seen) values at an end (ascending). */
  public int[] shortElements() {
    requireSeeding("list short elements");
    int count = 0;
    int[] out = new int[elements];
    for (int e = 0; e < elements; e++) {
      long need = Math.min(k, n - undefined[e]);
      if (seeded[e] && (loN[e] < need || hiN[e] < need)) {
        out[count++] = e;
      }
    }
    return Arrays.copyOf(out, count);
  }

  /**
   * Takes element {@code e}'s state from element {@code se} of {@code source}, an unseeded
   * accumulator with the same k that saw the same replicates of that element.
   */
  public void adopt(int e, TailAccumulator source, int se) {
    requireSeeding("adopt an element");
    if (source.k != k || source.n != n || source.upperOnly || source.seeded != null) {
      throw new IllegalArgumentException("[BUG] Cannot adopt from a " + WHAT + " of k=" + source.k
          + " and " + source.n + " replicates into one of k=" + k + " and " + n);
    }
    checkElement(e);
    source.checkElement(se);
    source.settle(se);
    System.arraycopy(source.lo, se * cap, lo, e * cap, source.loN[se]);
    System.arraycopy(source.hi, se * cap, hi, e * cap, source.hiN[se]);
    loN[e] = source.loN[se];
    hiN[e] = source.hiN[se];
    undefined[e] = source.undefined[se];
    loTau[e] = source.loTau[se];
    hiTau[e] = source.hiTau[se];
    seeded[e] = false;
  }

  /** Back to the unseeded invariants (class comment); every short element must be adopted. */
  public void endSeeding() {
    if (shortElements().length > 0) {
      throw new IllegalStateException("[BUG] " + WHAT + " still has short seeded elements");
    }
    for (int e = 0; e < elements; e++) {
      if (seeded[e]) {
        settle(e);
        seeded[e] = false;
        refreshThresholds(e);
      }
    }
    seeded = null;
  }

  private void requireSeeding(String verb) {
    if (seeded == null) {
      throw new IllegalStateException("[BUG] Cannot " + verb + ": the " + WHAT + " is not seeded");
    }
  }

  private void requireNotSeeding(String verb) {
    if (seeded != null) {
      throw new IllegalStateException("[BUG] Cannot " + verb + " of a seeded " + WHAT
          + " before endSeeding()");
    }
  }

  /** Adds {@code rows} replicates from a row-major window buffer; {@code cols} must equal elements. */
  public void update(double[] buf, int offset, int rows, int cols) {
    if (cols != elements) {
      throw new IllegalArgumentException(
          "Cannot update " + WHAT + ": window has " + cols + " columns, but the accumulator has "
              + elements + " elements");
    }
    Bytes.checkWindow(WHAT, buf, offset, rows, cols);
    updateByElement(buf, offset, rows, cols);
    n += rows;
  }

  /**
   * The same offers per element in the same order as {@link #updateByOffers}: a few
   * columns at a time are copied element-major (a window's rows are a large stride apart), then
   * each element runs over its values with its thresholds and region sizes in registers. Between
   * two settles nothing changes the thresholds, so a run of values is appended without branches
   * (each value is written at the region's end and the end advances when it belongs); with SIMD,
   * a vector of values strictly inside both thresholds is skipped after one test. Measured on
   * 1024 elements x B = 5,000, k = 126 (AMD EPYC Zen 4): about 1.3x the row path's throughput; a
   * scalar test of four values before appending was slower than appending every value.
   */
  private void updateByElement(double[] buf, int offset, int rows, int cols) {
    if (columns == null || columns.length < rows * COLUMN_BLOCK) {
      columns = new double[rows * COLUMN_BLOCK];
    }
    final double[] column = columns;
    for (int c0 = 0; c0 < cols; c0 += COLUMN_BLOCK) {
      final int width = Math.min(COLUMN_BLOCK, cols - c0);
      for (int r = 0; r < rows; r++) {
        final int src = offset + r * cols + c0;
        for (int j = 0; j < width; j++) {
          column[j * rows + r] = buf[src + j];
        }
      }
      for (int j = 0; j < width; j++) {
        if (upperOnly) {
          updateUpperElement(c0 + j, column, j * rows, j * rows + rows);
        } else {
          updateElement(c0 + j, column, j * rows, j * rows + rows);
        }
      }
    }
  }

  /** Values x[from .. to) of element e, in replicate order. */
  private void updateElement(int e, double[] x, int from, int to) {
    int i = from;
    while (i < to && Double.isNaN(loTau[e])) { // filling
      offer(e, x[i++]);
    }
    final int base = e * cap;
    final long[] lo = this.lo;
    final long[] hi = this.hi;
    while (i < to) {
      final double loT = loTau[e];
      final double hiT = hiTau[e];
      final long kLo = key(loT);
      final long kHi = key(hiT);
      int nl = loN[e];
      int nh = hiN[e];
      // the fuller region can be full only at the run's last value: settles happen where the
      // row path's offer() would settle
      final int stop = Math.min(to, i + cap - Math.max(nl, nh));
      int nan = 0;
      if (simd) { // whole vectors strictly inside both thresholds are skipped after one test
        final int lanes = VectorTailScan.length();
        for (; i + lanes <= stop; i += lanes) {
          if (VectorTailScan.allInside(x, i, loT, hiT)) {
            continue;
          }
          for (int j = i; j < i + lanes; j++) {
            final double v = x[j];
            final long kv = key(v);
            final boolean defined = v == v;
            lo[base + nl] = kv;
            nl += (defined & kv < kLo) ? 1 : 0;
            hi[base + nh] = kv;
            nh += (defined & kv > kHi) ? 1 : 0;
            nan += defined ? 0 : 1;
          }
        }
      }
      for (; i < stop; i++) {
        final double v = x[i];
        final long kv = key(v);
        final boolean defined = v == v;
        lo[base + nl] = kv;
        nl += (defined & kv < kLo) ? 1 : 0;
        hi[base + nh] = kv;
        nh += (defined & kv > kHi) ? 1 : 0;
        nan += defined ? 0 : 1;
      }
      loN[e] = nl;
      hiN[e] = nh;
      undefined[e] += nan;
      if (nl == cap) {
        settleLower(e);
      }
      if (nh == cap) {
        settleUpper(e);
      }
    }
  }

  /** {@link #updateElement} of an upper-only accumulator: the same upper region, no lower. */
  private void updateUpperElement(int e, double[] x, int from, int to) {
    int i = from;
    while (i < to && Double.isNaN(hiTau[e])) { // filling
      offerUpper(e, x[i++]);
    }
    final int base = e * cap;
    final long[] hi = this.hi;
    while (i < to) {
      final double hiT = hiTau[e];
      final long kHi = key(hiT);
      int nh = hiN[e];
      final int stop = Math.min(to, i + cap - nh); // the region can be full only at the end
      int nan = 0;
      if (simd) { // whole vectors below the threshold are skipped after one test
        final int lanes = VectorTailScan.length();
        for (; i + lanes <= stop; i += lanes) {
          if (VectorTailScan.allInside(x, i, Double.NEGATIVE_INFINITY, hiT)) {
            continue;
          }
          for (int j = i; j < i + lanes; j++) {
            final double v = x[j];
            final long kv = key(v);
            final boolean defined = v == v;
            hi[base + nh] = kv;
            nh += (defined & kv > kHi) ? 1 : 0;
            nan += defined ? 0 : 1;
          }
        }
      }
      for (; i < stop; i++) {
        final double v = x[i];
        final long kv = key(v);
        final boolean defined = v == v;
        hi[base + nh] = kv;
        nh += (defined & kv > kHi) ? 1 : 0;
        nan += defined ? 0 : 1;
      }
      hiN[e] = nh;
      undefined[e] += nan;
      if (nh == cap) {
        settleUpper(e);
      }
    }
  }

  /** {@link #offer} of an upper-only accumulator. */
  private void offerUpper(int e, double x) {
    if (x != x) {
      undefined[e]++;
      return;
    }
    long kx = key(x);
    int base = e * cap;
    if (Double.isNaN(hiTau[e])) { // filling
      int s = hiN[e];
      hi[base + s] = kx;
      hiN[e] = s + 1;
      if (s + 1 == k) {
        refreshThresholds(e);
      }
      return;
    }
    if (kx > key(hiTau[e])) {
      hi[base + hiN[e]++] = kx;
      if (hiN[e] == cap) {
        settleUpper(e);
      }
    }
  }

  /**
   * The definition {@link #update} must equal bit for bit: every value offered to the exact rule,
   * row by row (for tests; the update skips values that cannot enter and settles in batches).
   */
  void updateByOffers(double[] buf, int offset, int rows, int cols) {
    for (int r = 0; r < rows; r++) {
      for (int e = 0; e < cols; e++) {
        if (upperOnly) {
          offerUpper(e, buf[offset + r * cols + e]);
        } else {
          offer(e, buf[offset + r * cols + e]);
        }
      }
    }
    n += rows;
  }

  /** The exact rule for one value. */
  private void offer(int e, double x) {
    if (x != x) {
      undefined[e]++;
      return;
    }
    long kx = key(x);
    int base = e * cap;
    if (Double.isNaN(loTau[e])) { // filling: fewer than k values seen, all are kept at both ends
      int s = loN[e];
      lo[base + s] = kx;
      hi[base + s] = kx;
      loN[e] = s + 1;
      hiN[e] = s + 1;
      if (s + 1 == k) {
        refreshThresholds(e);
      }
      return;
    }
    if (kx < key(loTau[e])) {
      lo[base + loN[e]++] = kx;
      if (loN[e] == cap) {
        settleLower(e);
      }
    }
    if (kx > key(hiTau[e])) {
      hi[base + hiN[e]++] = kx;
      if (hiN[e] == cap) {
        settleUpper(e);
      }
    }
  }

  /** Keeps exactly the k smallest of the lower region; tightens the threshold. */
  private void settleLower(int e) {
    int m = loN[e];
    if (m > k) {
      int base = e * cap;
      QuickSelect.select(lo, base, base + m, base + k - 1);
      loN[e] = k;
    }
    if (seeded != null && seeded[e]) { // its ends settle one at a time
      loTau[e] = value(regionMax(lo, e * cap, loN[e]));
    } else {
      refreshThresholds(e);
    }
  }

  private void settleUpper(int e) {
    int m = hiN[e];
    if (m > k) {
      int base = e * cap;
      // the k largest: move them to the front by selecting on the mirrored order
      QuickSelect.select(hi, base, base + m, base + m - k);
      System.arraycopy(hi, base + m - k, scratch, 0, k);
      System.arraycopy(scratch, 0, hi, base, k);
      hiN[e] = k;
    }
    if (seeded != null && seeded[e]) {
      hiTau[e] = value(regionMin(hi, e * cap, hiN[e]));
    } else {
      refreshThresholds(e);
    }
  }

  /** Brings element e to exactly min(k, seen) values at each end (invariant 4). */
  private void settle(int e) {
    if (loN[e] > k) {
      settleLower(e);
    }
    if (hiN[e] > k) {
      settleUpper(e);
    }
  }

  /** Invariant 5 from the current regions (call when each holds at most k values). */
  private void refreshThresholds(int e) {
    int base = e * cap;
    if (upperOnly) {
      long min = Long.MAX_VALUE;
      for (int i = 0; i < hiN[e]; i++) {
        min = Math.min(min, hi[base + i]);
      }
      hiTau[e] = hiN[e] < k ? Double.NaN : value(min);
      return;
    }
    if (loN[e] < k) {
      loTau[e] = Double.NaN;
      hiTau[e] = Double.NaN;
      return;
    }
    loTau[e] = value(regionMax(lo, base, loN[e]));
    hiTau[e] = value(regionMin(hi, base, hiN[e]));
  }

  private static long regionMax(long[] region, int base, int m) {
    long max = Long.MIN_VALUE;
    for (int i = 0; i < m; i++) {
      max = Math.max(max, region[base + i]);
    }
    return max;
  }

  private static long regionMin(long[] region, int base, int m) {
    long min = Long.MAX_VALUE;
    for (int i = 0; i < m; i++) {
      min = Math.min(min, region[base + i]);
    }
    return min;
  }

  /** Adds another accumulator of the same shape; the result does not depend on merge order. */
  public void merge(TailAccumulator other) {
    requireNotSeeding("merge");
    other.requireNotSeeding("merge");
    if (other.elements != elements || other.k != k || other.upperOnly != upperOnly) {
      throw new IllegalArgumentException(
          "[BUG] Cannot merge " + WHAT + " of " + other.elements + " elements, k=" + other.k
              + (other.upperOnly ? " (upper only)" : "") + " into one of " + elements
              + " elements, k=" + k + (upperOnly ? " (upper only)" : ""));
    }
    if (n == 0 && other.n > 0) { // merging into a fresh accumulator: take the other's state
      System.arraycopy(other.lo, 0, lo, 0, lo.length);
      System.arraycopy(other.hi, 0, hi, 0, hi.length);
      System.arraycopy(other.loN, 0, loN, 0, elements);
      System.arraycopy(other.hiN, 0, hiN, 0, elements);
      System.arraycopy(other.loTau, 0, loTau, 0, elements);
      System.arraycopy(other.hiTau, 0, hiTau, 0, elements);
      System.arraycopy(other.undefined, 0, undefined, 0, elements);
      n = other.n;
      return;
    }
    long[] a = new long[cap];
    long[] b = new long[cap];
    if (upperOnly) {
      mergeUpper(other, a, b);
      return;
    }
    for (int e = 0; e < elements; e++) {
      settle(e);
      other.settle(e);
      int base = e * cap;
      int sa = loN[e];
      int sb = other.loN[e];
      int m = Math.min(k, sa + sb);
      // lower: the m smallest of both
      sortedKeys(lo, base, sa, a);
      sortedKeys(other.lo, base, sb, b);
      int i = 0;
      int j = 0;
      for (int t = 0; t < m; t++) {
        lo[base + t] = (j >= sb || (i < sa && a[i] <= b[j])) ? a[i++] : b[j++];
      }
      loN[e] = m;
      // upper: the m largest of both
      sortedKeys(hi, base, sa, a);
      sortedKeys(other.hi, base, sb, b);
      i = sa - 1;
      j = sb - 1;
      for (int t = m - 1; t >= 0; t--) {
        hi[base + t] = (j < 0 || (i >= 0 && a[i] >= b[j])) ? a[i--] : b[j--];
      }
      hiN[e] = m;
      undefined[e] += other.undefined[e];
      refreshThresholds(e);
    }
    n += other.n;
  }

  /** {@link #merge} of upper-only accumulators: the m largest of both, m = min(k, sa + sb). */
  private void mergeUpper(TailAccumulator other, long[] a, long[] b) {
    for (int e = 0; e < elements; e++) {
      settle(e);
      other.settle(e);
      int base = e * cap;
      int sa = hiN[e];
      int sb = other.hiN[e];
      int m = Math.min(k, sa + sb);
      sortedKeys(hi, base, sa, a);
      sortedKeys(other.hi, base, sb, b);
      int i = sa - 1;
      int j = sb - 1;
      for (int t = m - 1; t >= 0; t--) {
        hi[base + t] = (j < 0 || (i >= 0 && a[i] >= b[j])) ? a[i--] : b[j--];
      }
      hiN[e] = m;
      undefined[e] += other.undefined[e];
      refreshThresholds(e);
    }
    n += other.n;
  }

  /** Whether only the largest k are kept ({@link #upperOnly}). */
  public boolean isUpperOnly() {
    return upperOnly;
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
    return percentile(element, q, new double[cap], new double[cap]);
  }

  /** {@link #percentile(int, double)} of every element into {@code out}. */
  public void percentiles(double q, double[] out) {
    if (out.length != elements) {
      throw new IllegalArgumentException(
          "[BUG] output must have " + elements + " elements, but had: " + out.length);
    }
    double[] lo = new double[cap];
    double[] hi = new double[cap];
    for (int e = 0; e < elements; e++) {
      out[e] = percentile(e, q, lo, hi);
    }
  }

  /**
   * Two percentiles of every element (a confidence interval) with one sort of each tail per
   * element: {@code outLow[e]} = percentile qLow, {@code outHigh[e]} = percentile qHigh.
   */
  public void interval(double qLow, double qHigh, double[] outLow, double[] outHigh) {
    if (outLow.length != elements || outHigh.length != elements) {
      throw new IllegalArgumentException("[BUG] outputs must have " + elements + " elements");
    }
    double[] lo = new double[cap];
    double[] hi = new double[cap];
    for (int e = 0; e < elements; e++) {
      if (prepareSorted(e, qLow, lo, hi)) {
        outLow[e] = fromSorted(e, qLow, lo, hi);
        outHigh[e] = fromSorted(e, qHigh, lo, hi);
      } else {
        outLow[e] = Double.NaN;
        outHigh[e] = Double.NaN;
      }
    }
  }

  private double percentile(int e, double q, double[] lower, double[] upper) {
    return prepareSorted(e, q, lower, upper) ? fromSorted(e, q, lower, upper) : Double.NaN;
  }

  /** Sorts element e's tails into lower/upper; false when its percentiles are NaN. */
  private boolean prepareSorted(int e, double q, double[] lower, double[] upper) {
    requireBothEnds("take a percentile");
    requireNotSeeding("take a percentile");
    if (n == 0) {
      throw new IllegalStateException(
          "Cannot take percentile " + q + " of element " + e + ": no replicates were accumulated");
    }
    if (undefined[e] > 0) {
      return false;
    }
    settle(e);
    sortedValues(lo, e * cap, loN[e], lower);
    sortedValues(hi, e * cap, loN[e], upper);
    return true;
  }

  private double fromSorted(int e, double q, double[] lower, double[] upper) {
    final int m = loN[e];
    final long n = this.n;
    final long upperStart = n - m;
    return NumpyPercentile.ofOrderStatistics(
        n,
        q,
        j -> j < m ? lower[(int) j] : upper[(int) (j - upperStart)],
        j -> j < m || j >= upperStart);
  }

  /** The retained smallest values of one element, sorted ascending (a copy). */
  public double[] lowerTail(int element) {
    requireBothEnds("read the lower tail");
    requireNotSeeding("read the lower tail");
    int e = checkElement(element);
    settle(e);
    double[] out = new double[loN[e]];
    sortedValues(lo, e * cap, loN[e], out);
    return out;
  }

  /** The retained largest values of one element, sorted ascending (a copy). */
  public double[] upperTail(int element) {
    requireNotSeeding("read the upper tail");
    int e = checkElement(element);
    settle(e);
    double[] out = new double[hiN[e]];
    sortedValues(hi, e * cap, hiN[e], out);
    return out;
  }

  private void requireBothEnds(String verb) {
    if (upperOnly) {
      throw new IllegalStateException("[BUG] Cannot " + verb + " of an upper-only " + WHAT
          + ": it keeps the largest values only");
    }
  }

  /** Canonical bytes: the layout in the class comment. */
  public byte[] toBytes() {
    requireNotSeeding("serialize");
    if (upperOnly) {
      return upperToBytes();
    }
    long size = 2 + 4 + 4 + 8 + 8L * elements;
    for (int e = 0; e < elements; e++) {
      settle(e);
      size += 8L * (loN[e] + hiN[e]);
    }
    ByteBuffer b = Bytes.allocate(WHAT, size, FAMILY);
    b.putInt(elements).putInt(k).putLong(n);
    Bytes.putLongs(b, undefined);
    double[] tmp = new double[cap];
    for (int e = 0; e < elements; e++) {
      int m = loN[e];
      sortedValues(lo, e * cap, m, tmp);
      Bytes.putDoubles(b, tmp, m);
      sortedValues(hi, e * cap, m, tmp);
      Bytes.putDoubles(b, tmp, m);
    }
    return b.array();
  }

  /** The upper-only form: the two-ended layout without the lower tails, magic 'U'. */
  private byte[] upperToBytes() {
    long size = 2 + 4 + 4 + 8 + 8L * elements;
    for (int e = 0; e < elements; e++) {
      settle(e);
      size += 8L * hiN[e];
    }
    ByteBuffer b = Bytes.allocate(WHAT, size, UPPER_FAMILY);
    b.putInt(elements).putInt(k).putLong(n);
    Bytes.putLongs(b, undefined);
    double[] tmp = new double[cap];
    for (int e = 0; e < elements; e++) {
      int m = hiN[e];
      sortedValues(hi, e * cap, m, tmp);
      Bytes.putDoubles(b, tmp, m);
    }
    return b.array();
  }

  /** Reads either form ('T' two-ended, 'U' upper-only). */
  public static TailAccumulator fromBytes(byte[] bytes) {
    boolean upper = bytes != null && bytes.length >= 2 && bytes[0] == UPPER_FAMILY.id();
    ByteBuffer b = Bytes.open(WHAT, bytes, upper ? UPPER_FAMILY : FAMILY);
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
      TailAccumulator acc = new TailAccumulator(elements, k, upper);
      acc.n = n;
      long expected = 0;
      int[] filled = new int[elements];
      Bytes.getLongs(b, acc.undefined);
      for (int e = 0; e < elements; e++) {
        long u = acc.undefined[e];
        if (u < 0 || u > n) {
          throw Bytes.corrupt(WHAT, "NaN count of element " + e + " must be in [0, " + n
              + "], but was: " + u);
        }
        filled[e] = (int) Math.min(k, n - u);
        expected += (upper ? 8L : 16L) * filled[e];
      }
      Bytes.expectRemaining(WHAT, b, expected);
      double[] tmp = new double[acc.cap];
      for (int e = 0; e < elements; e++) {
        int m = filled[e];
        int base = e * acc.cap;
        if (upper) {
          readUpper(acc, b, e, m, tmp);
          continue;
        }
        readSortedKeys(b, tmp, m, acc.lo, base, e, false);
        readSortedKeys(b, tmp, m, acc.hi, base, e, false);
        acc.loN[e] = m;
        acc.hiN[e] = m;
        acc.refreshThresholds(e);
      }
      return acc;
    } catch (BufferUnderflowException e) {
      throw Bytes.truncated(WHAT, e);
    }
  }

  private static void readUpper(TailAccumulator acc, ByteBuffer b, int e, int m,
      double[] tmp) {
    readSortedKeys(b, tmp, m, acc.hi, e * acc.cap, e, true);
    acc.hiN[e] = m;
    acc.refreshThresholds(e);
  }

  /**
   * Reads m ascending values into region[base ..) as keys, refusing unsorted or NaN values.
   * Its own small method on purpose: the driver calls it for each tail of every element of every
   * tile, so C2 compiles it alone in a few ms; inlined in {@link #fromBytes}, the whole
   * reader was one on-stack-replacement compile of 0.2-0.3 s inside a cold job
   * (docs/performance.md, "The fold's per-window methods").
   *
   * @param upperOnly whether this is the upper-only form (its message speaks of one tail)
   */
  private static void readSortedKeys(ByteBuffer b, double[] tmp, int m, long[] region,
      int base, int e, boolean upperOnly) {
    Bytes.getDoubles(b, tmp, m);
    double prev = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < m; i++) {
      double v = tmp[i];
      if (!(v >= prev)) {
        throw Bytes.corrupt(WHAT, upperOnly
            ? "the tail of element " + e + " is not sorted or holds NaN"
            : "the tails of element " + e + " are not sorted or hold NaN");
      }
      prev = v;
      region[base + i] = key(v);
    }
  }

  private int checkElement(int element) {
    if (element < 0 || element >= elements) {
      throw new IndexOutOfBoundsException(
          "element must be in [0, " + elements + "), but was: " + element);
    }
    return element;
  }

  private static void sortedKeys(long[] region, int base, int m, long[] out) {
    System.arraycopy(region, base, out, 0, m);
    Arrays.sort(out, 0, m);
  }

  /** region[base .. base+m) as doubles sorted ascending (-0.0 before +0.0). */
  private static void sortedValues(long[] region, int base, int m, double[] out) {
    long[] keys = new long[m];
    System.arraycopy(region, base, keys, 0, m);
    Arrays.sort(keys);
    for (int i = 0; i < m; i++) {
      out[i] = value(keys[i]);
    }
  }
}
