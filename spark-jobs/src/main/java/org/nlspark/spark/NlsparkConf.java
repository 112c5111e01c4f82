package org.nlspark.spark;

import org.apache.spark.sql.SparkSession;

/**
 * The Spark configuration keys nlspark reads, each next to its default. Precedence: a CLI flag or
 * an {@link NlsparkOptions} setter &gt; the Spark session's configuration &gt; the default here.
 */
public final class NlsparkConf {
  private NlsparkConf() {}

  /**
   * Largest serialized size of the inputs (X, Y, target) that may be broadcast to executors.
   * Java serializes a broadcast into one byte array, so 2 GB is a hard ceiling; above the limit
   * the run is refused (exit 3) before any task starts.
   */
  public static final String BROADCAST_MAX_BYTES = "nlspark.broadcast.max-bytes";
  public static final long BROADCAST_MAX_BYTES_DEFAULT = 2_000_000_000L;

  /**
   * Test hook for retries: the task running this tile index throws once, on its first attempt
   * ({@code TaskContext.attemptNumber() == 0}); Spark then retries it (needs a master that
   * allows retries, e.g. {@code local[2,4]}). Unset (default -1) in normal runs.
   */
  public static final String TEST_FAIL_ONCE_TILE = "nlspark.test.fail-once-tile";

  /**
   * Test hook for the killed-executor check: the first attempt of tile 0 prints a marker on
   * stderr and waits this many milliseconds, so a script can kill its executor while it runs.
   * Unset (0) in normal runs.
   */
  public static final String TEST_HOLD_TILE_MS = "nlspark.test.hold-tile-ms";

  public static long holdTileMillis(SparkSession spark) {
    return Long.parseLong(spark.conf().get(TEST_HOLD_TILE_MS, "0"));
  }

  public static long broadcastMaxBytes(SparkSession spark) {
    return Long.parseLong(spark.conf().get(BROADCAST_MAX_BYTES,
        Long.toString(BROADCAST_MAX_BYTES_DEFAULT)));
  }

  public static int failOnceTile(SparkSession spark) {
    return Integer.parseInt(spark.conf().get(TEST_FAIL_ONCE_TILE, "-1"));
  }
}
