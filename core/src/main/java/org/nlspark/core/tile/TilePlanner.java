package org.nlspark.core.tile;

import java.util.Locale;
import java.util.function.IntToLongFunction;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.BudgetExceededException;
import org.nlspark.core.memory.Gb;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.ParetoTail;

/**
 * The one planner: sizes every analysis' tiles from a memory budget and a parallelism (threads,
 * or Spark task slots), never touching the grid. An analysis declares only its {@link TileShape}
 * and what a tile costs ({@link TileAnalysis#bytesPerTile}); the planner aims for about
 * {@value #TILES_PER_SLOT} tiles per slot so that uneven tiles balance, then lowers windows per
 * tile (within the shape's bounds) until a tile fits one slot's share of the budget. When even
 * the smallest tile does not fit a share but fits the whole budget, fewer tiles run at once
 * ({@link TilePlan#concurrentTiles}) rather than the run being refused; it is refused (exit 3,
 * {@link BudgetExceededException}, with the budget that would do) only when one tile alone exceeds
 * the whole budget (DESIGN §3.5).
 */
public final class TilePlanner {
  /** Tiles per parallel slot to aim for (load balance versus per-tile overhead). */
  public static final int TILES_PER_SLOT = 4;

  /**
   * Work per task slot (multiply-adds, {@link TileAnalysis#smallPartialWork}) up to which a run
   * of small partials runs as one task per slot: about a second of one core's fold on today's
   * CPUs. Below it Spark's cost per task (10-20 ms in a fresh JVM) outweighs what more tasks
   * give (balance between slots); a cold one-sample job of 30 x 50,000 x 5,000 spent 0.32-0.35 s
   * in compute as 2 tasks against 0.37-0.43 s as 8 (docs/performance.md, "One task per slot").
   */
  public static final long ONE_TASK_WORK_PER_SLOT = 1L << 34;

  private TilePlanner() {}

  /**
   * Tasks for {@code tiles} tiles on {@code slots} task slots: one per slot for a short run of
   * small partials ({@code smallPartialWork} up to {@link #ONE_TASK_WORK_PER_SLOT} per slot),
   * else {@value #TILES_PER_SLOT} per slot; never more than tiles. Tiles, not tasks, make the
   * outputs: any count gives the same bytes.
   */
  public static int tasks(int tiles, int slots, long smallPartialWork) {
    int s = Math.max(1, slots);
    boolean shortRun = smallPartialWork > 0 && smallPartialWork / s <= ONE_TASK_WORK_PER_SLOT;
    return Math.max(1, Math.min(tiles, (shortRun ? 1 : TILES_PER_SLOT) * s));
  }

  /**
   * Plans {@code analysis} for the budget its scheduler resolved.
   *
   * @param budget memory the tiles running at once may use (a task's or the whole process's)
   * @param parallelism tiles that could run at once (threads or task slots)
   */
  public static TilePlan plan(TileAnalysis analysis, MemoryBudget budget, int parallelism) {
    return plan(analysis, budget, parallelism, parallelism);
  }

  /**
   * Plans {@code analysis} for one executor's budget shared by its task slots.
   *
   * @param budget memory of one process running tiles (an executor, or the local JVM)
   * @param sharers tiles that could run at once in that process (its task slots or threads)
   * @param slots tiles that could run at once over the whole job (for load balance)
   */
  public static TilePlan plan(TileAnalysis analysis, MemoryBudget budget, int sharers,
      int slots) {
    return plan(analysis.shape(budget), analysis::bytesPerTile, analysis.command(), budget,
        sharers, slots);
  }

  /** A resampling job's tiles (the cost of {@link #bytesPerTile}). */
  public static TilePlan plan(JobSpec spec, JobInputs inputs, ResamplingPlan resampling, Grid grid,
      MemoryBudget budget, int parallelism) {
    int tail = tailSize(spec, resampling.replicates());
    return plan(TileShape.windows(grid, inputs.voxels(), resampling.replicates(), tail),
        w -> bytesPerTile(spec, inputs, grid, w, tail), spec.analysis().command(), budget,
        parallelism);
  }

  /**
   * @param bytesPerTile the working set of one tile holding a number of windows
   * @param command the command's name, for the refusal
   */
  public static TilePlan plan(TileShape shape, IntToLongFunction bytesPerTile, String command,
      MemoryBudget budget, int parallelism) {
    return plan(shape, bytesPerTile, command, budget, parallelism, parallelism);
  }

