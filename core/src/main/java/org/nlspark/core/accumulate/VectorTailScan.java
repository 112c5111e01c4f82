package org.nlspark.core.accumulate;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD test of {@link TailAccumulator#update}: one vector of an element's values against its
 * two thresholds at once, so a vector that cannot enter either tail is skipped; the others go to
 * the exact scalar rule. Loaded only when {@link org.nlspark.core.simd.Simd#enabled()} (it links
 * {@code jdk.incubator.vector}).
 */
final class VectorTailScan {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;

  private VectorTailScan() {}

  /** Values a call of {@link #allInside} tests. */
  static int length() {
    return S.length();
  }

  /** True when loTau &lt; x[i + j] &lt; hiTau for every lane j (false for NaN lanes). */
  static boolean allInside(double[] x, int i, double loTau, double hiTau) {
    DoubleVector v = DoubleVector.fromArray(S, x, i);
    return v.compare(VectorOperators.GT, loTau).and(v.compare(VectorOperators.LT, hiTau))
        .allTrue();
  }
}
