package org.nlspark.core.accumulate;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The SIMD scan of {@link TailAccumulator#update}: tests a vector of values against both
 * thresholds at once and hands only the lanes that may enter a tail to the exact scalar rule.
 * Loaded only when {@link Simd#enabled()} (it links {@code jdk.incubator.vector}).
 */
final class VectorTailScan {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;

  private VectorTailScan() {}

  /**
   * For e in [c0, c1): writes to {@code hits} (ascending) each e where
   * !(x &gt; loTau[e]) || !(x &lt; hiTau[e]) for x = buf[row + e] — the scalar test, NaN included
   * (a comparison with NaN is false in both). Returns how many.
   */
  static int scanRow(double[] buf, int row, double[] loTau, double[] hiTau, int c0, int c1,
      int[] hits) {
    int found = 0;
    int e = c0;
    final int upper = c0 + S.loopBound(c1 - c0);
    for (; e < upper; e += S.length()) {
      DoubleVector x = DoubleVector.fromArray(S, buf, row + e);
      VectorMask<Double> inside = x.compare(VectorOperators.GT, DoubleVector.fromArray(S, loTau, e))
          .and(x.compare(VectorOperators.LT, DoubleVector.fromArray(S, hiTau, e)));
      if (!inside.allTrue()) {
        // Lanes are re-tested in scalar form: reading single mask lanes is not compiled to
        // vector code on Java 17 (it boxes the mask).
        for (int i = e; i < e + S.length(); i++) {
          double xi = buf[row + i];
          if (!(xi > loTau[i]) || !(xi < hiTau[i])) {
            hits[found++] = i;
          }
        }
      }
    }
    for (; e < c1; e++) {
      double x = buf[row + e];
      if (!(x > loTau[e]) || !(x < hiTau[e])) {
        hits[found++] = e;
      }
    }
    return found;
  }

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
