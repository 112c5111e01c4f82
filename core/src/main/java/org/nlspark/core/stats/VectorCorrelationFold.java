package org.nlspark.core.stats;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.nlspark.core.job.Tail;

/**
 * SIMD form of {@link CorrelationStatistic}'s epilogue fused with the permutation fold over one
 * replicate row, as {@link VectorTwoSampleFold} is for two-sample: r = clamp(p, -1, 1) (Pearson)
 * or clamp(p / den, -1, 1) (Spearman) lane by lane with the scalar operations (the same bits),
 * then the generic fold's rules. Pearson and Spearman have a loop each (no vector chosen by a
 * branch inside the loop). Loaded only when {@link org.nlspark.core.simd.Simd#enabled()}.
 */
final class VectorCorrelationFold {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;

  private VectorCorrelationFold() {}

  /**
   * Folds row {@code base / b} of the products: counts[v] += 1 where the key reaches
   * {@code thr[v]}; returns the row's maximum key (-Infinity when none is defined).
   *
   * @param den Spearman's per-voxel denominators, or null (Pearson)
   */
  static double foldRow(double[] p, double[] den, int base, int b, Tail tail, double[] thr,
      boolean[] undefined, double[] counts) {
    final DoubleVector negInf = DoubleVector.broadcast(S, Double.NEGATIVE_INFINITY);
    DoubleVector max = negInf;
    int v = 0;
    final int upper = S.loopBound(b);
    if (den == null) {
      for (; v < upper; v += S.length()) {
        DoubleVector r = DoubleVector.fromArray(S, p, base + v).min(1.0).max(-1.0);
        DoubleVector key = tail == Tail.TWO ? r.abs() : tail == Tail.UPPER ? r : r.neg();
        VectorMask<Double> drop = key.test(VectorOperators.IS_NAN)
            .or(VectorMask.fromArray(S, undefined, v));
        key = key.blend(negInf, drop);
        VectorMask<Double> count = key.compare(VectorOperators.GE,
            DoubleVector.fromArray(S, thr, v));
        DoubleVector.fromArray(S, counts, v).lanewise(VectorOperators.ADD, 1.0, count)
            .intoArray(counts, v);
        max = max.max(key);
      }
    } else {
      for (; v < upper; v += S.length()) {
        DoubleVector r = DoubleVector.fromArray(S, p, base + v)
            .div(DoubleVector.fromArray(S, den, v)).min(1.0).max(-1.0);
        DoubleVector key = tail == Tail.TWO ? r.abs() : tail == Tail.UPPER ? r : r.neg();
        VectorMask<Double> drop = key.test(VectorOperators.IS_NAN)
            .or(VectorMask.fromArray(S, undefined, v));
        key = key.blend(negInf, drop);
        VectorMask<Double> count = key.compare(VectorOperators.GE,
            DoubleVector.fromArray(S, thr, v));
        DoubleVector.fromArray(S, counts, v).lanewise(VectorOperators.ADD, 1.0, count)
            .intoArray(counts, v);
        max = max.max(key);
      }
    }
    // Lanes hold -Infinity or keys, never NaN: the lane maximum is the scalar maximum.
    double m = max.reduceLanes(VectorOperators.MAX);
    for (; v < b; v++) {
      double k = undefined[v] ? Double.NaN
          : tail.key(CorrelationStatistic.statistic(p[base + v], den == null ? 1.0 : den[v],
              den != null));
      k = k == k ? k : Double.NEGATIVE_INFINITY;
      counts[v] += k >= thr[v] ? 1.0 : 0.0;
      m = Math.max(m, k);
    }
    return m;
  }
}
