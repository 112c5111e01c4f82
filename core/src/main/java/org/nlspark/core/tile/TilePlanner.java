package org.nlspark.core.tile;

import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.ResamplingPlan;

/**
 * Sizes tiles from a memory budget and a parallelism (threads, or Spark task slots), never
 * touching the grid. The planner aims for about {@value #TILES_PER_SLOT} tiles per slot so that
 * uneven tiles balance, then lowers windows per tile and tiles at once until the working set fits.
 */
public final class TilePlanner {
  /** Tiles per parallel slot to aim for (load balance versus per-tile overhead). */
  public static final int TILES_PER_SLOT = 4;

  private TilePlanner() {}

  /**
   * @param budget memory the tiles running at once may use (a task's or the whole process's)
   * @param parallelism tiles that could run at once (threads or task slots)
   */
  public static TilePlan plan(JobSpec spec, JobInputs inputs, ResamplingPlan resampling, Grid grid,
      MemoryBudget budget, int parallelism) {
    int voxels = inputs.voxels();
    long replicates = resampling.replicates();
    int blocks = grid.blocks(voxels);
    int windows = grid.windows(replicates);
    int slots = Math.max(1, parallelism);
    int wantedTiles = Math.max(blocks, slots * TILES_PER_SLOT);
    int groups = Math.min(windows, (wantedTiles + blocks - 1) / blocks);
    int perTile = (windows + groups - 1) / groups;
    int tail = tailSize(spec, replicates);
    long budgetBytes = budget.bytes();
    long bytes = bytesPerTile(spec, inputs, grid, perTile, tail);
    while (perTile > 1 && bytes > budgetBytes) {
      perTile = (perTile + 1) / 2;
      bytes = bytesPerTile(spec, inputs, grid, perTile, tail);
    }
    if (bytes > budgetBytes) {
      throw new ResourceRefusedException(String.format(
          "Cannot plan tiles: one tile of %d voxels x %d replicates needs %.3g GB, more than the"
              + " %.3g GB budget (%s). Raise --memory-budget-gb or give the job more memory.",
          grid.voxelBlock(), grid.window(), bytes / 1e9, budget.gb(), budgetSourceLabel(budget)));
    }
    int concurrent = (int) Math.max(1, Math.min(slots, budgetBytes / Math.max(1, bytes)));
    return new TilePlan(grid, voxels, replicates, perTile, concurrent, bytes, tail, budget.gb(),
        budgetSourceLabel(budget));
  }

  /** Retained tail size for the percentile interval (§3.8), 0 when none is needed. */
  public static int tailSize(JobSpec spec, long replicates) {
    if (spec.analysis() != Analysis.BOOTSTRAP || spec.ci() != CiMethod.PERCENTILE) {
      return 0;
    }
    return BootstrapMemory.retainedTailSize(replicates, spec.confidence());
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
      acc = b * 24 + windowsPerTile * w * 8;
    }
    return data + cells + acc;
  }

  /** How summary.json names where a budget came from. */
  public static String budgetSourceLabel(MemoryBudget budget) {
    switch (budget.source()) {
      case EXPLICIT:
        return "--memory-budget-gb";
      case MEASURED_CUDA:
        return "measured free GPU memory x 0.8";
      case MEASURED_SYSTEM:
        return "measured available memory x 0.5, within the JVM heap";
      default:
        return "fallback 4 GB (nothing could be measured)";
    }
  }
}
