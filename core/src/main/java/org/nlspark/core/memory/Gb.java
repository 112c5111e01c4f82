package org.nlspark.core.memory;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * The one GB&lt;-&gt;bytes conversion (decimal GB, 1e9 bytes, as the reference's
 * {@code _gb_to_bytes}), and the one way messages print a GB figure.
 */
public final class Gb {
  private static final double BYTES_PER_GB = 1e9;

  private Gb() {}

  /** {@code (long) (gb * 1e9)}: truncates, as the reference does. */
  public static long toBytes(double gb) {
    if (!Double.isFinite(gb)) {
      throw new IllegalArgumentException("[BUG] GB must be finite to convert to bytes, but was: " + gb);
    }
    return (long) (gb * BYTES_PER_GB);
  }

  /** bytes / 1e9. */
  public static double fromBytes(double bytes) {
    return bytes / BYTES_PER_GB;
  }

  /**
   * {@code bytes} in GB rounded up to three significant digits, for a message's "at least": the
   * figure printed is never below what is needed (0.000672 GB for 671,999 bytes).
   */
  public static String atLeast(long bytes) {
    if (bytes <= 0) {
      return "0";
    }
    BigDecimal up = new BigDecimal(bytes).movePointLeft(9)
        .round(new MathContext(3, java.math.RoundingMode.CEILING));
    return format(up.doubleValue());
  }

  /**
   * Six significant digits without trailing zeros, as Python's {@code format(x, ".6g")}: 0.5,
   * 2.928e-05, 1.23457e+06 — so messages read the same as the reference's.
   */
  public static String format(double gb) {
    if (!Double.isFinite(gb)) {
      return Double.toString(gb);
    }
    if (gb == 0) {
      return "0";
    }
    BigDecimal rounded = new BigDecimal(gb).round(new MathContext(6)).stripTrailingZeros();
    int exponent = rounded.precision() - rounded.scale() - 1;
    if (exponent >= -4 && exponent < 6) {
      return rounded.toPlainString();
    }
    String mantissa = rounded.movePointLeft(exponent).toPlainString();
    return mantissa + (exponent < 0 ? "e-" : "e+") + String.format(Locale.ROOT, "%02d", Math.abs(exponent));
  }
}
