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
