package org.nlspark.spark.conf;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The Spark line this jar was built for (Spark 3.5 / Scala 2.12 or Spark 4.x / Scala 2.13, one
 * artifact each from the same sources) and the Spark and Scala found at run time. Both are read
 * from resource files (ours, written by the build; Spark's {@code spark-version-info.properties},
 * in spark-common-utils since 3.5; Scala's {@code library.properties}), never through a Scala class, so the check works on the
 * wrong line too: a 3.5 jar on Spark 4 would otherwise die at its first Scala call with a
 * {@code NoSuchMethodError}.
 */
public final class SparkLine {
  private static final String BUILD_RESOURCE = "nlspark-build.properties";

  /** Maven coordinates of this jar, e.g. {@code org.nlspark:nlspark-spark-4.2_2.13}. */
  public final String artifact;
  public final String version;
  /** major.minor of the Spark it was compiled against, e.g. {@code 4.2}. */
  public final String sparkLine;
  public final String sparkVersion;
  public final String scalaBinaryVersion;

  private SparkLine(Properties p) {
    this.artifact = p.getProperty("artifact");
    this.version = p.getProperty("version");
    this.sparkLine = p.getProperty("spark.line");
    this.sparkVersion = p.getProperty("spark.version");
    this.scalaBinaryVersion = p.getProperty("scala.binary.version");
  }

  /** What this jar was built for. */
  public static SparkLine built() {
    Properties p = load(BUILD_RESOURCE);
    if (p == null || p.getProperty("spark.line") == null) {
      throw new IllegalStateException("[BUG] " + BUILD_RESOURCE + " is missing from the jar");
    }
    return new SparkLine(p);
  }

  /** The Spark version on the class path, or null when Spark's version file is not there. */
  public static String runtimeSparkVersion() {
    Properties p = load("spark-version-info.properties");
    return p == null ? null : p.getProperty("version");
  }

  /** The Scala library version on the class path (e.g. 2.13.16), or null. */
  public static String runtimeScalaVersion() {
    Properties p = load("library.properties");
    return p == null ? null : p.getProperty("version.number");
  }

  /**
   * Null when this jar can run on the Spark and Scala found, else the one sentence that says what
   * was found and which artifact to use instead. Spark's major version and Scala's binary version
   * must match the build; another minor release of the same major is accepted (see
   * {@link #untestedMinor}).
   */
  public String mismatch(String runtimeSpark, String runtimeScala) {
    if (runtimeSpark == null) {
      return null; // no Spark version file: not a Spark class path we can judge (tests, tools)
    }
    String major = major(runtimeSpark);
    boolean sparkOk = major.equals(major(sparkLine));
    boolean scalaOk = runtimeScala == null || binary(runtimeScala).equals(scalaBinaryVersion);
    if (sparkOk && scalaOk) {
      return null;
    }
    String scalaFound = runtimeScala == null ? "" : " (Scala " + binary(runtimeScala) + ")";
    String use = major.equals("3")
        ? "org.nlspark:nlspark-spark-3.5_2.12"
        : major.equals("4") ? "org.nlspark:nlspark-spark-4.2_2.13" : null;
    return "Cannot run " + artifact + ":" + version + " on Spark " + runtimeSpark + scalaFound
        + ": this jar is built for Spark " + sparkLine + " (Scala " + scalaBinaryVersion + ")"
        + (use == null
            ? "; nlspark supports Spark 3.5 and 4.x."
            : "; use " + use + ":" + version + " instead.");
  }

  /** True when the runtime is the built major line but another minor (runs, but untested here). */
  public boolean untestedMinor(String runtimeSpark) {
    return runtimeSpark != null && major(runtimeSpark).equals(major(sparkLine))
        && !majorMinor(runtimeSpark).equals(sparkLine);
  }

  /** The check for the class path of this JVM: null when fine, else the sentence. */
  public static String checkRuntime() {
    return built().mismatch(runtimeSparkVersion(), runtimeScalaVersion());
  }

  /**
   * The sentence for a failure that says this Spark cannot run on this Java, or null. Spark 4.0's
   * Hadoop (3.4.1) calls {@code Subject.getSubject}, which Java 24 and later refuse with an
   * {@code UnsupportedOperationException} ("getSubject is not supported"); Spark 4.2 (Hadoop 3.5)
   * runs on Java 25.
   */
  public static String incompatibleJava(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = c.getMessage();
      if (m != null && m.contains("getSubject is not supported")) {
        String spark = runtimeSparkVersion();
        return "Cannot run on Spark " + (spark == null ? "(unknown)" : spark) + " with Java "
            + Runtime.version().feature() + ": this Spark's Hadoop calls Subject.getSubject, which"
            + " Java 24 and later no longer support; run it on Java 17 or 21, or use Spark 4.2"
            + " or later.";
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  private static String major(String v) {
    int dot = v.indexOf('.');
    return dot < 0 ? v : v.substring(0, dot);
  }

  private static String majorMinor(String v) {
    String[] parts = v.split("\\.");
    return parts.length < 2 ? v : parts[0] + "." + parts[1];
  }

  private static String binary(String scalaVersion) {
    return majorMinor(scalaVersion);
  }

  private static Properties load(String resource) {
    ClassLoader loader = SparkLine.class.getClassLoader();
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        return null;
      }
      Properties p = new Properties();
      p.load(in);
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + resource + " from the class path", e);
    }
  }
}
