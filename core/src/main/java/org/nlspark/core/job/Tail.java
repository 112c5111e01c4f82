package org.nlspark.core.job;

import java.util.Locale;
import org.nlspark.core.InvalidInputException;

/**
 * Which side of the null distribution counts as extreme (DESIGN §4). Every permutation rule works
 * on an extremeness key so that "at least as extreme" is always {@code key(null) >= key(obs)}:
 * two-tailed |null| ≥ |obs|, upper null ≥ obs, lower null ≤ obs (that is, -null ≥ -obs).
 */
public enum Tail {
  TWO,
  UPPER,
  LOWER;

  /** Extremeness key of a statistic: |s|, s or -s. NaN stays NaN, so it never counts. */
  public double key(double stat) {
    switch (this) {
      case TWO:
        return Math.abs(stat);
      case UPPER:
        return stat;
      case LOWER:
        return -stat;
      default:
        throw new IllegalStateException("[BUG] unhandled tail: " + this);
    }
  }

  /**
   * The count threshold of a voxel: the observed statistic's key, or +Infinity where it is NaN
   * (an undefined voxel never counts). Every fold, fused or not, uses this rule.
   */
  public double threshold(double observedStat) {
    double k = key(observedStat);
    return Double.isNaN(k) ? Double.POSITIVE_INFINITY : k;
  }

  /** Parses the value of {@code --tail}: {@code two}, {@code upper} or {@code lower}. */
  public static Tail parse(String s) {
    if (s != null) {
      switch (s.trim().toLowerCase(Locale.ROOT)) {
        case "two":
          return TWO;
        case "upper":
          return UPPER;
        case "lower":
          return LOWER;
        default:
          break;
      }
    }
    throw new InvalidInputException(
        "--tail must be one of two, upper, lower, but was: " + (s == null ? "null" : "'" + s + "'"));
  }

  /** The command-line spelling. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
