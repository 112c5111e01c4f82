package org.nlspark.core.memory;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

/**
 * The one batch calculator; ports §3.6 of DESIGN.md (the reference's {@code _auto_batch_size}).
 * Callers give only the per-item working set and an overhead factor; the clamp and ceiling
 * policy lives here.
 */
public final class BatchPlanner {
  private BatchPlanner() {}

  /**
   * Splits {@code nItems} into batches whose working set ({@code batchSize × bytesPerItem ×
   * overhead}) fits {@code budgetGb}. A non-positive per-item size means one batch of everything.
   * Batch sizes are capped at {@link Integer#MAX_VALUE}.
   *
   * @throws InvalidInputException when {@code nItems <= 0} or {@code budgetGb <= 0}
   * @throws ResourceRefusedException when a single item does not fit the budget
   */
  public static BatchPlan plan(long nItems, double bytesPerItem, double budgetGb, double overhead) {
    if (nItems <= 0) {
      throw new InvalidInputException("Number of items to batch must be > 0, but was: " + nItems);
    }
    if (!(budgetGb > 0) || !Double.isFinite(budgetGb)) {
      throw new InvalidInputException("Memory budget must be a finite number of GB > 0, but was: "
          + budgetGb + " (set --memory-budget-gb)");
    }
    double perItem = bytesPerItem * overhead;
    if (Double.isNaN(perItem) || Double.isInfinite(perItem)) {
      throw new IllegalArgumentException("[BUG] bytes per item x overhead must be finite, but was: "
          + bytesPerItem + " x " + overhead);
    }
    long batchSize;
    if (perItem <= 0) {
      batchSize = nItems;
    } else {
      long capacity = (long) (Gb.toBytes(budgetGb) / perItem);
      if (capacity < 1) {
        throw new ResourceRefusedException("Cannot fit one item in the memory budget: one item"
            + " needs " + Gb.format(perItem / 1e9) + " GB, exceeding the " + Gb.format(budgetGb)
            + " GB budget. Raise --memory-budget-gb or make the problem smaller (mask to fewer"
            + " voxels).");
      }
      batchSize = Math.min(capacity, nItems);
    }
    batchSize = Math.min(batchSize, Integer.MAX_VALUE);
    long nBatches = (nItems + batchSize - 1) / batchSize;
    return new BatchPlan((int) batchSize, Math.toIntExact(nBatches));
  }
}
