package org.nlspark.core.isc;

import java.util.Locale;
import org.nlspark.core.InvalidInputException;

/**
 * The null distribution of an ISC test.
 *
 * <ul>
 *   <li>{@code BOOTSTRAP}: subjects resampled with replacement (Chen et al. 2016); p from the
 *       bootstrap distribution shifted by the observed value (a centred null).
 *   <li>{@code CIRCLE_SHIFT}, {@code PHASE_RANDOMIZE}: each subject's series gets its own random
 *       shift or phase set, shared by all of that subject's voxels. That keeps each subject's
 *       spatial and temporal autocorrelation intact and breaks only the temporal alignment between
 *       subjects, which is exactly the hypothesis under test; shared across voxels, the null is
 *       valid for the max-statistic FWER too.
 * </ul>
 */
public enum IscNull {
  BOOTSTRAP,
  CIRCLE_SHIFT,
  PHASE_RANDOMIZE;

  public static IscNull parse(String s) {
    if (s != null) {
      switch (s.trim().toLowerCase(Locale.ROOT).replace('_', '-')) {
        case "bootstrap":
          return BOOTSTRAP;
        case "circle-shift":
          return CIRCLE_SHIFT;
        case "phase-randomize":
          return PHASE_RANDOMIZE;
        default:
          break;
      }
    }
    throw new InvalidInputException(
        "--null must be one of bootstrap, circle-shift, phase-randomize, but was: "
            + (s == null ? "null" : "'" + s + "'"));
  }

  /** Permutation-type nulls (surrogates) support the max-statistic FWER. */
  public boolean isPermutation() {
    return this != BOOTSTRAP;
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
