package org.nlspark.core.memory;

import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

/**
 * What a bootstrap run must hold, and the gate that refuses it before any resampling; ports §3.8
 * of DESIGN.md (the reference's {@code _bootstrap_replicate_window}, {@code _bootstrap_output_bytes}
 * and {@code _bootstrap_memory_preflight}; the retained tail size is {@link TailSize}'s).
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
    long k = TailSize.retained(nReplicates, confidence);
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
      int k = TailSize.retained(nReplicates, confidence);
      String retained = k + " values per element at each tail";
      if (keepSamples) {
        retained = "all " + nReplicates + " replicates (--save-samples) plus " + retained;
      }
      String remedies = "Use fewer --samples, mask to fewer voxels, "
          + (keepSamples ? "drop --save-samples, " : "")
          + "or raise --memory-budget-gb.";
      throw new BudgetExceededException("Cannot start the bootstrap: it needs "
          + Gb.format(requiredGb) + " GB to retain output of " + outputSize + " elements over "
          + nReplicates + " replicates (it keeps " + retained + "), which exceeds the "
          + Gb.format(budget.gb()) + " GB budget (" + budget.source().describe() + ").",
          remedies, Gb.toBytes(requiredGb));
    }
    return requiredGb;
  }
}
