package org.nlspark.core.memory;

import java.util.Objects;
import java.util.OptionalLong;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.BackendKind;

/**
 * How much memory a run may use, in GB, and where that figure came from; ports the budget rule,
 * §3.5 of DESIGN.md (the reference's {@code _device_memory_budget}).
 *
 * <p>Precedence: an explicit budget (&gt; 0) always wins, uncapped. Else, under Spark, what one
 * executor may use ({@link BudgetSource#SPARK_EXECUTOR}, read from the Spark configuration by the
 * Spark engine). Else it is measured now: on a GPU, free device memory × {@link #CUDA_HEADROOM}; on the CPU (or a GPU whose free memory is
 * unknown), available system memory × {@link #SYSTEM_HEADROOM}, bounded by the JVM heap headroom
 * because our buffers are on-heap. When system memory cannot be measured, {@link #FALLBACK_GB}
 * (still bounded by the heap). A budget that sizes batches caps a measured or fallback figure at
 * {@link #BATCH_WORKING_SET_CEILING_GB}: bigger batches compute no faster and starve the host.
 *
 * <p>The schedulers (core's LocalEngine, the Spark engine) resolve a run's budget, once, through
 * the one {@link BudgetResolver}, and hand it to the analysis; an analysis only declares what its
 * tiles cost.
 *
 * @param cappedForBatching true when the batching ceiling applies to this budget (it was asked
 *     for batching and is not explicit), whether or not the ceiling lowered it
 */
public record MemoryBudget(double gb, BudgetSource source, boolean cappedForBatching)
    implements java.io.Serializable {
  public static final double FALLBACK_GB = 4.0;
  public static final double CUDA_HEADROOM = 0.8;
  public static final double SYSTEM_HEADROOM = 0.5;
  public static final double BATCH_WORKING_SET_CEILING_GB = 8.0;

  public MemoryBudget {
    Objects.requireNonNull(source, "[BUG] a memory budget must have a source");
    if (!(gb >= 0) || !Double.isFinite(gb)) {
      throw new IllegalArgumentException("[BUG] a memory budget must be finite and >= 0 GB, but was: " + gb);
    }
    if (cappedForBatching && (source == BudgetSource.EXPLICIT || gb > BATCH_WORKING_SET_CEILING_GB)) {
      throw new IllegalArgumentException("[BUG] only a measured budget of at most "
          + BATCH_WORKING_SET_CEILING_GB + " GB can be capped for batching, but was: " + gb
          + " GB from " + source);
    }
  }

  /** The budget in bytes, through the one conversion {@link Gb#toBytes(double)}. */
  public long bytes() {
    return Gb.toBytes(gb);
  }

  /** A user's budget; validated as {@link #resolve} validates {@code --memory-budget-gb}. */
  public static MemoryBudget explicit(double gb) {
    return new MemoryBudget(checkExplicit(gb), BudgetSource.EXPLICIT, false);
  }

  /**
   * Checks {@code --memory-budget-gb} where it is given (so a bad value is refused, exit 2,
   * before any work); null (measure) passes.
   *
   * @return the value
   */
  public static Double checkExplicit(Double explicitGb) {
    if (explicitGb != null) {
      double gb = explicitGb;
      if (!(gb > 0) || !Double.isFinite(gb)) {
        throw new InvalidInputException("--memory-budget-gb must be a finite number of GB > 0,"
            + " but was: " + explicitGb);
      }
    }
    return explicitGb;
  }

  /**
   * This budget as batches are sized against it: an explicit budget as given, a measured one
   * capped at {@link #BATCH_WORKING_SET_CEILING_GB}.
   */
  public MemoryBudget forBatching() {
    if (source == BudgetSource.EXPLICIT || cappedForBatching) {
      return this;
    }
    return new MemoryBudget(Math.min(gb, BATCH_WORKING_SET_CEILING_GB), source, true);
  }

  /** This budget shared by {@code ways} tiles running at once (a Spark executor's task slots). */
  public MemoryBudget sharedBy(int ways) {
    return new MemoryBudget(gb / Math.max(1, ways), source, false);
  }

  /** As {@link #resolve(Double, OptionalLong, BackendKind, MemoryProbe, boolean)}, no executor. */
  public static MemoryBudget resolve(Double explicitGb, BackendKind kind, MemoryProbe probe,
      boolean capForBatching) {
    return resolve(explicitGb, OptionalLong.empty(), kind, probe, capForBatching);
  }

  /**
   * The budget for work on {@code kind}.
   *
   * @param explicitGb {@code --memory-budget-gb}, or null to measure
   * @param executorBytes what one Spark executor may use (its heap minus Spark's reserve, times
   *     {@code spark.memory.fraction}), or empty outside Spark
   * @param probe the measurements (unused when explicit or on an executor)
   * @param capForBatching true when the budget sizes batches
   */
  public static MemoryBudget resolve(Double explicitGb, OptionalLong executorBytes,
      BackendKind kind, MemoryProbe probe, boolean capForBatching) {
    if (explicitGb != null) {
      return explicit(explicitGb);
    }
    if (executorBytes.isPresent()) {
      MemoryBudget executor = new MemoryBudget(Math.max(0, executorBytes.getAsLong()) / 1e9,
          BudgetSource.SPARK_EXECUTOR, false);
      return capForBatching ? executor.forBatching() : executor;
    }
    Objects.requireNonNull(kind, "[BUG] measuring a memory budget needs a backend kind");
    Objects.requireNonNull(probe, "[BUG] measuring a memory budget needs a memory probe");
    double gb;
    BudgetSource source;
    OptionalLong device = kind == BackendKind.GPU ? probe.freeDeviceBytes() : OptionalLong.empty();
    if (device.isPresent()) {
      gb = device.getAsLong() * CUDA_HEADROOM / 1e9;
      source = BudgetSource.MEASURED_CUDA;
    } else {
      OptionalLong system = probe.availableSystemBytes();
      if (system.isPresent()) {
        gb = system.getAsLong() * SYSTEM_HEADROOM / 1e9;
        source = BudgetSource.MEASURED_SYSTEM;
      } else {
        gb = FALLBACK_GB;
        source = BudgetSource.FALLBACK;
      }
      long heap = probe.heapHeadroomBytes();
      if (heap > 0) {
        gb = Math.min(gb, Gb.fromBytes(heap));
      }
    }
    MemoryBudget measured = new MemoryBudget(gb, source, false);
    return capForBatching ? measured.forBatching() : measured;
  }
}
