package org.nlspark.spark.conf;

import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;

/**
 * Every setting nlspark reads beyond its flags, declared once with its default and unit. Each is
 * a Spark property named {@code spark.nlspark.*}: spark-submit passes only {@code spark.*}
 * properties on to the application, so {@code spark-submit --conf spark.nlspark.KEY=VALUE},
 * spark-defaults.conf and a cluster's Spark config all reach it. Precedence: a CLI flag or an
 * {@link NlsparkOptions.Builder} setting &gt; the Spark session's configuration &gt; the
 * default here.
 */
public final class NlsparkConf {
  private NlsparkConf() {}

  /** One setting: its key, its default (as Spark would hold it), its unit and what it does. */
  public record Setting(String key, String defaultValue, String unit, String description) {}

  /**
   * Largest serialized size of the inputs (X, Y, target) that may be broadcast to executors.
   * Java serializes a broadcast into one byte array, so 2 GB is a hard ceiling; above the limit
   * the run is refused (exit 3) before any task starts.
   */
  public static final String BROADCAST_MAX_BYTES = "spark.nlspark.broadcast.max-bytes";
  public static final long BROADCAST_MAX_BYTES_DEFAULT = 2_000_000_000L;

  /**
   * Test hook for retries: the task running this tile index throws once, on its first attempt
   * ({@code TaskContext.attemptNumber() == 0}); Spark then retries it (needs a master that
   * allows retries, e.g. {@code local[2,4]}). Unset (default -1) in normal runs.
   */
  public static final String TEST_FAIL_ONCE_TILE = "spark.nlspark.test.fail-once-tile";

  /**
   * Test hook for the killed-executor check: the first attempt of tile 0 prints a marker on
   * stderr and waits this many milliseconds, so a script can kill its executor while it runs.
   * 0 (off) in normal runs.
   */
  public static final String TEST_HOLD_TILE_MS = "spark.nlspark.test.hold-tile-ms";

  /**
   * How a resampling job's samples reach the tiles (DESIGN §8): {@code blocks} (executors read
   * the files and one shuffle assembles voxel blocks; nothing passes through the driver),
   * {@code broadcast} (the driver reads the inputs and broadcasts them), or {@code auto}: blocks
   * from {@link #INGEST_BLOCKS_MIN_BYTES} of float64 data up. Outputs are identical either way.
   */
  public static final String INGEST = "spark.nlspark.ingest";

  /** With {@code spark.nlspark.ingest=auto}: inputs this large (as float64) go as blocks. */
  public static final String INGEST_BLOCKS_MIN_BYTES = "spark.nlspark.ingest.blocks-min-bytes";

  /**
   * Spark's own switch for compressing shuffle files, which nlspark turns off (value
   * {@link #SHUFFLE_COMPRESS_DEFAULT}) in the sessions it starts unless it is set: the one large
   * shuffle is the data plane's (float values after inflate), which lz4 shrank only to 0.71 of
   * its size for about 45% of the CPU time of inflating it (it/scale-check.sh, SCALE_GB=0.5).
   * Set it true where the shuffle crosses a slow network rather than a local disk.
   */
  public static final String SHUFFLE_COMPRESS = "spark.shuffle.compress";

  /** nlspark's value of {@link #SHUFFLE_COMPRESS} when nothing sets it. */
  public static final String SHUFFLE_COMPRESS_DEFAULT = "false";

