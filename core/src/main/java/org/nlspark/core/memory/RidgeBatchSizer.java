package org.nlspark.core.memory;

import org.nlspark.core.InvalidInputException;

/**
 * Sizes a batch of ridge bootstrap replicates; ports §3.7 of DESIGN.md (the reference's
 * {@code _ridge_bootstrap_batch_size}). Per replicate it charges the resident solve —
 * (n·p + n·targets) · itemsize · {@link #SOLVER_OVERHEAD} — plus the retained float64 result of
 * {@code outputShape}, because retained results accumulate across a batch and can dominate.
 */
public final class RidgeBatchSizer {
  /** Allowance for the solver's own buffers beyond the resampled design and response. */
  public static final double SOLVER_OVERHEAD = 3.0;

  private RidgeBatchSizer() {}

  /**
   * @param outputShape shape of one retained replicate result; empty means a scalar
   * @param deviceItemsize bytes per element of the solver's working dtype (4 or 8)
   * @param cappedBudget a budget resolved for batching: explicit, or measured and capped
   */
  public static BatchPlan plan(int nBootstrap, long nSamples, long nFeatures, long nTargets,
      long[] outputShape, int deviceItemsize, MemoryBudget cappedBudget) {
    if (nSamples < 0 || nFeatures < 0 || nTargets < 0) {
      throw new InvalidInputException("Ridge bootstrap dimensions must be >= 0, but were: n_samples="
          + nSamples + ", n_features=" + nFeatures + ", n_targets=" + nTargets);
    }
    if (deviceItemsize <= 0) {
      throw new IllegalArgumentException("[BUG] device itemsize must be > 0, but was: " + deviceItemsize);
    }
    if (cappedBudget.source() != BudgetSource.EXPLICIT && !cappedBudget.cappedForBatching()) {
      throw new IllegalArgumentException("[BUG] a ridge batch must be sized against a budget"
          + " resolved for batching (capForBatching=true), but was: " + cappedBudget);
    }
    double resident = ((double) nSamples * nFeatures + (double) nSamples * nTargets)
        * deviceItemsize * SOLVER_OVERHEAD;
    double retained = elementCount(outputShape) * 8.0;
    return BatchPlanner.plan(nBootstrap, resident + retained, cappedBudget.gb(), 1.0);
  }

  /** Product of the shape; 1 for an empty (scalar) shape, as numpy's prod of (). */
  static double elementCount(long[] shape) {
    double n = 1;
    if (shape != null) {
      for (long d : shape) {
        if (d < 0) {
          throw new InvalidInputException("Output shape dimensions must be >= 0, but was: " + d);
        }
        n *= d;
      }
    }
    return n;
  }
}
