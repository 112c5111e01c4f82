package org.nlspark.core.tfce;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.nlspark.core.tile.TileSpec;

/**
 * What one whole-map tile sends to the merge: the tile, its kernel work, and one {@link
 * WholeMapPartial} per statistic it enhanced (one for the permutation tests, one per contrast for
 * {@code glm}).
 *
 * <p>Byte layout (version 2, big-endian): magic 'T', version, tile index, block, first window,
 * window count, flops, kernel nanos, statistic count, then each statistic's partial as {@link
 * WholeMapPartial} lays it out.
 */
public final class TfcePartial {
  private static final byte MAGIC = 'T';
  private static final byte VERSION = 2;

  public final TileSpec tile;
  public final long flops;
  public final long kernelNanos;
  public final List<WholeMapPartial> statistics;

  public TfcePartial(TileSpec tile, long flops, long kernelNanos,
      List<WholeMapPartial> statistics) {
    this.tile = tile;
    this.flops = flops;
    this.kernelNanos = kernelNanos;
    this.statistics = List.copyOf(statistics);
  }

  public byte[] toBytes() {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(MAGIC);
      out.writeByte(VERSION);
      out.writeInt(tile.index());
      out.writeInt(tile.block());
      out.writeInt(tile.firstWindow());
      out.writeInt(tile.windowCount());
      out.writeLong(flops);
      out.writeLong(kernelNanos);
      out.writeInt(statistics.size());
      for (WholeMapPartial s : statistics) {
        s.write(out);
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static TfcePartial fromBytes(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      if (in.readByte() != MAGIC) {
        throw new IllegalArgumentException("[BUG] not a TFCE partial result");
      }
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("Cannot read a TFCE partial result: unknown version "
            + version + " (this build reads version " + VERSION + ")");
      }
      TileSpec tile = new TileSpec(in.readInt(), in.readInt(), in.readInt(), in.readInt());
      long flops = in.readLong();
      long kernelNanos = in.readLong();
      int count = in.readInt();
      List<WholeMapPartial> statistics = new ArrayList<>(count);
      for (int s = 0; s < count; s++) {
        statistics.add(WholeMapPartial.read(in));
      }
      return new TfcePartial(tile, flops, kernelNanos, statistics);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
