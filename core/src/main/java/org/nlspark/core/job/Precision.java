package org.nlspark.core.job;

import org.nlspark.core.InvalidInputException;

/** Floating-point precision of the GEMMs; accumulators are always float64. */
public enum Precision {
  FLOAT64,
  FLOAT32;

  public static Precision parse(String s) {
    if (s == null || s.equals("float64")) {
      return FLOAT64;
    }
    if (s.equals("float32")) {
      return FLOAT32;
    }
    throw new InvalidInputException(
        "--precision must be one of [float64, float32], but was: " + s);
  }

  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
