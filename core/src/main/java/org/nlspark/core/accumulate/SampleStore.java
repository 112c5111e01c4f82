package org.nlspark.core.accumulate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * Every replicate value of replicates [first, first + rows) × elements, kept only with
 * {@code --save-samples} (DESIGN §6, {@code samples.npy}). Windows of replicates merge by union of
 * their ranges; the values of one replicate never depend on who computed it, so two copies of a
 * row must agree bit for bit.
 *
 * <pre>
 * Invariants
 *  1. values is row-major rows × elements; row i holds replicate first + i.
 *  2. present[i] is true once row i was put; a row not present holds NaN in every element.
 *  3. Where two merged stores both hold a row, the rows are bit-identical (else "[BUG] ...").
 *  4. Ranges only grow, and only by union with an overlapping or adjacent range.
 * </pre>
 *
 * <p>Serialized layout (big-endian): byte magic 'S' (0x53), byte version 2, long first,
 * int rows, int elements, byte[rows] present (0 or 1), double[rows × elements] values.
 */
public final class SampleStore {
  private static final PartialFamily FAMILY = PartialFamily.SAMPLE_STORE;
  private static final String WHAT = "SampleStore";

  private long first;
  private int rows;
  private final int elements;
  private double[] values;
  private boolean[] present;

  public SampleStore(long firstReplicate, int rows, int elements) {
    ReplicateRange.checkNew(WHAT, firstReplicate, rows);
    if (elements < 0) {
      throw new IllegalArgumentException("elements must be >= 0, but was: " + elements);
    }
    this.first = firstReplicate;
    this.rows = rows;
    this.elements = elements;
    this.values = allocate(rows, elements);
    this.present = new boolean[rows];
  }

  private static double[] allocate(long rows, int elements) {
    long cells = rows * elements;
    if (cells > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException(
          "Cannot keep samples of " + rows + " replicates x " + elements + " elements: " + cells
              + " values exceed one array; use smaller voxel blocks or drop --save-samples");
    }
    double[] v = new double[(int) cells];
    Arrays.fill(v, Double.NaN);
    return v;
  }

  /** Stores one replicate's row {@code buf[offset .. offset + cols)}; cols must equal elements. */
  public void put(long replicate, double[] buf, int offset, int cols) {
    if (cols != elements) {
      throw new IllegalArgumentException(
          "Cannot update " + WHAT + ": row has " + cols + " columns, but the store has "
              + elements + " elements");
    }
    Bytes.checkWindow(WHAT, buf, offset, 1, cols);
    ReplicateRange.checkInside(WHAT, first, rows, replicate, 1);
    int i = (int) (replicate - first);
    System.arraycopy(buf, offset, values, i * elements, elements);
    present[i] = true;
  }

  /** Union of the replicate ranges (overlapping or adjacent); a gap throws "[BUG] ...". */
  public void merge(SampleStore other) {
    if (other.elements != elements) {
      throw new IllegalArgumentException(
          "[BUG] Cannot merge a " + WHAT + " of " + other.elements + " elements into one of "
              + elements + " elements");
    }
    if (other.rows == 0) {
      return;
    }
    if (rows == 0) {
      first = other.first;
      rows = other.rows;
      values = other.values.clone();
      present = other.present.clone();
      return;
    }
    long[] u = ReplicateRange.union(WHAT, first, rows, other.first, other.rows);
    double[] v = allocate(u[1], elements);
    boolean[] p = new boolean[(int) u[1]];
    copyInto(v, p, u[0], this);
    copyInto(v, p, u[0], other);
    first = u[0];
    rows = (int) u[1];
    values = v;
    present = p;
  }

  private void copyInto(double[] v, boolean[] p, long unionFirst, SampleStore s) {
    int base = (int) (s.first - unionFirst);
    for (int i = 0; i < s.rows; i++) {
      if (!s.present[i]) {
        continue;
      }
      int to = (base + i) * elements;
      int from = i * elements;
      if (p[base + i]) {
        for (int e = 0; e < elements; e++) {
          if (Double.doubleToRawLongBits(v[to + e]) != Double.doubleToRawLongBits(s.values[from + e])) {
            throw new IllegalStateException(
                "[BUG] Cannot merge " + WHAT + ": replicate " + (unionFirst + base + i)
                    + " has two different values for element " + e + ": " + v[to + e] + " and "
                    + s.values[from + e]);
          }
        }
      } else {
        System.arraycopy(s.values, from, v, to, elements);
        p[base + i] = true;
      }
    }
  }

  public long firstReplicate() {
    return first;
  }

  public int rows() {
    return rows;
  }

  public int elements() {
    return elements;
  }

  /** Whether replicate {@code replicate} has been stored. */
  public boolean hasReplicate(long replicate) {
    return replicate >= first && replicate < first + rows && present[(int) (replicate - first)];
  }

  /** Rows stored so far. */
  public long n() {
    long c = 0;
    for (boolean b : present) {
      if (b) {
        c++;
      }
    }
    return c;
  }

  public boolean isEmpty() {
    return n() == 0;
  }

  /** Row-major rows × elements (a copy); NaN in rows not stored. */
  public double[] values() {
    return values.clone();
  }

  public byte[] toBytes() {
    ByteBuffer b = Bytes.allocate(WHAT, 2 + 8 + 4 + 4 + rows + 8L * values.length, FAMILY);
    b.putLong(first).putInt(rows).putInt(elements);
    Bytes.putFlags(b, present);
    Bytes.putDoubles(b, values, values.length);
    return b.array();
  }

  public static SampleStore fromBytes(byte[] bytes) {
    ByteBuffer b = Bytes.open(WHAT, bytes, FAMILY);
    try {
      long first = b.getLong();
      int rows = b.getInt();
      int elements = b.getInt();
      if (first < 0 || rows < 0 || elements < 0) {
        throw Bytes.corrupt(WHAT, "first=" + first + ", rows=" + rows + ", elements=" + elements
            + " (need all >= 0)");
      }
      Bytes.expectRemaining(WHAT, b, rows + 8L * rows * elements);
      SampleStore s = new SampleStore(first, rows, elements);
      for (int i = 0; i < rows; i++) {
        byte f = b.get();
        if (f != 0 && f != 1) {
          throw Bytes.corrupt(WHAT, "present flag of replicate " + (first + i)
              + " must be 0 or 1, but was: " + f);
        }
        s.present[i] = f == 1;
      }
      Bytes.getDoubles(b, s.values, s.values.length);
      for (int i = 0; i < rows; i++) {
        if (!s.present[i]) {
          Arrays.fill(s.values, i * elements, (i + 1) * elements, Double.NaN);
        }
      }
      return s;
    } catch (BufferUnderflowException e) {
      throw Bytes.truncated(WHAT, e);
    }
  }
}
