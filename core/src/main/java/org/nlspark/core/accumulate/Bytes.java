package org.nlspark.core.accumulate;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;

/**
 * Header and bounds checks shared by the accumulators' serialized forms. Every form starts with
 * its {@link PartialFamily}'s id and version bytes; all numbers are big-endian, the one byte
 * order of every partial (the order of {@code DataOutputStream}, which {@code tile.PartialBytes}
 * writes).
 */
final class Bytes {
  private Bytes() {}

  static ByteBuffer allocate(String what, long size, PartialFamily family) {
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException(
          "Cannot serialize " + what + ": " + size + " bytes exceed the 2 GiB limit of one array;"
              + " use smaller voxel blocks or replicate windows");
    }
    ByteBuffer b = ByteBuffer.allocate((int) size); // big-endian
    b.put(family.id()).put(family.version());
    return b;
  }

  /*
   * Bulk copies of whole arrays, big-endian, the same bytes as one putDouble/putLong per value:
   * each is one native copy-and-swap in the JDK, as fast in a fresh JVM as after the JIT. Why: a
   * cold job's tasks serialized their partials value by value in interpreted and C1 code, and C2
   * compiled those loops while the job ran, beside its tasks (docs/performance.md).
   */

  static void putDoubles(ByteBuffer b, double[] values, int length) {
    b.asDoubleBuffer().put(values, 0, length);
    b.position(b.position() + Double.BYTES * length);
  }

  static void getDoubles(ByteBuffer b, double[] values, int length) {
    b.asDoubleBuffer().get(values, 0, length);
    b.position(b.position() + Double.BYTES * length);
  }

  static void putLongs(ByteBuffer b, long[] values) {
    b.asLongBuffer().put(values);
    b.position(b.position() + Long.BYTES * values.length);
  }

  static void getLongs(ByteBuffer b, long[] values) {
    b.asLongBuffer().get(values);
    b.position(b.position() + Long.BYTES * values.length);
  }

  /** Flags as bytes 1 and 0, in one bulk put. */
  static void putFlags(ByteBuffer b, boolean[] flags) {
    byte[] bytes = new byte[flags.length];
    for (int i = 0; i < flags.length; i++) {
      bytes[i] = (byte) (flags[i] ? 1 : 0);
    }
    b.put(bytes);
  }

  /** Checks magic and version and returns a buffer positioned after them. */
  static ByteBuffer open(String what, byte[] bytes, PartialFamily family) {
    if (bytes == null || bytes.length < 2) {
      throw new IllegalArgumentException(
          "Cannot read " + what + ": expected at least 2 header bytes, but got "
              + (bytes == null ? "null" : bytes.length));
    }
    family.check(bytes[0], bytes[1]);
    ByteBuffer b = ByteBuffer.wrap(bytes); // big-endian
    b.position(2);
    return b;
  }

  /** Fails unless exactly {@code expected} bytes remain. */
  static void expectRemaining(String what, ByteBuffer b, long expected) {
    if (b.remaining() != expected) {
      throw new IllegalArgumentException(
          "Cannot read " + what + ": the header announces " + expected + " more bytes, but "
              + b.remaining() + " remain (truncated or corrupt)");
    }
  }

  static IllegalArgumentException corrupt(String what, String detail) {
    return new IllegalArgumentException("Cannot read " + what + ": " + detail);
  }

  static IllegalArgumentException truncated(String what, BufferUnderflowException e) {
    return new IllegalArgumentException("Cannot read " + what + ": the bytes are truncated", e);
  }

  /** Bounds of a row-major window buffer, with the shapes in the message. */
  static void checkWindow(String what, double[] buf, int offset, int rows, int cols) {
    if (rows < 0 || cols < 0 || offset < 0
        || (long) offset + (long) rows * cols > buf.length) {
      throw new IllegalArgumentException(
          "Cannot update " + what + ": window of " + rows + " x " + cols + " at offset " + offset
              + " does not fit a buffer of length " + buf.length);
    }
  }

  /** Total order on non-NaN doubles that also separates -0.0 < +0.0, so retained sets are unique. */
  static boolean less(double a, double b) {
    return a < b
        || (a == b && Double.doubleToRawLongBits(a) < Double.doubleToRawLongBits(b));
  }
}
