package org.nlspark.core.timeseries;

import java.util.Locale;
import org.nlspark.core.InvalidInputException;

/**
 * How a surrogate time series is made. Both keep a series' own autocorrelation (a circular shift
 * keeps the series itself; phase randomization keeps its power spectrum) and destroy only its
 * alignment in time with other series, which is exactly what a test of temporal coupling needs.
 */
public enum SurrogateMethod {
  CIRCLE_SHIFT,
  PHASE_RANDOMIZE;

  /** Parses {@code circle-shift} or {@code phase-randomize} (underscores accepted). */
  public static SurrogateMethod parse(String s, String flag) {
    if (s != null) {
      switch (s.trim().toLowerCase(Locale.ROOT).replace('_', '-')) {
        case "circle-shift":
          return CIRCLE_SHIFT;
        case "phase-randomize":
          return PHASE_RANDOMIZE;
        default:
          break;
      }
    }
    throw new InvalidInputException(flag + " must be one of circle-shift, phase-randomize, but was: "
        + (s == null ? "null" : "'" + s + "'"));
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
