package org.nlspark.core.tile;

import java.io.Serializable;
import java.util.Map;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.memory.DriverMemory;
import org.nlspark.core.memory.MemoryBudget;

/**
 * One analysis of the DESIGN §2 pipeline, as both schedulers (core's LocalEngine and the Spark
 * engine) see it: plan tiles on the driver, run each tile anywhere as a pure function of
 * (work, data, tile) that returns partial bytes, and merge the partials in any order into one
 * result. Every command is one of these; an engine knows nothing of statistics.
 *
 * <p>Implementations are prepared (inputs validated, backend resolved) before an engine sees
 * them. The engine owns budget and plan: it resolves the budget once (explicit, else the Spark
 * executor's memory, else measured; {@link MemoryBudget#resolve}), runs {@link #preflight},
 * and sizes the tiles with the one {@link TilePlanner} from what the analysis declares
 * ({@link #shape}, {@link #bytesPerTile}), so a refusal leaves nothing computed.
 */
public interface TileAnalysis {
  /** The command's name ("one-sample", "isc", ...), for job descriptions and summary.json. */
  String command();

  /** The read-only inputs every tile reads; an engine ships them once per executor. */
  Serializable data();

  /** The resolved backend; the runner is chosen from it once per job. */
  Backend backend();

  /**
   * The {@code --memory-budget-gb} the run was given (checked when prepared), or null to let the
   * scheduler resolve it; the scheduler alone turns it into the budget (DESIGN §3.5).
   */
  Double requestedBudgetGb();

  /**
   * Refuses (exit 3), before any tile, when what the run holds beyond its tiles cannot fit
   * {@code budget} (the retained output of a bootstrap, DESIGN §3.8); the default holds nothing
   * more.
   */
  default void preflight(MemoryBudget budget) {}

  /**
   * What the driver holds for the run beyond its inputs and what grows with the replicates (the
   * merged null distributions, a bootstrap's saved samples), checked by the engines against the
   * driver's heap before any tile ({@link DriverMemory#check}); the default holds nothing such.
   */
  default DriverMemory.Need driverMemory() {
    return DriverMemory.Need.NONE;
  }

  /**
   * The grid, cells and replicates of the run and the windows a tile may hold, for the one
   * planner ({@link TilePlanner}). {@code budget} is the scheduler's, for analyses whose own
   * rule fixes a tile's windows from it (ridge's batch, DESIGN §3.7).
   */
  TileShape shape(MemoryBudget budget);

  /**
   * The working set of one tile holding {@code windowsPerTile} replicate windows, in bytes:
   * what the planner checks against the budget.
   */
  long bytesPerTile(int windowsPerTile);

  /**
   * The CPU workers this analysis can use within {@code ceiling} threads and {@code budget}
   * (DESIGN §3.9); the default is the ceiling.
   */
  default int workers(MemoryBudget budget, int ceiling) {
    return Math.max(1, ceiling);
  }

  /**
   * The run's work in multiply-adds of its folds (samples x voxels x replicates) where its tiles
   * return small partials (counts and maxima: kilobytes), else 0 (not known, or partials the
   * merge should receive as tasks end, as a bootstrap's retained tails). An engine runs a short
   * job of small partials as one task per slot ({@link TilePlanner#tasks}).
   */
  default long smallPartialWork() {
    return 0;
  }

  /** What runs the tiles of {@code plan}: small, serializable, shipped with every task. */
  TileRunner runner(TilePlan plan);

  /** The driver-side merge of the partials of {@code plan}. */
  TileMerger merger(TilePlan plan);

  /**
   * What summary.json says of the run before it ran, in order: parameters, seed, backend,
   * precision, input shapes, resampling (each present when it applies).
   */
  Map<String, Object> describe();

  /** {@link #describe()} for a run planned as {@code plan} (whole-map analyses add their layout). */
  default Map<String, Object> describe(TilePlan plan) {
    return describe();
  }

  /** Replicates (or permutations, or surrogates) drawn. */
  long replicates();
}
