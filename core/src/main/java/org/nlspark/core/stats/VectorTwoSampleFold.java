package org.nlspark.core.stats;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;
import org.nlspark.core.job.Tail;

/**
 * SIMD form of {@link TwoSampleStatistic}'s epilogue fused with the permutation fold over one
 * replicate row: each lane computes the statistic with the scalar epilogue's operations in the
 * scalar order (IEEE division and square root are correctly rounded in every lane, and Java
 * never fuses a multiply-add), so every value has the scalar bits; then the fold's rules: key
 * |s|, s or -s by tail, NaN and undefined voxels as -Infinity, a count where key &gt;= the
 * observed key, the row maximum by max (exact, so lane order cannot change it). Loaded only when
 * {@link org.nlspark.core.simd.Simd#enabled()}.
 */
final class VectorTwoSampleFold {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;

  private VectorTwoSampleFold() {}

  /**
   * Folds row {@code base / b} of the products: counts[v] += 1 where the key reaches
   * {@code thr[v]}; returns the row's maximum key (-Infinity when none is defined).
   *
   * @param q1s group-1 sums of squares (Welch) or null (mean difference)
   */
  static double foldRow(double[] s1s, double[] q1s, int base, int b, double[] total,
      double[] totalSquares, double a, double c, Tail tail, double[] thr, boolean[] undefined,
      double[] counts) {
    final DoubleVector negInf = DoubleVector.broadcast(S, Double.NEGATIVE_INFINITY);
    final DoubleVector zero = DoubleVector.zero(S);
    DoubleVector max = negInf;
    int v = 0;
    final int upper = S.loopBound(b);
    for (; v < upper; v += S.length()) {
      DoubleVector s1 = DoubleVector.fromArray(S, s1s, base + v);
      DoubleVector s2 = DoubleVector.fromArray(S, total, v).sub(s1);
      DoubleVector m1 = s1.div(a);
      DoubleVector m2 = s2.div(c);
      DoubleVector stat;
      if (q1s == null) {
        stat = m1.sub(m2);
      } else {
        DoubleVector q1 = DoubleVector.fromArray(S, q1s, base + v);
        DoubleVector q2 = DoubleVector.fromArray(S, totalSquares, v).sub(q1);
        DoubleVector v1 = zero.max(q1.sub(s1.mul(m1)).div(a - 1));
        DoubleVector v2 = zero.max(q2.sub(s2.mul(m2)).div(c - 1));
        stat = m1.sub(m2).div(v1.div(a).add(v2.div(c)).sqrt());
      }
      DoubleVector key = tail == Tail.TWO ? stat.abs() : tail == Tail.UPPER ? stat : stat.neg();
      VectorMask<Double> drop = key.test(VectorOperators.IS_NAN)
          .or(VectorMask.fromArray(S, undefined, v));
      key = key.blend(negInf, drop);
      VectorMask<Double> count = key.compare(VectorOperators.GE, DoubleVector.fromArray(S, thr, v));
      DoubleVector.fromArray(S, counts, v).lanewise(VectorOperators.ADD, 1.0, count)
          .intoArray(counts, v);
      max = max.max(key);
    }
    // Lanes hold -Infinity or keys, never NaN: the lane maximum is the scalar maximum.
    double m = max.reduceLanes(VectorOperators.MAX);
    for (; v < b; v++) {
      double k = undefined[v] ? Double.NaN : tail.key(TwoSampleStatistic.statistic(
          s1s[base + v], q1s == null ? 0.0 : q1s[base + v], total[v], totalSquares[v], a, c,
          q1s != null));
      k = k == k ? k : Double.NEGATIVE_INFINITY;
      counts[v] += k >= thr[v] ? 1.0 : 0.0;
      m = Math.max(m, k);
    }
    return m;
  }
}
