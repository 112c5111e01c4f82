package org.nlspark.core.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.BudgetResolver;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileShape;
import org.nlspark.core.tile.TileSpec;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;

/**
 * Runs any analysis' tiles on a thread pool in this JVM — one of the two schedulers (the Spark
 * engine is the other), the reference it must match bit for bit, and the one benchmarks and core
 * tests use. Partials go through the same bytes as on Spark.
 */
public final class LocalEngine {
  private final int threads;
  private final Grid grid;
  private final Integer windowsPerTile;
  private final MemoryProbe memory;

  /**
   * @param threads worker threads (each runs single-threaded BLAS)
   * @param grid the logical grid of {@link #run(JobSpec, JobInputs)} (fixes the output bits)
   * @param windowsPerTile override of the planner's choice, or null
   */
  public LocalEngine(int threads, Grid grid, Integer windowsPerTile) {
    this(threads, grid, windowsPerTile, MemoryProbe.system());
  }

  private LocalEngine(int threads, Grid grid, Integer windowsPerTile, MemoryProbe memory) {
    this.threads = Math.max(1, threads);
    this.grid = grid;
    this.windowsPerTile = windowsPerTile;
    this.memory = memory;
  }

  /** The same engine measuring memory with {@code probe} (tests pin measured budgets with it). */
  public LocalEngine withMemoryProbe(MemoryProbe probe) {
    return new LocalEngine(threads, grid, windowsPerTile, probe);
  }

  /**
   * The budget of a run in this process: {@code --memory-budget-gb}, else measured for the
   * backend (DESIGN §3.5), through the one {@link BudgetResolver}; the Spark engine's
   * ExecutorBudget resolves through it too, with its executors' memory in place of the measurement.
   */
  public static MemoryBudget budget(Double explicitGb, BackendKind kind, MemoryProbe probe) {
    return BudgetResolver.inProcess(probe).resolve(explicitGb, kind);
  }

  public static LocalEngine defaults() {
    return new LocalEngine(Runtime.getRuntime().availableProcessors(), Grid.DEFAULT, null);
  }

  /** Threads the engine may use: what analyses prepare their preflight for. */
  public int parallelism() {
    return threads;
  }

  public RunReport run(JobSpec spec, JobInputs inputs) {
    return run(VoxelwiseAnalysis.prepare(spec, inputs, threads, grid));
  }

  /**
   * Runs {@code analysis}: resolves its budget (explicit, else measured in this process; DESIGN
   * §3.5), runs its preflight, plans its tiles with the one {@link TilePlanner}, then runs them.
   */
  public RunReport run(TileAnalysis analysis) {
    long start = System.nanoTime();
    MemoryBudget budget = budget(analysis.requestedBudgetGb(), analysis.backend().kind(), memory);
    analysis.preflight(budget);
    org.nlspark.core.memory.DriverMemory.check(analysis.command(), analysis.driverMemory());
    int workers = analysis.workers(budget, threads);
    TilePlan plan = TilePlanner.plan(analysis, budget, workers);
    if (windowsPerTile != null) { // within what the analysis' tiles may hold
      TileShape shape = analysis.shape(budget);
      plan = plan.withWindowsPerTile(Math.max(shape.minWindowsPerTile(),
          Math.min(shape.maxWindowsPerTile(), windowsPerTile)));
    }
    TileRunner runner = analysis.runner(plan);
    TileMerger merger = analysis.merger(plan);
    Object data = analysis.data();
    // One GPU tile at a time per device (tiles queue on the device anyway); CPU tiles per thread.
    int poolSize = analysis.backend().kind() == BackendKind.GPU ? 1
        : Math.min(workers, plan.concurrentTiles());
    ExecutorService pool = Executors.newFixedThreadPool(poolSize, r -> {
      Thread t = new Thread(r, "nlspark-tile");
      t.setDaemon(true);
      return t;
    });
    long computeStart = System.nanoTime();
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (TileSpec tile : plan.tiles()) {
        futures.add(pool.submit(() -> merger.add(runner.run(data, tile, 0))));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      if (cause instanceof Error) {
        throw (Error) cause;
      }
      throw new IllegalStateException("tile failed: " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running tiles", e);
    } finally {
      pool.shutdownNow();
    }
    long computeEnd = System.nanoTime();
    Result result = merger.finish();
    long end = System.nanoTime();
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("threads", poolSize);
    return new RunReport(analysis, plan, result, "local", poolSize,
        (computeStart - start) / 1e9, (computeEnd - computeStart) / 1e9, (end - computeEnd) / 1e9,
        merger.kernelNanos() / 1e9, merger.flops(), facts);
  }
}
