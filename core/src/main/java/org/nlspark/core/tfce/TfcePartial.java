package org.nlspark.core.tfce;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import org.nlspark.core.accumulate.PartialFamily;
import org.nlspark.core.tile.PartialBytes;
import org.nlspark.core.tile.TileSpec;

/**
 * What one whole-map tile sends to the merge: the tile, its kernel work, and one {@link
 * WholeMapPartial} per statistic it enhanced (one for the permutation tests, one per contrast for
 * {@code glm}).
 *
 * <p>Byte layout (version 4, big-endian): magic 'W' ({@link PartialFamily#WHOLE_MAP_PARTIAL}), version, tile index, block, first window,
 * window count, flops, kernel nanos, statistic count, then each statistic's partial as {@link
 * WholeMapPartial} lays it out.
 */
public final class TfcePartial {
  private static final PartialFamily FAMILY = PartialFamily.WHOLE_MAP_PARTIAL;

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
      PartialBytes.writeHeader(out, FAMILY, tile);
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
      TileSpec tile = PartialBytes.readHeader(in, FAMILY);
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
