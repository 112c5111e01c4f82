package org.nlspark.core.stats;

import jdk.incubator.vector.DoubleVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * SIMD form of {@link SignFlipStatistic}'s two-tailed t fold over one replicate row: the same
 * key ratio = g^2 / max(n sum(x^2) - g^2, 0) for every value (one vector division, no band
 * pre-filter), the same count rule, and the row maximum as the exact maximum of the keys — max
 * is exact, so lane order cannot change it and the bits equal the scalar path's. Loaded only
 * when {@link org.nlspark.core.simd.Simd#enabled()}.
 */
final class VectorSignFlipFold {
  private static final VectorSpecies<Double> S = DoubleVector.SPECIES_PREFERRED;
  /** Floats with as many lanes as S (half its width) for the float32 products. */
  private static final VectorSpecies<Float> F =
      FloatVector.SPECIES_PREFERRED.withShape(VectorShape.forBitSize(S.vectorBitSize() / 2));

  private VectorSignFlipFold() {}

  /**
   * Folds row {@code g[base .. base + b)}: counts[v] += 1 where the value is at least as extreme
   * as observed (|g| &gt;= |g_obs| by sign of their difference, or inside the near band with
   * key &gt;= observed key); returns the row's maximum key (0 when none is positive).
   */
  static double foldRow(double[] g, int base, int b, double[] c, double[] thr, double[] obs,
      double[] mid, double[] half, double[] counts) {
    DoubleVector max = DoubleVector.zero(S);
    int v = 0;
    final int upper = S.loopBound(b);
    for (; v < upper; v += S.length()) {
      max = lanes(DoubleVector.fromArray(S, g, base + v), v, c, thr, obs, mid, half, counts, max);
    }
    return finish(max, g, null, base, v, b, c, thr, obs, mid, half, counts);
  }

  /** The same over float32 products, widened lane by lane (exact, as the scalar cast). */
  static double foldRow(float[] g, int base, int b, double[] c, double[] thr, double[] obs,
      double[] mid, double[] half, double[] counts) {
    DoubleVector max = DoubleVector.zero(S);
    int v = 0;
    final int upper = S.loopBound(b);
    for (; v < upper; v += S.length()) {
      DoubleVector gv = (DoubleVector) FloatVector.fromArray(F, g, base + v)
          .convertShape(VectorOperators.F2D, S, 0);
      max = lanes(gv, v, c, thr, obs, mid, half, counts, max);
    }
    return finish(max, null, g, base, v, b, c, thr, obs, mid, half, counts);
  }

  private static DoubleVector lanes(DoubleVector gv, int v, double[] c, double[] thr,
      double[] obs, double[] mid, double[] half, double[] counts, DoubleVector max) {
    DoubleVector ag = gv.abs();
    DoubleVector o = DoubleVector.fromArray(S, obs, v);
    // The scalar rule counts when the sign bit of ag - obs is clear (not ag >= obs: NaN differs).
    VectorMask<Double> count = ((LongVector) ag.sub(o).viewAsIntegralLanes())
        .compare(VectorOperators.GE, 0L).cast(S);
    DoubleVector u = gv.mul(gv);
    DoubleVector key = u.div(DoubleVector.fromArray(S, c, v).sub(u).max(0.0));
    VectorMask<Double> band = ag.sub(DoubleVector.fromArray(S, mid, v)).abs()
        .compare(VectorOperators.LT, DoubleVector.fromArray(S, half, v))
        .and(ag.compare(VectorOperators.LT, o))
        .and(key.compare(VectorOperators.GE, DoubleVector.fromArray(S, thr, v)));
    DoubleVector.fromArray(S, counts, v).lanewise(VectorOperators.ADD, 1.0, count.or(band))
        .intoArray(counts, v);
    return max.blend(key, key.compare(VectorOperators.GT, max)); // NaN never wins, as k > m
  }

  private static double finish(DoubleVector max, double[] g, float[] gf, int base, int from,
      int b, double[] c, double[] thr, double[] obs, double[] mid, double[] half,
      double[] counts) {
    // Lanes hold +0.0 or keys above it, never NaN: the lane maximum is the scalar maximum.
    double m = max.reduceLanes(VectorOperators.MAX);
    for (int v = from; v < b; v++) {
      double gv = g != null ? g[base + v] : gf[base + v];
      double ag = Math.abs(gv);
      double u = gv * gv;
      double k = u / Math.max(c[v] - u, 0.0);
      boolean counted = (Double.doubleToRawLongBits(ag - obs[v]) >>> 63) == 0
          || (Math.abs(ag - mid[v]) < half[v] && ag < obs[v] && k >= thr[v]);
      counts[v] += counted ? 1.0 : 0.0;
      if (k > m) {
        m = k;
      }
    }
    return m;
  }

  static int lanes() {
    return S.length();
  }
}
