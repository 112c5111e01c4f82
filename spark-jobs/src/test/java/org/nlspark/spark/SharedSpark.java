package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * The one SparkSession of the test suite: two threads, up to four attempts per task (so a test
 * can fail a task once and watch it retried), UI off, driver on loopback, and ANSI SQL on as
 * Spark 4 and EMR have it by default (overflow and invalid casts throw), on both lines, so every
 * DataFrame and Parquet path is tested under it.
 */
final class SharedSpark {
  private static SparkSession session;

  private SharedSpark() {}

  static synchronized SparkSession get() {
    if (session == null) {
      session = SparkSession.builder()
          .master("local[2,4]")
          .appName("nlspark-tests")
          .config("spark.ui.enabled", "false")
          .config("spark.driver.host", "127.0.0.1")
          .config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.sql.shuffle.partitions", "2")
          .config("spark.sql.ansi.enabled", "true")
          .getOrCreate();
    }
    SparkSession.setActiveSession(session);
    SparkSession.setDefaultSession(session);
    return session;
  }

  /** What a retried run computes; may throw, as the runs under test do. */
  interface Run<T> {
    T call() throws Exception;
  }

  /** A retried run whose checks are inside it. */
  interface Check {
    void run() throws Exception;
  }

  /**
   * Runs {@code run} with the first attempt of tile {@code tile} failing (the engine's test hook
   * {@link NlsparkConf#TEST_FAIL_ONCE_TILE}), checks that exactly that one task attempt failed, and
   * returns what the run computed: the outputs of a retried task, for the determinism tests.
   */
  static <T> T retriedOnce(SparkSession spark, int tile, Run<T> run) throws Exception {
    AtomicInteger failed = new AtomicInteger();
    SparkListener listener = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd end) {
        if (!end.taskInfo().successful()) {
          failed.incrementAndGet();
        }
      }
    };
    spark.sparkContext().addSparkListener(listener);
    spark.conf().set(NlsparkConf.TEST_FAIL_ONCE_TILE, Integer.toString(tile));
    try {
      T result = run.call();
      spark.sparkContext().listenerBus().waitUntilEmpty();
      assertThat(failed.get()).as("injected task failures").isEqualTo(1);
      return result;
    } finally {
      spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
      spark.sparkContext().removeSparkListener(listener);
    }
  }

  /** {@link #retriedOnce} for a run that checks its outputs itself. */
  static void withRetriedTile(SparkSession spark, int tile, Check check) throws Exception {
    retriedOnce(spark, tile, () -> {
      check.run();
      return null;
    });
  }
}
