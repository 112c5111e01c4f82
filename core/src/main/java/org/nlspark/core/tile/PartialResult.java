package org.nlspark.core.tile;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.SampleStore;
import org.nlspark.core.accumulate.TailAccumulator;

/**
 * What one tile sends to the merge: its accumulators for one voxel block over its windows.
 * Bootstrap moments stay per window so the merge can fold them in window order (DESIGN §5).
 *
 * <p>Byte layout (version 1, big-endian): magic 'P', version, tile index, block, first window,
 * window count, flops, kernel nanos, undefined voxels, then presence flags and length-prefixed
 * accumulator bytes in the order observed, counts, null maxima, tails, samples, window moments.
 */
public final class PartialResult {
  private static final byte MAGIC = 'P';
  private static final byte VERSION = 1;

  public final TileSpec tile;
  /** Observed statistic of the block (permutation tests; only in a tile starting at window 0). */
  public final double[] observed;
  public final ExceedanceCounter counts;
  public final NullMaxAccumulator nullMax;
  public final TailAccumulator tails;
  public final SampleStore samples;
  public final MomentAccumulator[] windowMoments;
  public final long flops;
  public final long kernelNanos;
  public final int undefinedVoxels;

  public PartialResult(TileSpec tile, double[] observed, ExceedanceCounter counts,
      NullMaxAccumulator nullMax, TailAccumulator tails, SampleStore samples,
      MomentAccumulator[] windowMoments, long flops, long kernelNanos, int undefinedVoxels) {
    this.tile = tile;
    this.observed = observed;
    this.counts = counts;
    this.nullMax = nullMax;
    this.tails = tails;
    this.samples = samples;
    this.windowMoments = windowMoments;
    this.flops = flops;
    this.kernelNanos = kernelNanos;
    this.undefinedVoxels = undefinedVoxels;
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
      out.writeInt(undefinedVoxels);
      out.writeBoolean(observed != null);
      if (observed != null) {
        out.writeInt(observed.length);
        for (double v : observed) {
          out.writeDouble(v);
        }
      }
      writeBlob(out, counts == null ? null : counts.toBytes());
      writeBlob(out, nullMax == null ? null : nullMax.toBytes());
      writeBlob(out, tails == null ? null : tails.toBytes());
      writeBlob(out, samples == null ? null : samples.toBytes());
      out.writeInt(windowMoments == null ? -1 : windowMoments.length);
      if (windowMoments != null) {
        for (MomentAccumulator m : windowMoments) {
          writeBlob(out, m.toBytes());
        }
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public static PartialResult fromBytes(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      if (in.readByte() != MAGIC) {
        throw new IllegalArgumentException("[BUG] not a partial result");
      }
      byte version = in.readByte();
      if (version != VERSION) {
        throw new IllegalArgumentException("Cannot read partial result: unknown version "
            + version + " (this build reads version " + VERSION + ")");
      }
      TileSpec tile = new TileSpec(in.readInt(), in.readInt(), in.readInt(), in.readInt());
      long flops = in.readLong();
      long nanos = in.readLong();
      int undefined = in.readInt();
      double[] observed = null;
      if (in.readBoolean()) {
        observed = new double[in.readInt()];
        for (int i = 0; i < observed.length; i++) {
          observed[i] = in.readDouble();
        }
      }
      byte[] c = readBlob(in);
      byte[] m = readBlob(in);
      byte[] t = readBlob(in);
      byte[] s = readBlob(in);
      int windows = in.readInt();
      MomentAccumulator[] moments = null;
      if (windows >= 0) {
        moments = new MomentAccumulator[windows];
        for (int i = 0; i < windows; i++) {
          moments[i] = MomentAccumulator.fromBytes(readBlob(in));
        }
      }
      return new PartialResult(tile, observed,
          c == null ? null : ExceedanceCounter.fromBytes(c),
          m == null ? null : NullMaxAccumulator.fromBytes(m),
          t == null ? null : TailAccumulator.fromBytes(t),
          s == null ? null : SampleStore.fromBytes(s), moments, flops, nanos, undefined);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
