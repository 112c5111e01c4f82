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
import org.nlspark.core.accumulate.PartialFamily;
import org.nlspark.core.accumulate.SampleStore;
import org.nlspark.core.accumulate.TailAccumulator;

/**
 * What one tile sends to the merge: its accumulators for one voxel block over its windows.
 * Bootstrap moments stay per window so the merge can fold them in window order (DESIGN §5).
 *
 * <p>Byte layout (version 1, big-endian): magic 'P', version, tile index, block, first window,
 * window count, flops, kernel nanos, undefined voxels, then presence flags and length-prefixed
 * accumulator bytes in the order observed, counts, null maxima, tails, samples, window moments.
 * A permutation tile's tails are present only with {@code --tail-approximation}: each voxel's
 * null keys ({@link VoxelNullTails}); a bootstrap tile's are its percentile tails.
 */
public final class PartialResult {
  private static final PartialFamily FAMILY = PartialFamily.TILE_PARTIAL;

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
      PartialBytes.writeHeader(out, FAMILY, tile);
      out.writeLong(flops);
      out.writeLong(kernelNanos);
      out.writeInt(undefinedVoxels);
      PartialBytes.writeDoubles(out, observed);
      PartialBytes.writeBlob(out, counts == null ? null : counts.toBytes());
      PartialBytes.writeBlob(out, nullMax == null ? null : nullMax.toBytes());
      PartialBytes.writeBlob(out, tails == null ? null : tails.toBytes());
      PartialBytes.writeBlob(out, samples == null ? null : samples.toBytes());
      out.writeInt(windowMoments == null ? -1 : windowMoments.length);
      if (windowMoments != null) {
        for (MomentAccumulator m : windowMoments) {
          PartialBytes.writeBlob(out, m.toBytes());
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
      TileSpec tile = PartialBytes.readHeader(in, FAMILY);
      long flops = in.readLong();
      long nanos = in.readLong();
      int undefined = in.readInt();
      double[] observed = PartialBytes.readDoubles(in);
      byte[] c = PartialBytes.readBlob(in);
      byte[] m = PartialBytes.readBlob(in);
      byte[] t = PartialBytes.readBlob(in);
      byte[] s = PartialBytes.readBlob(in);
      int windows = in.readInt();
      MomentAccumulator[] moments = null;
      if (windows >= 0) {
        moments = new MomentAccumulator[windows];
        for (int i = 0; i < windows; i++) {
          moments[i] = MomentAccumulator.fromBytes(PartialBytes.readBlob(in));
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

}
