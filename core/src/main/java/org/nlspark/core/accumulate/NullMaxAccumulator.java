package org.nlspark.core.accumulate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Per replicate, the maximum extremeness key over all elements: the null distribution of the
 * max-statistic FWER rule (DESIGN §4), P values instead of P × V. Covers replicates
 * [first, first + length). Merging takes the maximum where ranges overlap (other voxel blocks of
 * the same replicates) and the union where they meet (other replicate windows); a gap between
 * ranges is a broken invariant.
 *
 * <pre>
 * Invariants
 *  1. maxima[i] is the largest non-NaN key seen for replicate first + i, under the total order
 *     -0.0 &lt; +0.0 (so merge order cannot pick a different zero); -Infinity when none was seen.
 *  2. seen[i] is true once any row of replicate first + i was updated, even if all its keys were
 *     NaN; n() counts them.
 *  3. Ranges only grow, and only by union with an overlapping or adjacent range.
 * </pre>
 *
 * <p>Serialized layout (big-endian): byte magic 'N' (0x4e), byte version 2, long first,
 * int length, byte[length] seen (0 or 1), double[length] maxima.
 */
public final class NullMaxAccumulator {
  private static final PartialFamily FAMILY = PartialFamily.NULL_MAX_ACCUMULATOR;
  private static final String WHAT = "NullMaxAccumulator";

  private long first;
  private double[] maxima;
  private boolean[] seen;

  public NullMaxAccumulator(long firstReplicate, int length) {
    ReplicateRange.checkNew(WHAT, firstReplicate, length);
    this.first = firstReplicate;
    this.maxima = new double[length];
    this.seen = new boolean[length];
    Arrays.fill(maxima, Double.NEGATIVE_INFINITY);
  }

  /**
   * Folds a row-major window of keys, {@code rows} replicates starting at replicate
   * {@code firstReplicateOfRows}, × {@code cols} elements (any voxel block). NaN keys are ignored.
   */
  public void update(double[] keys, int offset, int rows, int cols, long firstReplicateOfRows) {
    Bytes.checkWindow(WHAT, keys, offset, rows, cols);
    ReplicateRange.checkInside(WHAT, first, maxima.length, firstReplicateOfRows, rows);
    int base = (int) (firstReplicateOfRows - first);
    for (int r = 0; r < rows; r++) {
      int row = offset + r * cols;
      double m = maxima[base + r];
      for (int e = 0; e < cols; e++) {
        double x = keys[row + e];
        if (Bytes.less(m, x)) { // false for NaN
          m = x;
        }
      }
      maxima[base + r] = m;
      seen[base + r] = true;
    }
  }

  /**
   * Folds per-replicate maxima that a fused kernel epilogue already reduced over one block's
   * elements: {@code rowMaxima[0, rows)} for replicates starting at {@code firstReplicateOfRows}.
   */
  public void updateRowMaxima(double[] rowMaxima, int rows, long firstReplicateOfRows) {
    ReplicateRange.checkInside(WHAT, first, maxima.length, firstReplicateOfRows, rows);
    int base = (int) (firstReplicateOfRows - first);
    for (int r = 0; r < rows; r++) {
      double x = rowMaxima[r];
      if (Bytes.less(maxima[base + r], x)) { // false for NaN
        maxima[base + r] = x;
      }
      seen[base + r] = true;
    }
  }

  /** Max where the ranges overlap, union of the ranges; a gap throws "[BUG] ...". */
  public void merge(NullMaxAccumulator other) {
    if (other.maxima.length == 0) {
      return;
    }
    if (maxima.length == 0) {
      first = other.first;
      maxima = other.maxima.clone();
      seen = other.seen.clone();
      return;
    }
    if (other.first >= first && other.first + other.maxima.length <= first + maxima.length) {
      foldInto(maxima, seen, first, other); // inside this range: no reallocation (driver hot path)
      return;
    }
    long[] u = ReplicateRange.union(WHAT, first, maxima.length, other.first, other.maxima.length);
    double[] m = new double[(int) u[1]];
    boolean[] s = new boolean[m.length];
    Arrays.fill(m, Double.NEGATIVE_INFINITY);
    foldInto(m, s, u[0], this);
    foldInto(m, s, u[0], other);
    first = u[0];
    maxima = m;
    seen = s;
  }

  private static void foldInto(double[] m, boolean[] s, long unionFirst, NullMaxAccumulator a) {
    int base = (int) (a.first - unionFirst);
    for (int i = 0; i < a.maxima.length; i++) {
      double x = a.maxima[i];
      if (Bytes.less(m[base + i], x)) {
        m[base + i] = x;
      }
      s[base + i] |= a.seen[i];
    }
  }

  public long firstReplicate() {
    return first;
  }

  public int length() {
    return maxima.length;
  }

  /** Replicates in range that received at least one update. */
  public long n() {
    long c = 0;
    for (boolean b : seen) {
      if (b) {
        c++;
      }
    }
    return c;
  }

  public boolean isEmpty() {
    return n() == 0;
  }

  /** Per-replicate maxima (a copy), index i for replicate firstReplicate() + i. */
  public double[] maxima() {
    return maxima.clone();
  }

  public byte[] toBytes() {
    int len = maxima.length;
    ByteBuffer b = Bytes.allocate(WHAT, 2 + 8 + 4 + 9L * len, FAMILY);
    b.putLong(first).putInt(len);
    Bytes.putFlags(b, seen);
    Bytes.putDoubles(b, maxima, len);
    return b.array();
  }

  public static NullMaxAccumulator fromBytes(byte[] bytes) {
    ByteBuffer b = Bytes.open(WHAT, bytes, FAMILY);
    try {
      long first = b.getLong();
      int len = b.getInt();
      if (first < 0 || len < 0) {
        throw Bytes.corrupt(WHAT, "first=" + first + ", length=" + len + " (need both >= 0)");
      }
      Bytes.expectRemaining(WHAT, b, 9L * len);
      NullMaxAccumulator acc = new NullMaxAccumulator(first, len);
      byte[] flags = new byte[len];
      b.get(flags);
      for (int i = 0; i < len; i++) {
        byte s = flags[i];
        if (s != 0 && s != 1) {
          throw Bytes.corrupt(WHAT, "seen flag of replicate " + (first + i) + " must be 0 or 1,"
              + " but was: " + s);
        }
        acc.seen[i] = s == 1;
      }
      Bytes.getDoubles(b, acc.maxima, len);
      return acc;
    } catch (BufferUnderflowException e) {
      throw Bytes.truncated(WHAT, e);
    }
  }
}
