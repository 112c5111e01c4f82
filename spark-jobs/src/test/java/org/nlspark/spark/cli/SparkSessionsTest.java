package org.nlspark.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

/** What is checked before Spark starts: the master URL, its reachability, the heap. */
class SparkSessionsTest {
  private static final Map<String, String> NO_ENV = Map.of();

  @Test
  void mastersSparkCanUseAreAccepted() {
    for (String m : new String[] {"local", "local[1]", "local[*]", "local[2,4]", "local[*,3]",
        "local-cluster[2,1,1024]", "spark://node-1:7077", "spark://a:7077,b:7077",
        "spark://[::1]:7077"}) {
      assertThatCode(() -> SparkSessions.checkMaster(m, NO_ENV::get)).as(m)
          .doesNotThrowAnyException();
    }
  }

  @Test
  void typosAndMissingPortsAreRefusedWithTheForms() {
    for (String m : new String[] {"lokal[2]", "local[0]", "local[two]", "spark://host",
        "spark://host:", "spark://host:0", "spark://:7077", "yarn-client", "", "LOCAL"}) {
      assertThatThrownBy(() -> SparkSessions.checkMaster(m, NO_ENV::get)).as(m)
          .isInstanceOf(InvalidInputException.class).hasMessageContaining("--master")
          .hasMessageContaining("but was: " + m);
    }
  }

  @Test
  void yarnNeedsTheHadoopConfigurationAndTheYarnModule() {
    assertThatThrownBy(() -> SparkSessions.checkMaster("yarn", NO_ENV::get))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("HADOOP_CONF_DIR").hasMessageContaining("YARN_CONF_DIR");
    // With the configuration present, this class path (no spark-yarn) is what is missing.
    assertThatThrownBy(() -> SparkSessions.checkMaster("yarn",
        Map.of("HADOOP_CONF_DIR", "/etc/hadoop/conf")::get))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("spark-yarn")
        .hasMessageContaining("spark-submit --master yarn");
  }

  @Test
  void anUnreachableMasterFailsFast() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
      // Listening: reachable.
      int open = port;
      assertThatCode(() -> SparkSessions.checkReachable("spark://127.0.0.1:" + open, 2000))
          .doesNotThrowAnyException();
    }
    long t0 = System.nanoTime();
    String m = "spark://127.0.0.1:" + port;
    assertThatThrownBy(() -> SparkSessions.checkReachable(m, 2000))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot reach the master " + m + " (127.0.0.1:" + port + ": ");
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(3.0);
    assertThatCode(() -> SparkSessions.checkReachable("local[2]", 10))
        .doesNotThrowAnyException();
  }

  @Test
  void aHeapBelowSparksMinimumIsRefusedWithHowToRaiseIt() {
    assertThat(SparkSessions.SPARK_MIN_HEAP_BYTES).isEqualTo(471_859_200L);
    assertThatThrownBy(() -> SparkSessions.checkHeap(256L << 20))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("256 MiB").hasMessageContaining("450 MiB")
        .hasMessageContaining("NLSPARK_JAVA_OPTS=-Xmx");
    assertThatCode(() -> SparkSessions.checkHeap(512L << 20)).doesNotThrowAnyException();
    // Spark's own refusal, should it come first, says the same.
    RuntimeException spark = new IllegalArgumentException("System memory 259522560 must be at"
        + " least 471859200. Please increase heap size using the --driver-memory option or"
        + " spark.driver.memory in Spark configuration.");
    assertThat(SparkSessions.explain(spark, "local[*]"))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("NLSPARK_JAVA_OPTS").hasMessageNotContaining("--driver-memory option");
  }
}
