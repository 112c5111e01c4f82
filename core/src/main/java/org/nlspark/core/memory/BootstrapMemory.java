package org.nlspark.core.memory;

import org.nlspark.core.accumulate.BootstrapSummary;
import org.nlspark.core.stats.NumpyPercentile;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

/**
 * What a bootstrap run must hold, and the gate that refuses it before any resampling; ports §3.8
 * of DESIGN.md (the reference's {@code _bootstrap_retained_tail_size},
 * {@code _bootstrap_replicate_window}, {@code _bootstrap_output_bytes} and
 * {@code _bootstrap_memory_preflight}).
 *
 * <p>Per output element the run holds, in float64: the two retained tails (2k), the replicates
 * buffered before a flush (buf = min(64, B)), the two temporaries a flush builds (2(k + buf)),
 * one replicate window in flight, all B replicates when samples are kept, and
 * {@link #FIXED_OUTPUT_ARRAYS} accumulators and summaries.
 */
public final class BootstrapMemory {
  /** Replicates buffered before folding into the tails; also the per-worker dispatch window. */
  public static final int FLUSH_BLOCK = 64;
  /** Two Welford accumulators (mean, sum of squared deviations) and four summary arrays. */
  public static final int FIXED_OUTPUT_ARRAYS = 6;
  /** Bytes per retained value: everything retained is float64. */
  public static final int OUTPUT_ITEMSIZE = 8;

  private BootstrapMemory() {}

  /**
   * Values kept at each end per element so the exact percentile interval can be rebuilt:
   * {@code min(ceil((B-1) * ((1-c)/2)) + 1, B)}, evaluated in the reference's operation order.
   */
  public static int tailSize(long nReplicates, double confidence) {
    checkReplicates(nReplicates);
    checkConfidence(confidence);
    double halfAlpha = (1 - confidence) / 2;
    long k = (long) Math.ceil((nReplicates - 1) * halfAlpha) + 1;
    return (int) Math.min(k, nReplicates);
  }

  /**
   * The values every bootstrap-based command retains at each end per element: the reference's
   * {@link #tailSize} raised where the interval's floating-point q needs one more rank
   * (e.g. B = 91, c = 0.4), with q computed as {@link BootstrapSummary} computes it. The one
   * home of this rule: tiles, ISC, ridge and the preflight all call it.
   */
  public static int retainedTailSize(long nReplicates, double confidence) {
    int k = Math.max(tailSize(nReplicates, confidence),
        Math.max(NumpyPercentile.minimumTailSize(nReplicates,
                BootstrapSummary.lowerPercentile(confidence)),
            NumpyPercentile.minimumTailSize(nReplicates,
                BootstrapSummary.upperPercentile(confidence))));
    return (int) Math.min(k, nReplicates);
  }

  /** Replicates in flight per dispatch: {@code max(1, min(B, 64 * max(1, workers)))}. */
  public static int replicateWindow(long nReplicates, int workers) {
    long perWorker = (long) FLUSH_BLOCK * Math.max(1, workers);
    return (int) Math.max(1, Math.min(nReplicates, perWorker));
  }

  /**
   * {@code outputSize × (2k + buf + 2(k + buf) + window + (B if keepSamples) + 6) × 8} bytes;
   * saturates at {@link Long#MAX_VALUE}.
   */
  public static long requiredBytes(long outputSize, long nReplicates, double confidence,
      boolean keepSamples, int workers) {
    if (outputSize < 1) {
      throw new InvalidInputException(
          "Bootstrap output must have at least 1 element, but had: " + outputSize);
    }
    long k = retainedTailSize(nReplicates, confidence);
    long buffered = Math.min(FLUSH_BLOCK, nReplicates);
    long arrays = 2 * k
        + buffered
        + 2 * (k + buffered)
        + replicateWindow(nReplicates, workers)
        + (keepSamples ? nReplicates : 0)
        + FIXED_OUTPUT_ARRAYS;
    try {
      return Math.multiplyExact(Math.multiplyExact(outputSize, arrays), (long) OUTPUT_ITEMSIZE);
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
  }

  /**
   * Refuses before any resampling when the retained output cannot fit the budget. It never
   * weakens the interval, lowers B, or drops the samples to make a run fit.
   *
   * @return the required storage in GB
   * @throws ResourceRefusedException naming the GB needed, what is retained, the budget and its
   *     source, and the remedies
   */
  public static double preflight(long outputSize, long nReplicates, double confidence,
      boolean keepSamples, int workers, MemoryBudget budget) {
    double requiredGb = Gb.fromBytes(requiredBytes(outputSize, nReplicates, confidence,
        keepSamples, workers));
    if (requiredGb > budget.gb()) {
      int k = retainedTailSize(nReplicates, confidence);
      String retained = k + " values per element at each tail";
      if (keepSamples) {
        retained = "all " + nReplicates + " replicates (--save-samples) plus " + retained;
      }
      String remedies = "Use fewer --samples, mask to fewer voxels, "
          + (keepSamples ? "drop --save-samples, " : "")
          + "or raise --memory-budget-gb.";
      throw new ResourceRefusedException("Cannot start the bootstrap: it needs "
          + Gb.format(requiredGb) + " GB to retain output of " + outputSize + " elements over "
          + nReplicates + " replicates (it keeps " + retained + "), which exceeds the "
          + Gb.format(budget.gb()) + " GB budget (" + budget.source().describe() + "). "
          + remedies);
    }
    return requiredGb;
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
