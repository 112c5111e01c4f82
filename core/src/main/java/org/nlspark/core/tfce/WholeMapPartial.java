package org.nlspark.core.tfce;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.tile.PartialBytes;

/**
 * What one tile found for one statistic (the statistic of a permutation test, or one GLM
 * contrast) over its replicates' whole maps: per-voxel exceedance counts of the statistic and of
 * its TFCE, and per-replicate maxima (statistic, TFCE, largest cluster). The tile that holds
 * window 0 also sends the observed maps (statistic, TFCE, cluster sizes). Made by {@link
 * WholeMapInference#fold}, merged by {@link WholeMapMerge}; counts and maxima merge exactly in
 * any order.
 *
 * <p>Layout (big-endian, inside {@link TfcePartial}): TFCE nanos, TFCE thread-CPU nanos, maps
 * enhanced, undefined voxels, three optional double arrays (observed, observed TFCE, observed
 * cluster sizes: presence flag, length, values), five optional length-prefixed accumulator blobs
 * (counts, null maxima, TFCE counts, TFCE null maxima, cluster null maxima; length -1 when
 * absent), then the observed cluster masses (optional doubles) and the cluster-mass null maxima
 * (optional blob).
 */
public final class WholeMapPartial {
  final double[] observed;
  final double[] observedTfce;
  final double[] observedClusters;
  final ExceedanceCounter counts;
  final NullMaxAccumulator nullMax;
  final ExceedanceCounter tfceCounts;
  final NullMaxAccumulator tfceNullMax;
  final NullMaxAccumulator clusterNullMax;
  final long tfceNanos;
  final long tfceCpuNanos;
  final long mapsEnhanced;
  final int undefinedVoxels;
  final double[] observedMass;
  final NullMaxAccumulator massNullMax;
  /** The observed statistic as it is written where {@link #observed} is its z (v, G), or null. */
  final double[] written;

  WholeMapPartial(double[] observed, double[] observedTfce, double[] observedClusters,
      ExceedanceCounter counts, NullMaxAccumulator nullMax, ExceedanceCounter tfceCounts,
      NullMaxAccumulator tfceNullMax, NullMaxAccumulator clusterNullMax, long tfceNanos,
      long tfceCpuNanos, long mapsEnhanced, int undefinedVoxels, double[] observedMass,
      NullMaxAccumulator massNullMax) {
    this(observed, observedTfce, observedClusters, counts, nullMax, tfceCounts, tfceNullMax,
        clusterNullMax, tfceNanos, tfceCpuNanos, mapsEnhanced, undefinedVoxels, observedMass,
        massNullMax, null);
  }

  private WholeMapPartial(double[] observed, double[] observedTfce, double[] observedClusters,
      ExceedanceCounter counts, NullMaxAccumulator nullMax, ExceedanceCounter tfceCounts,
      NullMaxAccumulator tfceNullMax, NullMaxAccumulator clusterNullMax, long tfceNanos,
      long tfceCpuNanos, long mapsEnhanced, int undefinedVoxels, double[] observedMass,
      NullMaxAccumulator massNullMax, double[] written) {
    this.written = written;
    this.observedMass = observedMass;
    this.massNullMax = massNullMax;
    this.observed = observed;
    this.observedTfce = observedTfce;
    this.observedClusters = observedClusters;
    this.counts = counts;
    this.nullMax = nullMax;
    this.tfceCounts = tfceCounts;
    this.tfceNullMax = tfceNullMax;
    this.clusterNullMax = clusterNullMax;
    this.tfceNanos = tfceNanos;
    this.tfceCpuNanos = tfceCpuNanos;
    this.mapsEnhanced = mapsEnhanced;
    this.undefinedVoxels = undefinedVoxels;
  }

  /**
   * This partial with the observed statistic as it is written ({@code written}: v or G, whose z
   * this partial counted on); null leaves the observed map as the written one.
   */
  public WholeMapPartial withWritten(double[] written) {
    return new WholeMapPartial(observed, observedTfce, observedClusters, counts, nullMax,
        tfceCounts, tfceNullMax, clusterNullMax, tfceNanos, tfceCpuNanos, mapsEnhanced,
        undefinedVoxels, observedMass, massNullMax, observed == null ? null : written);
  }

  /** Wall nanoseconds this partial spent enhancing maps (for the tile's kernel-time split). */
  public long tfceNanos() {
    return tfceNanos;
  }

  void write(DataOutputStream out) throws IOException {
    out.writeLong(tfceNanos);
    out.writeLong(tfceCpuNanos);
    out.writeLong(mapsEnhanced);
    out.writeInt(undefinedVoxels);
    PartialBytes.writeDoubles(out, observed);
    PartialBytes.writeDoubles(out, observedTfce);
    PartialBytes.writeDoubles(out, observedClusters);
    PartialBytes.writeBlob(out, counts == null ? null : counts.toBytes());
    PartialBytes.writeBlob(out, nullMax == null ? null : nullMax.toBytes());
    PartialBytes.writeBlob(out, tfceCounts == null ? null : tfceCounts.toBytes());
    PartialBytes.writeBlob(out, tfceNullMax == null ? null : tfceNullMax.toBytes());
    PartialBytes.writeBlob(out, clusterNullMax == null ? null : clusterNullMax.toBytes());
    PartialBytes.writeDoubles(out, observedMass);
    PartialBytes.writeBlob(out, massNullMax == null ? null : massNullMax.toBytes());
    PartialBytes.writeDoubles(out, written);
  }

  static WholeMapPartial read(DataInputStream in) throws IOException {
    long tfceNanos = in.readLong();
    long tfceCpuNanos = in.readLong();
    long maps = in.readLong();
    int undefined = in.readInt();
    double[] observed = PartialBytes.readDoubles(in);
    double[] observedTfce = PartialBytes.readDoubles(in);
    double[] observedClusters = PartialBytes.readDoubles(in);
    byte[] c = PartialBytes.readBlob(in);
    byte[] m = PartialBytes.readBlob(in);
    byte[] tc = PartialBytes.readBlob(in);
    byte[] tm = PartialBytes.readBlob(in);
    byte[] cm = PartialBytes.readBlob(in);
    double[] observedMass = PartialBytes.readDoubles(in);
    byte[] mm = PartialBytes.readBlob(in);
    double[] written = PartialBytes.readDoubles(in);
    return new WholeMapPartial(observed, observedTfce, observedClusters,
        c == null ? null : ExceedanceCounter.fromBytes(c),
        m == null ? null : NullMaxAccumulator.fromBytes(m),
        tc == null ? null : ExceedanceCounter.fromBytes(tc),
        tm == null ? null : NullMaxAccumulator.fromBytes(tm),
        cm == null ? null : NullMaxAccumulator.fromBytes(cm),
        tfceNanos, tfceCpuNanos, maps, undefined, observedMass,
        mm == null ? null : NullMaxAccumulator.fromBytes(mm), written);
  }

}
