package org.nlspark.core.accumulate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Per element, how many null extremeness keys were at least as large as the observed key (ties count
 * as extreme; DESIGN §4). Counts are integers, so merging is exact and order-free.
 *
 * <pre>
 * Invariants
 *  1. n = null replicates seen; the same n for every element.
 *  2. 0 &lt;= counts[e] &lt;= n.
 *  3. A NaN null key or a NaN observed key never counts (n still grows).
 * </pre>
 *
 * <p>Serialized layout (big-endian): byte magic 'E' (0x45), byte version 2, int elements, long n,
 * long[elements] counts.
 */
public final class ExceedanceCounter {
  private static final PartialFamily FAMILY = PartialFamily.EXCEEDANCE_COUNTER;
  private static final String WHAT = "ExceedanceCounter";

  private final int elements;
  private long n;
  private final long[] counts;

  public ExceedanceCounter(int elements) {
    if (elements < 0) {
      throw new IllegalArgumentException("elements must be >= 0, but was: " + elements);
    }
    this.elements = elements;
    this.counts = new long[elements];
  }

  /**
   * Counts {@code rows} null replicates of a row-major window of keys against the observed keys
   * {@code observedKeys[observedOffset .. observedOffset + cols)}.
   */
  public void update(
      double[] nullKeys, int offset, int rows, int cols, double[] observedKeys, int observedOffset) {
    if (cols != elements) {
      throw new IllegalArgumentException(
          "Cannot update " + WHAT + ": window has " + cols + " columns, but the counter has "
              + elements + " elements");
    }
    Bytes.checkWindow(WHAT, nullKeys, offset, rows, cols);
    Bytes.checkWindow(WHAT, observedKeys, observedOffset, 1, cols);
    final long[] counts = this.counts;
    for (int r = 0; r < rows; r++) {
      int row = offset + r * cols;
      for (int e = 0; e < cols; e++) {
        // false for NaN on either side
        if (nullKeys[row + e] >= observedKeys[observedOffset + e]) {
          counts[e]++;
        }
      }
    }
    n += rows;
  }

  /**
   * Adds per-element counts that a fused kernel epilogue already computed for {@code rows} null
   * replicates (the hot path: the kernel compares while its products are in cache).
   */
  public void addCounts(int[] windowCounts, int rows) {
    if (windowCounts.length != elements || rows < 0) {
      throw new IllegalArgumentException("[BUG] " + windowCounts.length + " counts for "
          + elements + " elements, rows " + rows);
    }
    for (int e = 0; e < elements; e++) {
      if (windowCounts[e] < 0 || windowCounts[e] > rows) {
        throw new IllegalArgumentException("[BUG] count " + windowCounts[e] + " outside [0, "
            + rows + "]");
      }
      counts[e] += windowCounts[e];
    }
    n += rows;
  }

  /** Adds the counts of other replicates for the same elements. */
  public void merge(ExceedanceCounter other) {
    if (other.elements != elements) {
      throw new IllegalArgumentException(
          "[BUG] Cannot merge a " + WHAT + " of " + other.elements + " elements into one of "
              + elements + " elements");
    }
    for (int e = 0; e < elements; e++) {
      counts[e] += other.counts[e];
    }
    n += other.n;
  }

  public long n() {
    return n;
  }

  public boolean isEmpty() {
    return n == 0;
  }

  public int elements() {
    return elements;
  }

  /** Per-element counts (a copy). */
  public long[] counts() {
    return counts.clone();
  }

  public byte[] toBytes() {
    ByteBuffer b = Bytes.allocate(WHAT, 2 + 4 + 8 + 8L * elements, FAMILY);
    b.putInt(elements).putLong(n);
    Bytes.putLongs(b, counts);
    return b.array();
  }

  public static ExceedanceCounter fromBytes(byte[] bytes) {
    ByteBuffer b = Bytes.open(WHAT, bytes, FAMILY);
    try {
      int elements = b.getInt();
      long n = b.getLong();
      if (elements < 0 || n < 0) {
        throw Bytes.corrupt(WHAT, "elements=" + elements + ", n=" + n + " (need both >= 0)");
      }
      Bytes.expectRemaining(WHAT, b, 8L * elements);
      ExceedanceCounter acc = new ExceedanceCounter(elements);
      acc.n = n;
      Bytes.getLongs(b, acc.counts);
      for (int e = 0; e < elements; e++) {
        long c = acc.counts[e];
        if (c < 0 || c > n) {
          throw Bytes.corrupt(WHAT, "count of element " + e + " must be in [0, " + n
              + "], but was: " + c);
        }
      }
      return acc;
    } catch (BufferUnderflowException e) {
      throw Bytes.truncated(WHAT, e);
    }
  }
}
