package org.nlspark.spark.conf;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SparkLineTest {
  private final SparkLine built = SparkLine.built();

  @Test
  void theJarKnowsItsLineAndTheTestsRunOnIt() {
    assertThat(built.artifact).matches("org\\.nlspark:nlspark-spark-(3\\.5_2\\.12|4\\.2_2\\.13)");
    assertThat(built.artifact).endsWith(built.sparkLine + "_" + built.scalaBinaryVersion);
    assertThat(built.version).isNotBlank().doesNotContain("${");
    // The class path of these tests is the line's own Spark and Scala.
    assertThat(SparkLine.runtimeSparkVersion()).isEqualTo(built.sparkVersion);
    assertThat(SparkLine.runtimeScalaVersion()).startsWith(built.scalaBinaryVersion + ".");
    assertThat(SparkLine.checkRuntime()).isNull();
  }

  @Test
  void anotherMajorLineIsRefusedNamingWhatWasFoundAndTheArtifactToUse() {
    boolean four = built.sparkLine.startsWith("4");
    String other = four ? "3.5.3" : "4.2.0";
    String otherScala = four ? "2.12.18" : "2.13.18";
    String msg = built.mismatch(other, otherScala);
    assertThat(msg).isEqualTo("Cannot run " + built.artifact + ":" + built.version + " on Spark "
        + other + " (Scala " + otherScala.substring(0, 4) + "): this jar is built for Spark "
        + built.sparkLine + " (Scala " + built.scalaBinaryVersion + "); use org.nlspark:"
        + (four ? "nlspark-spark-3.5_2.12" : "nlspark-spark-4.2_2.13") + ":" + built.version
        + " instead.");
  }

  @Test
  void theRightSparkWithTheWrongScalaIsRefusedToo() {
    String wrongScala = built.scalaBinaryVersion.equals("2.12") ? "2.13.16" : "2.12.18";
    assertThat(built.mismatch(built.sparkVersion, wrongScala))
        .startsWith("Cannot run " + built.artifact)
        .contains("(Scala " + wrongScala.substring(0, 4) + ")");
  }

  @Test
  void anotherMinorOfTheSameMajorRunsAndIsMarkedUntested() {
    String major = built.sparkLine.substring(0, 1);
    assertThat(built.mismatch(major + ".9.0", null)).isNull();
    assertThat(built.untestedMinor(major + ".9.0")).isTrue();
    assertThat(built.untestedMinor(built.sparkVersion)).isFalse();
    assertThat(built.mismatch("5.0.0", null)).endsWith("; nlspark supports Spark 3.5 and 4.x.");
    assertThat(built.mismatch(null, null)).isNull();
  }

  @Test
  void hadoopsGetSubjectOnNewJavaBecomesOneSentenceAboutThePlatform() {
    RuntimeException deep = new RuntimeException("task failed",
        new UnsupportedOperationException("getSubject is not supported"));
    assertThat(SparkLine.incompatibleJava(deep)).isEqualTo("Cannot run on Spark "
        + SparkLine.runtimeSparkVersion() + " with Java " + Runtime.version().feature()
        + ": this Spark's Hadoop calls Subject.getSubject, which Java 24 and later no longer"
        + " support; run it on Java 17 or 21, or use Spark 4.2 or later.");
    assertThat(SparkLine.incompatibleJava(new IllegalStateException("other"))).isNull();
  }
}
