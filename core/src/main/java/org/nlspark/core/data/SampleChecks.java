package org.nlspark.core.data;

import java.util.function.IntFunction;
import org.nlspark.core.InvalidInputException;

/** The finiteness rule of every input value (DESIGN §6), applied as a sample is read. */
final class SampleChecks {
  private SampleChecks() {}

  static void requireFinite(float[] values, int count, String name, int sample, String what) {
    requireFinite(values, count, name, sample, what, v -> "voxel " + v);
  }

  static void requireFinite(double[] values, int count, String name, int sample, String what) {
    requireFinite(values, count, name, sample, what, v -> "voxel " + v);
  }

  /** {@code where} names a value's place for the user (an image's voxel as (i, j, k)). */
  static void requireFinite(float[] values, int count, String name, int sample, String what,
      IntFunction<String> where) {
    for (int i = 0; i < count; i++) {
      if (!Float.isFinite(values[i])) {
        throw nonFinite(name, sample, where.apply(i), values[i], what);
      }
    }
  }

  static void requireFinite(double[] values, int count, String name, int sample, String what,
      IntFunction<String> where) {
    for (int i = 0; i < count; i++) {
      if (!Double.isFinite(values[i])) {
        throw nonFinite(name, sample, where.apply(i), values[i], what);
      }
    }
  }

  private static InvalidInputException nonFinite(String name, int sample, String where,
      double value, String what) {
    return new InvalidInputException("Cannot use " + name + ": " + what + " " + sample
        + " holds " + value + " at " + where + "; remove or impute NaN and infinite values"
        + " (or leave such voxels out of the mask) before resampling");
  }
}
