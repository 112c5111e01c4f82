package org.nlspark.core.tfce;

import java.util.Arrays;
import org.nlspark.core.job.Tail;
import org.nlspark.core.stats.ZScores;

/**
 * A statistic's maps as TFCE and clusters see them on a surface (PALM, DESIGN §9): z of t with
 * {@code df} degrees of freedom (of a correlation r, of its t), with the same outcome as
 * converting every value at a fraction of the cost.
 *
 * <p><b>Why it can skip.</b> TFCE reads a map only through its maximum (which fixes the heights
 * h_k) and each vertex's level (how many heights it reaches); clusters read which vertices reach
 * the cluster-forming height T, and cluster mass the z of those. z is increasing in t, so each
 * height has a bound in t: t_k with z(t_k) = h_k (a few Newton steps on {@link ZScores#ofT}), and a
 * vertex's level is the number of bounds its t reaches. A vertex gets its exact z where that could
 * differ: the maximum, every t near a bound (within 1e-8, relative), and every t that may reach T;
 * every other vertex gets the height of its level (0 below the first), which TFCE turns into the
 * same level, and which stays below T. Values on the untested side keep their t (z has its
 * sign, and a one-tailed TFCE or cluster never reads past it). A map whose maximum is not finite
 * is converted value by value. An fsaverage5 map (10,242 vertices) takes a few hundred
 * conversions instead of about 5,000.
 *
 * <p>An F statistic (a glm F contrast, upper tail: {@code rank} set) is converted value by value
 * through {@link ZScores#ofF}: its bounds would need F's own Newton steps, and F contrasts on a
 * surface are rarer than t.
 *
 * <p>Not thread-safe (it holds work arrays): one per thread, as {@link Tfce}.
 */
final class ZMaps {
  /**
   * The band around a bound in which a vertex gets its exact z: 1e-8 relative, a hundred times
   * the bounds' accuracy (1e-10) and hundreds of times the noise in z's last bits near 0, where z
   * comes from a probability near 1/2 (about 1e-12 absolute at t ≈ 0.02 with 200 degrees of
   * freedom).
   */
  private static final double NEAR = 1e-8;

  private final double df;
  private final boolean ofR;
  private final double rank; // of an F statistic, else NaN
  private final Tail tail;
  private final Tfce heights; // the TFCE whose heights the levels are read against, or null
  private final double[] clusterHeights; // z heights of clusters (extent, mass): exact above
  private final double logDensityRatio; // log of the t density's constant over the normal's
  private double[] tBounds; // t_k for h_k, k = 1..K
  private double[] h;
  private double[] scratch = new double[0]; // one map's z before it replaces the map
  /** Maps {@link #convert} took value by value, and all it was given (for tests). */
  int plainMaps;
  int maps;

  ZMaps(double df, boolean ofR, Tail tail, Tfce tfce, double[] clusterHeights) {
    this(df, ofR, Double.NaN, tail, tfce, clusterHeights);
  }

  ZMaps(double df, boolean ofR, double rank, Tail tail, Tfce tfce, double[] clusterHeights) {
    if (!Double.isNaN(rank) && (ofR || tail != Tail.UPPER)) {
      throw new IllegalArgumentException("[BUG] z of F is of the upper tail, of F itself");
    }
    this.df = df;
    this.ofR = ofR;
    this.rank = rank;
    this.tail = tail;
    this.heights = tfce;
    this.clusterHeights = clusterHeights.clone();
    this.logDensityRatio = ZScores.logDensityRatio(df);
  }

  /** The t of a statistic value (r to its t for a correlation). */
  private double tOf(double x) {
    return ofR ? x * Math.sqrt(df / ((1 - x) * (1 + x))) : x;
  }

  /** Exact z of a value of the tested side (or NaN). */
  private double exact(double x) {
    return Double.isNaN(rank) ? ZScores.ofT(tOf(x), df) : ZScores.ofF(x, rank, df);
  }

