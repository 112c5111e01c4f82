package org.nlspark.core.timeseries;

import org.nlspark.core.InvalidInputException;

/** Centring and scaling of series, and the input checks every time-series command shares. */
public final class Series {
  /**
   * A series whose squared deviations sum to at most this fraction of its sum of squares is
   * constant up to rounding (e.g. 0.1 repeated leaves residues near 1e-17 after centring).
   */
  static final double CONSTANT_RELATIVE = 1e-24;

  private Series() {}

  /**
   * Centres x[off, off + len) and scales it to unit Euclidean norm in place, so a dot product of two
   * such series is their Pearson correlation. Returns false, leaving zeros, for a constant series.
   */
  public static boolean standardize(double[] x, int off, int len) {
    if (!center(x, off, len)) {
      return false;
    }
    double ss = 0;
    for (int i = off; i < off + len; i++) {
      ss += x[i] * x[i];
    }
    double inv = 1.0 / Math.sqrt(ss);
    for (int i = off; i < off + len; i++) {
      x[i] *= inv;
    }
    return true;
  }

  /** Centres x[off, off + len) in place; returns false, leaving zeros, for a constant series. */
  public static boolean center(double[] x, int off, int len) {
    double mean = 0;
    double raw = 0;
    for (int i = off; i < off + len; i++) {
      mean += x[i];
      raw += x[i] * x[i];
    }
    mean /= len;
    double ss = 0;
    for (int i = off; i < off + len; i++) {
      double d = x[i] - mean;
      x[i] = d;
      ss += d * d;
    }
    if (!(ss > CONSTANT_RELATIVE * raw) || ss == 0) {
      java.util.Arrays.fill(x, off, off + len, 0.0);
      return false;
    }
    return true;
  }

  /** Throws exit-2 input errors for NaN or Inf, naming the first bad flat index. */
  public static void requireFinite(double[] values, String what, String command) {
    for (int i = 0; i < values.length; i++) {
      if (!Double.isFinite(values[i])) {
        throw new InvalidInputException("Cannot run " + command + ": " + what + " contains "
            + values[i] + " at flat index " + i + "; remove or impute non-finite values first");
      }
    }
  }

  /** Checks that {@code values} holds exactly the product of the dimensions. */
  public static void requireLength(double[] values, long expected, String what, String shape) {
    if (values == null || values.length != expected) {
      throw new InvalidInputException("Cannot read " + what + ": shape " + shape + " needs "
          + expected + " values, but the array has " + (values == null ? 0 : values.length));
    }
  }
}
