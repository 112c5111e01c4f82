package org.nlspark.core.tile;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.DoubleBuffer;
import org.nlspark.core.accumulate.PartialFamily;

/**
 * The building blocks of every partial's byte form (DESIGN §2: tiles return bytes the driver
 * merges): a header (a magic byte naming the kind, a version, the tile), length-prefixed blobs
 * and nullable double arrays, all big-endian (the one byte order of every partial). One home, so that every analysis's partials read and fail alike.
 */
public final class PartialBytes {
  private PartialBytes() {}

  /** The family's id and version ({@link PartialFamily}): the first two bytes of every form. */
  public static void writeFamily(DataOutputStream out, PartialFamily family) throws IOException {
    out.writeByte(family.id());
    out.writeByte(family.version());
  }

  /**
   * Reads what {@link #writeFamily} wrote, refusing bytes of another family (or of none) and
   * another version with the family's message ({@link PartialFamily#check}).
   */
  public static void readFamily(DataInputStream in, PartialFamily family) throws IOException {
    byte id = in.readByte();
    family.check(id, in.readByte());
  }

  /** The family's header ({@link #writeFamily}) and the tile's four coordinates. */
  public static void writeHeader(DataOutputStream out, PartialFamily family, TileSpec tile)
      throws IOException {
    writeFamily(out, family);
    out.writeInt(tile.index());
    out.writeInt(tile.block());
    out.writeInt(tile.firstWindow());
    out.writeInt(tile.windowCount());
  }

  /**
   * Reads what {@link #writeHeader} wrote, refusing bytes of another family (or of none) and
   * another version with the family's message ({@link PartialFamily#check}).
   */
  public static TileSpec readHeader(DataInputStream in, PartialFamily family)
      throws IOException {
    readFamily(in, family);
    return new TileSpec(in.readInt(), in.readInt(), in.readInt(), in.readInt());
  }

  /** A length (-1 for null) and the bytes. */
  public static void writeBlob(DataOutputStream out, byte[] blob) throws IOException {
    out.writeInt(blob == null ? -1 : blob.length);
    if (blob != null) {
      out.write(blob);
    }
  }

  public static byte[] readBlob(DataInputStream in) throws IOException {
    int len = in.readInt();
    if (len < 0) {
      return null;
    }
    byte[] b = new byte[len];
    in.readFully(b);
    return b;
  }

  /**
   * Whether present, then the length and the values: the bytes of {@code writeDouble} per value
   * (every NaN as the one pattern of {@code Double.doubleToLongBits}), written in one bulk copy
   * (one native copy-and-swap: as fast in a fresh JVM as after the JIT, docs/performance.md).
   */
  public static void writeDoubles(DataOutputStream out, double[] values) throws IOException {
    out.writeBoolean(values != null);
    if (values != null) {
      out.writeInt(values.length);
      byte[] bytes = new byte[Double.BYTES * values.length];
      DoubleBuffer view = ByteBuffer.wrap(bytes).asDoubleBuffer(); // big-endian, raw bits
      view.put(values);
      for (int i = 0; i < values.length; i++) {
        if (values[i] != values[i]) {
          view.put(i, Double.NaN); // the canonical NaN writeDouble writes
        }
      }
      out.write(bytes);
    }
  }

  public static double[] readDoubles(DataInputStream in) throws IOException {
    if (!in.readBoolean()) {
      return null;
    }
    double[] values = new double[in.readInt()];
    byte[] bytes = new byte[Double.BYTES * values.length];
    in.readFully(bytes);
    ByteBuffer.wrap(bytes).asDoubleBuffer().get(values);
    return values;
  }
}
