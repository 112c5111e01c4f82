package org.nlspark.core.memory;

import java.util.Objects;
import java.util.OptionalLong;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.BackendKind;

/**
 * How much memory a run may use, in GB, and where that figure came from; ports the budget rule,
 * §3.5 of DESIGN.md (the reference's {@code _device_memory_budget}).
 *
 * <p>Precedence: an explicit budget (&gt; 0) always wins, uncapped. Else it is measured now: on a
 * GPU, free device memory × {@link #CUDA_HEADROOM}; on the CPU (or a GPU whose free memory is
 * unknown), available system memory × {@link #SYSTEM_HEADROOM}, bounded by the JVM heap headroom
 * because our buffers are on-heap. When system memory cannot be measured, {@link #FALLBACK_GB}
 * (still bounded by the heap). A budget that sizes batches caps a measured or fallback figure at
 * {@link #BATCH_WORKING_SET_CEILING_GB}: bigger batches compute no faster and starve the host.
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
    return resolve(gb, BackendKind.CPU, null, false);
  }

  /**
   * The budget for work on {@code kind}.
   *
   * @param explicitGb {@code --memory-budget-gb}, or null to measure
   * @param probe the measurements (unused when explicit)
   * @param capForBatching true when the budget sizes batches
   */
  public static MemoryBudget resolve(Double explicitGb, BackendKind kind, MemoryProbe probe,
      boolean capForBatching) {
    if (explicitGb != null) {
      double gb = explicitGb;
      if (!(gb > 0) || !Double.isFinite(gb)) {
        throw new InvalidInputException("--memory-budget-gb must be a finite number of GB > 0,"
            + " but was: " + explicitGb);
      }
      return new MemoryBudget(gb, BudgetSource.EXPLICIT, false);
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
    if (capForBatching) {
      return new MemoryBudget(Math.min(gb, BATCH_WORKING_SET_CEILING_GB), source, true);
    }
    return new MemoryBudget(gb, source, false);
  }
}
