package org.nlspark.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a finished run should tell its user although it succeeded: results that are undefined
 * (NaN) for a reason the user can fix, and intervals that the number of draws cannot resolve.
 * One home for these notices, so summary.json's {@code warnings} and the command line say the
 * same for every command.
 */
public final class RunWarnings {
  private RunWarnings() {}

  /** The notices of {@code report}, in a fixed order; empty when there is nothing to say. */
  public static List<String> of(RunReport report) {
    List<String> warnings = new ArrayList<>();
    Map<String, Object> parameters = parameters(report);
    Object samples = parameters.get("samples");
    Object confidence = parameters.get("confidence");
    if (samples instanceof Number) {
      long b = ((Number) samples).longValue();
      if (b < 2) {
        warnings.add("1 bootstrap sample: the standard deviation, z, p and intervals are"
            + " undefined (NaN); use --samples 2 or more (thousands for intervals)");
      } else if (confidence instanceof Number) {
        double c = ((Number) confidence).doubleValue();
        long needed = samplesToResolve(c);
        if (b < needed) {
          warnings.add(String.format(Locale.ROOT, "--confidence %s with %d samples: the"
              + " interval's ends fall between the two most extreme draws, so it is about the"
              + " range of the samples; use at least %d samples", c, b, needed));
        }
      }
    }
    Map<String, Object> facts = report.result.facts();
    long voxels = report.result.voxels();
    long zeroVariance = count(facts.get("zero_variance_voxels"));
    long undefined = count(facts.get("undefined_voxels"));
    if (zeroVariance > 0) {
      warnings.add(String.format(Locale.ROOT, "%d of %d voxels have zero variance in the"
          + " draws: their z and p are NaN", zeroVariance, voxels));
    }
    if (undefined > 0) {
      String why = report.command().equals("isc")
          ? "a subject is constant there (zero variance), so the correlation is undefined"
          : "the data have zero variance there";
      warnings.add(String.format(Locale.ROOT, "%d of %d voxels are undefined (NaN): %s;"
          + " mask them out or check those voxels", undefined, voxels, why));
    }
    return warnings;
  }

  /**
   * The fewest draws for which a central {@code confidence} interval's linear-interpolation
   * quantiles lie beyond the two most extreme draws: (1 - c) / 2 · (B - 1) >= 1.
   */
  static long samplesToResolve(double confidence) {
    double tail = (1 - confidence) / 2;
    if (!(tail > 0)) {
      return Long.MAX_VALUE;
    }
    return (long) Math.ceil(1 / tail - 1e-9) + 1;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> parameters(RunReport report) {
    Object p = report.analysis.describe().get("parameters");
    return p instanceof Map ? (Map<String, Object>) p : Map.of();
  }

  private static long count(Object value) {
    return value instanceof Number ? ((Number) value).longValue() : 0;
  }
}
