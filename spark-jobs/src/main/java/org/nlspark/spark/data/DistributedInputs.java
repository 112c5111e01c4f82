package org.nlspark.spark.data;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.JobInputs;
import org.nlspark.spark.io.HeapCheck;

/**
 * The inputs of a resampling job described, not read (DESIGN §8): the samples of X (and Y for
 * two-sample) as {@link SampleSource}s, and the small correlation target. The engine either
 * {@link #load}s them on the driver for the in-memory (broadcast) path, or has executors read
 * them into voxel blocks ({@link VoxelBlocks}); both read with the same code, so their values,
 * and so the outputs, are identical.
 */
public final class DistributedInputs implements Serializable {
  private static final long serialVersionUID = 1L;

  private final SampleSource x;
  private final SampleSource y;
  private final double[] target;

  private DistributedInputs(SampleSource x, SampleSource y, double[] target) {
    this.x = x;
    this.y = y;
    this.target = target;
    if (y != null && y.voxels() != x.voxels()) {
      throw new InvalidInputException("Cannot compare groups: --input has " + x.voxels()
          + " voxels but --input2 has " + y.voxels() + "; both need the same voxels");
    }
  }

  public static DistributedInputs of(SampleSource x) {
    return new DistributedInputs(x, null, null);
  }

  public static DistributedInputs twoGroups(SampleSource x, SampleSource y) {
    return new DistributedInputs(x, y, null);
  }

  public static DistributedInputs withTarget(SampleSource x, double[] target) {
    return new DistributedInputs(x, null, target);
  }

  public SampleSource x() {
    return x;
  }

  /** The second group (two-sample), else null. */
  public SampleSource y() {
    return y;
  }

  SampleSource group(int g) {
    return g == 0 ? x : y;
  }

  int groups() {
    return y == null ? 1 : 2;
  }

  /** The grid and mask of image inputs, or null. */
  public NiftiMask mask() {
    return x.mask();
  }

  /** Whether every value fits float32, so voxel blocks are held in float32. */
  public boolean float32() {
    return x.float32() && (y == null || y.float32());
  }

  /** What the in-memory path would hold: the values in float64. */
  public long float64Bytes() {
    return x.float64Bytes() + (y == null ? 0 : y.float64Bytes())
        + (target == null ? 0 : 8L * target.length);
  }

  /** The shapes the driver plans with; the values stay on the executors. */
  public JobInputs shape() {
    return JobInputs.onExecutors(x.samples(), x.voxels(), y == null ? 0 : y.samples(), target,
        float32() ? 4 : 8);
  }

  /**
   * Reads every sample here (the in-memory path, for inputs small enough to broadcast), with
   * the sources' own readers, so the values are those the executors would read.
   *
   * @throws ResourceRefusedException when the values, as float64, would not fit the free heap
   */
  public JobInputs load(SampleSource.Opener files) {
    requireFreeHeap(float64Bytes());
    DataMatrix xm = x.readAll(files);
    if (y != null) {
      return JobInputs.twoGroups(xm, y.readAll(files));
    }
    return target != null ? JobInputs.withTarget(xm, target) : JobInputs.of(xm);
  }

  /** Refuses (exit 3) before allocating what the heap that is free now cannot hold. */
  private void requireFreeHeap(long needed) {
    if (!HeapCheck.fits(needed)) {
      long free = HeapCheck.free();
      throw new ResourceRefusedException(String.format(Locale.ROOT, "Cannot read %s on the"
          + " driver: its %d samples x %d voxels need %.1f MiB as float64 values, but only %.1f"
          + " MiB of the Java heap is free; let executors read it (spark.nlspark.ingest=blocks),"
          + " or give the driver more memory", x.name(), x.samples() + (y == null ? 0
          : y.samples()), x.voxels(), needed / 1048576.0, free / 1048576.0));
    }
  }

  /** For summary.json: what was read and how it is split. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("source", x.getClass().getSimpleName());
    m.put("splits", x.splits() + (y == null ? 0 : y.splits()));
    m.put("precision", float32() ? "float32" : "float64");
    m.put("float64_bytes", float64Bytes());
    return m;
  }
}
