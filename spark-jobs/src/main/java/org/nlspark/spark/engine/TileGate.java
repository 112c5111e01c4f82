package org.nlspark.spark.engine;

import java.io.Serializable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.spark.budget.ExecutorBudget;

/**
 * How many of a run's tiles one executor works on at once. Spark runs as many tasks as the
 * executor has slots; where the planner found that a tile fits the executor's budget but not a
 * slot's share of it ({@link TilePlan#concurrentTiles} below the slots), the tasks of that run
 * pass through one semaphore per executor JVM, so no more tiles than fit are held at once. The
 * other tasks wait in their slots, holding no tile. Output bytes never depend on it.
 */
final class TileGate implements Serializable {
  private static final long serialVersionUID = 1L;
  /** One semaphore per gated run in this JVM (a few bytes per run; executors are reused). */
  private static final ConcurrentHashMap<String, Semaphore> GATES = new ConcurrentHashMap<>();

  private final String runId;
  /** Tiles at once per executor; 0: as many as Spark runs tasks. */
  private final int permits;

  private TileGate(String runId, int permits) {
    this.runId = runId;
    this.permits = permits;
  }

  /** No gate: every task runs its tiles as Spark schedules it. */
  static final TileGate OPEN = new TileGate("", 0);

  static TileGate of(String runId, TilePlan plan, ExecutorBudget budget) {
    return new TileGate(runId,
        plan.concurrentTiles() < budget.slotsPerExecutor() ? plan.concurrentTiles() : 0);
  }

  /** Tiles one executor works on at once, or 0 when the gate is open. */
  int permits() {
    return permits;
  }

  /** Runs {@code tile} once this executor has room for one more of the run's tiles. */
  <T> T through(Supplier<T> tile) {
    if (permits == 0) {
      return tile.get();
    }
    Semaphore gate = GATES.computeIfAbsent(runId, k -> new Semaphore(permits, true));
    try {
      gate.acquire();
    } catch (InterruptedException e) { // the task was killed while it waited
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for room for a tile", e);
    }
    try {
      return tile.get();
    } finally {
      gate.release();
    }
  }

  /** Forgets the run's semaphore in this JVM (the driver's; local mode's executor). */
  static void close(String runId) {
    GATES.remove(runId);
  }
}
