package org.nlspark.core.memory;

import java.util.Locale;
import org.nlspark.core.ResourceRefusedException;

/**
 * What the driver holds beyond its inputs, checked before any work (DESIGN §3.5): the merge of
 * every null distribution (one maximum per replicate), and a bootstrap's saved samples. Tiles
 * are sized against the executors' budget; these grow with the replicates alone, so a run that
 * asks for a billion permutations is refused here, up front, with the heap it would need,
 * instead of dying part-way.
 */
public final class DriverMemory {
  /**
   * Bytes per replicate of one null distribution on the driver: the merged maxima and their
   * seen flags (9), the sorted copy FWER p-values are counted against (8), the output array
   * (8), its bytes on the way to the file (8), and the partials arriving from the tasks (8);
   * rounded up.
   */
  public static final long BYTES_PER_NULL_REPLICATE = 48;

  /**
   * Copies of a bootstrap's saved samples (replicates x voxels) the driver holds at once: the
   * merged array, and a task's partial as Spark's serialized result, as its bytes, and decoded
   * while it is folded in. Measured: 100,000 voxels under a 1 GB heap finished with 200 samples
   * and died with 250 (4 copies: 0.64 and 0.8 GB against 60% of the heap).
   */
  public static final int SAVED_SAMPLE_COPIES = 4;

  /** The share of the driver's heap these may take: the rest holds inputs, maps and Spark. */
  public static final double HEAP_FRACTION = 0.6;

  /** Java arrays index with an int: the longest one a null distribution can be. */
  static final long MAX_ARRAY = Integer.MAX_VALUE - 8;

  private DriverMemory() {}

  /** What a run's driver holds: bytes, over how many replicates, and what, for the refusal. */
  public record Need(long bytes, long replicates, String what) {
    public static final Need NONE = new Need(0, 0, "nothing");

    /** Both at once. */
    public Need plus(Need other) {
      return bytes == 0 ? other : other.bytes == 0 ? this : new Need(saturatedSum(bytes,
          other.bytes), Math.max(replicates, other.replicates), what + " and " + other.what);
    }
  }

  /** {@code distributions} null distributions (one maximum per replicate) on the driver. */
  public static Need nullDistributions(long replicates, int distributions) {
    if (distributions <= 0) {
      return Need.NONE;
    }
    return new Need(saturated(replicates, BYTES_PER_NULL_REPLICATE * distributions), replicates,
        (distributions == 1 ? "the null distribution" : distributions + " null distributions")
            + " of " + replicates + " replicates");
  }

  /**
   * Bytes per voxel and statistic the merge of whole-map inference holds on the driver: the
   * exceedance counts of the statistic and of its enhanced map (8 each), the observed and
   * enhanced maps (8 each), and the p maps made from them as merged and as written (4 x 8).
   */
  public static final long WHOLE_MAP_BYTES_PER_VOXEL = 64;

  /** The merge of {@code statistics} statistics' whole maps on the driver (--tfce, clusters). */
  public static Need wholeMaps(long voxels, long statistics) {
    return new Need(saturated(saturated(voxels, statistics), WHOLE_MAP_BYTES_PER_VOXEL), 0,
        "the merged maps of " + statistics + " statistic" + (statistics == 1 ? "" : "s") + " x "
            + voxels + " voxels");
  }

  /** A bootstrap's saved samples (--save-samples) on the driver. */
  public static Need savedSamples(long replicates, long voxels) {
    return new Need(saturated(saturated(replicates, voxels), 8L * SAVED_SAMPLE_COPIES),
        replicates, "the saved samples (" + replicates + " replicates x " + voxels
            + " voxels, while they are merged)");
  }

  /** {@link #check(String, Need, long)} against this JVM's heap (the driver's). */
  public static void check(String command, Need need) {
    check(command, need, Runtime.getRuntime().maxMemory());
  }

  /**
   * Refuses (exit 3) when the need does not fit {@link #HEAP_FRACTION} of {@code heapBytes}, or
   * its replicates do not fit one array.
   */
  public static void check(String command, Need need, long heapBytes) {
    long bytes = need.bytes();
    long replicates = need.replicates();
    String what = need.what();
    if (bytes <= 0) {
      return;
    }
    if (replicates > MAX_ARRAY) {
      throw new ResourceRefusedException(String.format(Locale.ROOT, "Cannot start %s: %d"
          + " replicates are more than one array can hold (%d); ask for fewer", command,
          replicates, MAX_ARRAY));
    }
    double allowed = heapBytes * HEAP_FRACTION;
    if (bytes > allowed) {
      long neededHeap = (long) Math.ceil(bytes / HEAP_FRACTION / (1L << 30)) + 1;
      throw new ResourceRefusedException(String.format(Locale.ROOT, "Cannot start %s: the"
          + " driver would hold %s GB for %s, more than %.0f%% of its %s GB heap; ask for fewer"
          + " replicates, or give the driver a heap of at least %d GiB (NLSPARK_JAVA_OPTS=-Xmx%dg"
          + " on one machine, spark.driver.memory on a cluster)", command,
          Gb.format(Gb.fromBytes(bytes)), what, HEAP_FRACTION * 100,
          Gb.format(Gb.fromBytes(heapBytes)), neededHeap, neededHeap));
    }
  }

  private static long saturatedSum(long a, long b) {
    long s = a + b;
    return s < 0 ? Long.MAX_VALUE : s;
  }

  private static long saturated(long a, long b) {
    try {
      return Math.multiplyExact(a, b);
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
  }
}
