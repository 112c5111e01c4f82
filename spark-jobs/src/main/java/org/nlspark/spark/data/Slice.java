package org.nlspark.spark.data;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What one read split sends to one voxel block in the shuffle: samples [first, first + count)
 * of one input group, the block's columns only (count x width, row-major), as one byte[] so
 * the shuffle writes and reads it in bulk (no per-value serialization, one object per record).
 *
 * <p>Layout (little-endian): byte 0 version (1); byte 1 value bytes (4 = float32, 8 = float64);
 * bytes 2-3 zero; int group at 4; int first at 8; int count at 12; then count x width values
 * from byte 16.
 */
final class Slice {
  static final int HEADER_BYTES = 16;
  private static final byte VERSION = 1;

  private Slice() {}

  /**
   * Rows [0, count) of {@code values} (rows of {@code stride}), columns [from, from + width),
   * as samples [first, first + count).
   */
  static byte[] of(int group, int first, int count, float[] values, int stride, int from,
      int width) {
    return of(group, first, count, values, stride, from, width, 0);
  }

  /** As above from row {@code row0} of {@code values}. */
  static byte[] of(int group, int first, int count, float[] values, int stride, int from,
      int width, int row0) {
    ByteBuffer buf = header(group, first, count, width, 4);
    var out = buf.position(HEADER_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer();
    for (int r = 0; r < count; r++) {
      out.put(values, (row0 + r) * stride + from, width);
    }
    return buf.array();
  }

  /** As {@link #of(int, int, int, float[], int, int, int)}, float64 values. */
  static byte[] of(int group, int first, int count, double[] values, int stride, int from,
      int width) {
    return of(group, first, count, values, stride, from, width, 0);
  }

  /** As above from row {@code row0} of {@code values}. */
  static byte[] of(int group, int first, int count, double[] values, int stride, int from,
      int width, int row0) {
    ByteBuffer buf = header(group, first, count, width, 8);
    var out = buf.position(HEADER_BYTES).slice().order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer();
    for (int r = 0; r < count; r++) {
      out.put(values, (row0 + r) * stride + from, width);
    }
    return buf.array();
  }

  private static ByteBuffer header(int group, int first, int count, int width, int valueBytes) {
    long size = HEADER_BYTES + (long) count * width * valueBytes;
    if (size > Integer.MAX_VALUE - 16) {
      throw new IllegalArgumentException("Cannot cut a slice of " + count + " samples x " + width
          + " voxels: " + size + " bytes exceed one Java array; use smaller read splits");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
    buf.put(0, VERSION).put(1, (byte) valueBytes).putInt(4, group).putInt(8, first)
        .putInt(12, count);
    return buf;
  }

  static int version(byte[] s) {
    return s[0];
  }

  static boolean wide(byte[] s) {
    check(s);
    return s[1] == 8;
  }

  static int group(byte[] s) {
    return ByteBuffer.wrap(s).order(ByteOrder.LITTLE_ENDIAN).getInt(4);
  }

  static int first(byte[] s) {
    return ByteBuffer.wrap(s).order(ByteOrder.LITTLE_ENDIAN).getInt(8);
  }

  static int count(byte[] s) {
    return ByteBuffer.wrap(s).order(ByteOrder.LITTLE_ENDIAN).getInt(12);
  }

  /** Copies the slice's float32 values to {@code dst} from {@code at}. */
  static void copyTo(byte[] s, float[] dst, int at) {
    ByteBuffer.wrap(s, HEADER_BYTES, s.length - HEADER_BYTES).slice()
        .order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(dst, at, (s.length - HEADER_BYTES) / 4);
  }

  /** Copies the slice's values (float32 widened exactly, or float64) to {@code dst} from {@code at}. */
  static void copyTo(byte[] s, double[] dst, int at) {
    ByteBuffer values = ByteBuffer.wrap(s, HEADER_BYTES, s.length - HEADER_BYTES).slice()
        .order(ByteOrder.LITTLE_ENDIAN);
    if (wide(s)) {
      values.asDoubleBuffer().get(dst, at, (s.length - HEADER_BYTES) / 8);
    } else {
      var f = values.asFloatBuffer();
      int n = (s.length - HEADER_BYTES) / 4;
      for (int i = 0; i < n; i++) {
        dst[at + i] = f.get(i);
      }
    }
  }

  private static void check(byte[] s) {
    if (s.length < HEADER_BYTES || s[0] != VERSION || (s[1] != 4 && s[1] != 8)) {
      throw new IllegalStateException("[BUG] voxel block slice of unknown layout: version "
          + (s.length > 0 ? s[0] : -1) + ", " + s.length + " bytes");
    }
  }
}
