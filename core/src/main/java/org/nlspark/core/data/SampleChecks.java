package org.nlspark.core.data;

import org.nlspark.core.InvalidInputException;

/** The finiteness rule of every input value (DESIGN §6), applied as a sample is read. */
final class SampleChecks {
  private SampleChecks() {}

  static void requireFinite(float[] values, int count, String name, int sample, String what) {
    for (int i = 0; i < count; i++) {
      if (!Float.isFinite(values[i])) {
        throw nonFinite(name, sample, i, values[i], what);
      }
    }
  }

  static void requireFinite(double[] values, int count, String name, int sample, String what) {
    for (int i = 0; i < count; i++) {
      if (!Double.isFinite(values[i])) {
        throw nonFinite(name, sample, i, values[i], what);
      }
    }
  }

  private static InvalidInputException nonFinite(String name, int sample, int voxel,
      double value, String what) {
    return new InvalidInputException("Cannot use " + name + ": " + what + " " + sample
        + " holds " + value + " at voxel " + voxel + "; remove or impute NaN and infinite values"
        + " (or leave such voxels out of the mask) before resampling");
  }
}
