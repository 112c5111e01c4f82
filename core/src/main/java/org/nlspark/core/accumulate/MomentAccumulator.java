package org.nlspark.core.accumulate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Mean and M2 (sum of squared deviations) per element, in float64 (ports the mean/std rule of §3.11
 * of DESIGN.md). Each fixed logical window is summarised two-pass (mean = sum/rows, then
 * M2 = Σ(x - mean)²) and windows are folded with Chan et al.'s update. Floating-point folding is not
 * associative, so {@link #append} is order-defined: callers fold windows in window order (DESIGN
 * §5) and then the bytes are the same whatever instance or serialization path carried them.
 * {@link #merge} is {@link #append}.
 *
 * <pre>
 * Invariants
 *  1. n = replicates folded in; the same n for every element.
 *  2. n == 0 implies mean[e] == 0 and m2[e] == 0 for all e (the empty state is unique).
 *  3. append(empty) changes nothing; empty.append(x) copies x exactly.
 *  4. NaN inputs propagate into mean and m2 of their element (an undefined statistic stays NaN).
 * </pre>
 *
 * <p>Serialized layout (big-endian): byte magic 'M' (0x4d), byte version 2, int elements,
 * long n, double[elements] mean, double[elements] m2.
 */
public final class MomentAccumulator {
  private static final PartialFamily FAMILY = PartialFamily.MOMENT_ACCUMULATOR;
  private static final String WHAT = "MomentAccumulator";

  private final int elements;
  private long n;
  private final double[] mean;
  private final double[] m2;

  /** An empty accumulator. */
  public MomentAccumulator(int elements) {
    if (elements < 0) {
      throw new IllegalArgumentException("elements must be >= 0, but was: " + elements);
    }
    this.elements = elements;
    this.mean = new double[elements];
    this.m2 = new double[elements];
  }

  /** Two-pass summary of one window of {@code rows} replicates × {@code cols} elements. */
  public static MomentAccumulator ofWindow(double[] buf, int offset, int rows, int cols) {
    Bytes.checkWindow(WHAT, buf, offset, rows, cols);
    MomentAccumulator acc = new MomentAccumulator(cols);
    if (rows == 0) {
      return acc;
    }
    double[] mean = acc.mean;
    double[] m2 = acc.m2;
    // Mean as first + sum(x - first) / rows: exact when every value is equal (a constant voxel
    // then has M2 = 0 exactly) and no less accurate otherwise.
    for (int r = 1; r < rows; r++) {
      int row = offset + r * cols;
      for (int e = 0; e < cols; e++) {
        mean[e] += buf[row + e] - buf[offset + e];
      }
    }
    for (int e = 0; e < cols; e++) {
      mean[e] = buf[offset + e] + mean[e] / rows;
    }
    for (int r = 0; r < rows; r++) {
      int row = offset + r * cols;
      for (int e = 0; e < cols; e++) {
        double d = buf[row + e] - mean[e];
        m2[e] += d * d;
      }
    }
    acc.n = rows;
    return acc;
  }

  /**
   * Folds the next window in (Chan et al.): n = na + nb; d = mb - ma; mean = ma + d·nb/n;
   * M2 = M2a + M2b + d²·na·nb/n.
   */
  public void append(MomentAccumulator next) {
    if (next.elements != elements) {
      throw new IllegalArgumentException(
          "[BUG] Cannot append a " + WHAT + " of " + next.elements + " elements to one of "
              + elements + " elements");
    }
    if (next.n == 0) {
      return;
    }
    if (n == 0) {
      System.arraycopy(next.mean, 0, mean, 0, elements);
      System.arraycopy(next.m2, 0, m2, 0, elements);
      n = next.n;
      return;
    }
    double na = n;
    double nb = next.n;
    long total = n + next.n;
    double nt = total;
    for (int e = 0; e < elements; e++) {
      double d = next.mean[e] - mean[e];
      mean[e] = mean[e] + d * nb / nt;
      m2[e] = m2[e] + next.m2[e] + d * d * na * nb / nt;
    }
    n = total;
  }

  /** Same as {@link #append}: order-defined, fold windows in window order. */
  public void merge(MomentAccumulator next) {
    append(next);
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

  /** Per-element mean (a copy); zeros when empty. */
  public double[] mean() {
    return mean.clone();
  }

  /** Per-element sum of squared deviations from the mean (a copy). */
  public double[] m2() {
    return m2.clone();
  }

  /** sqrt(M2 / (n - ddof)); NaN for every element when n - ddof &lt;= 0. */
  public double[] std(int ddof) {
    double[] out = new double[elements];
    long dof = n - ddof;
    for (int e = 0; e < elements; e++) {
      out[e] = dof <= 0 ? Double.NaN : Math.sqrt(m2[e] / dof);
    }
    return out;
  }

  public byte[] toBytes() {
    ByteBuffer b = Bytes.allocate(WHAT, 2 + 4 + 8 + 16L * elements, FAMILY);
    b.putInt(elements).putLong(n);
    Bytes.putDoubles(b, mean, elements);
    Bytes.putDoubles(b, m2, elements);
    return b.array();
  }

  public static MomentAccumulator fromBytes(byte[] bytes) {
    ByteBuffer b = Bytes.open(WHAT, bytes, FAMILY);
    try {
      int elements = b.getInt();
      long n = b.getLong();
      if (elements < 0 || n < 0) {
        throw Bytes.corrupt(WHAT, "elements=" + elements + ", n=" + n + " (need both >= 0)");
      }
      Bytes.expectRemaining(WHAT, b, 16L * elements);
      MomentAccumulator acc = new MomentAccumulator(elements);
      acc.n = n;
      Bytes.getDoubles(b, acc.mean, elements);
      Bytes.getDoubles(b, acc.m2, elements);
      return acc;
    } catch (BufferUnderflowException e) {
      throw Bytes.truncated(WHAT, e);
    }
  }
}
