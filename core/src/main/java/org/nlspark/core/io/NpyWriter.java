package org.nlspark.core.io;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code .npy} files byte-for-byte as numpy's {@code np.save} does (numpy 1.x and 2.x):
 * format version 1.0 (2.0 only if the header outgrows 65535 bytes), descr {@code <f8} or
 * {@code <f4}, C order, the header dict with numpy's key order and its spare room for growing the
 * first axis, space-padded so the data starts on a 64-byte boundary.
 *
 * <p>Streams passed in are flushed, not closed.
 */
public final class NpyWriter {
  /** numpy's ARRAY_ALIGN: the data offset is a multiple of this. */
  static final int ALIGN = 64;

  /** numpy's GROWTH_AXIS_MAX_DIGITS: spare header room so the first axis can grow in place. */
  static final int GROWTH_AXIS_MAX_DIGITS = 21;

  private NpyWriter() {}

  /** Writes {@code data} (C order) as a float64 {@code .npy} of the given shape. */
  public static void writeFloat64(OutputStream out, long[] shape, double[] data) {
    checkShape(shape, data.length);
    try {
      out.write(header(NpyDtype.FLOAT64, shape));
      byte[] chunk = new byte[(int) Math.min(NpyReader.CHUNK_BYTES, (long) data.length * 8)];
      ByteBuffer bytes = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
      for (int done = 0; done < data.length; ) {
        int n = Math.min(data.length - done, chunk.length / 8);
        bytes.clear();
        bytes.asDoubleBuffer().put(data, done, n);
        out.write(chunk, 0, n * 8);
        done += n;
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write .npy data: " + e.getMessage(), e);
    }
  }

  /** Writes {@code data} (C order) as a float32 {@code .npy} of the given shape. */
  public static void writeFloat32(OutputStream out, long[] shape, float[] data) {
    checkShape(shape, data.length);
    try {
      out.write(header(NpyDtype.FLOAT32, shape));
      byte[] chunk = new byte[(int) Math.min(NpyReader.CHUNK_BYTES, (long) data.length * 4)];
      ByteBuffer bytes = ByteBuffer.wrap(chunk).order(ByteOrder.LITTLE_ENDIAN);
      for (int done = 0; done < data.length; ) {
        int n = Math.min(data.length - done, chunk.length / 4);
        bytes.clear();
        bytes.asFloatBuffer().put(data, done, n);
        out.write(chunk, 0, n * 4);
        done += n;
      }
      out.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write .npy data: " + e.getMessage(), e);
    }
  }

  /** Writes a float64 {@code .npy} file, replacing any existing file. */
  public static void writeFloat64(Path path, long[] shape, double[] data) {
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(path))) {
      writeFloat64(out, shape, data);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + path + ": " + e.getMessage(), e);
    }
  }

  /** Writes a float32 {@code .npy} file, replacing any existing file. */
  public static void writeFloat32(Path path, long[] shape, float[] data) {
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(path))) {
      writeFloat32(out, shape, data);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + path + ": " + e.getMessage(), e);
    }
  }

  /** The magic, version, length and padded dict: everything before the first element. */
  static byte[] header(NpyDtype dtype, long[] shape) {
    StringBuilder dict =
        new StringBuilder()
            .append("{'descr': '")
            .append(dtype.descr())
            .append("', 'fortran_order': False, 'shape': ")
            .append(NpyHeader.formatShape(shape))
            .append(", }");
    if (shape.length > 0) {
      dict.append(" ".repeat(Math.max(0, GROWTH_AXIS_MAX_DIGITS - Long.toString(shape[0]).length())));
    }
    int version = 1;
    int lengthBytes = 2;
    int total = paddedTotal(dict.length(), lengthBytes);
    if (total - NpyHeader.MAGIC.length - 2 - lengthBytes > 0xffff) {
      version = 2;
      lengthBytes = 4;
      total = paddedTotal(dict.length(), lengthBytes);
    }
    int headerLength = total - NpyHeader.MAGIC.length - 2 - lengthBytes;
    dict.append(" ".repeat(headerLength - dict.length() - 1)).append('\n');
    ByteBuffer buf = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
    buf.put(NpyHeader.MAGIC).put((byte) version).put((byte) 0);
    if (lengthBytes == 2) {
      buf.putShort((short) headerLength);
    } else {
      buf.putInt(headerLength);
    }
    buf.put(dict.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (buf.hasRemaining()) {
      throw new IllegalStateException("[BUG] .npy header is " + buf.remaining() + " bytes short");
    }
    return buf.array();
  }

  private static int paddedTotal(int dictLength, int lengthBytes) {
    int unpadded = NpyHeader.MAGIC.length + 2 + lengthBytes + dictLength + 1; // + '\n'
    // numpy pads by ALIGN - (unpadded % ALIGN): a full ALIGN of spaces when already aligned.
    return unpadded + ALIGN - unpadded % ALIGN;
  }

  private static void checkShape(long[] shape, int length) {
    boolean empty = false;
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException(
            "[BUG] Cannot write .npy: dimensions must be >= 0, but shape was: "
                + NpyHeader.formatShape(shape));
      }
      empty |= d == 0;
    }
    long count = 1;
    for (long d : shape) {
      count = empty ? 0 : count > Integer.MAX_VALUE / d ? -1 : count * d;
      if (count < 0) {
        break;
      }
    }
    if (count != length) {
      throw new IllegalArgumentException(
          "[BUG] Cannot write .npy: shape "
              + NpyHeader.formatShape(shape)
              + (count < 0 ? " holds more values than a Java array" : " holds " + count + " values")
              + ", but the data has "
              + length);
    }
  }
}
