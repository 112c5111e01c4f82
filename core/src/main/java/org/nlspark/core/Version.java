package org.nlspark.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The one version string of nlspark: the project version of the build, written into
 * {@code org/nlspark/core/version.properties} by Maven's resource filtering (summary.json's
 * {@code versions.nlspark}, {@code env}).
 */
public final class Version {
  private static final String RESOURCE = "version.properties";

  /** This build's version, e.g. {@code 0.1.0-SNAPSHOT}. */
  public static final String NLSPARK = load();

  private Version() {}

  private static String load() {
    try (InputStream in = Version.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("[BUG] org/nlspark/core/" + RESOURCE
            + " is missing from the core jar; build it with Maven");
      }
      Properties p = new Properties();
      p.load(in);
      String v = p.getProperty("version", "");
      if (v.isEmpty() || v.contains("${")) {
        throw new IllegalStateException("[BUG] org/nlspark/core/" + RESOURCE
            + " holds no version (was it filtered?): " + v);
      }
      return v;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
