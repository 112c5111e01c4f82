package org.nlspark.core.accumulate;

import org.apache.commons.math3.special.Erf;
import org.nlspark.core.stats.BlockStatistic;

/**
 * Bounds that start a bootstrap tile's {@link TailAccumulator} ({@link TailAccumulator#seed}) from
 * what the kernel knows before computing any replicate: each voxel's expected replicate mean and
 * spread ({@link BlockStatistic#replicateSpread}). The bounds are
 * mean ∓ z·sd with z the normal quantile of {@link #MARGIN}·k/rows, so about MARGIN·k values lie
 * beyond each bound when the replicates are near normal, and far fewer values enter the tails
 * than when they start at the first k values seen (k·(1 + log2(rows/k)) each). The bounds only
 * decide how much work the tile does, never its result: a voxel whose bound held back too much is
 * recomputed exactly.
 */
public final class TailSeeds {
  private TailSeeds() {}

  /**
   * Values expected beyond each bound, in units of k: 3k leaves k needed against about 3k ± √(3k)
   * expected (for k = 126, 16 sd spare), so only voxels far from normal are recomputed.
   */
  static final double MARGIN = 3.0;

  /** Whether seeding pays: the values beyond the bounds are a small part of the tile's rows. */
  static boolean worthwhile(long rows, int k) {
    return rows >= 8L * k;
  }

  /**
   * Seeds {@code tails} (empty) for a tile of {@code rows} replicates of {@code kernel} where the
   * kernel has bounds and seeding pays; returns whether it did.
   */
  public static boolean seed(BlockStatistic kernel, TailAccumulator tails, int k, long rows) {
    if (!worthwhile(rows, k)) {
      return false;
    }
    int b = kernel.width();
    double[] mean = new double[b];
    double[] sd = new double[b];
    if (!kernel.replicateSpread(mean, sd)) {
      return false;
    }
    double[] lower = new double[b];
    double[] upper = new double[b];
    bounds(mean, sd, k, rows, lower, upper);
    tails.seed(lower, upper);
    return true;
  }

  /**
   * Per-element bounds for a tile of {@code rows} replicates; NaN (not seeded) where the spread is
   * zero or either is not finite.
   */
  public static void bounds(double[] mean, double[] sd, int k, long rows, double[] lower,
      double[] upper) {
    double p = Math.min(0.5, MARGIN * k / rows);
    double z = Math.sqrt(2) * Erf.erfcInv(2 * p); // P(Z > z) = p
    for (int e = 0; e < lower.length; e++) {
      double s = sd[e];
      boolean usable = s > 0 && Double.isFinite(s) && Double.isFinite(mean[e]);
      lower[e] = usable ? mean[e] - z * s : Double.NaN;
      upper[e] = usable ? mean[e] + z * s : Double.NaN;
    }
  }
}
