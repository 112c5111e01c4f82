package org.nlspark.core.memory;

import org.nlspark.core.ResourceRefusedException;

/**
 * How many CPU workers fit in memory; ports §3.9 of DESIGN.md (the reference's
 * {@code _auto_n_jobs_cpu} and {@code _bootstrap_n_jobs_cpu}). Each worker is charged three
 * copies of the data (serialization) plus 0.4 bytes per replicate for its results.
 */
public final class CpuWorkerPlanner {
  /** Serialization overhead: each worker holds about three copies of the data. */
  public static final double SERIALIZATION_FACTOR = 3.0;

  private CpuWorkerPlanner() {}

  /**
   * joblib's convention for a requested job count: -1 means all cores, another negative n means
   * {@code cores + 1 + n}; the result is at least 1.
   */
  public static int ceiling(int nJobs, int cores) {
    if (cores < 1) {
      throw new IllegalArgumentException("[BUG] core count must be >= 1, but was: " + cores);
    }
    long ceiling = nJobs == -1 ? cores : nJobs;
    if (ceiling < 0) {
      ceiling = cores + 1L + ceiling;
    }
    return (int) Math.max(1, ceiling);
  }

  /**
   * The reference's estimate of the bytes a worker copies: elements × itemsize plus 100 bytes of
   * array overhead, and 0 for an empty array.
   */
  public static long estimateDataBytes(long elements, int itemsize) {
    return elements == 0 ? 0 : elements * itemsize + 100;
  }

  /** Bytes one worker needs: {@code 3 × dataBytes + nReplicates × 4 × 0.1}. */
  public static double bytesPerWorker(long dataBytes, long nReplicates) {
    return dataBytes * SERIALIZATION_FACTOR + nReplicates * 4 * 0.1;
  }

  /**
   * {@code min(budget / bytesPerWorker, ceiling)}.
   *
   * @throws ResourceRefusedException when not even one worker fits the budget
   */
  public static int workers(long dataBytes, long nReplicates, MemoryBudget budget, int ceiling) {
    long fit = workersByMemory(dataBytes, nReplicates, budget, ceiling);
    if (fit < 1) {
      throw new ResourceRefusedException("Cannot start a CPU worker: one worker needs about "
          + Gb.format(Gb.fromBytes(bytesPerWorker(dataBytes, nReplicates))) + " GB, exceeding the "
          + Gb.format(budget.gb()) + " GB budget (" + budget.source().describe()
          + "). Raise --memory-budget-gb or mask to fewer voxels.");
    }
    return (int) fit;
  }

  /**
   * As {@link #workers} but never 0: a bootstrap that cannot fit is refused by
   * {@link BootstrapMemory#preflight}, not here.
   */
  public static int bootstrapWorkers(long dataBytes, long nReplicates, MemoryBudget budget,
      int ceiling) {
    return (int) Math.max(1, workersByMemory(dataBytes, nReplicates, budget, ceiling));
  }

  /** Workers that fit, capped at the ceiling; 0 when one does not fit. */
  private static long workersByMemory(long dataBytes, long nReplicates, MemoryBudget budget,
      int ceiling) {
    if (ceiling < 1) {
      throw new IllegalArgumentException("[BUG] worker ceiling must be >= 1, but was: " + ceiling
          + " (compute it with CpuWorkerPlanner.ceiling)");
    }
    double perWorker = bytesPerWorker(dataBytes, nReplicates);
    if (perWorker <= 0) {
      return 1;
    }
    long byMemory = (long) (budget.bytes() / perWorker);
    if (byMemory < 1) {
      return 0;
    }
    return Math.max(1, Math.min(byMemory, ceiling));
  }
}
