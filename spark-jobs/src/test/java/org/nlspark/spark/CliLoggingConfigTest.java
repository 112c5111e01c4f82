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
}