  /**
   * @param budget memory of one process running tiles
   * @param sharers tiles that could run at once in that process
   * @param parallelism tiles that could run at once over the whole job
   */
  static TilePlan plan(TileShape shape, IntToLongFunction bytesPerTile, String command,
      MemoryBudget budget, int sharers, int parallelism) {
    Grid grid = shape.grid();
    int cells = shape.cells();
    long replicates = shape.replicates();
    int blocks = grid.blocks(cells);
    int windows = grid.windows(replicates);
    int slots = Math.max(1, parallelism);
    int wantedTiles = Math.max(blocks, slots * TILES_PER_SLOT);
    int groups = Math.max(1, Math.min(windows, (wantedTiles + blocks - 1) / blocks));
    int perTile = (windows + groups - 1) / groups;
    perTile = Math.max(shape.minWindowsPerTile(), Math.min(shape.maxWindowsPerTile(), perTile));
    long budgetBytes = budget.bytes();
    int ways = Math.max(1, sharers);
    long share = budgetBytes / ways;
    long bytes = bytesPerTile.applyAsLong(perTile);
    while (perTile > shape.minWindowsPerTile() && (bytes > share
        || shape.cellsPerTile(perTile) > shape.maxCellsPerTile())) {
      perTile = Math.max(shape.minWindowsPerTile(), (perTile + 1) / 2);
      bytes = bytesPerTile.applyAsLong(perTile);
    }
    long values = shape.cellsPerTile(perTile);
    int b = Math.min(grid.voxelBlock(), Math.max(1, cells));
    if (values > shape.maxCellsPerTile()) {
      throw new ResourceRefusedException(String.format(Locale.ROOT,
          "Cannot plan tiles: one %s tile of %d cells x %d replicates holds %d values, more than"
              + " the %d one array can hold. Mask to fewer voxels.",
          command, b, (long) perTile * grid.window(), values, shape.maxCellsPerTile()));
    }
    if (bytes > budgetBytes) {
      throw new BudgetExceededException(String.format(Locale.ROOT,
          "Cannot plan tiles: one %s tile of %d cells x %d replicates needs %.3g GB, more than the"
              + " whole %.3g GB budget (%s), even run one at a time.",
          command, b, Math.min(replicates, (long) perTile * grid.window()), bytes / 1e9,
          budget.gb(), budget.source().describe()),
          budget.source() == org.nlspark.core.memory.BudgetSource.EXPLICIT
              ? "Raise --memory-budget-gb to at least " + Gb.atLeast(bytes) + "."
              : "Give the job more memory (its budget must reach " + Gb.atLeast(bytes)
                  + " GB), or mask to fewer voxels.", bytes);
    }
    // Fewer tiles at once where a tile fits the budget but not one slot's share of it.
    int concurrent = (int) Math.max(1, Math.min(ways, budgetBytes / Math.max(1, bytes)));
    return new TilePlan(grid, cells, replicates, perTile, concurrent, bytes, shape.tailSize(),
        budget.gb(), budget.source().describe());
  }

  /**
   * Retained tail size: for the percentile interval (§3.8); for a permutation test with {@code
   * --tail-approximation}, each voxel's largest null keys the fit of its uncorrected p needs
   * ({@link ParetoTail#retainedTailSize}, §4); 0 when none is needed.
   */
  public static int tailSize(JobSpec spec, long replicates) {
    if (spec.analysis() != Analysis.BOOTSTRAP) {
      return spec.tailApproximation() ? ParetoTail.retainedTailSize(replicates) : 0;
    }
    if (spec.ci() != CiMethod.PERCENTILE) {
      return 0;
    }
    return TailSize.retained(replicates, spec.confidence());
  }

  /** Working set of one tile: data block copies, cell buffers, accumulators. */
  public static long bytesPerTile(JobSpec spec, JobInputs inputs, Grid grid, int windowsPerTile,
      int tail) {
    long n = inputs.samples();
    long b = Math.min(grid.voxelBlock(), inputs.voxels());
    long w = grid.window();
    // block copy + up to two transformed copies, and the voxel block itself when the task
    // holds it (data on executors) rather than sharing one copy of the whole inputs
    long data = 3 * n * b * 8 + inputs.blockBytes((int) b);
    long cells = w * n * 8 + 3 * w * b * 8; // draws, two products, statistic buffer
    long acc;
    if (spec.analysis() == Analysis.BOOTSTRAP) {
      acc = 4L * tail * b * 8 + windowsPerTile * b * 24L // tails: two regions of 2k keys
          + (spec.saveSamples() ? windowsPerTile * w * b * 8 : 0);
    } else {
      acc = b * 24 + windowsPerTile * w * 8
          + 2L * tail * b * 8; // null tails (--tail-approximation): a region of 2k keys
    }
    return data + cells + acc;
  }
}