  /** Converts {@code values[from .. from + n)} to z in place, every value (the plain way). */
  void convertAll(double[] values, int from, int n) {
    for (int i = from; i < from + n; i++) {
      double x = values[i];
      if (!otherSide(x)) {
        values[i] = exact(x);
      }
    }
  }

  private boolean otherSide(double x) {
    return tail == Tail.UPPER ? x <= 0 : tail == Tail.LOWER && x >= 0;
  }

  /** Converts one map {@code values[from .. from + n)} in place, as the class comment says. */
  void convert(double[] values, int from, int n) {
    maps++;
    if (!Double.isNaN(rank)) {
      plainMaps++;
      convertAll(values, from, n);
      return;
    }
    double top = 0; // the largest value on the tested side(s), as a magnitude (NaN: none)
    int at = -1;
    for (int i = from; i < from + n; i++) {
      double x = values[i];
      double y = tail == Tail.UPPER ? x : tail == Tail.LOWER ? -x : Math.abs(x);
      if (y > top) {
        top = y;
        at = i;
      }
    }
    if (top == 0) {
      convertAll(values, from, n); // no value on the tested side but zeros and NaN: cheap
      return;
    }
    double zTop = Double.isFinite(top) ? exact(top) : Double.NaN;
    if (!Double.isFinite(zTop) || !(zTop > 0) || !bounds(zTop)) {
      plainMaps++;
      convertAll(values, from, n);
      return;
    }
    if (scratch.length < n) {
      scratch = new double[n];
    }
    double tExact = Double.POSITIVE_INFINITY; // from here on every t gets its exact z (clusters)
    for (double c : clusterHeights) {
      tExact = Math.min(tExact, inverse(c, c) * (1 - NEAR));
    }
    double zMax = 0; // the largest |z| written: TFCE's heights come from it
    for (int i = from; i < from + n; i++) {
      double x = values[i];
      if (otherSide(x) || x == 0) {
        scratch[i - from] = x;
        continue;
      }
      double y = Math.abs(x);
      double t = tOf(y);
      double z;
      if (i == at || t >= tExact || !Double.isFinite(t)) {
        z = exact(y);
      } else {
        int k = level(t); // bounds[0 .. k) <= t
        boolean near = k > 0 && t - tBounds[k - 1] <= NEAR * tBounds[k - 1]
            || k < tBounds.length && tBounds[k] - t <= NEAR * tBounds[k];
        z = near ? exact(y) : k == 0 ? 0.0 : h[k - 1];
      }
      scratch[i - from] = x < 0 ? -z : z;
      if (z > zMax) { // NaN (an undefined vertex) is no maximum
        zMax = z;
      }
    }
    if (zMax != zTop) {
      // an exact z near the top rounded above the top's: the heights are not zTop's
      plainMaps++;
      convertAll(values, from, n);
      return;
    }
    System.arraycopy(scratch, 0, values, from, n);
  }

  /**
   * The t bounds of the heights of a map whose largest z is {@code zTop}; false when Newton's
   * steps do not settle (the map is then converted value by value).
   */
  private boolean bounds(double zTop) {
    h = heights == null ? new double[0] : heights.thresholds(zTop);
    if (tBounds == null || tBounds.length != h.length) {
      tBounds = new double[h.length];
    }
    double guess = h.length > 0 ? h[0] : 0;
    for (int k = 0; k < h.length; k++) {
      guess = inverse(h[k], Math.max(guess, h[k]));
      if (!Double.isFinite(guess)) {
        return false;
      }
      tBounds[k] = guess;
    }
    return true;
  }

  /** The t with z(t) = target (> 0), by Newton's steps from {@code start} (≥ the root's z). */
  private double inverse(double target, double start) {
    // 1e-10 relative: inside the band where vertices get their exact z (NEAR)
    return ZScores.tOfZ(target, df, start, logDensityRatio);
  }

  /** How many bounds t reaches. */
  private int level(double t) {
    int k = Arrays.binarySearch(tBounds, t);
    return k >= 0 ? k + 1 : -k - 1;
  }
}
