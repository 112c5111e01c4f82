package org.nlspark.core.accumulate;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.stats.NumpyPercentile;

/**
 * How many values a {@link TailAccumulator} keeps at each end per element so the exact percentile
 * interval can be rebuilt (DESIGN §3.8): the one home of the rule that tiles, ISC, ridge, the
 * memory preflight and the GPU checks all call.
 */
public final class TailSize {
  private TailSize() {}

  /**
   * The reference's rule ({@code _bootstrap_retained_tail_size}):
   * {@code min(ceil((B-1) * ((1-c)/2)) + 1, B)}, evaluated in the reference's operation order.
   */
  public static int reference(long nReplicates, double confidence) {
    checkReplicates(nReplicates);
    checkConfidence(confidence);
    double halfAlpha = (1 - confidence) / 2;
    long k = (long) Math.ceil((nReplicates - 1) * halfAlpha) + 1;
    return (int) Math.min(k, nReplicates);
  }

  /**
   * The values every bootstrap-based command retains at each end per element: the reference's
   * {@link #reference} raised where the interval's floating-point q needs one more rank
   * (e.g. B = 91, c = 0.4), with q computed as {@link BootstrapSummary} computes it.
   */
  public static int retained(long nReplicates, double confidence) {
    int k = Math.max(reference(nReplicates, confidence),
        Math.max(NumpyPercentile.minimumTailSize(nReplicates,
                BootstrapSummary.lowerPercentile(confidence)),
            NumpyPercentile.minimumTailSize(nReplicates,
                BootstrapSummary.upperPercentile(confidence))));
    return (int) Math.min(k, nReplicates);
  }

  private static void checkReplicates(long nReplicates) {
    if (nReplicates < 1) {
      throw new InvalidInputException("--samples must be >= 1, but was: " + nReplicates);
    }
  }

  private static void checkConfidence(double confidence) {
    if (!(confidence > 0 && confidence < 1)) {
      throw new InvalidInputException("--confidence must be in (0, 1), but was: " + confidence);
    }
  }
}