  /** All settings, for documentation and for the test that no key is read undeclared. */
  public static final List<Setting> SETTINGS = List.of(
      new Setting(INGEST, "auto", "auto|blocks|broadcast",
          "how samples reach the tiles: executors read them into voxel blocks (blocks), the"
              + " driver reads and broadcasts them (broadcast), or blocks from"
              + " spark.nlspark.ingest.blocks-min-bytes up (auto)"),
      new Setting(INGEST_BLOCKS_MIN_BYTES, "268435456", "bytes",
          "with spark.nlspark.ingest=auto, inputs of at least this many bytes (as float64) are"
              + " read by executors into voxel blocks instead of broadcast"),
      new Setting(BROADCAST_MAX_BYTES, Long.toString(BROADCAST_MAX_BYTES_DEFAULT), "bytes",
          "largest serialized size of the inputs broadcast to executors; above it the run is"
              + " refused (exit 3) before any task starts"),
      new Setting(TEST_FAIL_ONCE_TILE, "-1", "tile index",
          "test hook: the task of this tile fails once on its first attempt; -1 = off"),
      new Setting(TEST_HOLD_TILE_MS, "0", "milliseconds",
          "test hook: the first attempt of tile 0 waits this long so a script can kill its"
              + " executor; 0 = off"));

  /** Keys of an earlier release that spark-submit dropped; naming them gets the new key. */
  private static final List<String> RENAMED = List.of("nlspark.broadcast.max-bytes",
      "nlspark.test.fail-once-tile");

  public static long holdTileMillis(SparkSession spark) {
    return longValue(spark, TEST_HOLD_TILE_MS, "milliseconds");
  }

  public static long broadcastMaxBytes(SparkSession spark) {
    return longValue(spark, BROADCAST_MAX_BYTES, "bytes");
  }

  /** The ingest mode: "auto", "blocks" or "broadcast". */
  public static String ingest(SparkSession spark) {
    refuseRenamed(spark);
    String v = spark.conf().get(INGEST, defaultValue(INGEST)).trim().toLowerCase(Locale.ROOT);
    if (!v.equals("auto") && !v.equals("blocks") && !v.equals("broadcast")) {
      throw new InvalidInputException(INGEST + " must be auto, blocks or broadcast, but was: "
          + v);
    }
    return v;
  }

  public static long ingestBlocksMinBytes(SparkSession spark) {
    long v = longValue(spark, INGEST_BLOCKS_MIN_BYTES, "bytes");
    if (v < 0) {
      throw new InvalidInputException(INGEST_BLOCKS_MIN_BYTES + " must be >= 0, but was: " + v);
    }
    return v;
  }

  public static int failOnceTile(SparkSession spark) {
    long v = longValue(spark, TEST_FAIL_ONCE_TILE, "tile index");
    if (v < -1 || v > Integer.MAX_VALUE) {
      throw new InvalidInputException(TEST_FAIL_ONCE_TILE + " must be -1 or a tile index,"
          + " but was: " + v);
    }
    return (int) v;
  }

  /** The setting's declared default. */
  public static String defaultValue(String key) {
    for (Setting s : SETTINGS) {
      if (s.key().equals(key)) {
        return s.defaultValue();
      }
    }
    throw new IllegalArgumentException("[BUG] undeclared setting: " + key);
  }

  private static long longValue(SparkSession spark, String key, String unit) {
    refuseRenamed(spark);
    String v = spark.conf().get(key, defaultValue(key));
    try {
      return Long.parseLong(v.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new InvalidInputException(key + " must be a whole number (" + unit + "), but was: "
          + v);
    }
  }

  /** An old key left in a notebook or config would otherwise be ignored without a word. */
  private static void refuseRenamed(SparkSession spark) {
    for (String old : RENAMED) {
      if (spark.conf().contains(old)) {
        throw new InvalidInputException("Cannot use the setting " + old + ": it is now named spark."
            + old + " (every nlspark setting starts with spark.nlspark., so spark-submit --conf"
            + " passes it on); rename it");
      }
    }
  }

  /** The settings as text, one per line: key, default, unit, description. */
  public static String describe() {
    StringBuilder b = new StringBuilder();
    for (Setting s : SETTINGS) {
      b.append(String.format(Locale.ROOT, "  %s (default %s, %s): %s%n", s.key(),
          s.defaultValue(), s.unit(), s.description()));
    }
    return b.toString();
  }
}
