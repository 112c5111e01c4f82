package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The command line's logging file (nlspark-log4j2.properties) turns off only Spark loggers whose
 * lines nlspark says itself in one sentence, and --verbose brings every one of them back.
 */
class CliLoggingConfigTest {
  @Test
  void everyLoggerTheCliTurnsOffComesBackWithVerbose() throws IOException {
    Properties p = new Properties();
    try (InputStream in = Main.class.getClassLoader()
        .getResourceAsStream("nlspark-log4j2.properties")) {
      assertThat(in).as("nlspark-log4j2.properties on the class path").isNotNull();
      p.load(in);
    }
    Set<String> off = new TreeSet<>();
    for (String key : p.stringPropertyNames()) {
      if (key.startsWith("logger.") && key.endsWith(".level")
          && p.getProperty(key).trim().equalsIgnoreCase("off")) {
        String id = key.substring("logger.".length(), key.length() - ".level".length());
        off.add(p.getProperty("logger." + id + ".name").trim());
      }
    }
    assertThat(off).containsExactlyInAnyOrder(Main.VERBOSE_SPARK_LOGGERS);
    // a free racing SparkContext.stop() logs an InterruptedException stack (fault injection)
    assertThat(off).contains("org.apache.spark.ContextCleaner");
  }

  /**
   * Issue 41 case 21: the routine notes of large runs (task binaries broadcast, blocks spilled
   * to disk instead of memory) are filtered out by the CLI's logging file; other lines of those
   * loggers are not.
   */
  @Test
  void routineNotesOfLargeRunsAreFilteredOut() throws IOException {
    Properties p = new Properties();
    try (InputStream in = Main.class.getClassLoader()
        .getResourceAsStream("nlspark-log4j2.properties")) {
      p.load(in);
    }
    String[][] routine = {
      {"org.apache.spark.scheduler.DAGScheduler", "Broadcasting large task binary with size 1.4 MiB"},
      {"org.apache.spark.storage.memory.MemoryStore",
          "Not enough space to cache rdd_12_3 in memory! (computed 384.0 MiB so far)"},
      {"org.apache.spark.storage.BlockManager", "Persisting block rdd_12_3 to disk instead."},
    };
    for (String[] r : routine) {
      boolean denied = false;
      boolean others = true;
      for (String key : p.stringPropertyNames()) {
        if (key.endsWith(".name") && key.startsWith("logger.")
            && p.getProperty(key).trim().equals(r[0])) {
          String id = key.substring(0, key.length() - ".name".length());
          for (String f : p.stringPropertyNames()) {
            if (f.startsWith(id + ".filter.") && f.endsWith(".regex")) {
              String filter = f.substring(0, f.length() - ".regex".length());
              if (p.getProperty(filter + ".onMatch").trim().equals("DENY")
                  && r[1].matches(p.getProperty(f).trim())) {
                denied = true;
                others &= !"Lost executor 1 on host: heartbeat timed out"
                    .matches(p.getProperty(f).trim());
              }
            }
          }
          assertThat(p.getProperty(id + ".level")).as(r[0] + " keeps its level").isNull();
        }
      }
      assertThat(denied).as(r[0] + ": " + r[1]).isTrue();
      assertThat(others).isTrue();
    }
  }
}
