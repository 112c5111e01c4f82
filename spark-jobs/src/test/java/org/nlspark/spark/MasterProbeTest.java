package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThatCode;

import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.nlspark.spark.cli.SparkSessions;

/**
 * The --master probe against a real Spark RPC endpoint: the shared session's driver listens
 * with the same transport a standalone master uses, so a probe it accepts is one a master
 * accepts (the refusals are in SparkSessionsTest).
 */
class MasterProbeTest {
  @Test
  void aSparkRpcEndpointPassesTheProbe() {
    SparkSession spark = SharedSpark.get();
    String port = spark.sparkContext().getConf().get("spark.driver.port");
    assertThatCode(() -> SparkSessions.checkReachable("spark://127.0.0.1:" + port, 5000))
        .doesNotThrowAnyException();
  }
}
