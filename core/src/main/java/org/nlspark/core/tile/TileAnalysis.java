package org.nlspark.core.tile;

import java.io.Serializable;
import java.util.Map;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.memory.MemoryBudget;

/**
 * One analysis of the DESIGN §2 pipeline, as both schedulers (core's LocalEngine and the Spark
 * engine) see it: plan tiles on the driver, run each tile anywhere as a pure function of
 * (work, data, tile) that returns partial bytes, and merge the partials in any order into one
 * result. Every command is one of these; an engine knows nothing of statistics.
 *
 * <p>Implementations are prepared (inputs validated, backend resolved, preflight passed) before
 * an engine sees them, so a refusal leaves nothing computed.
 */
public interface TileAnalysis {
  /** The command's name ("one-sample", "isc", ...), for job descriptions and summary.json. */
  String command();

  /** The read-only inputs every tile reads; an engine ships them once per executor. */
  Serializable data();

  /** The resolved backend; the runner is chosen from it once per job. */
  Backend backend();

  /** The memory budget of this process (explicit, or measured), for the CPU worker rule. */
  MemoryBudget budget();

  /**
   * Cuts the run into tiles for the memory one tile may use and the tiles that may run at once.
   * Only how many cells a tile holds may depend on these; no output bit does (DESIGN §5).
   */
  TilePlan plan(MemoryBudget perTile, int parallelism);

  /**
   * The CPU workers this analysis can use within {@code ceiling} threads and {@code budget}
   * (DESIGN §3.9); the default is the ceiling.
   */
  default int workers(MemoryBudget budget, int ceiling) {
    return Math.max(1, ceiling);
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

  /** Replicates (or permutations, or surrogates) drawn. */
  long replicates();
}
