package org.nlspark.spark.conf;

import java.io.Serializable;
import org.apache.spark.sql.SparkSession;

/**
 * The fault hooks the integration checks drive (it/), read in this one place and off in every
 * normal run: a tile whose first attempt fails ({@link NlsparkConf#TEST_FAIL_ONCE_TILE}), tile 0
 * held so a script can kill its executor ({@link NlsparkConf#TEST_HOLD_TILE_MS}), and the output
 * writer paused at a named point ({@code -D}{@value #PAUSE_PROPERTY}{@code =POINT[:MILLIS]}).
 * Serializable: the task hooks travel with every task.
 *
 * @param failOnceTile the tile whose first attempt throws, or -1
 * @param holdTileMillis how long the first attempt of tile 0 waits, or 0
 */
public record TestHooks(int failOnceTile, long holdTileMillis) implements Serializable {
  /** The JVM property that pauses the output writer: {@code POINT[:MILLIS]}, default 4000 ms. */
  public static final String PAUSE_PROPERTY = "nlspark.test.pauseAt";

  /** No hook set. */
  public static final TestHooks NONE = new TestHooks(-1, 0);

  /** The task hooks of the session's configuration (validated as every setting is). */
  public static TestHooks of(SparkSession spark) {
    return new TestHooks(NlsparkConf.failOnceTile(spark), NlsparkConf.holdTileMillis(spark));
  }

  /**
   * Executor side, before a tile runs: the injected failure, or the hold of tile 0 (a marker line
   * on stderr, which the worker writes to that executor's log, then the wait).
   */
  public void beforeTile(int tileIndex, int attemptNumber, int stageId) {
    if (attemptNumber != 0) {
      return;
    }
    if (tileIndex == failOnceTile) {
      throw new IllegalStateException("Injected failure of tile " + tileIndex
          + " on its first attempt (" + NlsparkConf.TEST_FAIL_ONCE_TILE + ")");
    }
    if (holdTileMillis > 0 && tileIndex == 0) {
      System.err.println("NLSPARK_HOLDING_TILE_0 pid=" + ProcessHandle.current().pid()
          + " stage=" + stageId);
      System.err.flush();
      sleep(holdTileMillis);
    }
  }

  /** Driver side: pauses the output writer at {@code point} when the property names it. */
  public static void pauseAt(String point) {
    String spec = System.getProperty(PAUSE_PROPERTY);
    if (spec == null || spec.isBlank()) {
      return;
    }
    String[] parts = spec.split(":");
    if (!parts[0].equals(point)) {
      return;
    }
    long millis = parts.length > 1 ? Long.parseLong(parts[1]) : 4000;
    System.err.println("nlspark-test: paused at " + point);
    System.err.flush();
    sleep(millis);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
