package org.nlspark.core.tfce;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.tile.TileSpec;

/**
 * What one whole-map TFCE tile sends to the merge: for its replicates, the per-voxel exceedance
 * counts (of the statistic and of its TFCE) and the per-replicate maxima (statistic, TFCE,
 * largest cluster). The tile that starts at window 0 also sends the observed maps (statistic,
 * TFCE, cluster sizes). Counts and maxima merge exactly in any order.
 *
 * <p>Byte layout (version 1, big-endian): magic 'T', version, tile index, first window, window
 * count, flops, kernel nanos, TFCE nanos, TFCE thread-CPU nanos, maps enhanced, undefined voxels, then three optional
 * double arrays (observed, observed TFCE, observed cluster sizes: presence flag, length, values)
 * and five optional length-prefixed accumulator blobs (counts, null maxima, TFCE counts, TFCE
 * null maxima, cluster null maxima; length -1 when absent).
 */
final class TfcePartial {
  private static final byte MAGIC = 'T';
  private static final byte VERSION = 1;

  final TileSpec tile;
  final double[] observed;
  final double[] observedTfce;
  final double[] observedClusters;
  final ExceedanceCounter counts;
  final NullMaxAccumulator nullMax;
  final ExceedanceCounter tfceCounts;
  final NullMaxAccumulator tfceNullMax;
  final NullMaxAccumulator clusterNullMax;
  final long flops;
  final long kernelNanos;
  final long tfceNanos;
  final long tfceCpuNanos;
  final long mapsEnhanced;
  final int undefinedVoxels;

  TfcePartial(TileSpec tile, double[] observed, double[] observedTfce, double[] observedClusters,
      ExceedanceCounter counts, NullMaxAccumulator nullMax, ExceedanceCounter tfceCounts,
      NullMaxAccumulator tfceNullMax, NullMaxAccumulator clusterNullMax, long flops,
      long kernelNanos, long tfceNanos, long tfceCpuNanos, long mapsEnhanced,
      int undefinedVoxels) {
    this.tile = tile;
    this.observed = observed;
    this.observedTfce = observedTfce;
    this.observedClusters = observedClusters;
    this.counts = counts;
    this.nullMax = nullMax;
    this.tfceCounts = tfceCounts;
    this.tfceNullMax = tfceNullMax;
    this.clusterNullMax = clusterNullMax;
    this.flops = flops;
    this.kernelNanos = kernelNanos;
    this.tfceNanos = tfceNanos;
    this.tfceCpuNanos = tfceCpuNanos;
    this.mapsEnhanced = mapsEnhanced;
    this.undefinedVoxels = undefinedVoxels;
  }

  byte[] toBytes() {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      out.writeByte(MAGIC);
      out.writeByte(VERSION);
      out.writeInt(tile.index());
      out.writeInt(tile.firstWindow());
      out.writeInt(tile.windowCount());
      out.writeLong(flops);
      out.writeLong(kernelNanos);
      out.writeLong(tfceNanos);
      out.writeLong(tfceCpuNanos);
      out.writeLong(mapsEnhanced);
      out.writeInt(undefinedVoxels);
      writeDoubles(out, observed);
      writeDoubles(out, observedTfce);
      writeDoubles(out, observedClusters);
      writeBlob(out, counts == null ? null : counts.toBytes());
      writeBlob(out, nullMax == null ? null : nullMax.toBytes());
      writeBlob(out, tfceCounts == null ? null : tfceCounts.toBytes());
      writeBlob(out, tfceNullMax == null ? null : tfceNullMax.toBytes());
      writeBlob(out, clusterNullMax == null ? null : clusterNullMax.toBytes());
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static TfcePartial fromBytes(byte[] data) {
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
      int index = in.readInt();
      int firstWindow = in.readInt();
      int windowCount = in.readInt();
      TileSpec tile = new TileSpec(index, 0, firstWindow, windowCount);
      long flops = in.readLong();
      long kernelNanos = in.readLong();
      long tfceNanos = in.readLong();
      long tfceCpuNanos = in.readLong();
      long maps = in.readLong();
      int undefined = in.readInt();
      double[] observed = readDoubles(in);
      double[] observedTfce = readDoubles(in);
      double[] observedClusters = readDoubles(in);
      byte[] c = readBlob(in);
      byte[] m = readBlob(in);
      byte[] tc = readBlob(in);
      byte[] tm = readBlob(in);
      byte[] cm = readBlob(in);
      return new TfcePartial(tile, observed, observedTfce, observedClusters,
          c == null ? null : ExceedanceCounter.fromBytes(c),
          m == null ? null : NullMaxAccumulator.fromBytes(m),
          tc == null ? null : ExceedanceCounter.fromBytes(tc),
          tm == null ? null : NullMaxAccumulator.fromBytes(tm),
          cm == null ? null : NullMaxAccumulator.fromBytes(cm),
          flops, kernelNanos, tfceNanos, tfceCpuNanos, maps, undefined);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void writeDoubles(DataOutputStream out, double[] values) throws IOException {
    out.writeBoolean(values != null);
    if (values != null) {
      out.writeInt(values.length);
      for (double v : values) {
        out.writeDouble(v);
      }
    }
  }

  private static double[] readDoubles(DataInputStream in) throws IOException {
    if (!in.readBoolean()) {
      return null;
    }
    double[] values = new double[in.readInt()];
    for (int i = 0; i < values.length; i++) {
      values[i] = in.readDouble();
    }
    return values;
  }

  private static void writeBlob(DataOutputStream out, byte[] blob) throws IOException {
    out.writeInt(blob == null ? -1 : blob.length);
    if (blob != null) {
      out.write(blob);
    }
  }

  private static byte[] readBlob(DataInputStream in) throws IOException {
    int len = in.readInt();
    if (len < 0) {
      return null;
    }
    byte[] b = new byte[len];
    in.readFully(b);
    return b;
  }
}
