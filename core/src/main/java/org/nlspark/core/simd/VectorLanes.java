package org.nlspark.core.simd;

import jdk.incubator.vector.DoubleVector;

/**
 * The preferred float64 vector width; the only class of this package that links
 * {@code jdk.incubator.vector}, loaded once {@link Simd} has found the module.
 */
final class VectorLanes {
  private VectorLanes() {}

  static int doubles() {
    return DoubleVector.SPECIES_PREFERRED.length();
  }
}
