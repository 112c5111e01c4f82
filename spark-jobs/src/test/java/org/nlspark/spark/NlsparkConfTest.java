package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.spark.conf.NlsparkConf;

/** nlspark's settings: spark.nlspark.* keys, declared once, read from the session's conf. */
class NlsparkConfTest {
  @Test
  void everySettingIsASparkPropertyWithADefaultAndAUnit() {
    assertThat(NlsparkConf.SETTINGS).isNotEmpty();
    for (NlsparkConf.Setting s : NlsparkConf.SETTINGS) {
      // spark-submit passes only spark.* properties on to the application.
      assertThat(s.key()).startsWith("spark.nlspark.").matches("[a-z0-9.-]+");
      assertThat(s.defaultValue()).isNotEmpty();
      assertThat(s.unit()).isNotEmpty();
      assertThat(NlsparkConf.describe()).contains(s.key());
    }
    assertThat(NlsparkConf.BROADCAST_MAX_BYTES).isEqualTo("spark.nlspark.broadcast.max-bytes");
  }

  @Test
  void valuesComeFromTheSessionConfOrTheDefault() {
    SparkSession spark = SharedSpark.get();
    assertThat(NlsparkConf.broadcastMaxBytes(spark)).isEqualTo(2_000_000_000L);
    assertThat(NlsparkConf.failOnceTile(spark)).isEqualTo(-1);
    try {
      spark.conf().set(NlsparkConf.BROADCAST_MAX_BYTES, "1_000");
      assertThat(NlsparkConf.broadcastMaxBytes(spark)).isEqualTo(1000L);
      spark.conf().set(NlsparkConf.BROADCAST_MAX_BYTES, "lots");
      assertThatThrownBy(() -> NlsparkConf.broadcastMaxBytes(spark))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("spark.nlspark.broadcast.max-bytes must be a whole number (bytes), but"
              + " was: lots");
    } finally {
      spark.conf().unset(NlsparkConf.BROADCAST_MAX_BYTES);
    }
  }

  @Test
  void anOldKeyIsNamedWithItsNewName() {
    SparkSession spark = SharedSpark.get();
    try {
      spark.conf().set("nlspark.broadcast.max-bytes", "1000");
      assertThatThrownBy(() -> NlsparkConf.broadcastMaxBytes(spark))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("nlspark.broadcast.max-bytes")
          .hasMessageContaining("spark.nlspark.broadcast.max-bytes");
    } finally {
      spark.conf().unset("nlspark.broadcast.max-bytes");
    }
  }

  @Test
  void theDocumentedKeysAreTheDeclaredOnes() throws Exception {
    Path root = Path.of("").toAbsolutePath().getParent();
    String known = Files.readString(root.resolve("conf/known-keys.tsv"));
    for (NlsparkConf.Setting s : NlsparkConf.SETTINGS) {
      if (!s.key().contains(".test.")) {
        assertThat(known).contains(s.key() + "\tnlspark\t");
      }
    }
  }
}
