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

  private static final String ADVICE = "; check that it is running and that --master names its"
      + " host and RPC port (the spark://HOST:PORT the master printed, usually 7077)";

  @Test
  void aListenerThatIsNotASparkMasterIsRefusedNotWaitedOn() throws Exception {
    // a silent listener: the connection is accepted (backlog) and nothing ever answers
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      String m = "spark://127.0.0.1:" + s.getLocalPort();
      assertThatThrownBy(() -> SparkSessions.checkReachable(m, 1000))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("Cannot reach the master " + m + " (127.0.0.1:" + s.getLocalPort()
              + " accepted the connection but gave no answer in Spark's RPC protocol within 1 s,"
              + " so it is not a Spark master)" + ADVICE);
    }
    // a web server (the master's UI port, say): it answers HTTP
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      Thread web = new Thread(() -> {
        try (java.net.Socket c = s.accept()) {
          c.getOutputStream().write("HTTP/1.1 400 Bad Request\r\n\r\n".getBytes("US-ASCII"));
          c.getOutputStream().flush();
          c.getInputStream().read(new byte[64]);
        } catch (java.io.IOException e) {
          // the test's assertion says what went wrong
        }
      });
      web.start();
      String m = "spark://127.0.0.1:" + s.getLocalPort();
      assertThatThrownBy(() -> SparkSessions.checkReachable(m, 5000))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("Cannot reach the master " + m + " (127.0.0.1:" + s.getLocalPort()
              + " answered in HTTP (a web server, such as the master's web UI), not in Spark's"
              + " RPC protocol)" + ADVICE);
      web.join(10_000);
    }
  }

  @Test
  void scratchDirectoriesAndTheLocalAddressAreCheckedBeforeSparkStarts(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
    java.nio.file.Path file = java.nio.file.Files.writeString(tmp.resolve("f"), "x");
    assertThatThrownBy(() -> SparkSessions.checkLocalDirs(null, null, file.toString()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot start Spark: its scratch directory (java.io.tmpdir=" + file + ")"
            + " cannot be written (" + file + ": it is not a directory); point java.io.tmpdir at"
            + " a writable directory, e.g. NLSPARK_JAVA_OPTS=-Djava.io.tmpdir=/path/to/scratch");
    assertThatThrownBy(() -> SparkSessions.checkLocalDirs(file + "/sub", null, tmp.toString()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot start Spark: its scratch directory (spark.local.dir="
            + file + "/sub) cannot be written");
    assertThatThrownBy(() -> SparkSessions.checkLocalDirs(null, file.toString(), tmp.toString()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageEndingWith("point SPARK_LOCAL_DIRS at a writable directory, e.g."
            + " NLSPARK_JAVA_OPTS=-Dspark.local.dir=/path/to/scratch");
    // one usable directory of several is enough; a missing one is created, as Spark would
    assertThatCode(() -> SparkSessions.checkLocalDirs(file + "," + tmp.resolve("new/dir"), null,
        null)).doesNotThrowAnyException();
    assertThat(tmp.resolve("new/dir")).isEmptyDirectory();
    assertThatThrownBy(() -> SparkSessions.checkLocalIp("garbage.invalid"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot start Spark: SPARK_LOCAL_IP=garbage.invalid cannot be used (it is not"
            + " an address or a known host name); set it to one of this machine's addresses,"
            + " such as 127.0.0.1, or unset it");
    assertThatThrownBy(() -> SparkSessions.checkLocalIp("192.0.2.1"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("(it is not an address of this machine)");
    assertThatCode(() -> SparkSessions.checkLocalIp("127.0.0.1")).doesNotThrowAnyException();
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

  @Test
  void localSessionsSendTaskResultsStraightToTheDriverUnlessTheUserSaidOtherwise() {
    String localDir = System.getProperty("spark.local.dir");
    System.setProperty("spark.local.dir", System.getProperty("java.io.tmpdir")); // no spill dir made
    try {
      org.apache.spark.SparkConf conf = new org.apache.spark.SparkConf(true); // as open() builds it
      SparkSessions.localDefaults(conf);
      assertThat(conf.get("spark.task.maxDirectResultSize")).isEqualTo("64m");
      assertThat(conf.get("spark.executor.killOnFatalError.depth")).isEqualTo("0");
      assertThat(conf.get("spark.broadcast.compress")).isEqualTo("false");

      System.setProperty("spark.task.maxDirectResultSize", "2m");
      System.setProperty("spark.broadcast.compress", "true");
      org.apache.spark.SparkConf mine = new org.apache.spark.SparkConf(true);
      SparkSessions.localDefaults(mine);
      assertThat(mine.get("spark.task.maxDirectResultSize")).isEqualTo("2m");
      assertThat(mine.get("spark.broadcast.compress")).isEqualTo("true");
    } finally {
      System.clearProperty("spark.task.maxDirectResultSize");
      System.clearProperty("spark.broadcast.compress");
      if (localDir == null) {
        System.clearProperty("spark.local.dir");
      } else {
        System.setProperty("spark.local.dir", localDir);
      }
    }
  }
}
