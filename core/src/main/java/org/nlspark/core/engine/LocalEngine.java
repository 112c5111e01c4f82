package org.nlspark.core.engine;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.CpuWorkerPlanner;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.ResultMerger;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileSpec;

/**
 * Runs a job's tiles on a thread pool in this JVM — the reference engine the Spark engine must
 * match bit for bit, and the one benchmarks and core tests use.
 */
public final class LocalEngine {
  private final int threads;
  private final Grid grid;
  private final Integer windowsPerTile;

  /**
   * @param threads worker threads (each runs single-threaded BLAS)
   * @param grid the logical grid (fixes the output bits)
   * @param windowsPerTile override of the planner's choice, or null
   */
  public LocalEngine(int threads, Grid grid, Integer windowsPerTile) {
    this.threads = Math.max(1, threads);
    this.grid = grid;
    this.windowsPerTile = windowsPerTile;
  }

  public static LocalEngine defaults() {
    return new LocalEngine(Runtime.getRuntime().availableProcessors(), Grid.DEFAULT, null);
  }

  public RunReport run(JobSpec spec, JobInputs inputs) {
    return run(PreparedJob.prepare(spec, inputs, threads));
  }

  public RunReport run(PreparedJob job) {
    long start = System.nanoTime();
    // DESIGN §3.9: the thread ceiling, lowered when per-worker memory would not fit the budget.
    int workers = job.spec.analysis() == org.nlspark.core.job.Analysis.BOOTSTRAP
        ? CpuWorkerPlanner.bootstrapWorkers(job.inputs.bytes(), job.resampling.replicates(),
            job.budget, threads)
        : CpuWorkerPlanner.workers(job.inputs.bytes(), job.resampling.replicates(), job.budget,
            threads);
    TilePlan plan = TilePlanner.plan(job.spec, job.inputs, job.resampling, grid, job.budget,
        workers);
    if (windowsPerTile != null) {
      plan = plan.withWindowsPerTile(windowsPerTile);
    }
    final TilePlan finalPlan = plan;
    ResultMerger merger = new ResultMerger(job.spec, job.resampling, plan);
    // One GPU tile at a time per device (tiles queue on the device anyway); CPU tiles per thread.
    int poolSize = job.backend.kind() == org.nlspark.core.backend.BackendKind.GPU ? 1
        : Math.min(workers, plan.concurrentTiles());
    ExecutorService pool = Executors.newFixedThreadPool(poolSize, r -> {
      Thread t = new Thread(r, "nlspark-tile");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<?>> futures = new ArrayList<>();
      for (TileSpec tile : plan.tiles()) {
        futures.add(pool.submit(() -> merger.add(
            TileExecutor.execute(job.spec, job.inputs, job.resampling, finalPlan, tile,
                job.backend.kind(), 0))));
      }
      for (Future<?> f : futures) {
        f.get();
      }
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IllegalStateException("tile failed: " + cause, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while running tiles", e);
    } finally {
      pool.shutdownNow();
    }
    Result result = merger.finish();
    double wall = (System.nanoTime() - start) / 1e9;
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("threads", poolSize);
    return new RunReport(job, plan, result, "local", poolSize, wall, merger.kernelNanos() / 1e9,
        merger.flops(), facts);
  }

  /** Runs one tile's partial through bytes, as a remote engine would (used by tests). */
  public static PartialResult roundTrip(PartialResult p) {
    return PartialResult.fromBytes(p.toBytes());
  }
}
