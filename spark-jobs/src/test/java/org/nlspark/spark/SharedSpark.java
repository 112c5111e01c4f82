package org.nlspark.spark;

import org.apache.spark.sql.SparkSession;

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
}
